import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { InvalidInputError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const T0 = Date.parse('2026-11-01T10:00:00Z');

function setup(options: Partial<ConstructorParameters<typeof AccountLimiter>[0]> = {}) {
  const clock = new VirtualClock({ start: 0, wallStart: T0 });
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, ...options });
  let started = 0;
  const run = () => {
    started++;
    return 'ok';
  };
  // Requests left waiting are refused when the limiter closes: that is not what these tests look at.
  const ws = (channel: string, params: unknown = { contract: 'BTC_USDT' }) =>
    limiter.requestWebSocket('main', channel, run, { params }).catch(() => 'closed');
  const rest = (method: string, path: string, body?: unknown) =>
    limiter.request('main', method, path, run, { body }).catch(() => 'closed');
  // Tasks start in the microtasks after they are scheduled.
  const startedNow = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
    return started;
  };
  return { clock, limiter, ws, rest, startedNow };
}

const used = (limiter: AccountLimiter, name: string) =>
  limiter.scheduler.stats().limits.find((l) => l.name === name)?.used;

describe('AccountLimiter.requestWebSocket (see docs/rules.md#r16)', () => {
  it('draws a WebSocket futures order on the WebSocket 100 per s and on the tier at once by default', async () => {
    const { limiter, ws, rest, startedNow } = setup();
    for (let i = 0; i < 60; i++) void ws('futures.order_place');
    for (let i = 0; i < 60; i++) void rest('POST', '/futures/usdt/orders', { contract: 'BTC_USDT' });
    // Tier 1: 100 per s for REST and WebSocket placement together.
    expect(await startedNow()).toBe(100);
    expect([used(limiter, 'main:ws.futures.orders'), used(limiter, 'main:futures.place')]).toEqual([60, 100]);
    limiter.close();
  });

  it('draws a WebSocket cancel on the WebSocket 100 per s and on the cancel limit, never on the tier', async () => {
    const { limiter, ws, rest, startedNow } = setup();
    for (let i = 0; i < 150; i++) void rest('DELETE', `/futures/usdt/orders/${i}`);
    for (let i = 0; i < 100; i++) void ws('futures.order_cancel', { order_id: String(i) });
    // 150 over REST, then 50 over WebSocket: the 200 cancels per s are spent.
    expect(await startedNow()).toBe(200);
    expect([
      used(limiter, 'main:ws.futures.orders'),
      used(limiter, 'main:futures.cancel'),
      used(limiter, 'main:futures.place'),
    ]).toEqual([50, 200, 0]);
    limiter.close();
  });

  it('counts a WebSocket batch once per order on both limits and in the ratio and abuse counts (see docs/rules.md#r1, #r9)', async () => {
    const { limiter, ws, startedNow } = setup();
    void ws('futures.order_batch_place', [
      { contract: 'ETH_USDT' },
      { contract: 'ETH_USDT' },
      { contract: 'ETH_USDT' },
    ]);
    void ws('futures.order_amend', { order_id: '7', price: '1' });
    expect(await startedNow()).toBe(2);
    expect([used(limiter, 'main:ws.futures.orders'), used(limiter, 'main:futures.place')]).toEqual([4, 4]);
    expect(limiter.abuseHeadroom('main').requests).toBe(4);
    limiter.close();
  });

  it('draws a WebSocket spot order on the WebSocket 10 per s and on the pair REST limit, and counts it for the spot low-fill throttle (see docs/rules.md#r14)', async () => {
    const { limiter, ws, rest, startedNow } = setup();
    for (let i = 0; i < 6; i++) void ws('spot.order_place', { currency_pair: 'BTC_USDT', amount: '1' });
    for (let i = 0; i < 6; i++) void rest('POST', '/spot/orders', { currency_pair: 'BTC_USDT' });
    expect(await startedNow()).toBe(10);
    expect(limiter.spotFillHeadroom('main').requests).toBe(10);
    limiter.close();
  });

  it('keeps separate budgets with websocketBudget "separate": the tier replaces the WebSocket futures 100 per s', async () => {
    const { clock, limiter, ws, rest, startedNow } = setup({ websocketBudget: 'separate' });
    // Yesterday's ratio of 100, raised at 08:00 today: tier 7, 400 per s, on each budget.
    limiter.seed({
      days: [
        {
          account: 'main',
          day: '2026-10-31',
          contracts: [{ contract: 'BTC_USDT', makerVolume: '100000', place: 1000 }],
        },
      ],
    });
    for (let i = 0; i < 400; i++) void rest('POST', '/futures/usdt/orders', { contract: 'BTC_USDT' });
    for (let i = 0; i < 400; i++) void ws('futures.order_place');
    for (let i = 0; i < 10; i++) void rest('POST', '/spot/orders', { currency_pair: 'BTC_USDT' });
    for (let i = 0; i < 10; i++) void ws('spot.order_place', { currency_pair: 'BTC_USDT' });
    expect(await startedNow()).toBe(820);
    expect([
      used(limiter, 'main:ws.futures.place'),
      used(limiter, 'main:futures.place'),
      used(limiter, 'main:ws.futures.orders'),
    ]).toEqual([400, 400, undefined]);
    expect(limiter.scheduler.stats().limits.find((l) => l.name === 'main:ws.futures.place')?.limit).toBe(400);
    // The next WebSocket order waits for its own budget's window.
    void ws('futures.order_place');
    expect(await startedNow()).toBe(820);
    await clock.advance(1000);
    expect(await startedNow()).toBe(821);
    limiter.close();
  });

  it('runs WebSocket status and list requests on the REST limit of their endpoint', async () => {
    const { limiter, ws, startedNow } = setup();
    void ws('futures.order_status', { order_id: '1' });
    expect(await startedNow()).toBe(1);
    expect(used(limiter, 'main:futures:GET /futures/{settle}/orders/{order_id}')).toBe(1);
    expect(limiter.abuseHeadroom('main').requests).toBe(0);
    limiter.close();
  });

  it('refuses an unknown channel, settle or budget before anything is queued or counted', async () => {
    const { limiter, startedNow } = setup();
    expect(() => limiter.requestWebSocket('main', 'futures.orders_place', () => 'ok')).toThrow(InvalidInputError);
    expect(() =>
      limiter.requestWebSocket('main', 'futures.order_place', () => 'ok', {
        params: { contract: 'BTC_USDT' },
        settle: 'eur',
      }),
    ).toThrow('`settle`');
    expect(() => limiter.requestWebSocket('main', 'futures.order_batch_place', () => 'ok', { params: [] })).toThrow(
      InvalidInputError,
    );
    expect(() => new AccountLimiter({ accounts: [{ id: 'main' }], websocketBudget: 'both' as never })).toThrow(
      '`websocketBudget`',
    );
    expect(await startedNow()).toBe(0);
    expect(limiter.scheduler.stats().queued).toBe(0);
    expect(limiter.abuseHeadroom('main').requests).toBe(0);
    limiter.close();
  });
});
