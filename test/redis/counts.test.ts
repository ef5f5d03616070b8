import { afterAll, describe, expect, it } from 'vitest';
import { AccountLimiter, type LimiterEvent } from '../../src/account/limiter.js';
import { RedisStore } from '../../src/redis/store.js';
import { cleanPrefix, connect, copyPrefix, uniquePrefix } from './harness.js';
import { VirtualRedis, settleOn } from './virtual.js';

// An account limiter given a Redis store counts in Redis: every process reads the account's
// totals. Two limiters in one test play two processes, each with a store of its own, on one
// virtual clock that Redis runs its scripts at (test/redis/virtual.ts): nothing waits for the
// machine's clock.
const client = connect();
const prefixes: string[] = [];
afterAll(async () => {
  for (const p of prefixes) await cleanPrefix(client, p);
  client.disconnect();
});

/** A prefix of the test's own and a virtual clock whose wall reads `wall` now. */
async function setup(name: string, wall = Date.now()): Promise<{ prefix: string; v: VirtualRedis }> {
  const prefix = uniquePrefix(name);
  prefixes.push(prefix);
  const v = new VirtualRedis(client, 1_000_000, wall);
  // A prefix seen for the first time grants nothing for one window (10 s for the abuse throttle's
  // limit): these tests start from a prefix in use long already.
  await v.warm(prefix);
  return { prefix, v };
}

type Mode = 'ok' | 'lose-reply' | 'down';

/** A client whose scripts can fail as a network does: no answer, or the answer lost after it ran. */
function faulty(fault: { mode: Mode; calls: number }) {
  const wrap =
    (call: (...a: any[]) => Promise<unknown>) =>
    async (...args: any[]): Promise<unknown> => {
      fault.calls++;
      if (fault.mode === 'down') throw new Error('connection refused');
      const reply = await call(...args);
      if (fault.mode === 'lose-reply') throw new Error('connection reset after the script ran');
      return reply;
    };
  return { evalsha: wrap(client.evalsha.bind(client)), eval: wrap(client.eval.bind(client)) };
}

const ACCOUNTS = [{ id: 'main', role: 'main' as const }];

function limiterOn(v: VirtualRedis, prefix: string, options: { client?: object; threshold?: number } = {}) {
  const store = new RedisStore({ ...v.options(prefix, options.client), timeoutMs: 100, retryMs: 20 });
  const events: LimiterEvent[] = [];
  const limiter = new AccountLimiter({
    accounts: ACCOUNTS,
    store,
    exchangeClock: 'local',
    clock: v.clock,
    ...(options.threshold === undefined ? {} : { abuse: { requestThreshold: options.threshold } }),
  });
  limiter.on((e) => events.push(e));
  return {
    store,
    limiter,
    events,
    async close() {
      limiter.close();
      await store.close();
    },
  };
}

const place = (l: AccountLimiter, contract = 'BTC_USDT') =>
  l.request('main', 'POST', '/futures/usdt/orders', () => 1, { body: { contract, size: 1 } });

describe('an account limiter given a Redis store', () => {
  it('reads the totals of every process: requests and exact volumes summed', async () => {
    const { prefix, v } = await setup('sum');
    const a = limiterOn(v, prefix);
    const b = limiterOn(v, prefix);
    try {
      await settleOn(v, [
        ...Array.from({ length: 7 }, () => place(a.limiter)),
        ...Array.from({ length: 5 }, () => place(b.limiter, 'ETH_USDT')),
      ]);
      a.limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '0.0000000000123456789' });
      b.limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '12345678901234.5' });
      b.limiter.recordFill('main', { contract: 'ETH_USDT', role: 'taker', volume: '0.1' });
      for (const x of [a, b])
        await v.until(
          () =>
            x.limiter.abuseHeadroom('main').requests === 12 &&
            x.limiter.abuseHeadroom('main').traded === '12345678901234.6000000000123456789',
          2000,
        );
      for (const x of [a, b]) {
        const day = x.limiter.snapshot().tracker.days[0]!;
        const byName = Object.fromEntries(day.contracts.map((c) => [c.contract, c]));
        expect(byName.BTC_USDT).toMatchObject({
          place: 7,
          makerVolume: '12345678901234.5000000000123456789',
          takerVolume: '0',
        });
        expect(byName.ETH_USDT).toMatchObject({ place: 5, makerVolume: '0', takerVolume: '0.1' });
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('counts a batch whose answer was lost once, and keeps counts while Redis does not answer', async () => {
    const { prefix, v } = await setup('faults');
    const fault = { mode: 'ok' as Mode, calls: 0 };
    const a = limiterOn(v, prefix, { client: faulty(fault) });
    const reader = limiterOn(v, prefix);
    try {
      await settleOn(
        v,
        Array.from({ length: 3 }, () => place(a.limiter)),
      );
      await v.until(() => reader.limiter.abuseHeadroom('main').requests === 3, 2000);
      // The script runs and its answer is lost: the batch is sent again, and counted once.
      fault.mode = 'lose-reply';
      a.limiter.recordFill('main', { contract: 'BTC_USDT', role: 'taker', volume: '2.5' });
      const calls = fault.calls;
      await v.until(() => fault.calls >= calls + 3, 2000);
      fault.mode = 'down';
      a.limiter.recordFill('main', { contract: 'BTC_USDT', role: 'taker', volume: '1' });
      a.limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '4' });
      await v.advance(200);
      // Counted here meanwhile, not yet in Redis.
      expect(a.limiter.abuseHeadroom('main').traded).toBe('7.5');
      expect(reader.limiter.abuseHeadroom('main').traded).toBe('2.5');
      fault.mode = 'ok';
      await v.until(() => reader.limiter.abuseHeadroom('main').traded === '7.5', 2000);
      await v.advance(200);
      expect(reader.limiter.abuseHeadroom('main')).toMatchObject({ requests: 3, traded: '7.5' });
      expect(a.limiter.abuseHeadroom('main')).toMatchObject({ requests: 3, traded: '7.5' });
    } finally {
      await a.close();
      await reader.close();
    }
  });

  it('sends again what a failover to a replica that lagged lost, once, and history written once again', async () => {
    const { prefix, v } = await setup('lagged');
    const a = limiterOn(v, prefix);
    const reader = limiterOn(v, prefix);
    try {
      await settleOn(
        v,
        Array.from({ length: 3 }, () => place(a.limiter)),
      );
      await v.until(() => reader.limiter.abuseHeadroom('main').requests === 3, 2000);
      // What Redis holds now is all a replica will have: what A counts and writes from here on is lost.
      const lagged = await copyPrefix(client, prefix);
      a.limiter.seed({
        hours: [
          { account: 'main', hour: Math.floor(v.clock.wall() / 3_600_000 - 2) * 3_600_000, requests: 40, traded: '0' },
        ],
      });
      await settleOn(
        v,
        Array.from({ length: 4 }, () => place(a.limiter)),
      );
      a.limiter.recordFill('main', { contract: 'BTC_USDT', role: 'taker', volume: '2.5' });
      await v.until(() => reader.limiter.abuseHeadroom('main').requests === 47, 2000);
      await lagged();
      // A's next round trip finds its batches gone and sends them again: the totals whole, once.
      await v.advance(1000);
      await v.until(() => reader.limiter.abuseHeadroom('main').traded === '2.5', 2000);
      await v.advance(1000);
      for (const x of [a, reader])
        expect(x.limiter.abuseHeadroom('main')).toMatchObject({ requests: 47, traded: '2.5' });
    } finally {
      await a.close();
      await reader.close();
    }
  });

  it('writes seeded history and a restored snapshot once, however many processes do it', async () => {
    const { prefix, v } = await setup('seed');
    const a = limiterOn(v, prefix);
    const b = limiterOn(v, prefix);
    try {
      const hour = Math.floor(v.clock.wall() / 3_600_000) * 3_600_000 - 3_600_000;
      const history = {
        hours: [{ account: 'main', hour, requests: 500, traded: '10' }],
        days: [
          {
            account: 'main',
            day: new Date(hour - 86_400_000).toISOString().slice(0, 10),
            contracts: [{ contract: 'BTC_USDT', makerVolume: '100', takerVolume: '0', place: 40, amend: 0, cancel: 0 }],
          },
        ],
      };
      a.limiter.seed(history);
      b.limiter.seed(history);
      a.limiter.seed(history);
      for (const x of [a, b]) await v.until(() => x.limiter.abuseHeadroom('main').requests === 500, 2000);
      await v.advance(200);
      const snapshot = a.limiter.snapshot();
      // A restart: the snapshot restored while Redis still holds the counts adds nothing.
      b.limiter.restore(snapshot);
      a.limiter.restore(snapshot);
      await v.advance(300);
      for (const x of [a, b]) {
        expect(x.limiter.abuseHeadroom('main')).toMatchObject({ requests: 500, traded: '10' });
        expect(x.limiter.snapshot().tracker.days.find((d) => d.contracts.length > 0)?.contracts[0]).toMatchObject({
          place: 40,
          makerVolume: '100',
        });
      }
      // Redis lost them: the snapshot is written again where it holds nothing.
      await cleanPrefix(client, prefix);
      b.limiter.restore(snapshot);
      a.limiter.restore(snapshot);
      await v.advance(300);
      expect(await client.hget(`{${prefix}}:c:h:${hour}:main`, 'r')).toBe('500');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps days 8 days after they end and hours 25 hours after they end', async () => {
    const { prefix, v } = await setup('ttl');
    const a = limiterOn(v, prefix);
    try {
      await settleOn(v, [place(a.limiter)]);
      await v.until(async () => (await client.exists(`{${prefix}}:c:seq`)) === 1, 2000);
      const now = v.clock.wall();
      const day = Math.floor(now / 86_400_000) * 86_400_000;
      const hour = Math.floor(now / 3_600_000) * 3_600_000;
      const dayTtl = await client.pttl(`{${prefix}}:c:d:${day}:main`);
      const hourTtl = await client.pttl(`{${prefix}}:c:h:${hour}:main`);
      expect(Math.abs(now + dayTtl - (day + 9 * 86_400_000))).toBeLessThan(5000);
      expect(Math.abs(now + hourTtl - (hour + 26 * 3_600_000))).toBeLessThan(5000);
    } finally {
      await a.close();
    }
  });

  it("keeps them that long on the limiter's clock, not Redis's: a seeded hour 23 h before a clock 30 h behind stays", async () => {
    // A limiter whose clock is 30 h behind this machine's (an engine replaying a day, a model
    // exchange's clock): its hour of 23 h ago ends in 2 h on its clock, long past on Redis's.
    const { prefix, v } = await setup('ttl-shifted', Date.now() - 30 * 3_600_000);
    const a = limiterOn(v, prefix);
    try {
      const now = v.clock.wall();
      const hour = Math.floor(now / 3_600_000) * 3_600_000 - 23 * 3_600_000;
      a.limiter.seed({ hours: [{ account: 'main', hour, requests: 86_401, traded: '0' }] });
      await v.until(() => a.limiter.abuseHeadroom('main').requests === 86_401, 2000);
      const ttl = await client.pttl(`{${prefix}}:c:h:${hour}:main`);
      expect(Math.abs(now + ttl - (hour + 26 * 3_600_000))).toBeLessThan(5000);
      // Read again in full a second later: still there, still counted.
      await v.advance(1200);
      expect(a.limiter.abuseHeadroom('main').requests).toBe(86_401);
    } finally {
      await a.close();
    }
  });

  it('warns and throttles on the account total, not on one process', async () => {
    // 40 requests in each of two processes, the threshold 60: each process alone stays below
    // the warning (at 54), the account reaches it and passes the threshold.
    const { prefix, v } = await setup('warn');
    const a = limiterOn(v, prefix, { threshold: 60 });
    const b = limiterOn(v, prefix, { threshold: 60 });
    try {
      await settleOn(v, [
        ...Array.from({ length: 40 }, () => place(a.limiter)),
        ...Array.from({ length: 40 }, () => place(b.limiter)),
      ]);
      for (const x of [a, b])
        await v.until(
          () => x.events.some((e) => e.type === 'abuse-warning') && x.limiter.abuseHeadroom('main').requests === 80,
          2000,
        );
      for (const x of [a, b]) {
        const w = x.events.find((e) => e.type === 'abuse-warning') as Extract<LimiterEvent, { type: 'abuse-warning' }>;
        expect(w.requests).toBeGreaterThanOrEqual(54);
        expect(x.limiter.abuseHeadroom('main')).toMatchObject({ requests: 80, remaining: 0 });
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('two processes at a boundary, on shared counts', () => {
  const DAY = 86_400_000;
  const dayText = (at: number) => new Date(at).toISOString().slice(0, 10);
  const activity = (place: number, maker: number) => [
    { contract: 'BTC_USDT', makerVolume: String(maker), takerVolume: '0', place, amend: 0, cancel: 0 },
  ];
  type LimitEvent = Extract<LimiterEvent, { type: 'limit' }>;

  it("lower the limit at the 00:00 snapshot to the same tier, rated on both processes' counts", async () => {
    // Before: a week rated high (tier 7). Today A sends 30 orders and B fills 120 USDT as maker:
    // on their sum the week rates 2 (150); A's alone would rate below 1 (100), B's 3 (200).
    const midnight = Math.floor(Date.now() / DAY) * DAY + 20 * DAY;
    const { prefix, v } = await setup('midnight', midnight - 30_000);
    const a = limiterOn(v, prefix);
    const b = limiterOn(v, prefix);
    try {
      const today = midnight - DAY;
      a.limiter.seed({
        days: [
          { account: 'main', day: dayText(today - 7 * DAY), contracts: activity(10, 10_000) },
          ...[6, 5, 4, 3, 2, 1].map((k) => ({
            account: 'main',
            day: dayText(today - k * DAY),
            contracts: activity(10, 10),
          })),
        ],
      });
      await v.until(() => b.limiter.limitNow('main').limit === 400, 3000);
      await settleOn(
        v,
        Array.from({ length: 30 }, () => place(a.limiter)),
      );
      b.limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '120' });
      for (const x of [a, b]) await v.until(() => x.limiter.limitAtNext0800('main').limit === 150, 3000);
      expect(v.clock.wall()).toBeLessThan(midnight - 10_000);
      await v.until(() => v.clock.wall() >= midnight, 40_000);
      for (const x of [a, b]) await v.until(() => x.limiter.limitNow('main').limit === 150, 8000);
      for (const x of [a, b]) {
        const changes = x.events.filter((e): e is LimitEvent => e.type === 'limit' && e.at >= midnight - 20_000);
        // One window (10 s) before midnight, lowered: as many requests as the limits let through
        // until it would rate the week lower still (see docs/rules.md#r15).
        expect(changes[0]).toMatchObject({ at: midnight - 10_000, from: 400 });
        expect(changes[0]!.to).toBeLessThanOrEqual(150);
        // At midnight, decided on both processes' totals up to it: the requests the other process
        // may not have shared yet could rate the week lower, so placements waited for them; 150.
        const atMidnight = changes.filter((e) => e.at >= midnight);
        expect(atMidnight.map((e) => e.to)).toEqual(changes[0]!.to === 150 ? [] : [150]);
      }
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  it('raise the limit at 08:00 to the same tier, on history only one of them seeded', async () => {
    // The snapshot of yesterday rated 1.125 (150), today's 3 (200): the raise waits for 08:00.
    const eight = Math.floor(Date.now() / DAY) * DAY + 20 * DAY + 8 * 3_600_000;
    const { prefix, v } = await setup('raise', eight - 4000);
    const a = limiterOn(v, prefix);
    const b = limiterOn(v, prefix);
    try {
      const today = eight - 8 * 3_600_000;
      a.limiter.seed({
        days: [
          { account: 'main', day: dayText(today - 8 * DAY), contracts: activity(100, 0) },
          ...[7, 6, 5, 4, 3, 2, 1].map((k) => ({
            account: 'main',
            day: dayText(today - k * DAY),
            contracts: activity(10, 30),
          })),
        ],
      });
      for (const x of [a, b]) await v.until(() => x.limiter.limitNow('main').limit === 150, 3000);
      for (const x of [a, b]) expect(x.limiter.limitAtNext0800('main')).toMatchObject({ at: eight, limit: 200 });
      for (const x of [a, b]) await v.until(() => x.limiter.limitNow('main').limit === 200, 8000);
      for (const x of [a, b]) {
        const last = x.events.filter((e): e is LimitEvent => e.type === 'limit').at(-1)!;
        expect(last).toMatchObject({ from: 150, to: 200 });
        expect(last.at).toBeGreaterThanOrEqual(eight);
      }
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);
});
