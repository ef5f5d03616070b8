import axios from 'axios';
import { FuturesApi, type Order, SpotApi } from 'gate-api';
import { describe, expect, it, vi } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { InvalidInputError, RefusedError } from '../../src/errors.js';
import { startModelExchange, type RunningModelExchange } from '../../src/model-exchange/index.js';
import { limitApiClient } from '../../src/gate-api/index.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { closeAfterEach } from '../e2e/harness.js';
import { sdkClient } from './helpers.js';

const T0 = Date.parse('2026-11-21T09:00:00Z');
const order = { contract: 'BTC_USDT', size: '1', price: '60000' };
// Ratio 9 the day before: tier 4 (250 per second) from 08:00.
const tier4 = [
  { account: 'main', day: '2026-11-20', contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }] },
];

const live = closeAfterEach();

/** The model and a limiter on one virtual clock at 09:00, the SDK's client on the model, limited. */
async function setup(options: { readonly limiterHistory?: typeof tier4 } = {}) {
  const clock = new VirtualClock({ start: 0, wallStart: T0 });
  const exchange = await startModelExchange({ port: 0, clock, fills: { maker: 0, taker: 0 } });
  live.exchange = exchange;
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
  live.limiter = limiter;
  if (options.limiterHistory !== undefined) limiter.seed({ days: options.limiterHistory });
  const sdk = sdkClient(exchange, clock);
  // The exchange's own figure is asked for in tests of its own, below: here, what is sent is the test's.
  const limited = limitApiClient(limiter, { account: 'main', client: sdk.client, askRateLimit: false });
  return {
    clock,
    limiter,
    exchange,
    ...sdk,
    limited,
    futures: new FuturesApi(sdk.client),
    spot: new SpotApi(sdk.client),
  };
}

/** Weight counted now on each of the limiter's limits that has any. */
function used(l: AccountLimiter): Record<string, number> {
  return Object.fromEntries(
    l.scheduler
      .stats()
      .limits.filter((x) => x.used > 0)
      .map((x) => [x.name, x.used]),
  );
}

/** Requests the model accepted per limit, where any. */
function accepted(ex: RunningModelExchange): Record<string, number> {
  return Object.fromEntries(
    ex
      .stats()
      .accounts.find((a) => a.account === 'main')!
      .limits.filter((x) => x.accepted > 0)
      .map((x) => [x.key, x.accepted]),
  );
}

// Real HTTP to the model: more time than the default on a loaded machine.
describe('limitApiClient', () => {
  it('puts each call of the SDK on the limits of its endpoint, from the filled-in path and the body, as the model counts it', async () => {
    const { limiter, exchange, futures, spot } = await setup();
    const placed = await futures.createFuturesOrder('usdt', order);
    await futures.createBatchFuturesOrder('usdt', [order, order, order]);
    await futures.cancelFuturesOrder('usdt', String(placed.body.id));
    await futures.listFuturesOrders('usdt', 'open', { contract: 'BTC_USDT' });
    // The SDK declares Side a numeric enum; its value is the API's 'buy'.
    await spot.createOrder({
      currencyPair: 'ETH_USDT',
      side: 'buy' as unknown as Order.Side,
      amount: '1',
      price: '3000',
    });
    await spot.listCurrencyPairs();
    expect(used(limiter)).toEqual({
      'main:futures.place': 4,
      'main:abuse-throttle': 4,
      'main:futures.cancel': 1,
      'main:futures:GET /futures/{settle}/orders': 1,
      'main:spot.place:ETH_USDT': 1,
      'main:spot-fill-throttle': 1,
      'ip:public:GET /spot/currency_pairs': 1,
    });
    // The model counts requests: the batch is one (its three orders weigh on the window, as above).
    expect(accepted(exchange)).toMatchObject({ 'futures.place': 2, 'futures.cancel': 1, 'spot.place:ETH_USDT': 1 });
    // Placements, the batch's orders one by one, and the cancel count for the ratio and the abuse window.
    expect(limiter.abuseHeadroom('main').requests).toBe(5);
  });

  it('counts a cancel of all orders under the contract its query names', async () => {
    const { limiter, futures } = await setup();
    await futures.cancelFuturesOrders('usdt', { contract: 'ETH_USDT' });
    expect(limiter.snapshot().tracker.days.flatMap((d) => d.contracts.map((c) => [c.contract, c.cancel]))).toEqual([
      ['ETH_USDT', 1],
    ]);
  });

  it('waits before the SDK signs: a placement over the limit is signed when the limit lets it go', async () => {
    const { clock, limiter, client, sent, futures } = await setup();
    const signing = vi.spyOn(client, 'applyToRequest');
    // Tier 1: 100 per second, taken by the engine's other placements.
    await Promise.all(
      Array.from({ length: 100 }, () =>
        limiter.request('main', 'POST', '/futures/usdt/orders', () => undefined, { body: order }),
      ),
    );
    const late = futures.createFuturesOrder('usdt', order);
    await clock.advance(999);
    expect(signing).not.toHaveBeenCalled();
    expect(sent).toEqual([]);
    await clock.advance(1);
    expect((await late).response.status).toBe(200);
    expect(signing).toHaveBeenCalledOnce();
    expect(sent.map((s) => [s.method, s.at])).toEqual([['POST', 1_000]]);
  });

  it('sends a cancel at once while placements wait for the limit', async () => {
    const { clock, limiter, futures, sent } = await setup();
    const placed = await futures.createFuturesOrder('usdt', order);
    await Promise.all(
      Array.from({ length: 99 }, () =>
        limiter.request('main', 'POST', '/futures/usdt/orders', () => undefined, { body: order }),
      ),
    );
    const waiting = futures.createFuturesOrder('usdt', order);
    await futures.cancelFuturesOrder('usdt', String(placed.body.id));
    expect(sent.map((s) => [s.method, s.at])).toEqual([
      ['POST', 0],
      ['DELETE', 0],
    ]);
    await clock.advance(1_000);
    await waiting;
    expect(sent.map((s) => [s.method, s.at])).toEqual([
      ['POST', 0],
      ['DELETE', 0],
      ['POST', 1_000],
    ]);
  });

  it('feeds a 429 and the headers back to the limit: placements pause until the reset, at the limit the exchange names', async () => {
    // The limiter believes tier 4; the model, without the history, is at tier 1.
    const { clock, limiter, futures, sent } = await setup({ limiterHistory: tier4 });
    expect(limiter.limitNow('main').limit).toBe(250);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 110 }, () => futures.createFuturesOrder('usdt', order)),
    );
    const refused = outcomes
      .filter((o) => o.status === 'rejected')
      .map((o) => (o.reason as { response?: { status: number; data: { label: string } } }).response);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r?.status === 429 && r.data.label === 'TOO_MANY_REQUESTS')).toBe(true);
    expect(limiter.scheduler.stats().limits.find((l) => l.name === 'main:futures.place')!.limit).toBe(100);
    const count = sent.length;
    const next = futures.createFuturesOrder('usdt', order);
    // The model's reset is the next whole second of its clock.
    await clock.advance(999);
    expect(sent.length).toBe(count);
    await clock.advance(1);
    expect((await next).response.status).toBe(200);
    expect(sent.length).toBe(count + 1);
  });

  it('feeds X-In-Time and X-Out-Time to the estimate of the exchange clock', async () => {
    const { limiter, futures } = await setup();
    expect(limiter.clockEstimate()).toBeNull();
    await futures.listFuturesOrders('usdt', 'open');
    expect(limiter.clockEstimate()).toMatchObject({ samples: 1 });
    expect(Math.abs(limiter.clockEstimate()!.offsetMs)).toBeLessThan(5);
  });

  it("hands the SDK's own errors back as they are, and refuses unsent what the limiter refuses", async () => {
    const { limiter, futures, sent } = await setup();
    const missing = await futures.cancelFuturesOrder('usdt', '424242').catch((e: unknown) => e);
    expect((missing as { response: { status: number; data: { label: string } } }).response.data.label).toBe(
      'ORDER_NOT_FOUND',
    );
    limiter.close();
    await expect(futures.createFuturesOrder('usdt', order)).rejects.toBeInstanceOf(RefusedError);
    expect(sent.map((s) => s.method)).toEqual(['DELETE']);
  });

  it('detaches: the client sends on its own again, and can be limited anew', async () => {
    const { limiter, client, futures, limited } = await setup();
    await futures.createFuturesOrder('usdt', order);
    limited.detach();
    limited.detach();
    expect(Object.hasOwn(client, 'request')).toBe(false);
    await futures.createFuturesOrder('usdt', order);
    expect(limiter.abuseHeadroom('main').requests).toBe(1);
    const again = limitApiClient(limiter, { account: 'main', client });
    await futures.createFuturesOrder('usdt', order);
    expect(limiter.abuseHeadroom('main').requests).toBe(2);
    again.detach();
  });

  it("touches no axios instance: neither the global one nor the client's", async () => {
    const global = {
      request: axios.interceptors.request,
      response: axios.interceptors.response,
      defaults: { ...axios.defaults },
    };
    const count = (i: unknown) => (i as { handlers: unknown[] }).handlers.length;
    const before = [count(axios.interceptors.request), count(axios.interceptors.response)];
    const { futures, http } = await setup();
    const own = [count(http.interceptors.request), count(http.interceptors.response)];
    await futures.createFuturesOrder('usdt', order);
    expect([count(axios.interceptors.request), count(axios.interceptors.response)]).toEqual(before);
    expect(axios.interceptors.request).toBe(global.request);
    expect(axios.interceptors.response).toBe(global.response);
    expect({ ...axios.defaults }).toEqual(global.defaults);
    expect([count(http.interceptors.request), count(http.interceptors.response)]).toEqual(own);
  });

  it('refuses bad input with an error naming it, and never spells out a client (it holds the secret)', async () => {
    const clock = new VirtualClock({ start: 0, wallStart: T0 });
    const l = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    live.limiter = l;
    const { client } = sdkClient({ url: 'http://127.0.0.1:1' } as RunningModelExchange, clock);
    const cases: [() => unknown, RegExp][] = [
      [
        () => limitApiClient({} as AccountLimiter, { account: 'main', client }),
        /Expected the limiter to be an AccountLimiter, got "an object \(Object\)"/,
      ],
      [() => limitApiClient(l, null as never), /Expected the options to be an object \{ account, client \}, got null/],
      [
        () => limitApiClient(l, { account: 'main', client: new FuturesApi(client) as never }),
        /Expected `client` to be an ApiClient of gate-api, got "an object \(FuturesApi\)"/,
      ],
      [() => limitApiClient(l, { account: 'other', client }), /other/],
    ];
    for (const [call, message] of cases) {
      const error = (() => {
        try {
          call();
          return undefined;
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('secret');
    }
    const first = limitApiClient(l, { account: 'main', client });
    expect(() => limitApiClient(l, { account: 'main', client })).toThrow(
      /Expected `client` to be an ApiClient not limited yet \(detach it first\), got "an ApiClient limited already"/,
    );
    first.detach();
    limitApiClient(l, { account: 'main', client }).detach();
  });
});

describe('limitApiClient learns from the exchange', () => {
  // Ratio 10 the day before: tier 5 (300 per second) at the exchange.
  const tier5 = {
    activity: [
      {
        account: 'main',
        day: '2026-11-20',
        contracts: [{ contract: 'BTC_USDT', makerVolume: '1000000', place: 100_000 }],
      },
    ],
  };

  async function learning(fills = { maker: 0, taker: 0 }, options: { fills?: { everyMs: number } } = {}) {
    const clock = new VirtualClock({ start: 0, wallStart: T0 });
    const exchange = await startModelExchange({ port: 0, clock, fills, history: tier5 });
    live.exchange = exchange;
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    live.limiter = limiter;
    const sdk = sdkClient(exchange, clock);
    const limited = limitApiClient(limiter, { account: 'main', client: sdk.client, ...options });
    return {
      clock,
      limiter,
      exchange,
      ...sdk,
      limited,
      futures: new FuturesApi(sdk.client),
      spot: new SpotApi(sdk.client),
    };
  }

  it('asks GET /account/rate_limit as it attaches: 300 placements leave at once at tier 5, none refused', async () => {
    const { clock, limiter: l, exchange: ex, futures, sent } = await learning();
    const placing = Array.from({ length: 301 }, () => futures.createFuturesOrder('usdt', order));
    await Promise.all(placing.slice(0, 300));
    expect(sent[0]).toMatchObject({ method: 'GET', at: 0 });
    expect(l.limitNow('main')).toMatchObject({ limit: 300, source: 'exchange', reportEndpoint: 'open' });
    await clock.advance(1_000);
    await Promise.all(placing);
    expect(ex.stats().accounts[0]!.refused).toEqual({});
  });

  it('records the fills of getMyTradesWithTimeRange and listMyTrades, exactly, once each', async () => {
    const { limiter: l, futures, spot } = await learning({ maker: 0, taker: 1 });
    await futures.createFuturesOrder('usdt', { contract: 'BTC_USDT', size: '-4', price: '60000' });
    await spot.createOrder({ currencyPair: 'ETH_USDT', side: 'buy' as never, amount: '2', price: '3000' });
    const { body } = await futures.getMyTradesWithTimeRange('usdt', {});
    expect(body).toHaveLength(1);
    await futures.getMyTrades('usdt', {});
    await spot.listMyTrades({});
    expect(l.abuseHeadroom('main').traded).toBe('24');
    expect(l.spotFillHeadroom('main').traded).toBe('6000');
  });

  it('draws a spot amend by id on the limit of the pair its query names', async () => {
    const { limiter: l, spot } = await learning();
    const placed = await spot.createOrder({
      currencyPair: 'ETH_USDT',
      side: 'buy' as never,
      amount: '2',
      price: '3000',
    });
    await spot.amendOrder(String(placed.body.id), { amount: '3' }, { currencyPair: 'ETH_USDT' });
    expect(used(l)['main:spot.place:ETH_USDT']).toBe(2);
  });
});
