import { describe, expect, it } from 'vitest';
import { AccountLimiter, type LimiterEvent } from '../../src/account/limiter.js';
import { RedisStore } from '../../src/redis/store.js';
import { redisForFile } from './file-prefixes.js';
import { VirtualRedis, settleOn } from './virtual.js';

// The hourly checks of the abuse throttle and the spot low-fill throttle with counts shared in
// Redis (see docs/rules.md#r9 and docs/rules.md#r14): four limiters play four processes on one
// account, each with a store of its own, on one virtual clock that Redis runs its scripts at. At
// a whole hour H each throttle applies in every process when, and only when, the account's count
// over the 24 hours before H is over its threshold; and never after H on requests that were not
// sent. One window (10 s) before H, each throttle the requests still to come could start is in
// force already (see docs/rules.md#r15): it is lifted at H where the count does not trip it.
const { client, prefixFor } = redisForFile();

const HOUR_MS = 3_600_000;
const ACCOUNTS = [{ id: 'main', role: 'main' as const }];

interface Process {
  readonly limiter: AccountLimiter;
  readonly store: RedisStore;
  readonly events: LimiterEvent[];
  /** What happened after the hour, in order: a throttle event or a placement sent. */
  readonly after: string[];
  /** When the placement asked for after the hour went out, ms after the hour. */
  placedAfterMs: number;
}

async function fourProcesses(name: string, hour: number, options: { abuse?: object; spotFill?: object }) {
  const prefix = prefixFor(name);
  const v = new VirtualRedis(client, 1_000_000, hour - 20_000);
  // Not a new prefix: these tests are about the hour, not about a first use.
  await v.warm(prefix);
  const processes: Process[] = [0, 1, 2, 3].map(() => {
    const store = new RedisStore({ ...v.options(prefix), timeoutMs: 100, retryMs: 20 });
    const limiter = new AccountLimiter({
      accounts: ACCOUNTS,
      store,
      exchangeClock: 'local',
      clock: v.clock,
      ...options,
    });
    const p: Process = { limiter, store, events: [], after: [], placedAfterMs: Number.NaN };
    limiter.on((e) => {
      p.events.push(e);
      if ((e.type === 'throttle' || e.type === 'spot-throttle') && v.clock.wall() >= hour) p.after.push(e.type);
    });
    return p;
  });
  const close = async () => {
    for (const p of processes) p.limiter.close();
    await Promise.all(processes.map((p) => p.store.close()));
  };
  /** Notes in `p` that its placement after the hour went out. */
  const placed = (p: Process) => () => {
    p.after.push('placed');
    p.placedAfterMs = v.clock.wall() - hour;
  };
  return { v, processes, close, placed };
}

const futuresOrder = (p: Process, onSent: () => void = () => {}) =>
  p.limiter.request('main', 'POST', '/futures/usdt/orders', onSent, { body: { contract: 'BTC_USDT', size: 1 } });

const spotOrder = (p: Process, pair: string, onSent: () => void = () => {}) =>
  p.limiter.request('main', 'POST', '/spot/orders', onSent, { body: { currency_pair: pair } });

/** `total` requests split over the four processes as evenly as they go. */
const shares = (total: number) => [0, 1, 2, 3].map((i) => Math.floor(total / 4) + (i < total % 4 ? 1 : 0));

describe('the abuse throttle checked at a whole hour, four processes on one Redis', () => {
  const THRESHOLD = 864;

  for (const [sent, throttled] of [
    [THRESHOLD - 1, false],
    [THRESHOLD, false],
    [THRESHOLD + 1, true],
  ] as const) {
    it(`${throttled ? 'throttles every process' : 'throttles no process past the hour'} after ${sent} placements without fills against a threshold of ${THRESHOLD}`, async () => {
      const hour = Math.ceil(Date.now() / HOUR_MS) * HOUR_MS + 30 * HOUR_MS;
      const { v, processes, close, placed } = await fourProcesses(`hourly-abuse-${sent}`, hour, {
        abuse: { requestThreshold: THRESHOLD },
      });
      try {
        const counts = shares(sent);
        await settleOn(
          v,
          processes.flatMap((p, i) => Array.from({ length: counts[i]! }, () => futuresOrder(p))),
          19_000,
        );
        expect(v.clock.wall()).toBeLessThan(hour);
        for (const p of processes) await v.until(() => p.limiter.abuseHeadroom('main').requests === sent, 2000);
        // One placement asked for in each process 1 ms after the hour.
        await v.advanceTo(v.clock.now() + (hour + 1 - v.clock.wall()));
        const later = processes.map((p) => futuresOrder(p, placed(p)));
        await settleOn(v, later, 30_000);
        await v.advance(2000);
        console.log(
          `${sent} placements before the hour: ${processes.map((p) => `${p.after.join(' then ')} ${p.placedAfterMs} ms after it`).join('; ')}`,
        );
        for (const p of processes) {
          const throttles = p.events.flatMap((e) => (e.type === 'throttle' ? [e] : []));
          // From one window before the hour: the requests still to come could take the count over.
          expect(throttles[0]).toMatchObject({ at: hour - 10_000, throttle: { reason: 'no-fills', limit: 10 } });
          if (!throttled) {
            // Lifted at the hour, before any placement after it went out.
            expect(throttles.map((e) => e.throttle)).toEqual([expect.anything(), null]);
            expect(throttles[1]!.at).toBeGreaterThanOrEqual(hour);
            expect(p.after).toEqual(['throttle', 'placed']);
            expect(p.limiter.limitNow('main').throttle).toBeNull();
          } else {
            // In force before any placement after the hour went out, and kept.
            expect(throttles).toHaveLength(1);
            expect(p.after).toEqual(['placed']);
            expect(p.limiter.limitNow('main').throttle).toMatchObject({ reason: 'no-fills' });
          }
        }
      } finally {
        await close();
      }
    }, 120_000);
  }
});

describe('the spot low-fill throttle checked at a whole hour, four processes on one Redis', () => {
  const THRESHOLD = 40;
  const PAIRS = ['BTC_USDT', 'ETH_USDT', 'SOL_USDT', 'DOGE_USDT'];

  for (const [sent, throttled] of [
    [THRESHOLD - 1, false],
    [THRESHOLD, false],
    [THRESHOLD + 1, true],
  ] as const) {
    it(`${throttled ? 'throttles every process' : 'throttles no process past the hour'} after ${sent} spot placements without fills against a threshold of ${THRESHOLD}`, async () => {
      const hour = Math.ceil(Date.now() / HOUR_MS) * HOUR_MS + 30 * HOUR_MS;
      const { v, processes, close, placed } = await fourProcesses(`hourly-spot-${sent}`, hour, {
        spotFill: { requestThreshold: THRESHOLD },
      });
      try {
        const counts = shares(sent);
        await settleOn(
          v,
          processes.flatMap((p, i) => Array.from({ length: counts[i]! }, () => spotOrder(p, PAIRS[i]!))),
          19_000,
        );
        expect(v.clock.wall()).toBeLessThan(hour);
        for (const p of processes) await v.until(() => p.limiter.spotFillHeadroom('main').requests === sent, 2000);
        await v.advanceTo(v.clock.now() + (hour + 1 - v.clock.wall()));
        const later = processes.map((p, i) => spotOrder(p, PAIRS[i]!, placed(p)));
        await settleOn(v, later, 30_000);
        await v.advance(2000);
        console.log(
          `${sent} spot placements before the hour: ${processes.map((p) => `${p.after.join(' then ')} ${p.placedAfterMs} ms after it`).join('; ')}`,
        );
        for (const p of processes) {
          const throttles = p.events.flatMap((e) => (e.type === 'spot-throttle' ? [e] : []));
          expect(throttles[0]).toMatchObject({ at: hour - 10_000, throttle: { reason: 'no-fills', limit: 10 } });
          if (!throttled) {
            expect(throttles.map((e) => e.throttle)).toEqual([expect.anything(), null]);
            expect(throttles[1]!.at).toBeGreaterThanOrEqual(hour);
            expect(p.after).toEqual(['spot-throttle', 'placed']);
            expect(p.limiter.limitNow('main').spotThrottle).toBeNull();
          } else {
            expect(throttles).toHaveLength(1);
            expect(p.after).toEqual(['placed']);
            expect(p.limiter.limitNow('main').spotThrottle).toMatchObject({ reason: 'no-fills' });
          }
        }
      } finally {
        await close();
      }
    }, 120_000);
  }
});
