import { describe, expect, it } from 'vitest';
import { AccountLimiter, type LimiterEvent } from '../../src/account/limiter.js';
import { InvalidInputError } from '../../src/errors.js';
import { VirtualClock } from '../../src/schedule/clock.js';
import { buildTimeline, type DailyActivity } from '../../src/rules/timeline.js';

const T0 = Date.parse('2026-11-01T00:00:00Z');
const H = 3_600_000;
const D = 86_400_000;

function setup(options: Partial<ConstructorParameters<typeof AccountLimiter>[0]> = {}) {
  const clock = new VirtualClock({ start: 0, wallStart: T0 });
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }, { id: 'sub' }], clock, ...options });
  const events: LimiterEvent[] = [];
  limiter.on((e) => events.push(e));
  const at = (instant: number) => clock.advanceTo(instant - T0);
  return { clock, limiter, events, at };
}

const place = (limiter: AccountLimiter, account: string, contract = 'BTC_USDT') =>
  limiter.request(account, 'POST', '/api/v4/futures/usdt/orders', () => 'ok', { body: { contract } });

describe('AccountLimiter', () => {
  it('replays a week on a virtual clock and changes every limit when and as the pure rules say', async () => {
    const { limiter, events, at } = setup();
    // What the engine does each day: requests, and fills as maker (the ratio climbs, then falls).
    const plan = [
      { main: [100, '300'], sub: [50, '100'] },
      { main: [100, '800'], sub: [50, '900'] },
      { main: [100, '2500'], sub: [0, '0'] },
      { main: [300, '0'], sub: [100, '0'] },
      { main: [100, '100'], sub: [10, '10'] },
      { main: [50, '3000'], sub: [50, '2000'] },
      { main: [10, '0'], sub: [10, '0'] },
    ] as const;
    const activity: DailyActivity[] = [];
    const samples: [string, number, number][] = [];
    const sample = async (instant: number) => {
      await at(instant);
      for (const account of ['main', 'sub']) samples.push([account, instant, limiter.limitNow(account).limit]);
    };
    for (const [d, day] of plan.entries()) {
      await sample(T0 + d * D);
      await sample(T0 + d * D + 8 * H - 1);
      await sample(T0 + d * D + 8 * H);
      await at(T0 + d * D + 9 * H);
      for (const account of ['main', 'sub'] as const) {
        const [requests, volume] = day[account];
        // Send in bursts the placement limit allows at once.
        for (let sent = 0; sent < requests; sent += 50) {
          await Promise.all(Array.from({ length: Math.min(50, requests - sent) }, () => place(limiter, account)));
          await at(T0 + d * D + 9 * H + (sent + 50) * 20);
        }
        if (volume !== '0') limiter.recordFill(account, { contract: 'BTC_USDT', role: 'maker', volume });
        activity.push({ account, day: T0 + d * D, contracts: [{ contract: 'BTC_USDT', makerVolume: volume, place: requests }] });
      }
    }
    await at(T0 + 9 * D);
    const timeline = buildTimeline({ accounts: [{ id: 'main', role: 'main' }, { id: 'sub' }], activity });
    const expected = timeline.changes.filter((c) => c.at <= T0 + 9 * D).map((c) => [c.account, new Date(c.at).toISOString(), c.limit]);
    const seen = events.filter((e) => e.type === 'limit').map((e) => [e.account, new Date(e.at).toISOString(), e.type === 'limit' ? e.to : 0]);
    expect(expected.length).toBeGreaterThanOrEqual(4);
    expect(seen).toEqual(expected);
    // And at every 00:00, 07:59:59.999 and 08:00 of the week, the limit in force is the rules' one.
    expect(samples.map(([account, instant]) => timeline.limitAt(account, instant).limit)).toEqual(samples.map(([, , limit]) => limit));
    expect(new Set(samples.map(([, , limit]) => limit)).size).toBeGreaterThanOrEqual(3);
    limiter.close();
  });

  it('counts a futures batch once per order and a cancel by id under the heaviest contract', async () => {
    const { limiter, at } = setup();
    await at(T0 + H);
    await limiter.request('main', 'POST', '/futures/usdt/batch_orders', () => 1, { body: [{ contract: 'SOL_USDT' }, { contract: 'SOL_USDT' }] });
    await limiter.request('main', 'DELETE', '/futures/usdt/orders/123', () => 1);
    await limiter.request('main', 'GET', '/futures/usdt/accounts', () => 1);
    const snap = limiter.snapshot();
    expect(snap.tracker.days[0]!.contracts).toEqual([
      { contract: 'SOL_USDT', makerVolume: '0', takerVolume: '0', place: 2, amend: 0, cancel: 0 },
      { contract: 'BTC_USDT', makerVolume: '0', takerVolume: '0', place: 0, amend: 0, cancel: 1 },
    ]);
    limiter.close();
  });

  it('counts failed requests too', async () => {
    const { limiter, at } = setup();
    await at(T0 + H);
    await expect(limiter.request('main', 'POST', '/futures/usdt/orders', () => Promise.reject(new Error('BALANCE_NOT_ENOUGH')), { body: { contract: 'BTC_USDT' } })).rejects.toThrow();
    expect(limiter.abuseHeadroom('main').requests).toBe(1);
    limiter.close();
  });

  it('throttles placement to 10 per 10 s after more than 86,400 requests with nothing traded, never cancels (R9)', async () => {
    const { limiter, events, at, clock } = setup();
    limiter.seed({ hours: [{ account: 'main', hour: T0, requests: 86_401 }] });
    await at(T0 + H);
    expect(limiter.limitNow('main').throttle).toMatchObject({ limit: 10, windowMs: 10_000, reason: 'no-fills' });
    expect(events.some((e) => e.type === 'throttle' && e.account === 'main' && e.throttle?.limit === 10)).toBe(true);
    const sent: number[] = [];
    const orders = Array.from({ length: 12 }, () => limiter.request('main', 'POST', '/futures/usdt/orders', () => sent.push(clock.now()), { body: { contract: 'BTC_USDT' } }));
    await limiter.request('main', 'DELETE', '/futures/usdt/orders/1', () => sent.push(-1));
    await clock.advance(9_999);
    expect(sent.filter((t) => t >= 0)).toHaveLength(10);
    expect(sent).toContain(-1);
    await clock.advance(1);
    await Promise.all(orders);
    expect(sent.filter((t) => t >= 0)).toHaveLength(12);
    limiter.close();
  });

  it('warns before the throttle trips, at 90% of the threshold by default', async () => {
    const { limiter, events, at } = setup();
    limiter.seed({ hours: [{ account: 'main', hour: T0, requests: 77_759 }] });
    await at(T0 + H + 5);
    expect(events.filter((e) => e.type === 'abuse-warning')).toHaveLength(0);
    expect(limiter.abuseHeadroom('main')).toMatchObject({ requests: 77_759, remaining: 86_400 - 77_759 });
    await place(limiter, 'main');
    expect(events.filter((e) => e.type === 'abuse-warning')).toMatchObject([{ account: 'main', requests: 77_760, threshold: 86_400 }]);
    limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '1000' });
    expect(limiter.abuseHeadroom('main').remaining).toBe(Infinity);
    limiter.close();
  });

  it('drops to tier 1 at a VIP drop and restores the snapshot tier at once on a rise (R6)', async () => {
    const { limiter, at } = setup();
    limiter.seed({ days: [{ account: 'main', day: T0 - D, contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }] });
    await at(T0 + 8 * H);
    expect(limiter.limitNow('main').limit).toBe(250);
    limiter.setVipLevel(13);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 100, reason: 'vip-below-14' });
    await at(T0 + 9 * H + 1234);
    limiter.setVipLevel(15);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 250, reason: 'vip-restored' });
    expect(() => limiter.setVipLevel(15, T0)).toThrow('an instant after the last VIP change');
    limiter.close();
  });

  it('keeps a new sub-account at tier 1 until 08:00 the next day (R8)', async () => {
    const { limiter, at } = setup();
    limiter.seed({ days: [{ account: 'main', day: T0 - D, contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }] });
    await at(T0 + 10 * H);
    limiter.addSubAccount('bot');
    expect(limiter.limitNow('bot')).toMatchObject({ limit: 100, reason: 'new-sub-account' });
    await at(T0 + D + 8 * H - 1);
    expect(limiter.limitNow('bot').limit).toBe(100);
    await at(T0 + D + 8 * H);
    expect(limiter.limitNow('bot')).toMatchObject({ limit: 250, reason: 'new-sub-account-rules-begin' });
    limiter.close();
  });

  it('tells the limit at the next 08:00 and what reaches the next tier', async () => {
    const { limiter, at } = setup();
    await at(T0 + 10 * H);
    await Promise.all(Array.from({ length: 100 }, () => place(limiter, 'main')));
    limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '900' });
    expect(limiter.limitNow('main').limit).toBe(100);
    expect(limiter.limitAtNext0800('main')).toMatchObject({ at: T0 + D + 8 * H, limit: 250 });
    const w = limiter.whatIf('main');
    expect(w.basis).toBe('aggregated');
    expect(w.up?.makerVolume.toString()).toBe('100');
    expect(w.up?.fewerRequests).toBe(10); // 900 / 90 = 10
    expect(limiter.limitAtNext0800('sub')).toMatchObject({ limit: 250 }); // small accounts take the aggregated ratio
    expect(w.down?.tier.limit).toBe(200);
    expect(limiter.whatIf('main', 'SOL_USDT').up?.fewerRequests).toBe(25);
    limiter.close();
  });

  it('lowers at once from the rolling ratio with downgrade "live", and raises only at 08:00 (R5)', async () => {
    const { limiter, events, at } = setup({ downgrade: 'live' });
    limiter.seed({ days: [{ account: 'main', day: T0 - D, contracts: [{ contract: 'BTC_USDT', makerVolume: '1200', place: 100 }] }] });
    await at(T0 + 12 * H);
    expect(limiter.limitNow('main').limit).toBe(300);
    // 20 more requests with nothing traded: 1200 / 120 = 10, still tier 5; 21 more: 1200 / 121, tier 4.
    for (let i = 0; i < 20; i++) await place(limiter, 'main');
    expect(limiter.limitNow('main').limit).toBe(300);
    await place(limiter, 'main');
    expect(limiter.limitNow('main')).toMatchObject({ limit: 250, reason: 'live-downgrade' });
    limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '5000' });
    await at(T0 + D + 7 * H);
    expect(limiter.limitNow('main').limit).toBe(250);
    await at(T0 + D + 8 * H);
    expect(limiter.limitNow('main').limit).toBe(400);
    expect(events.filter((e) => e.type === 'limit').map((e) => e.type === 'limit' && e.reason)).toContain('live-downgrade');
    limiter.close();
  });

  it('restarts from a snapshot with the same counts, refuses a corrupt or future one and stays usable', async () => {
    const { limiter, at, clock } = setup();
    await at(T0 + 10 * H);
    await Promise.all(Array.from({ length: 30 }, () => place(limiter, 'main')));
    limiter.recordFill('main', { contract: 'ETH_USDT', role: 'taker', volume: '123.45' });
    const saved = JSON.parse(JSON.stringify(limiter.snapshot()));
    const restarted = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }, { id: 'sub' }], clock });
    restarted.restore(saved);
    expect(restarted.snapshot()).toEqual(limiter.snapshot());
    expect(restarted.abuseHeadroom('main')).toEqual(limiter.abuseHeadroom('main'));
    expect(() => restarted.restore({ ...saved, version: 2 })).toThrow('Expected the snapshot `version` to be version 1');
    expect(() => restarted.restore({ format: 'x' })).toThrow(InvalidInputError);
    expect(() => restarted.restore({ ...saved, tracker: { ...saved.tracker, days: [{ account: 'main', day: 'bad', contracts: [] }] } })).toThrow('`days[0].day`');
    expect(restarted.snapshot()).toEqual(limiter.snapshot());
    await place(restarted, 'main');
    expect(restarted.abuseHeadroom('main').requests).toBe(31);
    limiter.close();
    restarted.close();
  });

  it('saves a snapshot periodically through the hook', async () => {
    const saved: unknown[] = [];
    const { limiter, clock } = setup({ persist: { everyMs: 60_000, save: (s) => saved.push(s) } });
    await clock.advance(180_000);
    expect(saved).toHaveLength(3);
    expect(saved[0]).toMatchObject({ format: 'traderatio.account-limiter', version: 1 });
    limiter.close();
  });

  it('refuses bad input with a clear error and leaves its counts as they were', async () => {
    const { limiter, at } = setup();
    await at(T0 + H);
    await place(limiter, 'main');
    const before = JSON.stringify(limiter.snapshot().tracker);
    expect(() => limiter.request('main', 'GET', '/nowhere', () => 1)).toThrow('Expected `path` to be a path of the API v4');
    expect(() => limiter.request('ghost', 'GET', '/spot/tickers', () => 1)).toThrow('Expected `account` to be an account of the limiter (main, sub), got "ghost"');
    expect(() => limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '-1' })).toThrow('`volume`');
    expect(() => limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '1', at: T0 })).toThrow('Expected `at` to be an instant at or after the last one recorded');
    expect(JSON.stringify(limiter.snapshot().tracker)).toBe(before);
    expect(() => new AccountLimiter({ accounts: [] })).toThrow('`accounts`');
    expect(() => new AccountLimiter({ accounts: [{ id: 'a' }], downgrade: 'sometimes' as never })).toThrow('`downgrade`');
    limiter.close();
  });

  it('applies the default coefficient 0.4 to a contract with no listed coefficient', async () => {
    const { limiter, at } = setup();
    await at(T0 + 9 * H);
    await Promise.all(Array.from({ length: 10 }, () => place(limiter, 'main', 'NEWCOIN_USDT')));
    limiter.recordFill('main', { contract: 'NEWCOIN_USDT', role: 'maker', volume: '40' });
    // 40 / (10 x 0.4) = 10: tier 5 at the next 08:00.
    expect(limiter.limitAtNext0800('main').limit).toBe(300);
    limiter.close();
  });

  it('runs other endpoints on their catalogue limits: one withdrawal per 3 s', async () => {
    const { limiter, clock } = setup();
    const sent: number[] = [];
    const all = [1, 2, 3].map(() => limiter.request('main', 'POST', '/withdrawals', () => sent.push(clock.now())));
    await clock.advance(6000);
    await Promise.all(all);
    expect(sent).toEqual([0, 3000, 6000]);
    limiter.close();
  });
});
