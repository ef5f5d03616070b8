import { describe, expect, it, vi } from 'vitest';
import { AccountLimiter, type LimiterEvent, type LimiterSnapshot } from '../../src/account/limiter.js';
import { InvalidInputError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { buildTimeline, type DailyActivity } from '../../src/rules/timeline/timeline.js';

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
    // In hundreds of requests: a lowering is read one window early with as many more requests as
    // the limits let through until its instant (see docs/rules.md#r15), and these counts are far enough from a
    // tier's bound that those do not change it.
    const plan = [
      { main: [100, '300'], sub: [50, '100'] },
      { main: [100, '800'], sub: [50, '900'] },
      { main: [100, '2500'], sub: [0, '0'] },
      { main: [300, '0'], sub: [100, '0'] },
      { main: [100, '100'], sub: [10, '10'] },
      { main: [50, '3000'], sub: [50, '2000'] },
      { main: [10, '0'], sub: [10, '0'] },
    ] as const;
    const SCALE = 100;
    const batch = Array.from({ length: 10 }, () => ({ contract: 'BTC_USDT' }));
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
      let t = T0 + d * D + 9 * H;
      for (const account of ['main', 'sub'] as const) {
        const [hundreds, scaled] = day[account];
        const requests = hundreds * SCALE;
        const volume = String(Number(scaled) * SCALE);
        // Batches of 10 in bursts the placement limit allows at once.
        for (let sent = 0; sent < requests; sent += 50) {
          await Promise.all(
            Array.from({ length: 5 }, () =>
              limiter.request(account, 'POST', '/api/v4/futures/usdt/batch_orders', () => 'ok', { body: batch }),
            ),
          );
          t += 1000;
          await at(t);
        }
        if (volume !== '0') limiter.recordFill(account, { contract: 'BTC_USDT', role: 'maker', volume });
        activity.push({
          account,
          day: T0 + d * D,
          contracts: [{ contract: 'BTC_USDT', makerVolume: volume, place: requests }],
        });
      }
    }
    await at(T0 + 9 * D);
    const timeline = buildTimeline({ accounts: [{ id: 'main', role: 'main' }, { id: 'sub' }], activity });
    const expected = timeline.changes
      .filter((c) => c.at <= T0 + 9 * D)
      .map((c) => [c.account, new Date(c.at).toISOString(), c.limit]);
    const seen = events
      .filter((e) => e.type === 'limit')
      .map((e) => [e.account, new Date(e.at).toISOString(), e.type === 'limit' ? e.to : 0]);
    expect(expected.length).toBeGreaterThanOrEqual(4);
    // The rules' raises come at their instant, their lowerings one window (10 s, the throttles') early
    // (see docs/rules.md#r15).
    const LEAD = 10_000;
    const due = expected.map(([account, at, limit]) => {
      const t = Date.parse(at as string);
      const lowering = (limit as number) < timeline.limitAt(account as string, t - 1).limit;
      return [account, new Date(lowering ? t - LEAD : t).toISOString(), limit];
    });
    expect(due.some(([, at]) => (at as string).endsWith('23:59:50.000Z'))).toBe(true);
    expect(seen).toEqual(expect.arrayContaining(due));
    // Every other change is a lowering read in the lead before a snapshot, with as many more
    // requests as the limits let through until it (they could lower the ratio), undone at the
    // snapshot, where the rules' reading on the requests made is in force.
    const others = seen.filter((e) => !due.some((d) => d[0] === e[0] && d[1] === e[1] && d[2] === e[2]));
    for (const [account, at, limit] of others) {
      const t = Date.parse(at as string);
      if (t % D === D - LEAD) {
        expect(limit).toBeLessThan(timeline.limitAt(account as string, t).limit);
        expect(others).toContainEqual([
          account,
          new Date(t + LEAD).toISOString(),
          timeline.limitAt(account as string, t + LEAD).limit,
        ]);
      } else {
        expect(t % D).toBe(0);
        expect(limit).toBe(timeline.limitAt(account as string, t).limit);
      }
    }
    // And at every 00:00, 07:59:59.999 and 08:00 of the week, the limit in force is the rules' one.
    expect(samples.map(([account, instant]) => timeline.limitAt(account, instant).limit)).toEqual(
      samples.map(([, , limit]) => limit),
    );
    expect(new Set(samples.map(([, , limit]) => limit)).size).toBeGreaterThanOrEqual(3);
    limiter.close();
  });

  it('counts a futures batch once per order and a cancel by id under the heaviest contract', async () => {
    const { limiter, at } = setup();
    await at(T0 + H);
    await limiter.request('main', 'POST', '/futures/usdt/batch_orders', () => 1, {
      body: [{ contract: 'SOL_USDT' }, { contract: 'SOL_USDT' }],
    });
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
    await expect(
      limiter.request('main', 'POST', '/futures/usdt/orders', () => Promise.reject(new Error('BALANCE_NOT_ENOUGH')), {
        body: { contract: 'BTC_USDT' },
      }),
    ).rejects.toThrow();
    expect(limiter.abuseHeadroom('main').requests).toBe(1);
    limiter.close();
  });

  it('throttles placement to 10 per 10 s after more than 86,400 requests with nothing traded, never cancels (see docs/rules.md#r9)', async () => {
    const { limiter, events, at, clock } = setup();
    limiter.seed({ hours: [{ account: 'main', hour: T0, requests: 86_401 }] });
    await at(T0 + H);
    expect(limiter.limitNow('main').throttle).toMatchObject({ limit: 10, windowMs: 10_000, reason: 'no-fills' });
    expect(events.some((e) => e.type === 'throttle' && e.account === 'main' && e.throttle?.limit === 10)).toBe(true);
    const sent: number[] = [];
    const orders = Array.from({ length: 12 }, () =>
      limiter.request('main', 'POST', '/futures/usdt/orders', () => sent.push(clock.now()), {
        body: { contract: 'BTC_USDT' },
      }),
    );
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
    expect(events.filter((e) => e.type === 'abuse-warning')).toMatchObject([
      { account: 'main', requests: 77_760, threshold: 86_400 },
    ]);
    limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '1000' });
    expect(limiter.abuseHeadroom('main').remaining).toBe(Infinity);
    limiter.close();
  });

  it('counts spot order requests and spot fills, and throttles spot placement the hour after a fill ratio below 0.1 (see docs/rules.md#r14)', async () => {
    const { limiter, events, clock, at } = setup();
    const spot = (fn: () => unknown, pair = 'ETH_USDT') =>
      limiter.request('main', 'POST', '/api/v4/spot/orders', fn, { body: { currency_pair: pair } });
    await at(T0 + 10 * H);
    for (let i = 0; i < 100; i++) {
      await spot(() => 'ok');
      await clock.advance(150);
    }
    limiter.recordFill('main', { market: 'spot', contract: 'ETH_USDT', role: 'maker', volume: '9.99' });
    // 9.99 USDT over 100 requests: 0.0999, below 0.1; 0.01 USDT more reaches exactly 0.1.
    expect(limiter.spotFillHeadroom('main')).toMatchObject({
      requests: 100,
      traded: '9.99',
      remaining: -1,
      needed: '0.01',
    });
    expect(limiter.limitNow('main').spotThrottle).toBeNull();
    // The throttle starts one window (10 s) before the hour (see docs/rules.md#r15): a placement sent under no
    // throttle reaches the exchange's throttled windows only if it is still unanswered then.
    await at(T0 + 11 * H - 10_001);
    expect(limiter.limitNow('main').spotThrottle).toBeNull();
    await at(T0 + 11 * H - 10_000);
    expect(limiter.limitNow('main').spotThrottle).toEqual({ limit: 10, windowMs: 10_000, reason: 'low-fill-rate' });
    await at(T0 + 11 * H);
    expect(limiter.limitNow('main').spotThrottle).toEqual({ limit: 10, windowMs: 10_000, reason: 'low-fill-rate' });
    expect(events.filter((e) => e.type === 'spot-throttle')).toMatchObject([
      { account: 'main', at: T0 + 11 * H - 10_000, throttle: { limit: 10 } },
    ]);
    // 12 placements on one pair, 150 ms apart: 10 in the first 10 s; cancels and futures pass.
    const sent: number[] = [];
    const orders = Array.from({ length: 12 }, () => spot(() => sent.push(clock.now())));
    const cancel = limiter.request('main', 'DELETE', '/api/v4/spot/orders/1?currency_pair=ETH_USDT', () => 'cancelled');
    await expect(cancel).resolves.toBe('cancelled');
    await clock.advance(9_999);
    expect(sent).toHaveLength(10);
    await clock.advance(10_001);
    await Promise.all(orders);
    expect(sent).toHaveLength(12);
    // Futures placement is not throttled by the spot low-fill throttle (see docs/rules.md#r14).
    expect(limiter.limitNow('main').throttle).toBeNull();
    limiter.close();
  });

  it('does not throttle spot at a fill ratio of exactly 0.1, nor batches unless asked (see docs/rules.md#r14)', async () => {
    for (const [traded, includeBatches, throttled] of [
      ['10', false, false],
      ['9.99', false, true],
    ] as const) {
      const { limiter, at } = setup({ spotFill: { includeBatches } });
      limiter.seed({ spotHours: [{ account: 'main', hour: T0, requests: 100, traded }] });
      await at(T0 + H);
      expect({ traded, throttled: limiter.limitNow('main').spotThrottle !== null }).toEqual({ traded, throttled });
      limiter.close();
    }
    const { limiter, clock, at } = setup();
    limiter.seed({ spotHours: [{ account: 'main', hour: T0, requests: 100 }] });
    await at(T0 + H);
    expect(limiter.limitNow('main').spotThrottle?.reason).toBe('no-fills');
    // A batch is not throttled by default: 11 batches, 150 ms apart, all start at once.
    const sent: number[] = [];
    for (let i = 0; i < 11; i++) {
      await limiter.request('main', 'POST', '/api/v4/spot/batch_orders', () => sent.push(clock.now()), {
        body: [{ currency_pair: 'ETH_USDT' }],
      });
      await clock.advance(150);
    }
    expect(sent).toHaveLength(11);
    limiter.close();
    const withBatches = setup({ spotFill: { includeBatches: true } });
    withBatches.limiter.seed({ spotHours: [{ account: 'main', hour: T0, requests: 100 }] });
    await withBatches.at(T0 + H);
    const later: number[] = [];
    const batches = Array.from({ length: 11 }, () =>
      withBatches.limiter.request('main', 'POST', '/api/v4/spot/batch_orders', () => later.push(1), {
        body: [{ currency_pair: 'ETH_USDT' }],
      }),
    );
    await withBatches.clock.advance(5_000);
    expect(later).toHaveLength(10);
    withBatches.limiter.close();
    await Promise.allSettled(batches);
  });

  it('lifts the spot throttle at the first hourly check that no longer trips it, never before an hour (see docs/rules.md#r14)', async () => {
    const { limiter, events, at } = setup();
    limiter.seed({ spotHours: [{ account: 'main', hour: T0, requests: 100 }] });
    await at(T0 + H);
    expect(limiter.limitNow('main').spotThrottle?.reason).toBe('no-fills');
    // 10 USDT traded in the throttled hour brings the window to exactly 0.1: the next check lifts it.
    await at(T0 + H + 60_000);
    limiter.recordFill('main', { market: 'spot', contract: 'ETH_USDT', role: 'taker', volume: '10' });
    await at(T0 + 2 * H - 1);
    expect(limiter.limitNow('main').spotThrottle?.reason).toBe('no-fills');
    await at(T0 + 2 * H);
    expect(limiter.limitNow('main').spotThrottle).toBeNull();
    // It started one window before its hour; it lifts at the hour, not before.
    expect(events.filter((e) => e.type === 'spot-throttle').map((e) => [e.at, e.throttle?.reason ?? null])).toEqual([
      [T0 + H - 10_000, 'no-fills'],
      [T0 + 2 * H, null],
    ]);
    limiter.close();
  });

  it('warns once an hour before the next check would throttle spot, with the USDT that avoids it (see docs/rules.md#r14)', async () => {
    const { limiter, events, at } = setup();
    limiter.seed({ spotHours: [{ account: 'main', hour: T0, requests: 99, traded: '10' }] });
    await at(T0 + 30 * 60_000);
    // 99 requests and 10 USDT: 0.101; the 101st request would make it 0.099.
    expect(events.filter((e) => e.type === 'spot-fill-warning')).toHaveLength(0);
    expect(limiter.spotFillHeadroom('main')).toMatchObject({ requests: 99, remaining: 1, needed: '0' });
    await limiter.request('main', 'POST', '/api/v4/spot/orders', () => 'ok', { body: { currency_pair: 'BTC_USDT' } });
    expect(events.filter((e) => e.type === 'spot-fill-warning')).toHaveLength(0); // 100 requests: exactly 0.1
    await limiter.request('main', 'POST', '/api/v4/spot/orders', () => 'ok', { body: { currency_pair: 'BTC_USDT' } });
    expect(events.filter((e) => e.type === 'spot-fill-warning')).toMatchObject([
      { account: 'main', trips: T0 + H, requests: 101, traded: '10', needed: '0.1' },
    ]);
    await limiter.request('main', 'DELETE', '/api/v4/spot/orders/7?currency_pair=BTC_USDT', () => 'ok');
    expect(events.filter((e) => e.type === 'spot-fill-warning')).toHaveLength(1);
    limiter.close();
  });

  it('keeps spot counts across snapshot and restore, and reads a snapshot without them (see docs/rules.md#r14)', async () => {
    const { limiter, at } = setup();
    limiter.seed({ spotHours: [{ account: 'main', hour: T0, requests: 100, traded: '1' }] });
    const snap = JSON.parse(JSON.stringify(limiter.snapshot())) as LimiterSnapshot;
    const other = setup();
    other.limiter.restore(snap);
    await other.at(T0 + H);
    expect(other.limiter.limitNow('main').spotThrottle?.reason).toBe('low-fill-rate');
    const { spotTracker: _, ...older } = snap;
    const third = setup();
    third.limiter.restore(older);
    await third.at(T0 + H);
    expect(third.limiter.limitNow('main').spotThrottle).toBeNull();
    for (const l of [limiter, other.limiter, third.limiter]) l.close();
    void at;
  });

  it('refuses bad spot input naming the field, and changes nothing', () => {
    const { limiter } = setup();
    expect(() =>
      limiter.recordFill('main', { market: 'options' as never, contract: 'ETH_USDT', role: 'maker', volume: '1' }),
    ).toThrow('`market`');
    expect(() => limiter.seed({ spotHours: [{ account: 'main', hour: T0, requests: -1 }] })).toThrow(
      '`spotHours[0].requests`',
    );
    expect(() => limiter.seed({ spotHours: [{ account: 'ghost', hour: T0, requests: 1 }] })).toThrow(
      '`spotHours[0].account`',
    );
    expect(() => new AccountLimiter({ accounts: [{ id: 'main' }], spotFill: { fillRateThreshold: 'x' } })).toThrow(
      '`fillRateThreshold`',
    );
    expect(limiter.spotFillHeadroom('main')).toMatchObject({ requests: 0, traded: '0', remaining: 0, needed: '0' });
    limiter.close();
  });

  it('counts every request for its window plus marginMs, so jitter on the way cannot put N + 1 in an exchange window (see docs/rules.md#r13)', async () => {
    for (const [marginMs, waited] of [
      [0, 1000],
      [5, 1005],
    ] as const) {
      const { limiter, clock } = setup({ marginMs });
      const sent: number[] = [];
      const all = Array.from({ length: 101 }, () =>
        limiter.request('main', 'POST', '/api/v4/futures/usdt/orders', () => sent.push(clock.now()), {
          body: { contract: 'BTC_USDT' },
        }),
      );
      await clock.advance(waited - 1);
      expect({ marginMs, sent: sent.length }).toEqual({ marginMs, sent: 100 });
      await clock.advance(1);
      await Promise.all(all);
      expect({ marginMs, last: sent.at(-1)! - sent[0]! }).toEqual({ marginMs, last: waited });
      limiter.close();
    }
    expect(() => setup({ marginMs: -1 })).toThrow(
      'Expected `marginMs` to be a non-negative number of milliseconds, got -1',
    );
  });

  it('spreads placements across the window with pacing, N / k every W / k, and keeps N in any W (see docs/rules.md#r13)', async () => {
    const mostIn = (sent: readonly number[], ms: number) => {
      let most = 0;
      for (let i = 0, j = 0; i < sent.length; i++) {
        while (sent[i]! - sent[j]! >= ms) j++;
        most = Math.max(most, i - j + 1);
      }
      return most;
    };
    for (const pacing of [1, 10]) {
      const { limiter, clock } = setup({ pacing });
      const sent: number[] = [];
      const all = Array.from({ length: 300 }, () =>
        limiter.request('main', 'POST', '/api/v4/futures/usdt/orders', () => sent.push(clock.now()), {
          body: { contract: 'BTC_USDT' },
        }),
      );
      // A cancel asked for meanwhile goes at once: it draws on its own limit.
      await clock.advance(50);
      let cancelled = -1;
      await limiter.request('main', 'DELETE', '/api/v4/futures/usdt/orders/1', () => (cancelled = clock.now()), {
        contract: 'BTC_USDT',
      });
      expect(cancelled).toBe(50);
      await clock.advance(3000);
      await Promise.all(all);
      expect({ pacing, sent: sent.length, mostInAWindow: mostIn(sent, 1000) }).toEqual({
        pacing,
        sent: 300,
        mostInAWindow: 100,
      });
      expect({ pacing, mostIn100ms: mostIn(sent, 100) }).toEqual({ pacing, mostIn100ms: pacing === 1 ? 100 : 10 });
      // Unpaced, all of a window's placements at once; paced, the last of 300 within the 3 s.
      expect({ pacing, last: sent.at(-1) }).toEqual({ pacing, last: pacing === 1 ? 2000 : 2900 });
      limiter.close();
    }
    for (const bad of [0, 1.5, 101, '10']) {
      expect(() => setup({ pacing: bad as number })).toThrow(
        `Expected \`pacing\` to be a whole number from 1 to 100, got ${typeof bad === 'string' ? `"${bad}"` : bad}`,
      );
    }
  });

  it('paces a placement limit that changes, and sends a batch heavier than a part of the window unpaced', async () => {
    const { limiter, clock } = setup({ pacing: 10 });
    const updated_at = String(Math.floor(T0 / 1000));
    limiter.reportRateLimit('main', [{ type: 'futures', tier: '4', ratio: '8.19', main_ratio: '8.19', updated_at }]);
    const sent: number[] = [];
    const all = Array.from({ length: 60 }, () =>
      limiter.request('main', 'POST', '/api/v4/futures/usdt/orders', () => sent.push(clock.now()), {
        body: { contract: 'BTC_USDT' },
      }),
    );
    await clock.advance(0);
    // 250 a second: 25 every 100 ms.
    expect(sent.length).toBe(25);
    await clock.advance(300);
    await Promise.all(all);
    const batch = Array.from({ length: 30 }, () => ({ contract: 'BTC_USDT', size: 1 }));
    let batchAt = -1;
    await limiter.request('main', 'POST', '/api/v4/futures/usdt/batch_orders', () => (batchAt = clock.now()), {
      body: batch,
    });
    expect(batchAt).toBe(300);
    limiter.close();
  });

  it('drops to tier 1 at a VIP drop and restores the snapshot tier at once on a rise (see docs/rules.md#r6)', async () => {
    const { limiter, at } = setup();
    limiter.seed({
      days: [{ account: 'main', day: T0 - D, contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }],
    });
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

  it('keeps a new sub-account at tier 1 until 08:00 the next day (see docs/rules.md#r8)', async () => {
    const { limiter, at } = setup();
    limiter.seed({
      days: [{ account: 'main', day: T0 - D, contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }],
    });
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
    expect(w.up).toMatchObject({ makerPath: 'aggregated', requestPath: 'aggregated' });
    expect(limiter.limitAtNext0800('sub')).toMatchObject({ limit: 250 }); // small accounts take the aggregated ratio
    expect(w.down?.tier.limit).toBe(200);
    expect(limiter.whatIf('main', 'SOL_USDT').up?.fewerRequests).toBe(25);
    expect(w.down).toMatchObject({ spareRequests: 80 }); // 900 / 180 = 5 keeps tier 4
    limiter.setVipLevel(13);
    expect(limiter.whatIf('main')).toMatchObject({ tier: { tier: 1 }, up: null, down: null, steps: [] }); // below VIP 14 nothing moves the tier
    limiter.close();
  });

  it('lowers at once from the rolling ratio with downgrade "live", and raises only at 08:00 (see docs/rules.md#r5)', async () => {
    const { limiter, events, at } = setup({ downgrade: 'live' });
    limiter.seed({
      days: [{ account: 'main', day: T0 - D, contracts: [{ contract: 'BTC_USDT', makerVolume: '1200', place: 100 }] }],
    });
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
    expect(events.filter((e) => e.type === 'limit').map((e) => e.type === 'limit' && e.reason)).toContain(
      'live-downgrade',
    );
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
    expect(() => restarted.restore({ ...saved, version: 2 })).toThrow(
      'Expected the snapshot `version` to be version 1',
    );
    expect(() => restarted.restore({ format: 'x' })).toThrow(InvalidInputError);
    expect(() =>
      restarted.restore({
        ...saved,
        tracker: { ...saved.tracker, days: [{ account: 'main', day: 'bad', contracts: [] }] },
      }),
    ).toThrow('`days[0].day`');
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
    expect(() => limiter.request('main', 'GET', '/nowhere', () => 1)).toThrow(
      'Expected `path` to be a path of the API v4',
    );
    expect(() => limiter.request('ghost', 'GET', '/spot/tickers', () => 1)).toThrow(
      'Expected `account` to be an account of the limiter (main, sub), got "ghost"',
    );
    expect(() => limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '-1' })).toThrow('`volume`');
    expect(() => limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '1', at: T0 })).toThrow(
      'Expected `at` to be an instant at or after the last one recorded',
    );
    expect(JSON.stringify(limiter.snapshot().tracker)).toBe(before);
    expect(() => new AccountLimiter({ accounts: [] })).toThrow('`accounts`');
    expect(() => new AccountLimiter({ accounts: [{ id: 'a' }], downgrade: 'sometimes' as never })).toThrow(
      '`downgrade`',
    );
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

describe('AccountLimiter: bad input changes nothing', () => {
  it('refuses a snapshot without vipLevel and keeps its accounts, counts and hourly refresh', async () => {
    const { limiter, at, clock } = setup();
    await at(T0 + H);
    await place(limiter, 'main');
    await place(limiter, 'sub');
    const before = limiter.snapshot();
    const { vipLevel: _, ...noVip } = JSON.parse(JSON.stringify(before)) as LimiterSnapshot;
    const other = { ...noVip, accounts: [{ id: 'x', role: 'main' }], tracker: { latest: null, days: [], hours: [] } };
    expect(() => limiter.restore(other)).toThrow('Expected the snapshot `vipLevel` to be a VIP level');
    expect(() => limiter.restore({ ...before, accounts: [{ id: 'x', role: 'main' }] })).toThrow(
      'Expected `activity[0].account` to be an account listed in `accounts` (x)',
    );
    const hoursOnly = {
      ...before.tracker,
      days: [],
      hours: [{ account: 'ghost', hour: '2026-11-01T00:00:00.000Z', requests: 1, traded: '0' }],
    };
    expect(() => limiter.restore({ ...before, tracker: hoursOnly })).toThrow('an account listed in the snapshot');
    expect(() => limiter.restore({ ...before, at: 9e15 })).toThrow('the snapshot `at`');
    // A sub-account created after the day its counts are on: every refresh would fail.
    expect(() =>
      limiter.restore({
        ...before,
        accounts: [
          { id: 'main', role: 'main' },
          { id: 'sub', createdAt: T0 + 5 * D },
        ],
      }),
    ).toThrow('`activity[');
    expect(limiter.snapshot()).toEqual(before);
    expect(() => limiter.refresh()).not.toThrow();
    await clock.advance(3 * H);
    expect(limiter.limitNow('main').at).toBe(T0 + 4 * H);
    limiter.close();
  });

  it.each([
    ['a negative count', { hours: [{ account: 'main', hour: T0, requests: -1000 }] }, '`hours[0].requests`'],
    ['a count as text', { hours: [{ account: 'main', hour: T0, requests: '50' }] }, '`hours[0].requests`'],
    ['an hour out of range', { hours: [{ account: 'main', hour: 9e15, requests: 5 }] }, '`hours[0].hour`'],
    ['an hour still to come', { hours: [{ account: 'main', hour: T0 + 5 * H, requests: 5 }] }, '`hours[0].hour`'],
    ['a bad amount traded', { hours: [{ account: 'main', hour: T0, requests: 5, traded: '-1' }] }, '`hours[0].traded`'],
    ['an unknown account', { hours: [{ account: 'ghost', hour: T0, requests: 5 }] }, '`hours[0].account`'],
    ['a day still to come', { days: [{ account: 'main', day: '2026-11-03', contracts: [] }] }, '`days[0].day`'],
    ['a day before 2000', { days: [{ account: 'main', day: '1999-12-31', contracts: [] }] }, '`activity[0].day`'],
    [
      'a count written as hex text',
      { days: [{ account: 'main', day: '2026-10-31', contracts: [{ contract: 'BTC_USDT', place: '0x10' }] }] },
      '`place`',
    ],
    ['hours that are not a list', { hours: 5 }, '`hours`'],
    ['no history at all', null, 'the history'],
  ])('refuses a seed with %s and keeps every count as it was', async (_, history, field) => {
    const { limiter, at } = setup();
    await at(T0 + H);
    limiter.seed({ hours: [{ account: 'main', hour: T0, requests: 10 }] });
    const before = limiter.snapshot();
    const call = () => limiter.seed(history as never);
    expect(call).toThrow(InvalidInputError);
    expect(call).toThrow(`Expected ${field}`);
    expect(limiter.snapshot()).toEqual(before);
    expect(limiter.abuseHeadroom('main').requests).toBe(10);
    limiter.close();
  });

  it("refuses a request with contract '' before anything is scheduled or counted", async () => {
    const { limiter, at } = setup();
    await at(T0 + H);
    const before = limiter.snapshot();
    const stats = limiter.scheduler.stats();
    let ran = 0;
    const send = (options: object) => () =>
      limiter.request('main', 'POST', '/futures/usdt/orders', () => ran++, options);
    expect(send({ contract: '' })).toThrow('Expected `contract` to be a contract name such as "BTC_USDT", got ""');
    expect(send({ body: { contract: 'bad name' } })).toThrow(
      'Expected the `contract` of the body to be a contract name',
    );
    expect(send({ body: { contract: 'BTC_USDT' }, priority: Number.NaN })).toThrow('`priority`');
    expect(send({ body: { contract: 'BTC_USDT' }, deadline: 'soon' })).toThrow('`deadline`');
    expect(() => limiter.request('main', 'DELETE', '/futures/usdt/orders/1', () => ran++, { contract: 'x y' })).toThrow(
      '`contract`',
    );
    expect(() => limiter.request('main', 'POST', '/futures/usdt/orders', () => ran++, null as never)).toThrow(
      'the request options',
    );
    await at(T0 + 2 * H);
    expect(ran).toBe(0);
    expect(limiter.scheduler.stats()).toMatchObject({ queued: stats.queued, dispatched: stats.dispatched });
    expect(limiter.snapshot().tracker).toEqual(before.tracker);
    limiter.close();
  });

  it('gives the least change over every path of the family rules (see docs/rules.md#r7): the own ratio when it gets there before the aggregated one', async () => {
    // small 600,000 / 100,000 = 6 and big 1,500,000 / 100,000 = 15: aggregated 10.5 (tier 5). With
    // the threshold at 0 small is rated max(6, 10.5): 1,400,000 USDT more takes its own ratio to 20
    // (tier 6) before 1,900,000 would take the aggregated one there.
    const { limiter, at } = setup({
      accounts: [{ id: 'small', role: 'main' }, { id: 'big' }],
      ownVolumeThreshold: '0',
    });
    const day = (account: string, maker: string) => ({
      account,
      day: '2026-10-31',
      contracts: [{ contract: 'BTC_USDT', makerVolume: maker, place: 100_000 }],
    });
    limiter.seed({ days: [day('small', '600000'), day('big', '1500000')] });
    await at(T0 + H);
    const w = limiter.whatIf('small');
    expect(w.basis).toBe('aggregated');
    expect(w.up?.tier.limit).toBe(350);
    expect(w.up?.makerVolume.toString()).toBe('1400000');
    expect(w.up?.fewerRequests).toBe(70_000); // 600,000 / 30,000 = 20
    // The path each least change takes, for every tier above: small's own ratio, not the family's.
    expect(w.up).toMatchObject({ makerPath: 'own', requestPath: 'own' });
    expect(
      w.steps.map((s) => [s.tier.limit, s.makerVolume.toString(), s.makerPath, s.fewerRequests, s.requestPath]),
    ).toEqual([
      [350, '1400000', 'own', 70_000, 'own'],
      [400, '4400000', 'own', 88_000, 'own'], // 50 x 100,000 - 600,000; 600,000 / 12,000 = 50
    ]);
    limiter.close();
  });

  it('refuses an unknownContract that is not a contract name when made', () => {
    expect(() => new AccountLimiter({ accounts: [{ id: 'main' }], unknownContract: '??' })).toThrow(
      'Expected `unknownContract` to be a contract name',
    );
    const limiter = new AccountLimiter({
      accounts: [{ id: 'main' }],
      unknownContract: 'sol-usdt',
      clock: new VirtualClock({ wallStart: T0 }),
    });
    expect(limiter.whatIf('main').basis).toBe('aggregated');
    limiter.close();
  });

  it('refuses a fill at 9e15 or in microseconds, and snapshots and later fills still work', async () => {
    const { limiter, at } = setup();
    await at(T0 + H);
    const fill = (when?: number) =>
      limiter.recordFill('main', {
        contract: 'BTC_USDT',
        role: 'maker',
        volume: '1',
        ...(when === undefined ? {} : { at: when }),
      });
    expect(() => fill(9e15)).toThrow(
      'Expected `at` to be an instant from 2000-01-01 to 2200-01-01: epoch milliseconds (an integer), a Date, or ISO 8601 text with a zone (2026-11-05T10:00:00Z) or a day (2026-11-05), got 9000000000000000',
    );
    expect(() => fill((T0 + H) * 1000)).toThrow(InvalidInputError);
    expect(() => limiter.snapshot()).not.toThrow();
    fill();
    fill(T0 + H + 1);
    expect(limiter.abuseHeadroom('main').traded).toBe('2');
    expect(() => limiter.setVipLevel(12, 9e15)).toThrow('`at`');
    expect(() => limiter.addSubAccount('bot', -1)).toThrow('`at`');
    expect(limiter.snapshot().accounts.map((a) => a.id)).toEqual(['main', 'sub']);
    expect(limiter.snapshot().vipChanges).toEqual([]);
    limiter.close();
  });

  it('refuses a clock whose wall time is not an instant of 2000 to 2200', () => {
    expect(() => new AccountLimiter({ accounts: [{ id: 'main' }], clock: new VirtualClock() })).toThrow(
      'Expected the wall time of `clock` to be an instant',
    );
  });
});

describe('AccountLimiter: listeners and persist never break it', () => {
  it('reports a listener that throws as an error event; the limit changes, the request runs and the hourly refresh goes on', async () => {
    const { limiter, at, clock } = setup({ warnAt: 0.5, abuse: { requestThreshold: 4 } });
    const errors: LimiterEvent[] = [];
    const seen: string[] = [];
    limiter.on((e) => {
      if (e.type !== 'error') throw new Error('listener bug');
    });
    limiter.on((e) => (e.type === 'error' ? errors.push(e) : seen.push(e.type)));
    limiter.seed({
      days: [{ account: 'main', day: T0 - D, contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }],
    });
    await at(T0 + 8 * H);
    expect(limiter.limitNow('main').limit).toBe(250);
    // The early warning is emitted while the request is counted, before it runs.
    let ran = 0;
    await Promise.all(
      [1, 2, 3].map(() =>
        limiter.request('main', 'POST', '/futures/usdt/orders', () => ran++, { body: { contract: 'BTC_USDT' } }),
      ),
    );
    expect(ran).toBe(3);
    expect(seen).toContain('abuse-warning');
    expect(seen).toContain('limit');
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(errors[0]).toMatchObject({ type: 'error', source: 'listener', error: new Error('listener bug') });
    const refreshed = limiter.limitNow('main').at;
    await clock.advance(2 * H);
    expect(limiter.limitNow('main').at).toBe(refreshed + 2 * H);
    limiter.close();
  });

  it('reports a persist.save that throws or rejects, and saves again at the next tick', async () => {
    let calls = 0;
    const save = (): unknown => {
      calls++;
      if (calls === 1) throw new Error('disk full');
      if (calls === 2) return Promise.reject(new Error('network down'));
      return undefined;
    };
    const { limiter, clock } = setup({ persist: { everyMs: 60_000, save } });
    const errors: unknown[] = [];
    limiter.on((e) => e.type === 'error' && errors.push([e.source, (e.error as Error).message]));
    await clock.advance(180_000);
    expect(calls).toBe(3);
    expect(errors).toEqual([
      ['persist', 'disk full'],
      ['persist', 'network down'],
    ]);
    limiter.close();
  });

  it('saves every 30 days on the system clock, not every millisecond', async () => {
    vi.useFakeTimers({ now: T0 });
    try {
      let calls = 0;
      const limiter = new AccountLimiter({
        accounts: [{ id: 'main' }],
        persist: { everyMs: 30 * D, save: () => void calls++ },
      });
      await vi.advanceTimersByTimeAsync(100);
      expect(calls).toBe(0);
      await vi.advanceTimersByTimeAsync(30 * D - 100);
      expect(calls).toBe(1);
      limiter.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('hands an error nobody listens to to the process as a warning', async () => {
    // Caught where the library hands it over, so that Node does not print it in the test's output.
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const clock = new VirtualClock({ start: 0, wallStart: T0 });
      const alone = new AccountLimiter({
        accounts: [{ id: 'main' }],
        clock,
        persist: {
          everyMs: 1000,
          save: () => {
            throw new Error('no one hears');
          },
        },
      });
      await clock.advance(1000);
      await new Promise((resolve) => setImmediate(resolve));
      expect(emitWarning.mock.calls.map(([w]) => (w instanceof Error ? w.message : w))).toContain('no one hears');
      alone.close();
    } finally {
      emitWarning.mockRestore();
    }
  });
});
