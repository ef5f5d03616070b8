import ccxt from 'ccxt';
import { describe, expect, it, vi } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { limitCcxt } from '../../src/ccxt/index.js';
import { InvalidInputError } from '../../src/errors.js';
import { startModelExchange, type RunningModelExchange } from '../../src/model-exchange/index.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { closeAfterEach } from '../e2e/harness.js';
import { gateAt, recordSends } from './helpers.js';

const BTC = 'BTC/USDT:USDT';
// Real requests on a loaded machine: time to see them answered.
const WAIT = { timeout: 60_000 };
vi.setConfig({ testTimeout: 60_000 });
const live = closeAfterEach();

/** The model and a limiter on one virtual clock (tier 1: 100 placements per second), a gate instance limited. */
async function setUp(options: { limiter?: object; gate?: Record<string, unknown> } = {}) {
  const clock = new VirtualClock({ start: 0, wallStart: Date.now() });
  live.exchange = await startModelExchange({ port: 0, clock, fills: { maker: 0, taker: 0 } });
  live.limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, ...options.limiter });
  const gate = gateAt(live.exchange, options.gate);
  const sent = recordSends(gate);
  // The exchange's own figure is asked for in tests of its own, below: here, what is sent is the test's.
  const limited = limitCcxt(live.limiter, gate, { account: 'main', askRateLimit: false });
  return { clock, gate, sent, limited, limiter: live.limiter, exchange: live.exchange };
}

/** Weight counted on each of the limiter's limits, by name. */
function used(l: AccountLimiter): Record<string, number> {
  return Object.fromEntries(
    l.scheduler
      .stats()
      .limits.filter((x) => x.used > 0)
      .map((x) => [x.name, x.used]),
  );
}

function modelLimit(ex: RunningModelExchange, key: string) {
  return ex
    .stats()
    .accounts.find((a) => a.account === 'main')!
    .limits.find((x) => x.key === key);
}

describe('limitCcxt', () => {
  it('refuses what is not a gate instance, an unknown account, and an instance limited already, leaving the instance as it was', () => {
    const l = (live.limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] }));
    const binance = new ccxt.binance();
    expect(() => limitCcxt(l, binance as never, { account: 'main' })).toThrow(
      new InvalidInputError('the exchange', 'a ccxt instance with id binance', 'a ccxt gate (or gateio) instance'),
    );
    expect(() => limitCcxt(l, null as never, { account: 'main' })).toThrow(
      /Expected the exchange to be a ccxt gate \(or gateio\) instance, got null/,
    );
    expect(() => limitCcxt({} as never, new ccxt.gate(), { account: 'main' })).toThrow(
      /Expected the limiter to be an AccountLimiter/,
    );
    const gate = new ccxt.gate();
    expect(() => limitCcxt(l, gate, { account: 'other' })).toThrow(
      /Expected `account` to be an account of the limiter \(main\), got "other"/,
    );
    expect(() => limitCcxt(l, gate, null as never)).toThrow(/Expected the options to be an object \{ account \}/);
    expect(gate.enableRateLimit).toBe(true);
    const { fetch2, handleErrors } = gate;
    const limited = limitCcxt(l, gate, { account: 'main' });
    expect(() => limitCcxt(l, gate, { account: 'main' })).toThrow(/an instance not limited yet/);
    limited.detach();
    expect([gate.fetch2, gate.handleErrors]).toEqual([fetch2, handleErrors]);
  });

  it("switches ccxt's throttle off, and detach gives the instance back as it was", async () => {
    const { gate, limited, limiter: l } = await setUp();
    const { fetch2, handleErrors } = Object.getPrototypeOf(gate) as typeof gate;
    expect(gate.enableRateLimit).toBe(false);
    expect(gate.fetch2).not.toBe(fetch2);
    expect(limited.exchange).toBe(gate);
    const spy = vi.spyOn(l, 'roundTrip');
    await gate.fetchTime();
    expect(spy).toHaveBeenCalledTimes(1);
    limited.detach();
    limited.detach();
    expect(gate.enableRateLimit).toBe(true);
    expect([gate.fetch2.name, gate.handleErrors.name]).toEqual([fetch2.name, handleErrors.name]);
    await gate.fetchTime();
    expect(spy).toHaveBeenCalledTimes(1);
    // Limited again after a detach, by another limiter or the same.
    limitCcxt(l, gate, { account: 'main' }).detach();
  });

  it('routes each request by the endpoint and action ccxt sends it to', async () => {
    const { gate, limiter: l } = await setUp();
    await gate.loadMarkets();
    expect(Object.keys(used(l))).toContain('ip:public:GET /futures/{settle}/contracts');
    expect(Object.keys(used(l)).some((name) => name.includes('place') || name.includes('cancel'))).toBe(false);
    const order = await gate.createOrder(BTC, 'limit', 'buy', 1, 60000);
    expect(used(l)).toMatchObject({ 'main:futures.place': 1 });
    await gate.createOrders(
      [1, 2, 3].map(() => ({ symbol: BTC, type: 'limit', side: 'buy', amount: 1, price: 60000 })),
    );
    expect(used(l)).toMatchObject({ 'main:futures.place': 4 });
    await gate.cancelOrder(order.id!, BTC);
    expect(used(l)['main:futures.cancel']).toBe(1);
    await gate.cancelOrders(['2', '3'], BTC);
    expect(used(l)['main:futures.cancel']).toBe(3);
    await gate.cancelAllOrders(BTC);
    expect(used(l)['main:futures.cancel']).toBe(4);
    await gate.privateSpotPostOrders({ currency_pair: 'BTC_USDT', side: 'buy', amount: '1', price: '60000' });
    expect(used(l)['main:spot.place:BTC_USDT']).toBe(1);
    await gate.publicFuturesGetSettleTickers({ settle: 'usdt' });
    expect(used(l)['ip:public:GET /futures/{settle}/tickers']).toBe(1);
    await gate.privateWithdrawalsPostWithdrawals({ currency: 'USDT', amount: '10', address: 'addr' });
    expect(used(l)).toMatchObject({ 'main:withdrawals': 1, 'main:wallet:POST /withdrawals': 1 });
    // The model took the same requests: two placements (a batch of 3 one request), three cancels.
    expect(modelLimit(live.exchange!, 'futures.place')?.accepted).toBe(2);
    expect(modelLimit(live.exchange!, 'futures.cancel')?.accepted).toBe(3);
  });

  it('sends a cancel at once while placements wait on the placement limit', async () => {
    const { gate, clock, limiter: l } = await setUp();
    await gate.loadMarkets();
    const first = await gate.createOrder(BTC, 'limit', 'buy', 1, 60000);
    const placements = Array.from({ length: 120 }, () => gate.createOrder(BTC, 'limit', 'buy', 1, 60000));
    // Answered: the HTTP client may hold a request a moment after ccxt hands it over.
    await vi.waitFor(() => expect(modelLimit(live.exchange!, 'futures.place')?.accepted).toBe(100), WAIT);
    expect(l.scheduler.stats().limits.find((x) => x.name === 'main:futures.place')?.waiting).toBe(21);
    const cancelled = await gate.cancelOrder(first.id!, BTC);
    expect(cancelled.status).toBe('canceled');
    // The 21 placements still wait: nothing moved the clock.
    expect(l.scheduler.stats().limits.find((x) => x.name === 'main:futures.place')?.waiting).toBe(21);
    await clock.advance(1000);
    await Promise.all(placements);
    expect(live.exchange!.stats().accounts[0]!.refused).toEqual({});
  });

  it('signs once admitted: the Timestamp of a request that waited is the instant it left', async () => {
    const { gate, sent, clock } = await setUp();
    gate.nonce = () => Math.floor(clock.wall());
    await gate.loadMarkets();
    const start = Math.floor(clock.wall() / 1000);
    const placements = Array.from({ length: 101 }, () => gate.createOrder(BTC, 'limit', 'buy', 1, 60000));
    await vi.waitFor(() => expect(modelLimit(live.exchange!, 'futures.place')?.accepted).toBe(100), WAIT);
    await clock.advance(5000);
    await Promise.all(placements);
    const stamps = sent.filter((s) => s.method === 'POST').map((s) => Number(s.headers['Timestamp']));
    expect(stamps.slice(0, 100).every((t) => t === start)).toBe(true);
    // Admitted when the first 100 left the window, at 1 s: signed then, not when asked (0 s).
    expect(stamps[100]).toBe(start + 1);
  });

  it('gives a TOO_FAST and the limit the exchange names to the limit the withdrawal drew on, which waits for the reset', async () => {
    // The limiter is told withdrawals allow 5 per 3 s; the exchange allows 1.
    const {
      gate,
      sent,
      clock,
      limiter: l,
    } = await setUp({ limiter: { catalog: { limits: { withdrawals: { limit: 5, windowMs: 3000 } } } } });
    const withdraw = () => gate.privateWithdrawalsPostWithdrawals({ currency: 'USDT', amount: '10', address: 'addr' });
    const limit = () => l.scheduler.stats().limits.find((x) => x.name === 'main:withdrawals')!;
    // Two at once, both sent before an answer: the second is refused, as ccxt's RateLimitExceeded.
    const answers = await Promise.allSettled([withdraw(), withdraw()]);
    expect(answers.map((a) => a.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(answers.find((a) => a.status === 'rejected')).toMatchObject({ reason: expect.any(ccxt.RateLimitExceeded) });
    expect(limit().limit).toBe(1);
    const third = withdraw();
    await Promise.resolve();
    expect(limit().waiting).toBe(1);
    await clock.advance(2000);
    expect(limit().waiting).toBe(1);
    expect(sent).toHaveLength(2);
    // The exchange's reset: the end of its 3 s window, in whole seconds.
    await clock.advance(2000);
    await third;
    expect(sent).toHaveLength(3);
    expect(modelLimit(live.exchange!, 'withdrawals')).toMatchObject({ accepted: 2, refused: 1 });
  });

  it("keeps withdrawals at 1 per 3 s, as published, not ccxt's 1 per second", async () => {
    const { gate, sent, clock } = await setUp();
    const withdrawals = Array.from({ length: 3 }, () =>
      gate.privateWithdrawalsPostWithdrawals({ currency: 'USDT', amount: '10', address: 'addr' }),
    );
    await vi.waitFor(() => expect(modelLimit(live.exchange!, 'withdrawals')?.accepted).toBe(1), WAIT);
    await clock.advance(2999);
    expect(sent).toHaveLength(1);
    await clock.advance(1);
    await vi.waitFor(() => expect(modelLimit(live.exchange!, 'withdrawals')?.accepted).toBe(2), WAIT);
    await clock.advance(3000);
    await Promise.all(withdrawals);
    expect(sent).toHaveLength(3);
    expect(modelLimit(live.exchange!, 'withdrawals')).toMatchObject({ accepted: 3, refused: 0 });
  });

  it('feeds the gateway times of every response to the exchange clock', async () => {
    const { gate, limiter: l } = await setUp();
    expect(l.clockEstimate()).toBeNull();
    await gate.fetchTime();
    expect(l.clockEstimate()).toMatchObject({ offsetMs: 0 });
  });
});

describe('limitCcxt learns from the exchange', () => {
  const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

  /** The model (tier `ratio`'s, in force all day today) and a limiter on one virtual clock at the machine's time, ccxt limited. */
  async function learning(
    options: {
      makerVolume?: string;
      fills?: { maker: number; taker: number };
      ccxt?: object;
      limiterAt?: 'tier4';
    } = {},
  ) {
    const now = Date.now();
    const clock = new VirtualClock({ start: 0, wallStart: now });
    // The day before yesterday: yesterday's and today's 00:00 snapshots both see it, so its tier is
    // in force at any hour the test runs (see docs/rules.md#r3, #r5).
    const dayBefore = utcDay(now - 2 * 86_400_000);
    const history = {
      activity: [
        {
          account: 'main',
          day: dayBefore,
          contracts: [{ contract: 'BTC_USDT', makerVolume: options.makerVolume ?? '1000000', place: 100_000 }],
        },
      ],
    };
    live.exchange = await startModelExchange({
      port: 0,
      clock,
      fills: options.fills ?? { maker: 0, taker: 0 },
      history,
    });
    live.limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    const gate = gateAt(live.exchange);
    const sent = recordSends(gate);
    const limited = limitCcxt(live.limiter, gate, { account: 'main', ...options.ccxt });
    return { clock, gate, sent, limited, limiter: live.limiter, exchange: live.exchange };
  }

  it('asks GET /account/rate_limit as it attaches, and requests wait for the answer', async () => {
    const { gate, sent, limiter: l } = await learning();
    const markets = gate.loadMarkets();
    await markets;
    expect(sent.map((s) => new URL(s.url).pathname)[0]).toBe('/api/v4/account/rate_limit');
    expect(l.limitNow('main')).toMatchObject({ limit: 300, source: 'exchange', reportEndpoint: 'open' });
  });

  it('marks the endpoint not open when the instance has no key, and asks nothing', async () => {
    const clock = new VirtualClock({ start: 0, wallStart: Date.now() });
    live.limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    const gate = new ccxt.gate();
    limitCcxt(live.limiter, gate, { account: 'main' });
    expect(live.limiter.limitNow('main').reportEndpoint).toBe('unasked');
  });

  it('records the fills fetchMyTrades reads (my_trades_timerange), exactly, once each', async () => {
    const { gate, limiter: l } = await learning({ fills: { maker: 1, taker: 0 } });
    await gate.loadMarkets();
    await gate.createOrder(BTC, 'limit', 'buy', 2, 60000);
    await gate.createOrder(BTC, 'limit', 'sell', 3, 60100);
    const trades = await gate.fetchMyTrades(BTC);
    expect(trades).toHaveLength(2);
    // 2 x 0.0001 x 60000 + 3 x 0.0001 x 60100, as maker.
    expect(l.abuseHeadroom('main').traded).toBe('30.03');
    await gate.fetchMyTrades(BTC);
    expect(l.abuseHeadroom('main').traded).toBe('30.03');
    expect(JSON.stringify(l.snapshot().tracker)).toContain('"makerVolume":"30.03"');
  });

  it('polls fills with `fills: { everyMs }` and stops when detached', async () => {
    const {
      clock,
      gate,
      limited,
      limiter: l,
    } = await learning({ fills: { maker: 0, taker: 1 }, ccxt: { fills: { everyMs: 1_000 } } });
    await gate.loadMarkets();
    await gate.createOrder(BTC, 'limit', 'buy', 10, 60000);
    expect(l.abuseHeadroom('main').traded).toBe('0');
    await clock.advance(1_000);
    await vi.waitFor(() => expect(l.abuseHeadroom('main').traded).toBe('60'), WAIT);
    limited.detach();
  });
});
