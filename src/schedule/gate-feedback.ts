// Gate's rate-limit signals (see docs/rules.md#r12, #r16) as one plain value, and the readers of its answers that
// the package has always exported, bound to it. The readers themselves know no exchange
// (feedback.ts, websocket-feedback.ts).
import {
  type HeadersLike,
  type RateLimitFeedback,
  type RateLimitHeaders,
  type RateLimitSignals,
  rateLimitHeaders,
  restFeedback,
} from './feedback.js';
import { webSocketFeedback, webSocketRateLimit } from './websocket-feedback.js';

// The WebSocket API's codes for a rate limit (see docs/rules.md#r16): spot 211 and 212, futures 311 and 312; 312 is
// the fill-ratio limit (the tier's), 311 a per-endpoint one.
const SPOT_CODES = Object.freeze([211, 212]);
const FUTURES_CODES = Object.freeze([311, 312]);

/**
 * How Gate says a request was refused for its rate and what its answers say of a limit: HTTP 429
 * or the labels TOO_MANY_REQUESTS and TOO_FAST (see docs/rules.md#r12); the headers `X-Gate-RateLimit-…`, or
 * `X-Service-RateLimit-…` as the interface description writes them, `Requests-Remain`, `Limit`
 * and `Reset-Timestamp` (Unix seconds); the WebSocket API's fields `x_gate_ratelimit_…` (its reset
 * in milliseconds, also spelt `x_gat_ratelimit_reset_timestamp`), hidden when 0, and its codes 211,
 * 212, 311 and 312 (see docs/rules.md#r16).
 */
export const GATE_RATE_LIMIT_SIGNALS: RateLimitSignals = Object.freeze({
  headers: Object.freeze({
    prefixes: Object.freeze(['x-gate-ratelimit-', 'x-service-ratelimit-']),
    remaining: 'requests-remain',
    limit: 'limit',
    reset: 'reset-timestamp',
  }),
  limitedStatuses: Object.freeze([429]),
  limitedLabels: Object.freeze(['TOO_MANY_REQUESTS', 'TOO_FAST']),
  websocket: Object.freeze({
    remaining: Object.freeze(['x_gate_ratelimit_requests_remain']),
    limit: Object.freeze(['x_gate_ratelimit_limit']),
    reset: Object.freeze(['x_gate_ratelimit_reset_timestamp', 'x_gat_ratelimit_reset_timestamp']),
    hidesZero: true,
    limitedCodes: Object.freeze([429, ...SPOT_CODES, ...FUTURES_CODES]),
    tierCodes: Object.freeze([312]),
    otherCodes: Object.freeze([311]),
  }),
});

/**
 * The WebSocket API's error codes for a rate limit (see docs/rules.md#r16): spot 211 and 212, futures 311 and 312.
 * They mean what HTTP 429 means on REST (see docs/rules.md#r12).
 *
 * @example
 * ```ts
 * import { WEBSOCKET_RATE_LIMIT_CODES } from 'traderatio'
 *
 * WEBSOCKET_RATE_LIMIT_CODES // { spot: [211, 212], futures: [311, 312] }
 * ```
 */
export const WEBSOCKET_RATE_LIMIT_CODES: Readonly<{ spot: readonly number[]; futures: readonly number[] }> =
  Object.freeze({ spot: SPOT_CODES, futures: FUTURES_CODES });

/**
 * Reads the rate-limit headers (see docs/rules.md#r12), case-insensitively, under either prefix the exchange uses
 * (`X-Gate-RateLimit-…` and `X-Service-RateLimit-…`): `Requests-Remain`, `Limit` and
 * `Reset-Timestamp` (Unix seconds), and `Retry-After` (seconds). Values that are not numbers, or
 * that feedback would refuse (a negative or fractional count, a negative time), are left out.
 *
 * @example
 * ```ts
 * import { readRateLimitHeaders } from 'traderatio'
 *
 * readRateLimitHeaders({ 'x-gate-ratelimit-requests-remain': '3', 'x-gate-ratelimit-reset-timestamp': '1795219200' }) // { remaining: 3, resetAtMs: 1795219200000 }
 * ```
 */
export function readRateLimitHeaders(headers: HeadersLike): RateLimitHeaders {
  return rateLimitHeaders(GATE_RATE_LIMIT_SIGNALS, headers);
}

/**
 * Feedback from a response: its status, its rate-limit headers and, when given, its parsed error
 * body `{ label, message }`. A 429, or a body labelled TOO_MANY_REQUESTS or TOO_FAST, is `limited`.
 *
 * @example
 * ```ts
 * import { feedbackFrom } from 'traderatio'
 *
 * const response = new Response('{"label":"TOO_MANY_REQUESTS"}', { status: 429, headers: { 'X-Gate-RateLimit-Limit': '10' } })
 * feedbackFrom(response, await response.clone().json()) // { limited: true, label: 'TOO_MANY_REQUESTS', limit: 10 }
 * ```
 */
export function feedbackFrom(
  response: { readonly status: number; readonly headers: HeadersLike },
  body?: unknown,
): RateLimitFeedback {
  return restFeedback(GATE_RATE_LIMIT_SIGNALS, response, body);
}

/**
 * Reads the rate-limit fields of a WebSocket API response's `header` (see docs/rules.md#r16):
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
  return webSocketRateLimit(GATE_RATE_LIMIT_SIGNALS, header);
}

/**
 * Feedback from a WebSocket API response (see docs/rules.md#r16), in the form {@link feedbackFrom} gives for REST
 * (see docs/rules.md#r12), for `Scheduler.feedback`. `response` is the parsed JSON message
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
  return webSocketFeedback(GATE_RATE_LIMIT_SIGNALS, response);
}
