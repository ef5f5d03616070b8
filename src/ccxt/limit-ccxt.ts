import { AsyncLocalStorage } from 'node:async_hooks';
import { InvalidInputError, isRefusedError } from '../errors.js';
import type { AccountLimiter } from '../account/limiter.js';
import { jsonBody } from '../catalog/json-body.js';
import { type ContractSource, readFillsPoll } from '../account/answer-fills.js';
import type { RoundTrip, SendFailure } from '../account/round-trip.js';
import { askRateLimit } from '../account/ask-rate-limit.js';
import { every } from '../account/timers.js';
import { checkFields } from '../internal/parse.js';

/**
 * The part of a ccxt `gate` (or `gateio`) instance the limiter works through: ccxt's own
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
   * Ask the exchange's own figure, GET /account/rate_limit (see docs/rules.md#r16), through the instance as it is
   * limited, when it has an API key: its requests wait for the answer. A 404 or a refusal marks it
   * not open, and the headers of placements' answers take over.
   * @default true
   */
  readonly askRateLimit?: boolean;
  /**
   * Poll the account's fills every `everyMs` milliseconds (futures `usdt` and spot `my_trades`,
   * through the instance), for engines that never ask for them. Off by default.
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

const IDS = new Set(['gate', 'gateio']);
// ccxt's methods for the endpoints the adapter asks itself (GET /account/rate_limit, a contract,
// the fills polled).
const RATE_LIMIT = 'privateAccountGetRateLimit';
const CONTRACT = 'publicFuturesGetSettleContractsContract';
const POLLED = ['privateFuturesGetSettleMyTrades', 'privateSpotGetMyTrades'] as const;
// The instance whose ask of GET /account/rate_limit is in flight: the one request of it that does
// not wait for that answer.
const asking = new AsyncLocalStorage<object>();
const METHODS = ['fetch2', 'sign', 'handleErrors'] as const;
// The request ccxt is sending from this call chain: `handleErrors` runs in a promise callback
// of the `fetch2` call that sent it, many at once on one instance.
const current = new AsyncLocalStorage<InFlight>();
const attached = new WeakSet<object>();

/**
 * Puts a ccxt `gate` (or `gateio`) instance behind an account limiter: every REST request it
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
  const ex = exchange as Partial<CcxtGate> | null;
  if (
    typeof ex !== 'object' ||
    ex === null ||
    !IDS.has(ex.id as string) ||
    METHODS.some((m) => typeof ex[m] !== 'function')
  ) {
    throw new InvalidInputError(
      'the exchange',
      typeof ex === 'object' && ex !== null ? `a ccxt instance with id ${String(ex.id)}` : ex,
      'a ccxt gate (or gateio) instance',
    );
  }
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
  const clock = limiter.scheduler.clock;
  const implicit = exchange as unknown as Partial<
    Record<typeof RATE_LIMIT | typeof CONTRACT | (typeof POLLED)[number], (params?: object) => Promise<unknown>>
  >;
  const contracts: ContractSource = {
    known: (contract) => {
      const size = (exchange as { markets_by_id?: Record<string, readonly { contractSize?: unknown }[] | undefined> })
        .markets_by_id?.[contract]?.[0]?.contractSize;
      return typeof size === 'number' || typeof size === 'string' ? String(size) : undefined;
    },
    ask: (settle, contract) => implicit[CONTRACT]!.call(exchange, { settle, contract }),
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
      contracts,
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
  if (ask && typeof apiKey === 'string' && apiKey !== '' && typeof implicit[RATE_LIMIT] === 'function') {
    // ccxt throws on an answer that is not a success (a 404, a refusal): marked not open.
    learning = askRateLimit(limiter, account, async () => ({
      status: 200,
      body: await asking.run(exchange, () => implicit[RATE_LIMIT]!.call(exchange)),
    }));
  }
  const poll =
    everyMs === undefined
      ? null
      : every(clock, everyMs, () => {
          for (const name of POLLED) {
            implicit[name]!.call(exchange, name === POLLED[0] ? { settle: 'usdt' } : {}).catch((error: unknown) => {
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
