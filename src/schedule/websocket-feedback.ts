import { InvalidInputError } from '../errors.js';
import {
  type HeadersLike,
  type RateLimitFeedback,
  type RateLimitHeaders,
  type RateLimitSignals,
  headerReader,
  kept,
  labelOf,
  toNumber,
} from './feedback.js';

/**
 * Reads the rate-limit fields `signals` names from a WebSocket API reply's `header`: requests
 * left, the limit, and the reset instant (Unix milliseconds), each under the first of its names
 * found. A header with none of them gives `{}`. Where the exchange leaves out a field whose value
 * is 0 (`hidesZero`), a header that carries the limit or the reset and no requests left reads 0
 * left. A value feedback would refuse (a negative or fractional count, a limit of 0) is left out.
 */
export function webSocketRateLimit(signals: RateLimitSignals, header: HeadersLike): RateLimitHeaders {
  const get = headerReader(header);
  const ws = signals.websocket;
  const first = (names: readonly string[]): number | undefined => {
    for (const name of names) {
      const v = toNumber(get(name));
      if (v !== undefined) return v;
    }
    return undefined;
  };
  const remaining = kept(first(ws.remaining), 0);
  const limit = kept(first(ws.limit), 1);
  const reset = kept(first(ws.reset), 0, false);
  if (remaining === undefined && limit === undefined && reset === undefined) return {};
  return {
    ...(remaining === undefined ? (ws.hidesZero ? { remaining: 0 } : {}) : { remaining }),
    ...(limit === undefined ? {} : { limit }),
    ...(reset === undefined ? {} : { resetAtMs: reset }),
  };
}

/**
 * Feedback from a WebSocket API reply (`{ header, data: { result | errs } }`, parsed), in the form a
 * REST answer gives it: `limited` when the reply carries a code `signals` names as refusing a
 * request for its rate, or such a label. Every place a reply carries a status or a code is read:
 * `header.status`, `data.errs.code`, `error.code`. A reply that is not an object is an
 * {@link InvalidInputError}.
 */
export function webSocketFeedback(signals: RateLimitSignals, reply: unknown): RateLimitFeedback {
  if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) {
    throw new InvalidInputError('the WebSocket response', reply, 'an object (the parsed JSON of a response)');
  }
  const r = reply as { header?: unknown; data?: unknown; error?: unknown };
  const header = objectOr(r.header);
  const coded = replyCodes(reply).some((c) => signals.websocket.limitedCodes.includes(c));
  const errs = objectOr(objectOr(r.data)['errs']);
  const label = labelOf(typeof errs['label'] === 'string' ? errs : r.error);
  const limited = coded || (label !== undefined && signals.limitedLabels.includes(label));
  return {
    limited,
    ...(label === undefined ? {} : { label }),
    ...webSocketRateLimit(signals, header as HeadersLike),
  };
}

/** The codes a WebSocket reply carries, as numbers: `header.status`, `data.errs.code`, `error.code`. */
export function replyCodes(reply: unknown): number[] {
  const r = objectOr(reply);
  const codes: number[] = [];
  for (const c of [
    objectOr(r['header'])['status'],
    objectOr(objectOr(r['data'])['errs'])['code'],
    objectOr(r['error'])['code'],
  ]) {
    const n = toNumber(c);
    if (n !== undefined) codes.push(n);
  }
  return codes;
}

function objectOr(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
