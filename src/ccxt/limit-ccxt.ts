import { AsyncLocalStorage } from 'node:async_hooks';
import { InvalidInputError, isRefusedError } from '../errors.js';
import type { AccountLimiter } from '../account/limiter.js';
import type { LimiterExchange } from '../account/limiter-options.js';
import { jsonBody } from '../catalog/json-body.js';
import { type ContractSource, readFillsPoll } from '../account/answer-fills.js';
import type { RoundTrip, SendFailure } from '../account/round-trip.js';
import { askRateLimit } from '../account/ask-rate-limit.js';
import { every } from '../account/timers.js';
import { checkFields } from '../internal/parse.js';

/**
 * The part of a ccxt `gate` (or `gateio`) or `okx` instance the limiter works through: ccxt's own
 * `fetch2` (throttle, sign, send), `sign` (the request as it will be sent), `handleErrors` (every
 * response, with its status, headers and parsed body) and `enableRateLimit`.
 *
 * @example
 * ```ts
 * import ccxt from 'ccxt'
 * import { AccountLimiter } from 'traderatio'
 * import { type CcxtGate, limitCcxt } from 'traderatio/ccxt'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const gate: CcxtGate = new ccxt.gate()
 * limitCcxt(limiter, gate, { account: 'main' }).exchange.id // 'gate'
 * // Another exchange's instance is refused.
 * let error: unknown
 * try { limitCcxt(limiter, new ccxt.binance() as never, { account: 'main' }) } catch (e) { error = e }
 * (error as Error).message // 'Expected the exchange to be a ccxt gate (or gateio) instance, got "a ccxt instance with id binance"'
 * limiter.close()
 * ```
 */
export interface CcxtGate {
  readonly id: string;
  enableRateLimit: boolean;
  fetch2(
    path: unknown,
    api?: unknown,
    method?: string,
    params?: unknown,
    headers?: unknown,
    body?: unknown,
    config?: unknown,
  ): Promise<unknown>;
  /** The request as it will be sent: `{ url, method, body, headers }`. */
  sign(path: unknown, api?: unknown, method?: string, params?: unknown, headers?: unknown, body?: unknown): object;
  handleErrors(
    code: number,
    reason: string,
    url: string,
    method: string,
    headers: unknown,
    body: unknown,
    response: unknown,
    requestHeaders: unknown,
    requestBody: unknown,
  ): unknown;
}

/**
 * Options of {@link limitCcxt}.
 *
 * @example
 * ```ts
 * import ccxt from 'ccxt'
 * import { AccountLimiter } from 'traderatio'
 * import { type LimitCcxtOptions, limitCcxt } from 'traderatio/ccxt'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }, { id: 'sub1' }] })
 * const gate = new ccxt.gate()
 * const options: LimitCcxtOptions = { account: 'sub1' }
 * limitCcxt(limiter, gate, options).exchange === gate // true
 * // An account the limiter does not know: refused, the instance untouched.
 * const other = new ccxt.gate()
 * let error: unknown
 * try { limitCcxt(limiter, other, { account: 'nobody' }) } catch (e) { error = e }
 * (error as Error).message // 'Expected `account` to be an account of the limiter (main, sub1), got "nobody"'
 * other.enableRateLimit // true
 * limiter.close()
 * ```
 */
export interface LimitCcxtOptions {
  /** The account of the limiter the instance's API key belongs to. */
  readonly account: string;
  /**
   * Ask the exchange's own figure, GET /account/rate_limit (see docs/rules.md#r16; on OKX GET
   * /api/v5/trade/account-rate-limit, docs/okx.md#o9), through the instance as it is limited, when
   * it has an API key: its requests wait for the answer. A 404 or a refusal marks it
   * not open, and the headers of placements' answers take over.
   * @default true
   */
  readonly askRateLimit?: boolean;
  /**
   * Poll the account's fills every `everyMs` milliseconds (futures `usdt` and spot `my_trades`,
   * through the instance), for engines that never ask for them. Off by default. Not on a limiter
   * of OKX, which takes fills from `limiter.recordFill`.
   */
  readonly fills?: { readonly everyMs: number };
}

/**
 * What {@link limitCcxt} returns.
 *
 * @example
 * ```ts
 * import ccxt from 'ccxt'
 * import { AccountLimiter } from 'traderatio'
 * import { type LimitedCcxt, limitCcxt } from 'traderatio/ccxt'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const gate = new ccxt.gate()
 * const limited: LimitedCcxt = limitCcxt(limiter, gate, { account: 'main' })
 * limited.exchange === gate // true
 * gate.enableRateLimit // false
 * limited.detach()
 * limited.detach() // does nothing the second time
 * gate.enableRateLimit // true
 * // Detached, the instance can be limited again.
 * limitCcxt(limiter, gate, { account: 'main' }).detach()
 * limiter.close()
 * ```
 */
export interface LimitedCcxt {
  /** The instance, now limited. */
  readonly exchange: CcxtGate;
  /**
   * Gives the instance back as it was: its own `fetch2` and `handleErrors`, and `enableRateLimit`
   * as it was before. Requests already admitted finish as they started. Calling it again does nothing.
   */
  detach(): void;
}

/** One request on its way through ccxt: the instance sending it, and its round trip. */
interface InFlight {
  readonly exchange: CcxtGate;
  readonly trip: RoundTrip;
}

/** How ccxt failed without an answer: no whole answer in time, or none at all. */
function failureOf(error: unknown): SendFailure {
  return (error as { name?: unknown } | null)?.name === 'RequestTimeout' ? 'timeout' : 'unreachable';
}

/**
 * What the adapter knows of each exchange's ccxt class: its ids, how the error names it, and
 * ccxt's methods for the endpoints the adapter asks itself (the exchange's own figure for the
 * limit, a contract's multiplier, the fills polled, the exchange's time).
 */
interface CcxtFace {
  readonly ids: ReadonlySet<string>;
  readonly named: string;
  readonly rateLimit: string;
  readonly contract?: string;
  readonly polled: readonly (readonly [method: string, params: object])[];
  /** OKX's answers carry no gateway times: the exchange's time is asked once (see docs/okx.md#o7). */
  readonly clock?: string;
}

const FACES: Readonly<Record<LimiterExchange, CcxtFace>> = {
  gate: {
    ids: new Set(['gate', 'gateio']),
    named: 'a ccxt gate (or gateio) instance',
    rateLimit: 'privateAccountGetRateLimit',
    contract: 'publicFuturesGetSettleContractsContract',
    polled: [
      ['privateFuturesGetSettleMyTrades', { settle: 'usdt' }],
      ['privateSpotGetMyTrades', {}],
    ],
  },
  okx: {
    ids: new Set(['okx']),
    named: 'a ccxt okx instance',
    rateLimit: 'privateGetTradeAccountRateLimit',
    // A limiter of OKX takes its fills from `recordFill`, not from answers: none polled.
    polled: [],
    clock: 'publicGetPublicTime',
  },
};
// The instance whose own asks (the exchange's figure for the limit, its time) are in flight: the
// requests of it that do not wait for those answers.
const asking = new AsyncLocalStorage<object>();
const METHODS = ['fetch2', 'sign', 'handleErrors'] as const;
// The request ccxt is sending from this call chain: `handleErrors` runs in a promise callback
// of the `fetch2` call that sent it, many at once on one instance.
const current = new AsyncLocalStorage<InFlight>();
const attached = new WeakSet<object>();

/**
 * Puts a ccxt `gate` (or `gateio`) instance, or an `okx` one, behind an account limiter: every REST request it
 * makes waits on the limits its endpoint and action draw on (see docs/rules.md#r10; a batch per order, #r1), ccxt's
 * own throttle (one bucket per instance, whose costs are not the published limits) switched off.
 * The request is read as ccxt will send it (method, URL, JSON body) and waits before ccxt signs,
 * so its `Timestamp` is taken when it leaves (see docs/rules.md#r11). Cancels, batch cancels and cancel-alls
 * outrank placements. Each request goes on its round trip (`limiter.roundTrip`): its response's
 * rate-limit headers and a 429 or TOO_FAST (ccxt's `RateLimitExceeded`) go to the limit the
 * request drew on (see docs/rules.md#r12), its `X-In-Time`/`X-Out-Time` to the limiter's exchange clock and arrivals
 * (see docs/rules.md#r13, #r15), its fills to the limiter. Not a gate instance, an instance already limited, or an
 * unknown account: an {@link InvalidInputError}, the instance untouched.
 *
 * A cancel by order id names no contract: it counts under the limiter's `unknownContract`.
 *
 * On a limiter of OKX (`exchange: 'okx'`), a ccxt `okx` instance is limited the same way under
 * OKX's API v5 (see docs/okx.md): its orders on the sub-account's limit and each instrument's, a
 * batch per order; an answer's `code` 50011 or 50061 (a batch's per-order `sCode`) to the limit
 * that refused it; GET /api/v5/public/time asked first, once, for the exchange's clock (OKX's
 * answers carry no gateway times), then GET /api/v5/trade/account-rate-limit for its figure (a
 * report's age is judged on that clock).
 * A gate instance on an OKX limiter, or an okx one on a Gate limiter, is refused, naming both.
 *
 * ccxt's retries (`maxRetriesOnFailure`, off by default) are sent within the one admission.
 *
 * @example
 * ```ts
 * import ccxt from 'ccxt'
 * import { AccountLimiter } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 * import { limitCcxt } from 'traderatio/ccxt'
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * // The model exchange stands in for api.gateio.ws (one main account, tier 1: 100 placements a
 * // second), on a clock that the example moves and the limiter reads.
 * const clock = new VirtualClock({ wallStart: Date.now() })
 * const exchange = await startModelExchange({ port: 0, clock })
 * const gate = new ccxt.gate({ apiKey: 'main-key', secret: 'main-secret' })
 * const api = gate.urls['api'] as Record<string, Record<string, string>>
 * for (const urls of Object.values(api)) for (const type of Object.keys(urls)) urls[type] = `${exchange.url}/api/v4`
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock })
 * const limited = limitCcxt(limiter, gate, { account: 'main' })
 * gate.enableRateLimit // false
 * await gate.loadMarkets()
 * // 101 placements at once: 100 leave now, the last when the clock has moved a second.
 * const placing = Array.from({ length: 101 }, () => gate.createOrder('BTC/USDT:USDT', 'limit', 'buy', 1, 60000))
 * const first = await Promise.all(placing.slice(0, 100))
 * // A cancel has its own limit: it does not wait behind the placement.
 * const cancelled = await gate.cancelOrder(first[0]!.id!, 'BTC/USDT:USDT')
 * cancelled.status // 'canceled'
 * await clock.advance(1_000)
 * await Promise.all(placing)
 * exchange.stats().accounts[0]?.refused // {}
 * exchange.stats().accounts[0]?.limits.find((l) => l.key === 'futures.place')?.accepted // 101
 *
 * limited.detach() // the instance as it was, its own throttle on again
 * gate.enableRateLimit // true
 * limiter.close()
 * await exchange.close()
 * ```
 */
export function limitCcxt(limiter: AccountLimiter, exchange: CcxtGate, options: LimitCcxtOptions): LimitedCcxt {
  // Checked by shape, not class: a limiter from the CommonJS build works with this ES module too.
  if (typeof (limiter as Partial<AccountLimiter> | null)?.feedback !== 'function')
    throw new InvalidInputError('the limiter', limiter, 'an AccountLimiter');
  const face = faceOf(limiter, exchange);
  if (attached.has(exchange))
    throw new InvalidInputError(
      'the exchange',
      `the ${exchange.id} instance`,
      'an instance not limited yet (detach the other limiter first)',
    );
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('the options', options, 'an object { account }');
  const { account } = options;
  limiter.limitNow(account);
  checkFields(options, ['account', 'askRateLimit', 'fills'], 'the options');
  const ask = options.askRateLimit ?? true;
  if (typeof ask !== 'boolean') throw new InvalidInputError('`askRateLimit`', ask, 'true or false');
  const everyMs = readFillsPoll(options.fills);
  if (everyMs !== undefined && face.polled.length === 0)
    throw new InvalidInputError(
      '`fills`',
      options.fills,
      'left out on a limiter of OKX, which takes fills from limiter.recordFill',
    );
  const clock = limiter.scheduler.clock;
  const implicit = exchange as unknown as Partial<Record<string, (params?: object) => Promise<unknown>>>;
  const contract = face.contract;
  const contracts: ContractSource | undefined =
    contract === undefined
      ? undefined
      : {
          known: (name) => {
            const size = (
              exchange as { markets_by_id?: Record<string, readonly { contractSize?: unknown }[] | undefined> }
            ).markets_by_id?.[name]?.[0]?.contractSize;
            return typeof size === 'number' || typeof size === 'string' ? String(size) : undefined;
          },
          ask: (settle, name) => implicit[contract]!.call(exchange, { settle, contract: name }),
        };
  // Requests wait for the exchange's own figure; the ask itself does not.
  let learning: Promise<void> | null = null;

  // What the instance held of its own before: ccxt binds some of its methods on the instance.
  const own = new Map(
    ['fetch2', 'handleErrors'].map((m) => [m, Object.getOwnPropertyDescriptor(exchange, m)] as const),
  );
  const { fetch2, sign, handleErrors } = exchange;
  const rateLimited = exchange.enableRateLimit;
  attached.add(exchange);
  exchange.enableRateLimit = false;

  exchange.fetch2 = async function limitedFetch2(this: CcxtGate, path, api, method, params, headers, body, config) {
    if (learning !== null && asking.getStore() !== this) await learning;
    // The request as ccxt builds it; signed again, with a fresh Timestamp, once admitted.
    const built = sign.call(this, path, api, method, params, headers, body) as {
      readonly url: string;
      readonly method: string;
      readonly body?: unknown;
    };
    const trip = limiter.roundTrip(account, {
      method: built.method,
      path: built.url,
      body: jsonBody(built.body),
      ...(contracts === undefined ? {} : { contracts }),
    });
    // ccxt tells the answer to `handleErrors`, inside this call; its errors are its own.
    return trip.run((t) =>
      current
        .run({ exchange: this, trip }, () => fetch2.call(this, path, api, method, params, headers, body, config))
        .catch((error: unknown) => {
          if (t.report().outcome.kind === 'sent') t.failed(failureOf(error));
          throw error;
        }),
    );
  };

  exchange.handleErrors = function limitedHandleErrors(
    this: CcxtGate,
    code,
    reason,
    url,
    method,
    headers,
    body,
    response,
    requestHeaders,
    requestBody,
  ) {
    const inFlight = current.getStore();
    if (inFlight?.exchange === this && typeof headers === 'object' && headers !== null)
      inFlight.trip.answered({ status: code, headers: headers as Record<string, string>, body: response });
    return handleErrors.call(this, code, reason, url, method, headers, body, response, requestHeaders, requestBody);
  };

  const apiKey = (exchange as { apiKey?: unknown }).apiKey;
  const clockAsk = face.clock === undefined ? undefined : implicit[face.clock];
  // The clock first: its answer is the limiter's clock sample (one that fails leaves the machine's
  // clock, and its round trip has recorded how it failed), and a report is judged by its age on
  // the exchange's clock (OKX's names the instant it speaks of).
  const clockFirst: Promise<unknown> | null =
    typeof clockAsk === 'function' ? asking.run(exchange, () => clockAsk.call(exchange)).catch(() => undefined) : null;
  let asked: Promise<unknown> | null = clockFirst;
  if (ask && typeof apiKey === 'string' && apiKey !== '' && typeof implicit[face.rateLimit] === 'function') {
    // ccxt throws on an answer that is not a success (a 404, a refusal): marked not open.
    const report = () =>
      askRateLimit(limiter, account, async () => ({
        status: 200,
        body: await asking.run(exchange, () => implicit[face.rateLimit]!.call(exchange)),
      }));
    asked = clockFirst === null ? report() : clockFirst.then(report);
  }
  if (asked !== null) learning = asked.then(() => undefined);
  const poll =
    everyMs === undefined
      ? null
      : every(clock, everyMs, () => {
          for (const [name, params] of face.polled) {
            implicit[name]!.call(exchange, { ...params }).catch((error: unknown) => {
              // A closed limiter ends the poll; anything else is the poll's to report, and it goes on.
              if (isRefusedError(error) && error.reason === 'closed') poll?.stop();
              else limiter.reportError('fills', error);
            });
          }
        });

  let detached = false;
  return {
    exchange,
    detach() {
      if (detached) return;
      detached = true;
      poll?.stop();
      for (const [name, descriptor] of own) {
        if (descriptor === undefined) delete (exchange as unknown as Record<string, unknown>)[name];
        else Object.defineProperty(exchange, name, descriptor);
      }
      exchange.enableRateLimit = rateLimited;
      attached.delete(exchange);
    },
  };
}

/**
 * What the adapter knows of `exchange`'s class, which must be the limiter's exchange's: anything
 * else an {@link InvalidInputError} naming what was expected and what was given.
 */
function faceOf(limiter: AccountLimiter, exchange: CcxtGate): CcxtFace {
  const served = limiter.exchange;
  const face = FACES[served];
  const ex = exchange as Partial<CcxtGate> | null;
  if (typeof ex !== 'object' || ex === null) throw new InvalidInputError('the exchange', ex, face.named);
  const given = `a ccxt instance with id ${String(ex.id)}`;
  if (METHODS.some((m) => typeof ex[m] !== 'function')) throw new InvalidInputError('the exchange', given, face.named);
  if (face.ids.has(ex.id as string)) return face;
  const other = Object.entries(FACES).find(([, f]) => f.ids.has(ex.id as string));
  if (other === undefined) throw new InvalidInputError('the exchange', given, face.named);
  throw new InvalidInputError(
    'the exchange',
    given,
    `${face.named}, the limiter's exchange being ${served} (${other[1].named} goes with new AccountLimiter({ exchange: '${other[0]}' }))`,
  );
}
