import { InvalidInputError } from '../errors.js';
import type { AccountLimiter } from '../account/limiter.js';
import type { Classification } from '../catalog/catalog.js';
import { jsonBody } from '../catalog/json-body.js';
import { feedbackFrom } from '../schedule/feedback.js';

/** A `fetch`. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Options of limitedFetch. */
export interface LimitedFetchOptions {
  /** The account. */
  readonly account: string;
  /** The `fetch` that sends. @default globalThis.fetch */
  readonly fetch?: FetchFunction;
}

/** `RequestInit` and options of `AccountLimiter.request`. */
export interface LimitedRequestInit extends RequestInit {
  readonly deadline?: number;
  readonly contract?: string;
  readonly priority?: number;
}

/** What {@link limitedFetch} returns. */
export type LimitedFetch = (input: string | URL | Request, init?: LimitedRequestInit) => Promise<Response>;

// The endpoints that take the deadline header (the description's section 1, which writes it
// x-service-exptime: its prefix for the exchange's x-gate-, as in R12), in Unix milliseconds.
const EXPIRY = 'x-gate-exptime';
const EXPIRING = new Set(['POST /futures/{settle}/orders', 'POST /spot/batch_orders']);
const API_PREFIX = '/api/v4/';

/**
 * Wraps `fetch`: each request to the API v4 (any host; the path from `/api/v4/` on) is classified
 * with its JSON body (R10), waits on its limits, counts when sent; its response's gateway times
 * go to `limiter.arrived` (R13, R15), its rate-limit headers and 429 to `limiter.feedback` (R12),
 * an error body read from a clone; `deadline` goes
 * to the exchange where accepted. A URL outside the API rejects with an `InvalidInputError`, unsent.
 *
 * @example
 * ```ts
 * const res = await limitedFetch(limiter, { account: 'main' })(url, { method: 'POST', headers, body })
 * ```
 */
export function limitedFetch(limiter: AccountLimiter, options: LimitedFetchOptions): LimitedFetch {
  // Checked by shape, not class: a limiter from the CommonJS build works with this ES module too.
  if (typeof (limiter as Partial<AccountLimiter> | null)?.feedback !== 'function') throw new InvalidInputError('the limiter', limiter, 'an AccountLimiter');
  if (typeof options !== 'object' || options === null) throw new InvalidInputError('the options', options, 'an object');
  const { account } = options;
  limiter.limitNow(account);
  const send = options.fetch ?? (globalThis as { fetch?: FetchFunction }).fetch;
  if (typeof send !== 'function') throw new InvalidInputError('`fetch`', options.fetch, 'a fetch function');
  const clock = limiter.scheduler.clock;

  return async (input, init = {}) => {
    const request = input instanceof Request ? input : undefined;
    const method = (init.method ?? request?.method ?? 'GET').toUpperCase();
    const path = apiPath(request?.url ?? (input as string | URL));
    const body = jsonBody(init.body ?? (request === undefined || request.body === null ? undefined : await request.clone().text()));
    const { deadline, contract, priority, ...fetchInit } = init;
    const c: Classification = limiter.catalog.classify(method, path, body);
    const signal = init.signal ?? request?.signal ?? undefined;
    let sentAt = 0;
    let sentMono = 0;
    const response = await limiter.request(account, method, path, () => {
      sentMono = clock.now();
      sentAt = clock.wall();
      if (deadline === undefined || !EXPIRING.has(`${c.method} ${c.endpoint}`)) return send(input, fetchInit);
      const headers = new Headers(fetchInit.headers ?? request?.headers);
      // The deadline on the exchange's clock, as far as the wall clock tells it.
      if (!headers.has(EXPIRY)) headers.set(EXPIRY, String(Math.floor(sentAt + (deadline - sentMono))));
      return send(input, { ...fetchInit, headers });
    }, {
      body,
      ...(contract === undefined ? {} : { contract }),
      ...(priority === undefined ? {} : { priority }),
      ...(signal === undefined ? {} : { signal }),
      ...(deadline === undefined ? {} : { deadline }),
    });
    // When the exchange began to count it (R13) and the exchange's clock (R15), from X-In-Time.
    limiter.arrived(account, c, { sentAt, sentMono, receivedAt: clock.wall(), receivedMono: clock.now(), headers: response.headers });
    const error = response.ok ? undefined : await response.clone().json().catch(() => undefined);
    limiter.feedback(account, c, feedbackFrom(response, error));
    return response;
  };
}

/** The API path of a URL: from `/api/v4/` on (a proxy may put a prefix before it), without the query. */
function apiPath(input: string | URL): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new InvalidInputError('the URL', input, 'an absolute URL');
  }
  const at = url.pathname.indexOf(API_PREFIX);
  return at < 0 ? url.pathname : url.pathname.slice(at);
}
