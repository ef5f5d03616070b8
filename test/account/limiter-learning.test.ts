import { describe, expect, it } from 'vitest';
import { AccountLimiter, type AccountLimiterOptions, type LimiterEvent } from '../../src/account/limiter.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { feedbackFrom } from '../../src/schedule/gate-feedback.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-21T10:00:00Z');
const ORDERS = '/api/v4/futures/usdt/orders';
const body = { contract: 'BTC_USDT', size: 1, price: '60000' };
const placement = { method: 'POST', path: ORDERS, body };
// All of the limit left: the answers come to no request sent here, so the exchange counted none.
const stating = (limit: number) =>
  feedbackFrom({
    status: 200,
    headers: { 'X-Gate-RateLimit-Limit': String(limit), 'X-Gate-RateLimit-Requests-Remain': String(limit) },
  });
// Ratio 10 the day before: tier 5 (300 per second) from 08:00.
const tier5Day = (day: number) => ({
  account: 'main',
  day,
  contracts: [{ contract: 'BTC_USDT', makerVolume: '1000000', place: 100_000 }],
});

function setup(options: Partial<AccountLimiterOptions> = {}, start = T0) {
  const clock = new VirtualClock({ start: 0, wallStart: start });
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, ...options });
  const events: LimiterEvent[] = [];
  limiter.on((e) => events.push(e));
  const placeLimit = () => limiter.scheduler.stats().limits.find((l) => l.name === 'main:futures.place')!.limit;
  return { clock, limiter, events, placeLimit };
}

describe("where an account's limit comes from (see docs/rules.md#r16)", () => {
  it('is assumed with nothing counted, seeded or reported, and says so once, at the first placement', async () => {
    const { limiter, events } = setup();
    expect(limiter.limitNow('main')).toMatchObject({ source: 'assumed', reportEndpoint: 'unasked', limit: 100 });
    await limiter.request('main', 'GET', '/futures/usdt/positions', () => 1);
    expect(events).toEqual([]);
    await limiter.request('main', 'POST', ORDERS, () => 1, { body });
    await limiter.request('main', 'POST', ORDERS, () => 1, { body });
    expect(events).toEqual([
      {
        type: 'assumed-tier',
        account: 'main',
        at: T0,
        tier: 1,
        limit: 100,
        learnFrom: ['GET /account/rate_limit', 'X-Gate-RateLimit-Limit', 'seed()'],
      },
    ]);
    limiter.close();
  });

  it("is the rules' on seeded activity, or below VIP 14, and then nothing is told", async () => {
    const seeded = setup();
    seeded.limiter.seed({ days: [tier5Day(Date.parse('2026-11-20T00:00:00Z'))] });
    expect(seeded.limiter.limitNow('main')).toMatchObject({ source: 'rules', limit: 300 });
    // Seeded activity that rates tier 1 is known too: the tier is the rules', not a guess.
    const idle = setup();
    idle.limiter.seed({
      days: [
        { account: 'main', day: '2026-11-20', contracts: [{ contract: 'BTC_USDT', makerVolume: '0', place: 10 }] },
      ],
    });
    expect(idle.limiter.limitNow('main')).toMatchObject({ source: 'rules', limit: 100 });
    const low = setup({ vipLevel: 3 });
    expect(low.limiter.limitNow('main').source).toBe('rules');
    await low.limiter.request('main', 'POST', ORDERS, () => 1, { body });
    expect(low.events).toEqual([]);
    for (const s of [seeded, idle, low]) s.limiter.close();
  });

  it("is the exchange's once it reported, and the endpoint is marked open; a refusal marks it not open, with an event", () => {
    const { limiter, events } = setup();
    limiter.reportRateLimit('main', [
      { type: 'futures', tier: '5', ratio: '10.5', main_ratio: '10.5', updated_at: String(T0 / 1000) },
    ]);
    expect(limiter.limitNow('main')).toMatchObject({ source: 'exchange', reportEndpoint: 'open', limit: 300 });
    limiter.rateLimitUnavailable('main', 'HTTP 404');
    expect(limiter.limitNow('main').reportEndpoint).toBe('not-open');
    expect(events.at(-1)).toEqual({ type: 'report-unavailable', account: 'main', at: T0, reason: 'HTTP 404' });
    expect(() => limiter.rateLimitUnavailable('main', 404 as never)).toThrow(
      'Expected `reason` to be a string, got 404',
    );
    limiter.close();
  });
});

describe("the X-Gate-RateLimit-Limit of a placement's answer (see docs/rules.md#r16)", () => {
  it('raises the limit at once to the tier the exchange states, and lowers it at once, each told with both figures', async () => {
    const { limiter, events, placeLimit } = setup();
    limiter.feedback('main', placement, stating(300));
    expect(placeLimit()).toBe(300);
    expect(limiter.limitNow('main')).toMatchObject({
      limit: 300,
      tier: { tier: 5 },
      reason: 'report',
      source: 'exchange',
    });
    expect(events).toEqual([
      { type: 'limit', account: 'main', at: T0, from: 100, to: 300, reason: 'report' },
      {
        type: 'exchange-limit',
        account: 'main',
        at: T0,
        header: 'X-Gate-RateLimit-Limit',
        from: 100,
        stated: 300,
        tier: 5,
        policy: 'adopt',
        to: 300,
      },
    ]);
    // The same figure again changes nothing and tells nothing.
    limiter.feedback('main', { method: 'PUT', path: `${ORDERS}/7`, body }, stating(300));
    expect(events).toHaveLength(2);
    limiter.feedback('main', placement, stating(250));
    expect(placeLimit()).toBe(250);
    expect(events.at(-1)).toMatchObject({ type: 'exchange-limit', from: 300, stated: 250, tier: 4, to: 250 });
    // 250 placements go at once, the 251st a second later.
    const started: number[] = [];
    const all = Array.from({ length: 251 }, () =>
      limiter.request('main', 'POST', ORDERS, () => started.push(0), { body }),
    );
    expect(started).toHaveLength(250);
    limiter.close();
    await Promise.allSettled(all);
  });

  it("under `min` takes a lowering only, and under `report` keeps the rules' tier, lowering the limit as any stated N", () => {
    const min = setup({ reportPolicy: 'min' });
    min.limiter.feedback('main', placement, stating(300));
    // Every answer states it again: told once.
    min.limiter.feedback('main', placement, stating(300));
    expect(min.placeLimit()).toBe(100);
    expect(min.events).toEqual([
      {
        type: 'exchange-limit',
        account: 'main',
        at: T0,
        header: 'X-Gate-RateLimit-Limit',
        from: 100,
        stated: 300,
        tier: 5,
        policy: 'min',
        to: 100,
      },
    ]);
    min.limiter.seed({ days: [tier5Day(Date.parse('2026-11-20T00:00:00Z'))] });
    min.limiter.feedback('main', placement, stating(200));
    expect(min.limiter.limitNow('main')).toMatchObject({ limit: 200, source: 'exchange' });
    const report = setup({ reportPolicy: 'report' });
    report.limiter.feedback('main', placement, stating(300));
    expect(report.placeLimit()).toBe(100);
    expect(report.limiter.limitNow('main').source).toBe('assumed');
    report.limiter.seed({ days: [tier5Day(Date.parse('2026-11-20T00:00:00Z'))] });
    report.limiter.feedback('main', placement, stating(200));
    report.limiter.feedback('main', placement, stating(200));
    expect(report.placeLimit()).toBe(200);
    expect(report.limiter.limitNow('main')).toMatchObject({ limit: 300, source: 'rules' });
    expect(
      report.events
        .filter((e) => e.type === 'exchange-limit')
        .map((e) => e.type === 'exchange-limit' && [e.stated, e.to]),
    ).toEqual([
      [300, 100],
      [200, 300],
    ]);
    for (const s of [min, report]) s.limiter.close();
  });

  it("reads nothing of the tier from a figure no tier has, a throttle's, a spot answer's or one the WebSocket limit shares", () => {
    const { limiter, events, placeLimit } = setup();
    // No tier is 120 per second: an N stated lower than counted here lowers the limit, as before.
    limiter.feedback('main', placement, stating(120));
    expect(events).toEqual([]);
    limiter.feedback(
      'main',
      { method: 'POST', path: '/spot/orders', body: { currency_pair: 'BTC_USDT' } },
      stating(300),
    );
    // Over the WebSocket API the shared budget's 100 per second is also the tier 1 figure: not read.
    limiter.seed({ days: [tier5Day(Date.parse('2026-11-20T00:00:00Z'))] });
    limiter.feedback('main', { channel: 'futures.order_place', params: body }, stating(100));
    expect(events.filter((e) => e.type === 'exchange-limit')).toEqual([]);
    expect(placeLimit()).toBe(300);
    limiter.close();
  });

  it("reads a figure at or below the abuse throttle's N as the throttle's while it is in force (see docs/rules.md#r9)", () => {
    const { limiter, events } = setup();
    limiter.seed({ hours: [{ account: 'main', hour: T0 - HOUR, requests: 86_401 }] });
    expect(limiter.limitNow('main').throttle).toMatchObject({ limit: 10 });
    limiter.feedback('main', placement, stating(10));
    expect(events.filter((e) => e.type === 'exchange-limit')).toEqual([]);
    limiter.close();
  });

  it('gives way to a raise the rules predict at 08:00 after it', async () => {
    // At 07:00 the rules hold tier 1 until the 08:00 raise to tier 5 (see docs/rules.md#r5); the exchange states 200.
    const { clock, limiter, placeLimit } = setup({}, Date.parse('2026-11-21T07:00:00Z'));
    limiter.seed({ days: [tier5Day(Date.parse('2026-11-20T00:00:00Z'))] });
    expect(limiter.limitNow('main').limit).toBe(100);
    limiter.feedback('main', placement, stating(200));
    expect(placeLimit()).toBe(200);
    await clock.advance(HOUR);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 300, reason: 'raised-at-0800', source: 'rules' });
    expect(placeLimit()).toBe(300);
    limiter.close();
  });
});
