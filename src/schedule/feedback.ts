import { InvalidInputError } from '../errors.js';
import { isPositiveInteger } from '../internal/parse.js';

/**
 * What the exchange says back about a limit (R12), as the scheduler takes it
 * ({@link Scheduler.feedback}).
 *
 * @example
 * ```ts
 * import { type RateLimitFeedback, feedbackFrom } from 'traderatio'
 *
 * const feedback: RateLimitFeedback = feedbackFrom({ status: 429, headers: { 'Retry-After': '2' } })
 * feedback // { limited: true, retryAfterMs: 2000 }
 * ```
 */
export interface RateLimitFeedback {
  /** The request was refused for its rate: HTTP 429, label TOO_MANY_REQUESTS or TOO_FAST. */
  readonly limited: boolean;
  /** The exchange's label, when the body had one. */
  readonly label?: string;
  /** `…-Requests-Remain`: requests left for this endpoint. */
  readonly remaining?: number;
  /** `…-Limit`: the limit the exchange applies now. */
  readonly limit?: number;
  /** `…-Reset-Timestamp`, as Unix epoch milliseconds: when an exceeded limit resets. */
  readonly resetAtMs?: number;
  /** A standard `Retry-After` header, in milliseconds. */
  readonly retryAfterMs?: number;
}

/**
 * The headers of R12 read from a response: every field is absent when its header is.
 *
 * @example
 * ```ts
 * import { type RateLimitHeaders, readRateLimitHeaders } from 'traderatio'
 *
 * const read: RateLimitHeaders = readRateLimitHeaders({ 'X-Gate-RateLimit-Limit': '10' })
 * read // { limit: 10 }
 * ```
 */
export interface RateLimitHeaders {
  readonly remaining?: number;
  readonly limit?: number;
  readonly resetAtMs?: number;
  readonly retryAfterMs?: number;
}

/**
 * Anything that holds headers: fetch's `Headers`, Node's incoming headers, a Map or a plain object.
 *
 * @example
 * ```ts
 * import { type HeadersLike, readRateLimitHeaders } from 'traderatio'
 *
 * const headers: HeadersLike = new Headers({ 'X-Service-RateLimit-Requests-Remain': '7' })
 * readRateLimitHeaders(headers) // { remaining: 7 }
 * ```
 */
export type HeadersLike =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | number | undefined>>;

const PREFIXES = ['x-gate-ratelimit-', 'x-service-ratelimit-'];

/**
 * Reads the rate-limit headers of R12, case-insensitively, under either prefix the exchange uses
 * (`X-Gate-RateLimit-…` and `X-Service-RateLimit-…`): `Requests-Remain`, `Limit` and
 * `Reset-Timestamp` (Unix seconds), and `Retry-After` (seconds). Values that are not numbers, or
 * that {@link readFeedback} would refuse (a negative or fractional count, a negative time), are
 * left out.
 *
 * @example
 * ```ts
 * import { readRateLimitHeaders } from 'traderatio'
 *
 * readRateLimitHeaders({ 'x-gate-ratelimit-requests-remain': '3', 'x-gate-ratelimit-reset-timestamp': '1795219200' }) // { remaining: 3, resetAtMs: 1795219200000 }
 * ```
 */
export function readRateLimitHeaders(headers: HeadersLike): RateLimitHeaders {
  const get = headerReader(headers);
  const remaining = kept(number(get, 'requests-remain'), 0);
  const limit = kept(number(get, 'limit'), 1);
  const reset = kept(number(get, 'reset-timestamp'), 0, false);
  const retry = kept(toNumber(get('retry-after')), 0, false);
  return {
    ...(remaining === undefined ? {} : { remaining }),
    ...(limit === undefined ? {} : { limit }),
    ...(reset === undefined ? {} : { resetAtMs: reset * 1000 }),
    ...(retry === undefined ? {} : { retryAfterMs: retry * 1000 }),
  };
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
  const label =
    typeof body === 'object' && body !== null && typeof (body as { label?: unknown }).label === 'string'
      ? (body as { label: string }).label
      : undefined;
  const limited = response.status === 429 || label === 'TOO_MANY_REQUESTS' || label === 'TOO_FAST';
  return { limited, ...(label === undefined ? {} : { label }), ...readRateLimitHeaders(response.headers) };
}

/**
 * Checks feedback before anything is applied: an object whose `limited` is a boolean, `label` a
 * string, `remaining` a non-negative integer, `limit` a positive integer, and `resetAtMs` and
 * `retryAfterMs` non-negative finite numbers, each when present. A bad field is an
 * {@link InvalidInputError} naming it.
 */
export function readFeedback(value: unknown): RateLimitFeedback {
  if (typeof value !== 'object' || value === null) {
    throw new InvalidInputError(
      'the feedback',
      value,
      'an object { limited, label?, remaining?, limit?, resetAtMs?, retryAfterMs? }',
    );
  }
  const f = value as { readonly [K in keyof RateLimitFeedback]?: unknown };
  if (typeof f.limited !== 'boolean') throw new InvalidInputError('`feedback.limited`', f.limited, 'true or false');
  if (f.label !== undefined && typeof f.label !== 'string')
    throw new InvalidInputError('`feedback.label`', f.label, 'a string');
  if (
    f.remaining !== undefined &&
    (typeof f.remaining !== 'number' || !Number.isSafeInteger(f.remaining) || f.remaining < 0)
  ) {
    throw new InvalidInputError('`feedback.remaining`', f.remaining, 'a non-negative integer');
  }
  if (f.limit !== undefined && !isPositiveInteger(f.limit)) {
    throw new InvalidInputError('`feedback.limit`', f.limit, 'a positive integer');
  }
  for (const key of ['resetAtMs', 'retryAfterMs'] as const) {
    const v = f[key];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
      throw new InvalidInputError(`\`feedback.${key}\``, v, 'a non-negative finite number of milliseconds');
    }
  }
  return value as RateLimitFeedback;
}

/** A case-insensitive getter over any {@link HeadersLike}. */
export function headerReader(headers: HeadersLike): (name: string) => unknown {
  if (headers instanceof Map) {
    const lower = new Map<string, unknown>();
    for (const [k, v] of headers as Map<string, unknown>) lower.set(String(k).toLowerCase(), v);
    return (name) => lower.get(name);
  }
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const h = headers as { get(name: string): string | null | undefined };
    return (name) => h.get(name) ?? undefined;
  }
  const lower = new Map<string, unknown>();
  for (const [k, v] of Object.entries(headers)) lower.set(k.toLowerCase(), v);
  return (name) => lower.get(name);
}

function number(get: (name: string) => unknown, suffix: string): number | undefined {
  for (const prefix of PREFIXES) {
    const v = toNumber(get(prefix + suffix));
    if (v !== undefined) return v;
  }
  return undefined;
}

/** `value` when it is at least `least` (and an integer, for a count), else `undefined`. */
/** A header value kept only when feedback would take it: at least `least`, and whole when a count. */
export function kept(value: number | undefined, least: number, count = true): number | undefined {
  return value !== undefined && value >= least && (!count || Number.isSafeInteger(value)) ? value : undefined;
}

/** A header value as a finite number (the first of a repeated header), or `undefined`. */
export function toNumber(value: unknown): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}
