import { InvalidInputError, isRefusedError } from '../errors.js';
import type { AccountLimiter } from '../account/limiter.js';
import type { LimiterExchange } from '../account/limiter-options.js';
import { jsonBody } from '../catalog/json-body.js';
import { type ContractSource, readFillsPoll } from '../account/answer-fills.js';
import type { SendFailure } from '../account/round-trip.js';
import { askRateLimit } from '../account/ask-rate-limit.js';
import { every } from '../account/timers.js';
import { checkFields } from '../internal/parse.js';

/**
 * A `fetch`: the one that sends, where a request is signed (after its wait, so its `Timestamp`
 * is fresh).
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 * import { type FetchFunction, limitedFetch } from 'traderatio/fetch'
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0 })
 * // Against the exchange, this is where the request is signed (KEY, Timestamp, SIGN).
 * const signed: FetchFunction = (input, init) => {
 *   const headers = new Headers(init?.headers)
 *   headers.set('KEY', 'main-key')
 *   return fetch(input, { ...init, headers })
 * }
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const gate = limitedFetch(limiter, { account: 'main', fetch: signed })
 * const res = await gate(`${exchange.url}/api/v4/futures/usdt/orders?contract=BTC_USDT&status=open`)
 * res.status // 200
 * await res.json() // []
 * limiter.close()
 * await exchange.close()
 * ```
 */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Options of {@link limitedFetch}: the account the requests are sent as, the `fetch` that sends
 * them, whether the exchange's own figure for the tier is asked first, and a poll of fills.
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 * import { type LimitedFetchOptions, limitedFetch } from 'traderatio/fetch'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }, { id: 'sub1' }] })
 * const sent: string[] = []
 * const options: LimitedFetchOptions = {
 *   account: 'sub1',
 *   fetch: async (input) => {
 *     sent.push(String(input))
 *     // The exchange reports tier 5 for the account (see docs/rules.md#r16).
 *     if (String(input).endsWith('/account/rate_limit')) return Response.json([{ type: 'futures', tier: '5', ratio: '10.5', main_ratio: '10.5', updated_at: String(Math.floor(Date.now() / 1000)) }])
 *     return Response.json([])
 *   },
 * }
 * const gate = limitedFetch(limiter, options)
 * await gate('https://api.gateio.ws/api/v4/spot/open_orders')
 * sent // ['https://api.gateio.ws/api/v4/account/rate_limit', 'https://api.gateio.ws/api/v4/spot/open_orders']
 * limiter.limitNow('sub1').limit // 300
 * // Without the ask: the first request goes first.
 * const quiet = limitedFetch(limiter, { ...options, account: 'main', askRateLimit: false })
 * await quiet('https://api.gateio.ws/api/v4/spot/open_orders')
 * sent.length // 3
 * limiter.close()
 * ```
 */
export interface LimitedFetchOptions {
  /** The account. */
  readonly account: string;
  /** The `fetch` that sends. @default globalThis.fetch */
  readonly fetch?: FetchFunction;
  /**
   * Ask the exchange's own figure, GET /account/rate_limit (see docs/rules.md#r16; on OKX GET
   * /api/v5/trade/account-rate-limit, docs/okx.md#o9), through `fetch` at the host of the first
   * request, before that request goes: requests wait for its answer. A 404 or a refusal
   * marks it not open, and the headers of placements' answers take over.
   * @default true
   */
  readonly askRateLimit?: boolean;
  /**
   * Poll the account's fills every `everyMs` milliseconds (futures `usdt` and spot `my_trades`,
   * through `fetch` at the host of the first request), for engines that never ask for them: each
   * answer's fills are recorded as every `my_trades` answer's are. Off by default. Not on a
   * limiter of OKX, which takes fills from `limiter.recordFill`.
   */
  readonly fills?: { readonly everyMs: number };
}

/**
 * `RequestInit` and options of `AccountLimiter.request`: `deadline` (an instant on the limiter's
 * clock by which the request must have been sent, also sent to the exchange on placements as
 * `x-gate-exptime`), `contract` (of a cancel by id, whose path names none) and `queuePriority`
 * (the limiter's `priority`; `fetch`'s own `priority` hint is passed on).
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 * import { limitedFetch } from 'traderatio/fetch'
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * // The model and the limiter on one clock that the example moves.
 * const clock = new VirtualClock({ wallStart: Date.now() })
 * const exchange = await startModelExchange({ port: 0, clock })
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock })
 * const gate = limitedFetch(limiter, { account: 'main' })
 * const orders = `${exchange.url}/api/v4/futures/usdt/orders`
 * const order = { method: 'POST', headers: { KEY: 'main-key' }, body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' }) }
 *
 * // Tier 1: 100 placements a second. The 101st cannot leave within 500 ms: refused, never sent.
 * const placed = await Promise.all(Array.from({ length: 100 }, () => gate(orders, order)))
 * const late = gate(orders, { ...order, deadline: clock.now() + 500 }).catch((e) => e.code)
 * // A cancel names its contract (its path does not), and does not wait behind placements.
 * const { id } = await placed[0]!.json()
 * const cancel = await gate(`${orders}/${id}`, { method: 'DELETE', headers: { KEY: 'main-key' }, contract: 'BTC_USDT', queuePriority: 10 })
 * cancel.status // 200
 * await clock.advance(1_000)
 * await late // 'REFUSED_DEADLINE'
 * exchange.stats().accounts[0]?.refused // {}
 * limiter.close()
 * await exchange.close()
 * ```
 */
export interface LimitedRequestInit extends RequestInit {
  readonly deadline?: number;
  readonly contract?: string;
  /**
   * The limiter's priority of the request (higher goes first; cancels default to a higher one than
   * placements). Not `priority`, which is `fetch`'s own (`'high' | 'low' | 'auto'`) and passed on
   * as given.
   */
  readonly queuePriority?: number;
}

/**
 * What {@link limitedFetch} returns: `fetch`'s signature, with the options of
 * {@link LimitedRequestInit}. A URL outside the API v4 rejects, unsent.
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 * import { type LimitedFetch, limitedFetch } from 'traderatio/fetch'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const gate: LimitedFetch = limitedFetch(limiter, { account: 'main', fetch: async () => Response.json({}) })
 * await gate('https://example.com/index.html').catch((e) => e.code) // 'INVALID_INPUT'
 * await gate('not a url').catch((e) => e.message) // 'Expected the URL to be an absolute URL, got "not a url"'
 * limiter.close()
 * ```
 */
export type LimitedFetch = (input: string | URL | Request, init?: LimitedRequestInit) => Promise<Response>;

// The endpoints that take the deadline header (the description's section 1, which writes it
// x-service-exptime: its prefix for the exchange's x-gate-, as in docs/rules.md#r12), in Unix milliseconds.
const EXPIRY = 'x-gate-exptime';

/**
 * What the wrapper knows of each exchange's API: where its paths begin, the endpoints it asks
 * itself (under the API's base), and which take the deadline header.
 */
interface FetchFace {
  readonly prefix: string;
  readonly rateLimit: string;
  readonly polled: readonly string[];
  readonly expiring: ReadonlySet<string>;
  /** OKX's answers carry no gateway times: the exchange's time is asked once (see docs/okx.md#o7). */
  readonly clock?: string;
  /** Where a futures contract's multiplier is read, for the fills of Gate's `my_trades` answers. */
  readonly contract?: (settle: string, name: string) => string;
}

const FACES: Readonly<Record<LimiterExchange, FetchFace>> = {
  gate: {
    prefix: '/api/v4/',
    rateLimit: 'account/rate_limit',
    polled: ['futures/usdt/my_trades', 'spot/my_trades'],
    expiring: new Set(['POST /futures/{settle}/orders', 'POST /spot/batch_orders']),
    contract: (settle, name) => `futures/${settle}/contracts/${encodeURIComponent(name)}`,
  },
  okx: {
    prefix: '/api/v5/',
    rateLimit: 'trade/account-rate-limit',
    // A limiter of OKX takes its fills from `recordFill`, not from answers: none polled.
    polled: [],
    expiring: new Set(),
    clock: 'public/time',
  },
};

/**
 * Wraps `fetch`: each request to the API v4 (any host; the path from `/api/v4/` on) is classified
 * with its JSON body (see docs/rules.md#r10) and sent on its round trip (`limiter.roundTrip`): it waits on its
 * limits, counts when sent, and its response's gateway times (see docs/rules.md#r13, #r15), rate-limit headers and
 * 429 (see docs/rules.md#r12, an error body read from a clone) and fills go back to the limiter; `deadline` goes to
 * the exchange where accepted. A URL outside the API rejects with an `InvalidInputError`, unsent.
 *
 * On a limiter of OKX (`exchange: 'okx'`), the same for OKX's API v5 (any host; the path from
 * `/api/v5/` on; see docs/okx.md): orders on the sub-account's limit and each instrument's, a batch
 * per order; an answer's `code` 50011 or 50061 (a batch's per-order `sCode`) to the limit that
 * refused it; GET /api/v5/public/time asked first, once, for the exchange's clock (OKX's answers
 * carry no gateway times), then GET /api/v5/trade/account-rate-limit (a report's age is judged on
 * that clock). `deadline` is kept here alone.
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 * import { limitedFetch } from 'traderatio/fetch'
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * // The model exchange on localhost (the real one is https://api.gateio.ws), on a clock that the
 * // example moves; the limiter reads the same clock.
 * const clock = new VirtualClock({ wallStart: Date.now() })
 * const exchange = await startModelExchange({ port: 0, clock })
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock })
 * const gate = limitedFetch(limiter, { account: 'main' })
 *
 * // 101 placements at once at tier 1 (100 a second): 100 leave now, the last a second later.
 * const order = { method: 'POST', headers: { KEY: 'main-key' }, body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' }) }
 * const placing = Array.from({ length: 101 }, () => gate(`${exchange.url}/api/v4/futures/usdt/orders`, order))
 * await Promise.all(placing.slice(0, 100))
 * await clock.advance(1_000)
 * const answers = await Promise.all(placing)
 * answers.filter((res) => res.status === 200).length // 101
 * exchange.stats().accounts[0]?.refused // {}
 * limiter.close()
 * await exchange.close()
 * ```
 */
export function limitedFetch(limiter: AccountLimiter, options: LimitedFetchOptions): LimitedFetch {
  // Checked by shape, not class: a limiter from the CommonJS build works with this ES module too.
  if (typeof (limiter as Partial<AccountLimiter> | null)?.feedback !== 'function')
    throw new InvalidInputError('the limiter', limiter, 'an AccountLimiter');
  if (typeof options !== 'object' || options === null) throw new InvalidInputError('the options', options, 'an object');
  const { account } = options;
  limiter.limitNow(account);
  const send = options.fetch ?? (globalThis as { fetch?: FetchFunction }).fetch;
  if (typeof send !== 'function') throw new InvalidInputError('`fetch`', options.fetch, 'a fetch function');
  const clock = limiter.scheduler.clock;
  checkFields(options, ['account', 'fetch', 'askRateLimit', 'fills'], 'the options');
  const ask = options.askRateLimit ?? true;
  if (typeof ask !== 'boolean') throw new InvalidInputError('`askRateLimit`', ask, 'true or false');
  const everyMs = readFillsPoll(options.fills);
  const face = FACES[limiter.exchange];
  if (everyMs !== undefined && face.polled.length === 0)
    throw new InvalidInputError(
      '`fills`',
      options.fills,
      'left out on a limiter of OKX, which takes fills from limiter.recordFill',
    );

  // The API's base (`https://host/prefix/api/v4/`), from the first request to it.
  let base: string | null = null;
  let learning: Promise<void> | null = null;
  const contractPath = face.contract;
  const contracts: ContractSource | undefined =
    contractPath === undefined
      ? undefined
      : {
          ask: async (settle, name) => (await (await call(`${base!}${contractPath(settle, name)}`)).json()) as unknown,
        };
  /** The first request to the API: the base is known; ask the report and the clock, and start the poll. */
  const attach = (url: string): void => {
    base = apiBase(url, face.prefix);
    if (base === null) return;
    // The clock first: its answer is the limiter's clock sample (one that fails leaves the machine's
    // clock, and its round trip has recorded how it failed), and a report is judged by its age on
    // the exchange's clock (OKX's names the instant it speaks of).
    const clockFirst = face.clock === undefined ? null : call(`${base}${face.clock}`).catch(() => undefined);
    const report = () =>
      askRateLimit(limiter, account, async () => {
        const response = await call(`${base!}${face.rateLimit}`);
        return {
          status: response.status,
          body: response.ok ? await response.json().catch(() => undefined) : undefined,
        };
      });
    const asked: Promise<unknown> | null = !ask ? clockFirst : clockFirst === null ? report() : clockFirst.then(report);
    learning = (asked ?? Promise.resolve()).then(() => undefined);
    if (everyMs !== undefined) {
      const poll = every(clock, everyMs, () => {
        for (const path of face.polled) {
          call(`${base!}${path}`).catch((error: unknown) => {
            // A closed limiter ends the poll; anything else is the poll's to report, and it goes on.
            if (isRefusedError(error) && error.reason === 'closed') poll.stop();
            else limiter.reportError('fills', error);
          });
        }
      });
    }
  };

  /** Sends one request on its round trip through the limiter. */
  const call = async (input: string | URL | Request, init: LimitedRequestInit = {}): Promise<Response> => {
    const request = input instanceof Request ? input : undefined;
    const method = (init.method ?? request?.method ?? 'GET').toUpperCase();
    const path = apiPath(request?.url ?? (input as string | URL), face.prefix);
    const body = jsonBody(
      init.body !== undefined && init.body !== null
        ? await bodyText(init.body)
        : request === undefined || request.body === null
          ? undefined
          : await request.clone().text(),
    );
    const { deadline, contract, queuePriority: priority, ...fetchInit } = init;
    const signal = init.signal ?? request?.signal ?? undefined;
    const trip = limiter.roundTrip(account, {
      method,
      path,
      body,
      contract,
      priority,
      signal,
      deadline,
      ...(contracts === undefined ? {} : { contracts }),
    });
    const c = trip.classification;
    return trip.run(async (t) => {
      let sent: Promise<Response>;
      if (deadline === undefined || !face.expiring.has(`${c.method} ${c.endpoint}`)) sent = send(input, fetchInit);
      else {
        const headers = new Headers(fetchInit.headers ?? request?.headers);
        // The deadline on the exchange's clock, as far as the wall clock tells it.
        if (!headers.has(EXPIRY)) headers.set(EXPIRY, String(Math.floor(t.sentAt + (deadline - t.sentMono))));
        sent = send(input, { ...fetchInit, headers });
      }
      let response: Response;
      try {
        response = await sent;
      } catch (error) {
        t.failed(failureOf(error));
        throw error;
      }
      t.answered({
        status: response.status,
        headers: response.headers,
        readBody: () => response.clone().json(),
      });
      return response;
    });
  };

  return async (input, init = {}) => {
    if (learning === null) attach(input instanceof Request ? input.url : String(input));
    if (learning !== null) await learning;
    return call(input, init);
  };
}

/** How a `fetch` failed: given up (an abort), or without a connection or a whole answer. */
function failureOf(error: unknown): SendFailure {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'AbortError') return 'aborted';
  if (name === 'TimeoutError') return 'timeout';
  return 'unreachable';
}

/** The API's base of a URL, up to and with its `prefix` (`/api/v4/`), or null when it has none. */
function apiBase(url: string, prefix: string): string | null {
  const at = url.indexOf(prefix);
  return at < 0 || !/^https?:\/\//i.test(url) ? null : url.slice(0, at + prefix.length);
}

/** The API path of a URL: from its `prefix` (`/api/v4/`) on (a proxy may put a prefix before it), with its query. */
function apiPath(input: string | URL, prefix: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new InvalidInputError('the URL', input, 'an absolute URL');
  }
  const at = url.pathname.indexOf(prefix);
  return (at < 0 ? url.pathname : url.pathname.slice(at)) + url.search;
}

const BODIES =
  'a string, Uint8Array (or another typed array or DataView), ArrayBuffer, Blob, URLSearchParams, or a Request with a body';

/**
 * The text of a body `fetch` takes, to classify it by: bytes decoded as UTF-8, a form's fields as
 * a JSON object (the API takes JSON; a form is read for the contract or pair it names). A stream
 * or FormData cannot be read without taking it from the request: refused by name.
 */
async function bodyText(body: unknown): Promise<string> {
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return JSON.stringify(Object.fromEntries(body));
  if (ArrayBuffer.isView(body))
    return new TextDecoder().decode(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
  if (body instanceof ArrayBuffer) return new TextDecoder().decode(new Uint8Array(body));
  if (body instanceof Blob) return body.text();
  const kind = typeof body === 'object' && body !== null ? `a ${body.constructor?.name ?? 'body'}` : body;
  throw new InvalidInputError('`init.body`', kind, BODIES);
}
