import { InvalidInputError } from '../errors.js';
import {
  type HeadersLike,
  type RateLimitFeedback,
  type RateLimitHeaders,
  feedbackFrom,
  headerReader,
  kept,
  toNumber,
} from './feedback.js';

/**
 * The WebSocket API's error codes for a rate limit (R16): spot 211 and 212, futures 311 and 312.
 * They mean what HTTP 429 means on REST (R12).
 *
 * @example
 * ```ts
 * import { WEBSOCKET_RATE_LIMIT_CODES } from 'traderatio'
 *
 * WEBSOCKET_RATE_LIMIT_CODES // { spot: [211, 212], futures: [311, 312] }
 * ```
 */
export const WEBSOCKET_RATE_LIMIT_CODES: Readonly<{ spot: readonly number[]; futures: readonly number[] }> =
  Object.freeze({
    spot: Object.freeze([211, 212]),
    futures: Object.freeze([311, 312]),
  });

const LIMITED = new Set([429, ...WEBSOCKET_RATE_LIMIT_CODES.spot, ...WEBSOCKET_RATE_LIMIT_CODES.futures]);

/**
 * Reads the rate-limit fields of a WebSocket API response's `header` (R16):
 * `x_gate_ratelimit_requests_remain`, `x_gate_ratelimit_limit`, and the reset instant in
 * milliseconds under either spelling the exchange uses (`x_gate_ratelimit_reset_timestamp`, and
 * `x_gat_ratelimit_reset_timestamp` as its table writes it). The exchange hides a field whose value
 * is 0: on a header that carries the limit or the reset instant, a missing
 * `x_gate_ratelimit_requests_remain` therefore reads as 0 requests left. A header with none of
 * them (they come only with order placement and amendment) gives `{}`. A value feedback would
 * refuse (a negative or fractional count, a limit of 0) is left out.
 *
 * @example
 * ```ts
 * import { readWebSocketRateLimit } from 'traderatio'
 *
 * readWebSocketRateLimit({ x_gate_ratelimit_limit: 10, x_gat_ratelimit_reset_timestamp: 1736408263764 }) // { remaining: 0, limit: 10, resetAtMs: 1736408263764 }
 * readWebSocketRateLimit({ status: '200' }) // {}
 * ```
 */
export function readWebSocketRateLimit(header: HeadersLike): RateLimitHeaders {
  const get = headerReader(header);
  // Values feedback would refuse (negative, fractional counts) are left out, as on REST.
  const remaining = kept(toNumber(get('x_gate_ratelimit_requests_remain')), 0);
  const limit = kept(toNumber(get('x_gate_ratelimit_limit')), 1);
  const reset = kept(
    toNumber(get('x_gate_ratelimit_reset_timestamp')) ?? toNumber(get('x_gat_ratelimit_reset_timestamp')),
    0,
    false,
  );
  if (remaining === undefined && limit === undefined && reset === undefined) return {};
  return {
    remaining: remaining ?? 0,
    ...(limit === undefined ? {} : { limit }),
    ...(reset === undefined ? {} : { resetAtMs: reset }),
  };
}

/**
 * Feedback from a WebSocket API response (R16), in the form {@link feedbackFrom} gives for REST
 * (R12), for `Scheduler.feedback`. `response` is the parsed JSON message
 * (`{ header, data: { result | errs } }`). It is `limited` when it carries a rate-limit code (211,
 * 212, 311, 312; or 429) or the label TOO_MANY_REQUESTS or TOO_FAST. The exchange lists the codes
 * without showing where a response carries them, so every place a WebSocket response carries a
 * status or a code is read: `header.status`, `data.errs.code`, `error.code`.
 *
 * @example
 * ```ts
 * import { feedbackFromWebSocket } from 'traderatio'
 *
 * const refused = { header: { status: '311' }, data: { errs: { label: 'TOO_MANY_REQUESTS', message: 'too fast' } } }
 * feedbackFromWebSocket(refused) // { limited: true, label: 'TOO_MANY_REQUESTS' }
 * const placed = { header: { status: '200', x_gate_ratelimit_requests_remain: 9, x_gate_ratelimit_limit: 10 }, data: { result: {} } }
 * feedbackFromWebSocket(placed) // { limited: false, remaining: 9, limit: 10 }
 * ```
 */
export function feedbackFromWebSocket(response: unknown): RateLimitFeedback {
  if (typeof response !== 'object' || response === null || Array.isArray(response)) {
    throw new InvalidInputError('the WebSocket response', response, 'an object (the parsed JSON of a response)');
  }
  const r = response as { header?: unknown; data?: unknown; error?: unknown };
  const header = objectOr(r.header);
  const errs = objectOr(objectOr(r.data)['errs']);
  const error = objectOr(r.error);
  const codes = [header['status'], errs['code'], error['code']].map((c) => toNumber(c));
  const coded = codes.some((c) => c !== undefined && LIMITED.has(c));
  const label = typeof errs['label'] === 'string' ? errs : error;
  return {
    ...feedbackFrom({ status: coded ? 429 : 200, headers: {} }, label),
    ...readWebSocketRateLimit(header as HeadersLike),
  };
}

function objectOr(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
