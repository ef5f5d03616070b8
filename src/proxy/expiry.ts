import type { ClockEstimate } from '../rules/exchange-clock.js';
import { OKX_SIGNATURE_WINDOW_MS, readOkxTimestamp } from '../rules/okx/signature-time.js';

/** How far a signed request's `Timestamp` may lag the exchange's clock (see docs/rules.md#r11), in milliseconds. */
export const SIGNATURE_VALIDITY_MS = 60_000;

/**
 * An exchange's rule for the time a request is signed at: the header that carries it, how its
 * text reads as an instant, how far it may be from the exchange's clock either way, and what the
 * exchange answers past that.
 */
export interface SignatureRule {
  /** The header as the exchange's documents write it: `Timestamp`. */
  readonly header: string;
  /** The instant the header's text names (epoch ms), or undefined when it names none. */
  parse(text: string): number | undefined;
  readonly validityMs: number;
  /** What the exchange answers a request signed too long ago: `REQUEST_EXPIRED`. */
  readonly refusedAs: string;
}

/** Gate's: `Timestamp` in Unix seconds (fractions allowed), 60 s either way (see docs/rules.md#r11). */
export const GATE_SIGNATURE: SignatureRule = {
  header: 'Timestamp',
  parse: (text) => {
    const seconds = Number(text);
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
  },
  validityMs: SIGNATURE_VALIDITY_MS,
  refusedAs: 'REQUEST_EXPIRED',
};

/** OKX's: `OK-ACCESS-TIMESTAMP` in ISO 8601 UTC with milliseconds, 30 s either way (see docs/okx.md#o10). */
export const OKX_SIGNATURE: SignatureRule = {
  header: 'OK-ACCESS-TIMESTAMP',
  parse: readOkxTimestamp,
  validityMs: OKX_SIGNATURE_WINDOW_MS,
  refusedAs: '50102',
};

/**
 * What a signed request's `Timestamp` leaves it, on the exchange's clock as estimated (see docs/rules.md#r15):
 * refused (`ok: false`) only when the exchange would refuse it for sure, that is when its check of
 * The signature's time rule (see docs/rules.md#r11; within 60 s of the exchange's time, as `checkTimestamp` of traderatio/catalog has it) fails at every instant the estimate allows, with a
 * message that gives the Timestamp's age, the uncertainty and the limit; else how long it may still
 * wait before it reaches the exchange (`remainingMs`, against the exchange's clock at its latest).
 */
export type SignatureTiming =
  | { readonly ok: true; readonly remainingMs: number }
  | { readonly ok: false; readonly message: string };

/**
 * The timing of a request whose time header (`Timestamp`, under `rule`) is `timestamp`, at
 * `wallNow` on this machine, given the estimate of the exchange's clock (`null` before any
 * answer: the machine's clock, its error unknown). `undefined` when the request carries no time
 * the rule reads: the exchange answers for that itself.
 */
export function signatureTiming(
  timestamp: string | readonly string[] | undefined,
  estimate: ClockEstimate | null,
  wallNow: number,
  rule: SignatureRule = GATE_SIGNATURE,
): SignatureTiming | undefined {
  const text = Array.isArray(timestamp) ? timestamp[0] : timestamp;
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const signedAt = rule.parse(text);
  if (signedAt === undefined) return undefined;
  const offsetMs = estimate?.offsetMs ?? 0;
  const errorMs = estimate?.errorMs ?? 0;
  const earliest = wallNow + offsetMs - errorMs;
  const latest = wallNow + offsetMs + errorMs;
  // Too old at the earliest the exchange's clock can be, or too far ahead at its latest: refused for sure.
  const limit = rule.validityMs;
  if (earliest - signedAt > limit || signedAt - latest > limit) {
    const age = (wallNow + offsetMs - signedAt) / 1000;
    const clock =
      estimate === null
        ? "the machine's clock (no answer of the exchange has told its clock yet)"
        : `the exchange's clock as estimated from its answers, ±${(errorMs / 1000).toFixed(3)} s`;
    const said = age >= 0 ? `${age.toFixed(1)} s old` : `${(-age).toFixed(1)} s ahead`;
    return {
      ok: false,
      message: `the signature's ${rule.header} ${text} is ${said} on ${clock}; the exchange allows ${limit / 1000} s either way (${rule.refusedAs} at the exchange)`,
    };
  }
  return { ok: true, remainingMs: signedAt + limit - wallNow - offsetMs - errorMs };
}
