// A whole hour with counts shared by several processes (see docs/rules.md#r9 and
// docs/rules.md#r15): the limits are decided at once where the totals read decide them whatever
// other processes may have counted and not yet shared; where those requests could change them,
// placements wait until the totals up to the hour are read, and the limits are decided on those.
// One window (10 s) before the hour, a throttle the requests still to come could start is in force
// already (see docs/rules.md#r15); the hour decides on the requests made.
import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import type { SharedCounts, SharedTotals } from '../../src/account/shared-counts.js';
import { Tracker } from '../../src/account/tracker.js';
import { withUnread } from '../../src/account/unread.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { WindowLimit } from '../../src/schedule/window.js';

const HOUR = Date.parse('2026-11-02T09:00:00Z');

/** Shared counts that hand over the totals the test says, `unreadMs` behind, and settle when told. */
class FakeCounts implements SharedCounts {
  onTotals: ((totals: SharedTotals) => void) | null = null;
  settles: ((whole: boolean) => void)[] = [];
  constructor(private readonly unread: number) {}
  start(_accounts: () => readonly string[], _now: () => number, onTotals: (totals: SharedTotals) => void): void {
    this.onTotals = onTotals;
  }
  /** Hands over `requests` in the hour before HOUR, nothing traded. */
  totals(requests: number): void {
    const futures = Tracker.restore({
      latest: HOUR - 3_600_000,
      days: [],
      hours: [{ account: 'main', hour: new Date(HOUR - 3_600_000).toISOString(), requests, traded: '0' }],
    });
    this.onTotals!({ futures, spot: new Tracker(), history: true });
  }
  unreadMs(): number {
    return this.unread;
  }
  request(): void {}
  fill(): void {}
  seed(): void {}
  settle(): Promise<boolean> {
    return new Promise((resolve) => this.settles.push(resolve));
  }
  /** Every process's counts up to now read (`whole`), or not (Redis did not answer). */
  settled(whole: boolean): void {
    for (const settled of this.settles.splice(0)) settled(whole);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

function setup(requests: number, unreadMs: number) {
  const clock = new VirtualClock({ start: 0, wallStart: HOUR - 30_000 });
  const counts = new FakeCounts(unreadMs);
  const store = {
    limit: (o: ConstructorParameters<typeof WindowLimit>[0]) => new WindowLimit(o),
    counts: () => counts,
  };
  const limiter = new AccountLimiter({
    accounts: [{ id: 'main', role: 'main' }],
    clock,
    store,
    abuse: { requestThreshold: 1000 },
  });
  counts.totals(requests);
  return { clock, counts, limiter };
}

describe('a boundary with shared counts', () => {
  const place = (limiter: AccountLimiter, log: string[]) =>
    limiter.request('main', 'POST', '/futures/usdt/orders', () => void log.push('placed'), {
      body: { contract: 'BTC_USDT', size: 1 },
    });
  const watch = (limiter: AccountLimiter, log: string[]) =>
    limiter.on((e) => {
      if (e.type === 'throttle') log.push(e.throttle === null ? 'lifted' : 'throttled');
    });

  it('holds placements at the hour while requests not yet shared could cross the threshold, then decides on the totals: none', async () => {
    // Tier 1 (100 placements and 200 cancels a second): in 300 ms at most 200 + 400 requests.
    const { clock, counts, limiter } = setup(401, 300);
    const log: string[] = [];
    watch(limiter, log);
    // From 10 s before the hour, as many requests as the limits let through until it (300 a second)
    // could take the count over the threshold: throttled, not a moment earlier.
    await clock.advanceTo(19_999);
    expect(limiter.limitNow('main').throttle).toBeNull();
    await clock.advanceTo(20_000);
    expect(log).toEqual(['throttled']);
    await clock.advanceTo(30_000);
    const placed = place(limiter, log);
    await clock.advance(50);
    expect(log).toEqual(['throttled']);
    // Every process's counts up to the hour read: still 401, at the threshold and not over it.
    counts.settled(true);
    await placed;
    expect(log).toEqual(['throttled', 'lifted', 'placed']);
    expect(limiter.limitNow('main').throttle).toBeNull();
    limiter.close();
  });

  it('holds placements at the hour, then throttles before any goes when the totals up to it are over the threshold', async () => {
    const { clock, counts, limiter } = setup(401, 300);
    const log: string[] = [];
    watch(limiter, log);
    await clock.advanceTo(30_000);
    const placed = place(limiter, log);
    await clock.advance(50);
    expect(log).toEqual(['throttled']);
    // The totals up to the hour come with the reading that settles them.
    counts.totals(1001);
    counts.settled(true);
    await placed;
    expect(log).toEqual(['throttled', 'placed']);
    expect(limiter.limitNow('main').throttle).toMatchObject({ reason: 'no-fills', limit: 10 });
    limiter.close();
  });

  it('applies the stricter reading when the counts up to the hour cannot be read whole', async () => {
    const { clock, counts, limiter } = setup(401, 300);
    const log: string[] = [];
    watch(limiter, log);
    await clock.advanceTo(30_000);
    const placed = place(limiter, log);
    counts.settled(false);
    await placed;
    expect(log).toEqual(['throttled', 'placed']);
    limiter.close();
  });

  it('does not hold at the hour when even the most the limits let through stays at or below the threshold', async () => {
    const { clock, counts, limiter } = setup(400, 300);
    const log: string[] = [];
    watch(limiter, log);
    await clock.advanceTo(30_000);
    await place(limiter, log);
    // Throttled in the 10 s before the hour (the requests still to come), lifted at it at once.
    expect(log).toEqual(['throttled', 'lifted', 'placed']);
    expect(counts.settles.length).toBeGreaterThan(0);
    limiter.close();
  });

  it('throttles at the hour on the totals read, before they are settled', async () => {
    const { clock, counts, limiter } = setup(1001, 300);
    await clock.advanceTo(30_000);
    expect(limiter.limitNow('main').throttle).toMatchObject({ reason: 'no-fills', limit: 10 });
    counts.settled(true);
    await clock.advance(0);
    expect(limiter.limitNow('main').throttle).toMatchObject({ reason: 'no-fills', limit: 10 });
    limiter.close();
  });
});

describe('withUnread', () => {
  const state = {
    latest: HOUR - 60_000,
    days: [
      {
        account: 'main',
        day: '2026-11-02',
        contracts: [{ contract: 'BTC_USDT', makerVolume: '5', takerVolume: '0', place: 10, amend: 0, cancel: 1 }],
      },
    ],
    hours: [{ account: 'main', hour: '2026-11-02T08:00:00.000Z', requests: 11, traded: '5' }],
  };

  it('adds the requests to the day and the hour of the instant, leaving the state given unchanged', () => {
    const more = withUnread(state, 'main', 'BTC_USDT', HOUR - 1, 7);
    expect(more.days[0]!.contracts[0]).toMatchObject({ place: 17, cancel: 1, makerVolume: '5' });
    expect(more.hours[0]).toMatchObject({ requests: 18, traded: '5' });
    expect(state.hours[0]!.requests).toBe(11);
    expect(state.days[0]!.contracts[0]!.place).toBe(10);
  });

  it('makes the day, contract and hour it adds to when there are none, in order', () => {
    const more = withUnread(state, 'sub', 'ETH_USDT', HOUR + 5, 3);
    expect(more.days.map((d) => `${d.account} ${d.day}`)).toEqual(['main 2026-11-02', 'sub 2026-11-02']);
    expect(more.hours.map((h) => `${h.account} ${h.hour} ${h.requests}`)).toEqual([
      'main 2026-11-02T08:00:00.000Z 11',
      'sub 2026-11-02T09:00:00.000Z 3',
    ]);
    expect(Tracker.restore(more).hourlyActivity('sub')).toEqual([{ hour: HOUR, requests: 3, traded: '0' }]);
  });

  it('returns the state itself for no requests', () => {
    expect(withUnread(state, 'main', 'BTC_USDT', HOUR - 1, 0)).toBe(state);
  });
});
