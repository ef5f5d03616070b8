import { describe, expect, it } from 'vitest';
import { AccountLimiter, type LimiterEvent } from '../../src/account/limiter.js';
import { InvalidInputError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const T0 = Date.parse('2026-11-01T00:00:00Z');
const H = 3_600_000;
const D = 86_400_000;

// A limiter at T0 09:00 whose main account is at tier 5 (300 per s) by the rules: a ratio of 10
// the day before, raised at 08:00 (see docs/rules.md#r5).
async function setup(options: Partial<ConstructorParameters<typeof AccountLimiter>[0]> = {}) {
  const clock = new VirtualClock({ start: 0, wallStart: T0 });
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, ...options });
  limiter.seed({
    days: [{ account: 'main', day: T0 - D, contracts: [{ contract: 'BTC_USDT', makerVolume: '1000', place: 100 }] }],
  });
  const events: LimiterEvent[] = [];
  limiter.on((e) => events.push(e));
  const at = (instant: number) => clock.advanceTo(instant - T0);
  await at(T0 + 9 * H);
  return { clock, limiter, events: () => events.filter((e) => e.type === 'report'), at };
}

const row = (tier: number, updatedAt: number, extra: Record<string, string> = {}) => ({
  tier: String(tier),
  ratio: '3.5',
  main_ratio: '3.5',
  updated_at: String(updatedAt / 1000),
  ...extra,
});

describe('AccountLimiter.reportRateLimit (see docs/rules.md#r16)', () => {
  it('adopts a report made after the latest snapshot as the tier in force, and tells both figures and its age', async () => {
    const { limiter, events } = await setup();
    expect(limiter.limitNow('main').limit).toBe(300);
    const r = limiter.reportRateLimit('main', [row(1, T0, { type: 'spot' }), row(3, T0 + 30_000, { type: 'futures' })]);
    expect([r?.tier.tier, r?.source]).toEqual([3, 'report']);
    expect(limiter.limitNow('main')).toMatchObject({ tier: { tier: 3 }, limit: 200, reason: 'report' });
    expect(limiter.scheduler.stats().limits.find((l) => l.name === 'main:futures.place')?.limit).toBe(200);
    expect(events()).toEqual([
      {
        type: 'report',
        account: 'main',
        at: T0 + 9 * H,
        local: { tier: 5, limit: 300 },
        reported: { tier: 3, limit: 200, ratio: '3.5', mainRatio: '3.5', updatedAt: T0 + 30_000 },
        reportAgeMs: 9 * H - 30_000,
        stale: false,
        policy: 'adopt',
        inForce: { tier: 3, limit: 200 },
        source: 'report',
      },
    ]);
  });

  it('holds an adopted tier across hourly refreshes until the next snapshot gives the rules back', async () => {
    const { limiter, at } = await setup();
    limiter.reportRateLimit('main', [row(6, T0 + 60_000)]);
    await at(T0 + 23 * H + 30 * 60_000);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 350, reason: 'report' });
    // The snapshot of the next 00:00 gives the rules' tier back (5: the seeded day is still in its 7 days).
    await at(T0 + D);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 300, reason: 'raised-at-0800' });
    await at(T0 + D + 9 * H);
    expect(limiter.limitNow('main').limit).toBe(300);
  });

  it('drops a report asked before 08:00 at the raise the rules predict: it spoke of the limit before', async () => {
    const clock = new VirtualClock({ start: 0, wallStart: T0 });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    limiter.seed({
      days: [{ account: 'main', day: T0 - D, contracts: [{ contract: 'BTC_USDT', makerVolume: '1000', place: 100 }] }],
    });
    await clock.advanceTo(7 * H);
    // The exchange says tier 1 is in force (its snapshot of 00:00 raises at 08:00).
    limiter.reportRateLimit('main', [row(1, T0)]);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 100, source: 'exchange' });
    await clock.advanceTo(8 * H - 1);
    expect(limiter.limitNow('main').limit).toBe(100);
    await clock.advanceTo(8 * H);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 300, reason: 'raised-at-0800' });
    // One asked after the raise holds until the next change.
    limiter.reportRateLimit('main', [row(4, T0)]);
    await clock.advanceTo(20 * H);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 250, reason: 'report' });
    limiter.close();
  });

  it('a newer report replaces the one held, an older one changes nothing', async () => {
    const { limiter } = await setup();
    limiter.reportRateLimit('main', [row(6, T0 + 2 * H)]);
    limiter.reportRateLimit('main', [row(2, T0 + H)]);
    expect(limiter.limitNow('main').limit).toBe(350);
    limiter.reportRateLimit('main', [row(2, T0 + 3 * H)]);
    expect(limiter.limitNow('main').limit).toBe(150);
  });

  it('changes nothing for a report older than the latest snapshot, and says it was stale', async () => {
    const { limiter, events } = await setup();
    const r = limiter.reportRateLimit('main', [row(2, T0 - 60_000)]);
    expect([r?.tier.tier, r?.source, r?.disagreement?.stale]).toEqual([5, 'local', true]);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 300, reason: 'raised-at-0800' });
    expect(events()).toMatchObject([
      { stale: true, source: 'local', inForce: { tier: 5, limit: 300 }, reportAgeMs: 9 * H + 60_000 },
    ]);
  });

  it('keeps the local tier under policy "report" and only tells', async () => {
    const { limiter, events } = await setup({ reportPolicy: 'report' });
    limiter.reportRateLimit('main', [row(2, T0 + 60_000)]);
    expect(limiter.limitNow('main').limit).toBe(300);
    expect(events()).toMatchObject([{ local: { tier: 5 }, reported: { tier: 2 }, policy: 'report', source: 'local' }]);
  });

  it('takes the lower of the two under policy "min"', async () => {
    const { limiter, events } = await setup({ reportPolicy: 'min' });
    limiter.reportRateLimit('main', [row(7, T0 + 60_000)]);
    expect(limiter.limitNow('main').limit).toBe(300);
    limiter.reportRateLimit('main', [row(2, T0 + 120_000)]);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 150, reason: 'report' });
    expect(events().map((e) => e.type === 'report' && e.source)).toEqual(['local', 'report']);
  });

  it('tells nothing when the report agrees', async () => {
    const { limiter, events } = await setup();
    expect(limiter.reportRateLimit('main', [row(5, T0 + 60_000)])?.disagreement).toBeNull();
    expect(events()).toEqual([]);
  });

  it('drops a held report at a VIP change: it spoke of the level before', async () => {
    const { limiter, at } = await setup();
    limiter.reportRateLimit('main', [row(3, T0 + 60_000)]);
    limiter.setVipLevel(10);
    expect(limiter.limitNow('main').limit).toBe(100);
    await at(T0 + 10 * H);
    limiter.setVipLevel(14);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 300, reason: 'vip-restored' });
  });

  it('drops a held report at a live downgrade: the fall is newer than the report', async () => {
    const { limiter } = await setup({ downgrade: 'live' });
    limiter.reportRateLimit('main', [row(6, T0 + 60_000)]);
    expect(limiter.limitNow('main').limit).toBe(350);
    // Requests with nothing traded today pull the rolling ratio below 10.
    for (let i = 0; i < 10; i++)
      await limiter.request('main', 'POST', '/futures/usdt/orders', () => 'ok', { body: { contract: 'BTC_USDT' } });
    expect(limiter.limitNow('main')).toMatchObject({ limit: 250, reason: 'live-downgrade' });
  });

  it('returns null for an answer without a futures row, and changes nothing', async () => {
    const { limiter, events } = await setup();
    expect(limiter.reportRateLimit('main', [row(1, T0 + 60_000, { type: 'spot' })])).toBeNull();
    expect(limiter.limitNow('main').limit).toBe(300);
    expect(events()).toEqual([]);
  });

  it('refuses a bad answer, a tier outside the table or an unknown account, and changes nothing', async () => {
    const { limiter, events } = await setup();
    limiter.reportRateLimit('main', [row(4, T0 + 60_000)]);
    const before = events().length;
    expect(() =>
      limiter.reportRateLimit('main', [{ tier: '3', ratio: 'x', main_ratio: '1', updated_at: '1795219200' }]),
    ).toThrow(InvalidInputError);
    expect(() => limiter.reportRateLimit('main', [row(9, T0 + 120_000)])).toThrow('`tier` of the report');
    expect(() => limiter.reportRateLimit('other', [row(3, T0 + 120_000)])).toThrow('`account`');
    expect(() => new AccountLimiter({ accounts: [{ id: 'main' }], reportPolicy: 'max' as never })).toThrow(
      '`reportPolicy`',
    );
    expect(limiter.limitNow('main').limit).toBe(250);
    expect(events().length).toBe(before);
  });
});

describe('a report held across a boundary read one window early (see docs/rules.md#r15, #r16)', () => {
  const day = (d: number, makerVolume: string, place: number) => ({
    account: 'main',
    day: d,
    contracts: [{ contract: 'BTC_USDT', makerVolume, place }],
  });
  function at01(days: ReturnType<typeof day>[]) {
    const clock = new VirtualClock({ start: 0, wallStart: T0 + H });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    limiter.seed({ days });
    return { clock, limiter, at: (instant: number) => clock.advanceTo(instant - T0 - H) };
  }

  it('keeps a report lower than the rules until a raise the rules predict is certain, not one window early', async () => {
    // 10-30 rates 1.5 (150 from 10-31 08:00); with 10-31, 3.5 (200 from 11-01 08:00).
    const { limiter, at } = at01([day(T0 - 2 * D, '150', 100), day(T0 - D, '550', 100)]);
    expect(limiter.limitNow('main').limit).toBe(150);
    // The exchange says tier 1 at 01:00: adopted, and held until 08:00.
    limiter.reportRateLimit('main', [row(1, T0 + H)]);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 100, reason: 'report' });
    await at(T0 + 8 * H - 10_000);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 100, reason: 'report' });
    await at(T0 + 8 * H - 1);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 100, reason: 'report' });
    await at(T0 + 8 * H);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 200, reason: 'raised-at-0800' });
    limiter.close();
  });

  it('puts a lowering the rules predict in force over a higher report one window before it', async () => {
    // 200 from 08:00; today's 600 requests with nothing traded rate the next snapshot 0.875: 100.
    const { limiter, at } = at01([day(T0 - 2 * D, '150', 100), day(T0 - D, '550', 100), day(T0, '0', 600)]);
    await at(T0 + 9 * H);
    expect(limiter.limitNow('main').limit).toBe(200);
    limiter.reportRateLimit('main', [row(5, T0 + 9 * H)]);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 300, reason: 'report' });
    await at(T0 + D - 10_001);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 300, reason: 'report' });
    await at(T0 + D - 10_000);
    expect(limiter.limitNow('main').limit).toBe(100);
    await at(T0 + D);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 100, reason: 'lowered-at-snapshot' });
    limiter.close();
  });

  it('keeps a lowering read one window early when the rules are read again in that window', async () => {
    // 10-31 rates 3 (200 from 11-01 08:00), 2,000 requests: the requests the limits let through
    // in the 10 s before midnight at 200 a second (and the cancels) would rate the next snapshot
    // below 1, at 100 a second not.
    const { limiter, at } = at01([day(T0 - D, '6000', 2000)]);
    await at(T0 + 9 * H);
    expect(limiter.limitNow('main').limit).toBe(200);
    await at(T0 + D - 10_000);
    expect(limiter.limitNow('main').limit).toBe(100);
    // Read again at once: the requests to come are still counted at 200 a second, not at the 100
    // in force now (at 100: 3,300 more, a rate of 1.13, 150 a second).
    limiter.refresh();
    expect(limiter.limitNow('main').limit).toBe(100);
    // A second later, with none sent, 9 s are left: at most 4,000 more, a rate of exactly 1.
    await at(T0 + D - 9_000);
    limiter.refresh();
    expect(limiter.limitNow('main').limit).toBe(150);
    // At midnight the requests made are counted: none, and the week still rates 3.
    await at(T0 + D);
    expect(limiter.limitNow('main').limit).toBe(200);
    limiter.close();
  });
});
