import { InvalidInputError } from '../errors.js';
import { isPositiveInteger } from '../internal/parse.js';

/**
 * What the exchange says back about a limit (see docs/rules.md#r12), as the scheduler takes it
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
 * The rate-limit headers (see docs/rules.md#r12) read from a response: every field is absent when its header is.
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

/**
 * How an exchange says that a request was refused for its rate, and what its answers say about a
 * limit: a plain value the readers here take ({@link rateLimitHeaders}, {@link restFeedback},
 * `webSocketFeedback`), so that each exchange gives its own (Gate's: `GATE_RATE_LIMIT_SIGNALS`).
 * Names are matched case-insensitively.
 */
export interface RateLimitSignals {
  /** The REST answer's headers: each name is read under every prefix, the first found kept. */
  readonly headers: {
    readonly prefixes: readonly string[];
    /** Requests left for the endpoint. */
    readonly remaining: string;
    /** The limit the exchange applies now. */
    readonly limit: string;
    /** When an exceeded limit resets, Unix seconds. */
    readonly reset: string;
  };
  /** The HTTP statuses that refuse a request for its rate. */
  readonly limitedStatuses: readonly number[];
  /** The labels of an error body (`{ label, message }`) that refuse a request for its rate. */
  readonly limitedLabels: readonly string[];
  /** The WebSocket API's replies. */
  readonly websocket: {
    /** The fields of a reply's `header`: requests left, the limit, the reset (Unix milliseconds); each the first found. */
    readonly remaining: readonly string[];
    readonly limit: readonly string[];
    readonly reset: readonly string[];
    /** The exchange leaves out a field whose value is 0: a header with the limit or reset and no requests left reads 0. */
    readonly hidesZero: boolean;
    /** The codes (`header.status`, `data.errs.code`, `error.code`) that refuse a request for its rate. */
    readonly limitedCodes: readonly number[];
    /** Of those, the codes that speak of the limits whose N is the tier, and those that speak of the others. */
    readonly tierCodes: readonly number[];
    readonly otherCodes: readonly number[];
  };
}

/**
 * Reads the rate-limit headers `signals` names from a REST answer, case-insensitively, and a
 * standard `Retry-After` (seconds). Values that are not numbers, or that {@link readFeedback} would
 * refuse (a negative or fractional count, a negative time), are left out.
 */
export function rateLimitHeaders(signals: RateLimitSignals, headers: HeadersLike): RateLimitHeaders {
  const get = headerReader(headers);
  const { prefixes } = signals.headers;
  const remaining = kept(prefixed(get, prefixes, signals.headers.remaining), 0);
  const limit = kept(prefixed(get, prefixes, signals.headers.limit), 1);
  const reset = kept(prefixed(get, prefixes, signals.headers.reset), 0, false);
  const retry = kept(toNumber(get('retry-after')), 0, false);
  return {
    ...(remaining === undefined ? {} : { remaining }),
    ...(limit === undefined ? {} : { limit }),
    ...(reset === undefined ? {} : { resetAtMs: reset * 1000 }),
    ...(retry === undefined ? {} : { retryAfterMs: retry * 1000 }),
  };
}

/**
 * Feedback from a REST answer: its status, its rate-limit headers and, when given, its parsed error
 * body `{ label, message }`, as `signals` reads them: `limited` when the status or the label is one
 * of those that refuse a request for its rate.
 */
export function restFeedback(
  signals: RateLimitSignals,
  response: { readonly status: number; readonly headers: HeadersLike },
  body?: unknown,
): RateLimitFeedback {
  const label = labelOf(body);
  const limited =
    signals.limitedStatuses.includes(response.status) || (label !== undefined && signals.limitedLabels.includes(label));
  return { limited, ...(label === undefined ? {} : { label }), ...rateLimitHeaders(signals, response.headers) };
}

/** The `label` of an error body `{ label, message }`, if it has one. */
export function labelOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null && typeof (body as { label?: unknown }).label === 'string'
    ? (body as { label: string }).label
    : undefined;
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

/** The first of `prefixes` + `name` that holds a number. */
function prefixed(get: (name: string) => unknown, prefixes: readonly string[], name: string): number | undefined {
  for (const prefix of prefixes) {
    const v = toNumber(get(prefix + name));
    if (v !== undefined) return v;
  }
  return undefined;
}

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
