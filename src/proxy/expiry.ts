import type { ClockEstimate } from '../rules/exchange-clock.js';

/** How far a signed request's `Timestamp` may lag the exchange's clock (see docs/rules.md#r11), in milliseconds. */
export const SIGNATURE_VALIDITY_MS = 60_000;

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
 * The timing of a request whose `Timestamp` header is `timestamp` (Unix seconds, fractions
 * allowed), at `wallNow` on this machine, given the estimate of the exchange's clock (`null`
 * before any answer: the machine's clock, its error unknown). `undefined` when the request carries
 * no Timestamp that is a number of seconds: the exchange answers for that itself.
 */
export function signatureTiming(
  timestamp: string | readonly string[] | undefined,
  estimate: ClockEstimate | null,
  wallNow: number,
): SignatureTiming | undefined {
  const text = Array.isArray(timestamp) ? timestamp[0] : timestamp;
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  const offsetMs = estimate?.offsetMs ?? 0;
  const errorMs = estimate?.errorMs ?? 0;
  const earliest = (wallNow + offsetMs - errorMs) / 1000;
  const latest = (wallNow + offsetMs + errorMs) / 1000;
  // Too old at the earliest the exchange's clock can be, or too far ahead at its latest: refused for sure.
  const limit = SIGNATURE_VALIDITY_MS / 1000;
  if (earliest - seconds > limit || seconds - latest > limit) {
    const age = (wallNow + offsetMs) / 1000 - seconds;
    const clock =
      estimate === null
        ? "the machine's clock (no answer of the exchange has told its clock yet)"
        : `the exchange's clock as estimated from its answers, ±${(errorMs / 1000).toFixed(3)} s`;
    const said = age >= 0 ? `${age.toFixed(1)} s old` : `${(-age).toFixed(1)} s ahead`;
    return {
      ok: false,
      message: `the signature's Timestamp ${text} is ${said} on ${clock}; the exchange allows ${SIGNATURE_VALIDITY_MS / 1000} s either way (REQUEST_EXPIRED at the exchange)`,
    };
  }
  return { ok: true, remainingMs: seconds * 1000 + SIGNATURE_VALIDITY_MS - wallNow - offsetMs - errorMs };
}
