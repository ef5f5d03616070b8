import { InvalidInputError, isRefusedError } from '../errors.js';
import { type ContractSource, readFillsPoll } from '../account/answer-fills.js';
import type { ExchangeAnswer, SendFailure } from '../account/round-trip.js';
import { askRateLimit } from '../account/ask-rate-limit.js';
import { every } from '../account/timers.js';
import { checkFields } from '../internal/parse.js';
import type { AccountLimiter } from '../account/limiter.js';
import type { HeadersLike } from '../schedule/feedback.js';

/**
 * What the adapter reads of a response of `gate-api` (an axios response): its status and headers
 * (rate-limit headers, `X-In-Time` and `X-Out-Time`), and its body when it is an error.
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 * import { type GateApiClient, type GateApiResponse, limitApiClient } from 'traderatio/gate-api'
 *
 * // A stand-in client whose answers carry the gateway's times, in microseconds (see docs/rules.md#r15).
 * const client: GateApiClient = {
 *   async request() {
 *     const response: GateApiResponse = { status: 200, headers: { 'x-in-time': String(Date.now() * 1000), 'x-out-time': String(Date.now() * 1000 + 100) } }
 *     return { response, body: [] }
 *   },
 * }
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * limitApiClient(limiter, { account: 'main', client })
 * limiter.clockEstimate() // null
 * await client.request({ method: 'GET', url: 'https://api.gateio.ws/api/v4/futures/usdt/orders' }, 'Object', ['apiv4'])
 * limiter.clockEstimate()?.samples // 1
 * limiter.close()
 * ```
 */
export interface GateApiResponse {
  readonly status: number;
  readonly headers: unknown;
  readonly data?: unknown;
}

/**
 * What the adapter reads of a request of `gate-api` (an axios request config, path parameters
 * filled in): the method, the URL, the query (`params`: a cancel of all orders names its contract
 * there) and the body (`data`: a batch counts per order).
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 * import { type GateApiClient, type GateApiRequestConfig, limitApiClient } from 'traderatio/gate-api'
 *
 * const sent: GateApiRequestConfig[] = []
 * const client: GateApiClient = {
 *   async request(config) {
 *     sent.push(config)
 *     return { response: { status: 200, headers: {} }, body: [] }
 *   },
 * }
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * limitApiClient(limiter, { account: 'main', client })
 * const cancelAll: GateApiRequestConfig = { method: 'DELETE', url: 'https://api.gateio.ws/api/v4/futures/usdt/orders', params: { contract: 'BTC_USDT' } }
 * await client.request(cancelAll, 'Object', ['apiv4'])
 * sent // [{ method: 'DELETE', url: 'https://api.gateio.ws/api/v4/futures/usdt/orders', params: { contract: 'BTC_USDT' } }]
 * // A config without a URL is refused, unsent.
 * await client.request({ method: 'GET' }, 'Object', []).catch((e) => e.message) // "Expected the request config's `url` to be the URL of an endpoint, got undefined"
 * sent.length // 1
 * limiter.close()
 * ```
 */
export interface GateApiRequestConfig {
  readonly method?: string;
  readonly url?: string;
  readonly params?: unknown;
  readonly data?: unknown;
}

/**
 * The `ApiClient` of `gate-api`, as far as the adapter uses it: the method every API class calls.
 *
 * @example
 * ```ts
 * import { ApiClient } from 'gate-api'
 * import { AccountLimiter } from 'traderatio'
 * import { type GateApiClient, limitApiClient } from 'traderatio/gate-api'
 *
 * const client: GateApiClient = new ApiClient()
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const { detach } = limitApiClient(limiter, { account: 'main', client })
 * // Something else than a client is refused; the error never spells the object out.
 * let error: unknown
 * try { limitApiClient(limiter, { account: 'main', client: {} as GateApiClient }) } catch (e) { error = e }
 * (error as Error).message // 'Expected `client` to be an ApiClient of gate-api, got "an object (Object)"'
 * detach()
 * limiter.close()
 * ```
 */
export interface GateApiClient {
  request(
    config: GateApiRequestConfig,
    responseType: string,
    authSettings: string[],
  ): Promise<{ readonly response: GateApiResponse; readonly body: unknown }>;
}

/**
 * Options of {@link limitApiClient}.
 *
 * @example
 * ```ts
 * import { ApiClient } from 'gate-api'
 * import { AccountLimiter } from 'traderatio'
 * import { type LimitApiClientOptions, limitApiClient } from 'traderatio/gate-api'
 *
 * // One client per account: each sub-account's key on its own client.
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }, { id: 'sub1' }] })
 * const client = new ApiClient()
 * client.setApiKeySecret('sub1-key', 'sub1-secret')
 * const options: LimitApiClientOptions = { account: 'sub1', client }
 * const { detach } = limitApiClient(limiter, options)
 * // A client is limited once at a time.
 * let error: unknown
 * try { limitApiClient(limiter, options) } catch (e) { error = e }
 * (error as Error).message // 'Expected `client` to be an ApiClient not limited yet (detach it first), got "an ApiClient limited already"'
 * detach()
 * limiter.close()
 * ```
 */
export interface LimitApiClientOptions {
  /** The account the client's key belongs to. */
  readonly account: string;
  /** The `ApiClient` every API class (`FuturesApi`, `SpotApi`, ...) of the account is built on. */
  readonly client: GateApiClient;
  /**
   * Ask the exchange's own figure, GET /account/rate_limit (see docs/rules.md#r16), through the client as it is
   * limited, when it has a key (`setApiKeySecret`): its requests wait for the answer. A 404 or a
   * refusal marks it not open, and the headers of placements' answers take over.
   * @default true
   */
  readonly askRateLimit?: boolean;
  /**
   * Poll the account's fills every `everyMs` milliseconds (futures `usdt` and spot `my_trades`,
   * through the client), for engines that never ask for them. Off by default.
   */
  readonly fills?: { readonly everyMs: number };
}

/**
 * What {@link limitApiClient} returns.
 *
 * @example
 * ```ts
 * import { ApiClient } from 'gate-api'
 * import { AccountLimiter } from 'traderatio'
 * import { type LimitedApiClient, limitApiClient } from 'traderatio/gate-api'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const client = new ApiClient()
 * const own = client.request
 * const limited: LimitedApiClient = limitApiClient(limiter, { account: 'main', client })
 * client.request === own // false
 * limited.detach()
 * client.request === own // true
 * limiter.close()
 * ```
 */
export interface LimitedApiClient {
  /** Gives the client back its own `request`: what it sends afterwards goes straight out. */
  detach(): void;
}

// The clients limited now: one limiter per client, or a request would wait twice and count twice.
const limited = new WeakSet<object>();

/**
 * Puts an `ApiClient` of the exchange's Node SDK (`gate-api`) behind an account limiter: every
 * request of every API class built on it is classified by method, filled-in path and body (see docs/rules.md#r10),
 * waits on its limits before the SDK signs it (so its `Timestamp` is fresh, see docs/rules.md#r11), and is counted
 * when sent (see docs/rules.md#r1, #r9), on its round trip (`limiter.roundTrip`); cancels go before placements. Its
 * answer, or the error the SDK throws, gives the limiter the rate-limit headers and a 429 or
 * TOO_FAST (see docs/rules.md#r12), `X-In-Time` and `X-Out-Time` (see docs/rules.md#r13, #r15) and the fills it holds. Only this client's `request` is replaced: no axios
 * instance, the global one included, is touched. Bad input throws an `InvalidInputError`.
 *
 * @example
 * ```ts
 * import { ApiClient, FuturesApi } from 'gate-api'
 * import { AccountLimiter } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 * import { limitApiClient } from 'traderatio/gate-api'
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * // The model stands in for the exchange (one main account, KEY main-key, tier 1: 100 placements
 * // a second), on a clock that the example moves and the limiter reads. Against the exchange: no
 * // clock, and `new ApiClient()`.
 * const clock = new VirtualClock({ wallStart: Date.now() })
 * const exchange = await startModelExchange({ port: 0, clock })
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock })
 * const client = new ApiClient(`${exchange.url}/api/v4`)
 * client.setApiKeySecret('main-key', 'main-secret')
 * const { detach } = limitApiClient(limiter, { account: 'main', client })
 *
 * // 101 placements at once: 100 leave now, the last when the clock has moved a second.
 * const futures = new FuturesApi(client)
 * const order = { contract: 'BTC_USDT', size: '1', price: '60000' }
 * const placing = Array.from({ length: 101 }, () => futures.createFuturesOrder('usdt', order))
 * const first = await Promise.all(placing.slice(0, 100))
 * // A cancel has its own limit, and goes first.
 * const cancelled = await futures.cancelFuturesOrder('usdt', String(first[0]!.body.id))
 * cancelled.body.status // 'finished'
 * await clock.advance(1_000)
 * await Promise.all(placing)
 * exchange.stats().accounts[0]?.refused // {}
 * detach()
 * limiter.close()
 * await exchange.close()
 * ```
 */
export function limitApiClient(limiter: AccountLimiter, options: LimitApiClientOptions): LimitedApiClient {
  // Checked by shape, not class: a limiter from the CommonJS build works with this ES module too.
  if (typeof (limiter as Partial<AccountLimiter> | null)?.feedback !== 'function')
    throw new InvalidInputError('the limiter', kind(limiter), 'an AccountLimiter');
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('the options', options, 'an object { account, client }');
  const { account, client } = options;
  if (typeof (client as Partial<GateApiClient> | null)?.request !== 'function')
    throw new InvalidInputError('`client`', kind(client), 'an ApiClient of gate-api');
  if (limited.has(client))
    throw new InvalidInputError(
      '`client`',
      'an ApiClient limited already',
      'an ApiClient not limited yet (detach it first)',
    );
  limiter.limitNow(account);
  checkFields(options, ['account', 'client', 'askRateLimit', 'fills'], 'the options');
  const ask = options.askRateLimit ?? true;
  if (typeof ask !== 'boolean') throw new InvalidInputError('`askRateLimit`', ask, 'true or false');
  const everyMs = readFillsPoll(options.fills);
  const clock = limiter.scheduler.clock;
  const own = Object.getOwnPropertyDescriptor(client, 'request');
  const send = client.request;
  const sdk = client as GateApiClient & {
    readonly basePath?: unknown;
    readonly defaultHeaders?: object;
    readonly authentications?: { readonly apiv4?: { readonly key?: unknown } };
  };
  const base = typeof sdk.basePath === 'string' ? sdk.basePath : 'https://api.gateio.ws/api/v4';
  /** A GET of the API as the SDK's API classes send it (signed when `signed`), limited: its raw answer. */
  const get = async (path: string, params: object, signed: boolean): Promise<{ status: number; data: unknown }> => {
    const config = {
      method: 'GET',
      url: `${base}${path}`,
      params,
      headers: { ...sdk.defaultHeaders, Accept: 'application/json' },
    };
    const { response } = await limitedRequest(config, 'any', signed ? ['apiv4'] : []);
    return { status: response.status, data: response.data };
  };
  const contracts: ContractSource = {
    ask: async (settle, contract) =>
      (await get(`/futures/${settle}/contracts/${encodeURIComponent(contract)}`, {}, false)).data,
  };
  // The engine's requests wait for the exchange's own figure; the ask itself does not.
  let learning: Promise<void> | null = null;
  const request: GateApiClient['request'] = async (config, responseType, authSettings) => {
    if (learning !== null) await learning;
    return limitedRequest(config, responseType, authSettings);
  };

  const limitedRequest: GateApiClient['request'] = async (config, responseType, authSettings) => {
    if (typeof config !== 'object' || config === null)
      throw new InvalidInputError('the request config', config, 'an object { method, url, params, data }');
    const method = config.method ?? 'GET';
    const url = config.url;
    if (typeof url !== 'string')
      throw new InvalidInputError("the request config's `url`", url, 'the URL of an endpoint');
    const body = config.data;
    // A spot request by order id names its pair in the query (`params`), as the catalogue reads it from a URL.
    const query = config.params as { readonly contract?: unknown; readonly currency_pair?: unknown } | undefined;
    const pair =
      typeof query?.currency_pair === 'string' && query.currency_pair !== ''
        ? `?currency_pair=${encodeURIComponent(query.currency_pair)}`
        : '';
    const path = pair === '' ? url : url.split('?')[0] + pair;
    const c = limiter.catalog.classify(method, path, body);
    // A futures cancel of all orders names its contract in the query, which the catalogue does not read.
    const contract =
      c.instrument === undefined && c.action !== 'other' && typeof query?.contract === 'string' && query.contract !== ''
        ? query.contract
        : undefined;
    const trip = limiter.roundTrip(account, { method, path, body, contract, contracts });
    return trip.run(async (t) => {
      let result: Awaited<ReturnType<GateApiClient['request']>>;
      try {
        // The SDK signs inside `request`, now that the limits let it go.
        result = await send.call(client, config, responseType, authSettings);
      } catch (error) {
        // The SDK rejects with axios's error; an answer from the exchange is on its `response`.
        const r = (error as { response?: unknown } | null)?.response;
        if (typeof r === 'object' && r !== null && typeof (r as GateApiResponse).status === 'number')
          t.answered(answerOf(r as GateApiResponse));
        else t.failed(failureOf(error));
        throw error;
      }
      t.answered(answerOf(result.response));
      return result;
    });
  };

  limited.add(client);
  (client as { request: GateApiClient['request'] }).request = request;
  const key = sdk.authentications?.apiv4?.key;
  if (ask && typeof key === 'string' && key !== '') {
    learning = askRateLimit(limiter, account, async () => {
      try {
        const { status, data } = await get('/account/rate_limit', {}, true);
        return { status, body: data };
      } catch (error) {
        // The SDK rejects an answer that is not a success with axios's error: its status.
        const status = (error as { response?: { status?: unknown } } | null)?.response?.status;
        if (typeof status === 'number') return { status, body: undefined };
        throw error;
      }
    });
  }
  const poll =
    everyMs === undefined
      ? null
      : every(clock, everyMs, () => {
          for (const [path, params] of [
            ['/futures/usdt/my_trades', {}],
            ['/spot/my_trades', {}],
          ] as const) {
            get(path, params, true).catch((error: unknown) => {
              // A closed limiter ends the poll; anything else is the poll's to report, and it goes on.
              if (isRefusedError(error) && error.reason === 'closed') poll?.stop();
              else limiter.reportError('fills', error);
            });
          }
        });
  let attached = true;
  return {
    detach() {
      if (!attached) return;
      attached = false;
      poll?.stop();
      if (own === undefined) delete (client as { request?: unknown }).request;
      else Object.defineProperty(client, 'request', own);
      limited.delete(client);
    },
  };
}

/** What the exchange answered, as an axios response holds it: the JSON as sent (`data`), not the SDK's models. */
function answerOf(response: GateApiResponse): ExchangeAnswer {
  const headers = typeof response.headers === 'object' && response.headers !== null ? response.headers : {};
  return { status: response.status, headers: headers as HeadersLike, readBody: () => errorBody(response.data) };
}

/** How axios failed without an answer: given up (cancelled), no whole answer in time, or no connection. */
function failureOf(error: unknown): SendFailure {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_CANCELED') return 'aborted';
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') return 'timeout';
  return 'unreachable';
}

/** An error body as parsed by the SDK, or its text when it was not parsed. */
function errorBody(data: unknown): unknown {
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}

/** A value for an error message that never spells out an object (a client holds its key and secret). */
function kind(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? `an object (${value.constructor?.name ?? 'no class'})` : value;
}
