import { describe, expect, it } from 'vitest';
import { type Broker, type Lease, linkOf, SharedLimit } from '../../src/redis/shared-limit.js';
import type { Clock } from '../../src/schedule/clock.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import type { LimitStore } from '../../src/schedule/store.js';
import { WindowLimit } from '../../src/schedule/window.js';
import { UNANSWERED_MAX_MS } from '../../src/schedule/unanswered.js';
import { AccountLimiter } from '../../src/account/limiter.js';

/** A broker that records what the limit asks of it, with no Redis behind it. */
function fakeBroker() {
  const calls = {
    acquire: [] as { names: string[]; weight: number }[],
    ended: [] as { id: string; sent: number }[],
    late: [] as { id: string; weight: number; at: number }[],
    feedback: [] as {
      name: string;
      holdWeight: number;
      holdMs: number;
      counted?: boolean | undefined;
      countedAt?: number | undefined;
    }[],
  };
  const broker: Broker & { available: boolean; share: WindowLimit | null } = {
    leaseMs: 20,
    available: true,
    share: null,
    acquire: (linked, weight) => void calls.acquire.push({ names: linked.map((l) => l.name), weight }),
    endLease: (_limit: SharedLimit, lease: Lease) => void calls.ended.push({ id: lease.id, sent: lease.sent }),
    tell: () => {},
    late: (_limit: SharedLimit, lease: Lease, weight: number, at: number) =>
      void calls.late.push({ id: lease.id, weight, at }),
    feedback: (limit, _pauseMs, holdWeight, holdMs, counted, countedAt) =>
      void calls.feedback.push({ name: limit.name, holdWeight, holdMs, counted, countedAt }),
    update: () => {},
    fallback: () => broker.share,
    downWait: () => 1000,
  };
  return { broker, calls };
}

function setup() {
  const clock = new VirtualClock();
  const { broker, calls } = fakeBroker();
  const store: LimitStore<SharedLimit> = { limit: (options, host) => new SharedLimit(options, broker, host) };
  const scheduler = new Scheduler({ clock, store });
  return { clock, broker, calls, scheduler };
}

describe('SharedLimit', () => {
  it('holds in this process only: asks nothing of the broker, and a later hold ending it sooner wakes the scheduler', async () => {
    const { clock, calls, scheduler } = setup();
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    l.holdHere(Infinity);
    const sent: number[] = [];
    const task = scheduler.schedule(() => void sent.push(clock.now()), { limits: l });
    await clock.advance(200);
    expect(calls.acquire).toEqual([]);
    l.holdHere(-Infinity);
    expect(calls.acquire).toEqual([{ names: ['orders'], weight: 1 }]);
    linkOf(l).asked();
    linkOf(l).granted({ id: 'p.1', granted: 1, sent: 0, until: 300, unstamped: 0, redisOffset: 0 }, clock.now(), false);
    scheduler.wake();
    await task;
    expect(sent).toEqual([200]);
  });

  it('is a Limit of its own, not a WindowLimit: a scheduler runs tasks on it, tells it of changes and reports it', async () => {
    const { clock, calls, scheduler } = setup();
    const events: string[] = [];
    scheduler.on((e) => void (e.type === 'limit' && events.push(`${e.limit} ${e.from.limit}->${e.to.limit}`)));
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    expect(l).toBeInstanceOf(SharedLimit);
    expect(l).not.toBeInstanceOf(WindowLimit);
    // No lease yet: the task waits and the limit asks the broker.
    const done = scheduler.schedule(() => 'sent', { limits: l, weight: 2 });
    expect(calls.acquire).toEqual([{ names: ['orders'], weight: 2 }]);
    linkOf(l as SharedLimit).asked();
    linkOf(l as SharedLimit).granted(
      { id: 'p.1', granted: 2, sent: 0, until: 100, unstamped: 0, redisOffset: 0 },
      clock.now(),
      false,
    );
    scheduler.wake();
    await expect(done).resolves.toBe('sent');
    await clock.advance(1);
    expect(scheduler.stats().limits).toEqual([
      { name: 'orders', limit: 10, windowMs: 1000, used: 2, waiting: 0, expectedWaitMs: 0 },
    ]);
    l.update({ limit: 8 });
    expect(events).toEqual(['orders 10->8']);
    expect(l.limit).toBe(8);
  });

  it('asks again at once when N or W changes here, not when Redis said to look again (a throttle lifted)', async () => {
    const { clock, calls, scheduler } = setup();
    const l = scheduler.limit({ name: 'throttle', limit: 10, windowMs: 10_000 }) as SharedLimit;
    const done = scheduler.schedule(() => 'sent', { limits: l });
    expect(calls.acquire).toHaveLength(1);
    // Denied: the window frees in 9 s.
    linkOf(l).asked();
    linkOf(l).denied(clock.now() + 9_000, [l]);
    await clock.advance(1_000);
    expect(calls.acquire).toHaveLength(1);
    l.update({ limit: 1_000_000_000 });
    expect(calls.acquire).toHaveLength(2);
    linkOf(l).asked();
    linkOf(l).granted(
      { id: 'p.2', granted: 1, sent: 0, until: clock.now() + 20, unstamped: 0, redisOffset: 0 },
      clock.now(),
      false,
    );
    scheduler.wake();
    await expect(done).resolves.toBe('sent');
    expect(clock.now()).toBe(1_000);
  });

  it('waits out a denial when the change came from Redis (adopted), not made here', async () => {
    const { clock, calls, scheduler } = setup();
    const l = scheduler.limit({ name: 'throttle', limit: 10, windowMs: 10_000 }) as SharedLimit;
    const done = scheduler.schedule(() => 'sent', { limits: l }).catch((e: unknown) => e);
    linkOf(l).asked();
    linkOf(l).denied(clock.now() + 9_000, [l]);
    linkOf(l).adopt(20, 10_000);
    await clock.advance(1_000);
    expect(l.limit).toBe(20);
    expect(calls.acquire).toHaveLength(1);
    scheduler.close();
    await done;
  });

  it('keeps the latest arrival it is told of for max(10 s, 2 W) to twice that, for Redis to count grants longer (see docs/rules.md#r13)', () => {
    const { scheduler } = setup();
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    expect(linkOf(l).lateness(0)).toBe(0);
    l.extend(1, 100, 130.2);
    l.extend(1, 200, 210);
    expect(linkOf(l).lateness(300)).toBe(31);
    // A period later it is still the latest of the last two periods.
    expect(linkOf(l).lateness(10_099)).toBe(31);
    expect(linkOf(l).lateness(10_100)).toBe(31);
    l.extend(1, 12_000, 12_005);
    expect(linkOf(l).lateness(12_000)).toBe(31);
    // Two periods after it was measured, only the later one is left.
    expect(linkOf(l).lateness(20_100)).toBe(5);
    expect(linkOf(l).lateness(40_100)).toBe(0);
    // Earlier than sent: nothing.
    l.extend(1, 50_000, 49_000);
    expect(linkOf(l).lateness(50_000)).toBe(0);
  });

  it('sends on a lease until, not at, the instant it ends, then gives back what was not sent', () => {
    const { calls, scheduler } = setup();
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    linkOf(l).granted({ id: 'p.1', granted: 3, sent: 0, until: 100, unstamped: 0, redisOffset: 0 }, 0, false);
    expect(l.waitFor(1, 99.999)).toBe(0);
    l.takeUnstamped(1);
    expect(linkOf(l).lease?.sent).toBe(1);
    expect(l.lacks(2, 99.999)).toBe(false);
    expect(l.lacks(3, 99.999)).toBe(true);
    expect(l.waitFor(1, 100)).toBe(20);
    expect(linkOf(l).lease).toBeNull();
    expect(calls.ended).toEqual([{ id: 'p.1', sent: 1 }]);
  });

  it('has the store count again what was taken from a lease and stamped at or after its end', () => {
    const { calls, scheduler } = setup();
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    linkOf(l).granted({ id: 'p.1', granted: 4, sent: 0, until: 20, unstamped: 0, redisOffset: 0 }, 0, false);
    // Stamped before the lease ended: the task started by its score, nothing to say.
    l.takeUnstamped(1);
    l.stamp(19.999);
    expect(calls.late).toEqual([]);
    // Taken before the end, but the first instant read after the task started is at the end.
    l.takeUnstamped(2);
    l.stamp(20);
    expect(calls.late).toEqual([{ id: 'p.1', weight: 2, at: 20 }]);
    // Weight of a lease that ended, then of the next one, stamped together after both ended.
    l.takeUnstamped(1);
    linkOf(l).endLease();
    linkOf(l).granted({ id: 'p.2', granted: 2, sent: 0, until: 30, unstamped: 0, redisOffset: 0 }, 0, false);
    l.takeUnstamped(2);
    l.stamp(31);
    expect(calls.late).toEqual([
      { id: 'p.1', weight: 2, at: 20 },
      { id: 'p.1', weight: 1, at: 31 },
      { id: 'p.2', weight: 2, at: 31 },
    ]);
    expect(l.usedAt(31)).toBe(6);
  });

  it('asks once while an answer is on its way, and not before Redis said to', () => {
    const { calls, scheduler } = setup();
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    l.request([l], 1, 0, 0);
    linkOf(l).asking();
    l.request([l], 1, 0, 1);
    linkOf(l).asked();
    linkOf(l).denied(50, [l]);
    expect(l.waitFor(1, 10)).toBe(40);
    l.request([l], 1, 0, 10);
    l.request([l], 1, 0, 50);
    expect(calls.acquire).toEqual([
      { names: ['orders'], weight: 1 },
      { names: ['orders'], weight: 1 },
    ]);
  });

  it('sends on the local share while Redis fails, and waits when there is none', () => {
    const { broker, scheduler } = setup();
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    broker.available = false;
    expect(l.lacks(1, 0)).toBe(false);
    expect(l.waitFor(1, 0)).toBe(1000);
    const share = linkOf(l).startShare(2);
    broker.share = share;
    expect(l.waitFor(1, 0)).toBe(0);
    l.takeUnstamped(1);
    l.stamp(0);
    expect(share.usedAt(0)).toBe(1);
  });
});

describe('SharedLimit: arrivals bounded by answers (see docs/rules.md#r13)', () => {
  it('follows a round trip to the lease it was sent on, and has the broker tell its grant once answered', () => {
    const { broker, scheduler } = setup();
    const told: string[] = [];
    broker.tell = (limit) => void told.push(limit.name);
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    const lease: Lease = { id: 'p.1', granted: 1, sent: 0, until: 20, unstamped: 0, redisOffset: 1000 };
    linkOf(l).granted(lease, 0, false);
    expect(l.waitFor(1, 0)).toBe(0);
    l.takeUnstamped(1);
    const request = l.awaitAnswer(1, 0);
    l.stamp(0);
    // Held in Redis from the next grant on, until confirmed.
    expect(linkOf(l).holdMs).toBe(UNANSWERED_MAX_MS);
    expect(told).toEqual([]);
    // All of the lease sent, and answered at 40 at the latest: confirmed at once, as a Redis instant.
    l.answered(request, 40);
    expect(told).toEqual(['orders']);
    expect(linkOf(l).takeConfirmed()).toEqual([{ id: 'p.1', at: 1040 }]);
  });

  it('keeps what may still count only: the holds of answers until they end, a confirmed grant while Redis counts it', () => {
    const { scheduler } = setup();
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    // A minute of grants, one every 100 ms, each sent on at once and answered 30 ms later.
    for (let i = 0; i < 600; i++) {
      const t = i * 100;
      const lease: Lease = { id: `p.${i}`, granted: 1, sent: 0, until: t + 20, unstamped: 0, redisOffset: 1000 };
      linkOf(l).granted(lease, t, false);
      l.takeUnstamped(1);
      const request = l.awaitAnswer(1, t);
      l.stamp(t);
      l.answered(request, t + 30);
    }
    // Each answer holds its request until a window after it: those sent from 58,900 on.
    expect(l.snapshot().holds).toHaveLength(11);
    // Grant i, confirmed at Redis instant 100 i + 1030, counts there until 100 i + 2030; Redis
    // reads at least local + 1000 - 1 - 250 (the longest lease): let go of by 100 i + 1281.
    expect(
      linkOf(l)
        .recentGrants(59_900)
        .map((e) => e.id),
    ).toEqual(Array.from({ length: 13 }, (_, k) => `p.${587 + k}`));
  });

  it('keeps, through many cuts of what it follows, every grant Redis may count, each scored by its own clock', () => {
    const { scheduler } = setup();
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    // 4,000 grants, one every 20 ms, each Redis clock its own; one in five answered 700 ms after
    // its send, the others 30 ms after.
    const n = 4000;
    const offsetOf = (i: number) => 1000 + (i % 3) * 100;
    const delayOf = (i: number) => (i % 5 === 0 ? 700 : 30);
    const answers: { at: number; request: ReturnType<SharedLimit['awaitAnswer']> }[] = [];
    for (let i = 0; i < n; i++) {
      const t = i * 20;
      while (answers.length > 0 && answers[0]!.at <= t) {
        const a = answers.shift()!;
        l.answered(a.request, a.at);
      }
      const lease: Lease = { id: `p.${i}`, granted: 1, sent: 0, until: t + 10, unstamped: 0, redisOffset: offsetOf(i) };
      linkOf(l).granted(lease, t, false);
      l.takeUnstamped(1);
      const request = l.awaitAnswer(1, t);
      l.stamp(t);
      answers.push({ at: t + delayOf(i), request });
      answers.sort((x, y) => x.at - y.at);
    }
    const now = (n - 1) * 20;
    const entries = linkOf(l).recentGrants(now);
    const ids = new Set(entries.map((e) => e.id));
    // Grant i is confirmed at Redis 20 i + its delay + its offset, and Redis, reading at most
    // now + its offset, may count it until a window after that.
    for (let i = 0; i < n; i++) {
      const confirmedAt = i * 20 + delayOf(i) + offsetOf(i);
      if (confirmedAt + 1000 > now + offsetOf(i)) expect(ids).toContain(`p.${i}`);
    }
    // Added back at its arrival once answered, else held at its lease's end for a minute.
    for (const e of entries) {
      const i = Number(e.id.slice(2));
      const answered = i * 20 + delayOf(i) <= now;
      expect(e.score).toBe(
        answered ? i * 20 + delayOf(i) + offsetOf(i) : i * 20 + 10 + offsetOf(i) + UNANSWERED_MAX_MS,
      );
    }
    // Not a minute of grants (3,000): those Redis may still count, and the last second and a half.
    expect(ids.size).toBeLessThanOrEqual(100);
  });

  it('with the arrival estimate, keeps a grant a minute, its arrival estimated later after its window or not', () => {
    const { scheduler } = setup();
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    const lease: Lease = { id: 'p.0', granted: 1, sent: 0, until: 20, unstamped: 0, redisOffset: 1000 };
    linkOf(l).granted(lease, 0, false);
    l.takeUnstamped(1);
    l.stamp(0);
    linkOf(l).endLease();
    // Estimated to have reached the exchange at 100, then, a quicker way there seen at 1,400, at 700.
    l.arrival(1, 0, 100, false);
    expect(linkOf(l).takeConfirmed()).toEqual([{ id: 'p.0', at: 1100 }]);
    const next: Lease = { id: 'p.1', granted: 1, sent: 0, until: 1420, unstamped: 0, redisOffset: 1000 };
    linkOf(l).granted(next, 1400, false);
    l.arrival(1, 0, 700, true);
    expect(linkOf(l).takeConfirmed()).toEqual([{ id: 'p.0', at: 1700 }]);
    // Redis counts p.0 until 2,700 on its clock: added back, at its arrival.
    expect(linkOf(l).recentGrants(1450)).toContainEqual({ id: 'p.0', weight: 1, score: 1700 });
    linkOf(l).granted(
      { id: 'p.2', granted: 1, sent: 0, until: 30_020, unstamped: 0, redisOffset: 1000 },
      30_000,
      false,
    );
    expect(
      linkOf(l)
        .recentGrants(30_000)
        .map((e) => e.id),
    ).toContain('p.0');
  });

  it('on the local share while Redis fails, has the share count a request until one window after its answer', () => {
    const { broker, scheduler } = setup();
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    broker.available = false;
    const share = linkOf(l).startShare(2);
    broker.share = share;
    l.takeUnstamped(1);
    const request = l.awaitAnswer(1, 0);
    l.stamp(0);
    l.answered(request, 40);
    expect(share.usedAt(1039)).toBe(1);
    expect(share.usedAt(1040)).toBe(0);
    expect(linkOf(l).takeConfirmed()).toEqual([]);
  });

  it('keeps what the share sent, once told to Redis, counted there until the answers still on their way', () => {
    const { broker, scheduler } = setup();
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    broker.available = false;
    const share = linkOf(l).startShare(5);
    broker.share = share;
    const requests = [0, 1].map(() => {
      l.takeUnstamped(1);
      return l.awaitAnswer(1, 0);
    });
    l.stamp(0);
    l.answered(requests[0]!, 5);
    // Redis answers again at 10: the share's 2 are told as entry p.r0, counted from then; one is
    // still on its way.
    linkOf(l).reported({ id: 'p.r0', sent: 2, granted: 2, until: 10, redisOffset: 1000 }, 10);
    expect(linkOf(l).takeConfirmed()).toEqual([]);
    l.answered(requests[1]!, 60);
    expect(linkOf(l).takeConfirmed()).toEqual([{ id: 'p.r0', at: 1060 }]);
  });
});

describe('Scheduler with a shared store', () => {
  it('asks for all the shared limits of a task in one request (all or none, see docs/rules.md#r13)', () => {
    const { calls, scheduler } = setup();
    const a = scheduler.limit({ name: 'a', limit: 10, windowMs: 1000 });
    const b = scheduler.limit({ name: 'b', limit: 10, windowMs: 1000 });
    void scheduler.schedule(() => 0, { limits: [a, b], weight: 2 });
    expect(calls.acquire).toEqual([{ names: ['a', 'b'], weight: 2 }]);
  });

  it('runs no task on a lease that ended while an earlier task of the same pass ran, gives it back and asks again', () => {
    // A clock that a task moves forward itself, as a task doing synchronous work does.
    let t = 0;
    const clock: Clock = { now: () => t, wall: () => t, setTimer: () => null, clearTimer: () => {} };
    const { broker, calls } = fakeBroker();
    const scheduler = new Scheduler({ clock, store: { limit: (o, host) => new SharedLimit(o, broker, host) } });
    const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    const ran: number[] = [];
    for (let i = 0; i < 3; i++) {
      void scheduler.schedule(
        () => {
          ran.push(t);
          if (i === 0) t = 30;
        },
        { limits: l },
      );
    }
    calls.acquire.length = 0;
    // Three permits, to be sent before 20: the first task takes until 30.
    linkOf(l).granted({ id: 'p.1', granted: 3, sent: 0, until: 20, unstamped: 0, redisOffset: 0 }, 0, false);
    scheduler.wake();
    expect(ran).toEqual([0]);
    expect(linkOf(l).lease).toBeNull();
    expect(calls.ended).toEqual([{ id: 'p.1', sent: 1 }]);
    expect(calls.acquire).toEqual([{ names: ['orders'], weight: 1 }]);
    // The slow task itself is stamped when it returned, past the lease: counted again (safely).
    expect(calls.late).toEqual([{ id: 'p.1', weight: 1, at: 30 }]);
    linkOf(l).granted({ id: 'p.2', granted: 2, sent: 0, until: 50, unstamped: 0, redisOffset: 0 }, 0, false);
    scheduler.wake();
    expect(ran).toEqual([0, 30, 30]);
  });

  it('does not ask for shared permits while a limit kept here holds the task', async () => {
    const clock = new VirtualClock();
    const { broker, calls } = fakeBroker();
    const scheduler = new Scheduler({
      clock,
      store: { limit: (o, host) => (o.name === 'here' ? new WindowLimit(o) : new SharedLimit(o, broker, host)) },
    });
    const here = scheduler.limit({ name: 'here', limit: 1, windowMs: 1000 });
    const there = scheduler.limit({ name: 'there', limit: 10, windowMs: 1000 });
    await scheduler.schedule(() => 0, { limits: here });
    void scheduler.schedule(() => 0, { limits: [here, there] });
    expect(calls.acquire).toEqual([]);
    await clock.advance(1000);
    expect(calls.acquire).toEqual([{ names: ['there'], weight: 1 }]);
  });

  describe("the exchange's count after a loss", () => {
    const probe = (until: number): Lease => ({ id: 'p.1', granted: 1, sent: 0, until, unstamped: 0, redisOffset: 0 });

    it('tells every process the count an answer states, once, only for a request sent since the probe was granted, as of its send', () => {
      const { calls, scheduler } = setup();
      const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
      linkOf(l).granted(probe(120), 100, true);
      // Sent at 99, before the grant came: the exchange may have counted before the loss.
      l.recount(4, 1200, 200, 99);
      expect(calls.feedback).toEqual([]);
      l.recount(5, 1250, 250, 100);
      expect(calls.feedback).toEqual([{ name: 'orders', holdWeight: 5, holdMs: 1000, counted: true, countedAt: 100 }]);
      l.recount(6, 1300, 300, 200);
      expect(calls.feedback).toHaveLength(1);
    });

    it('takes no send instant as the instant of the answer, as before', () => {
      const { calls, scheduler } = setup();
      const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
      linkOf(l).granted(probe(120), 100, true);
      l.recount(3, 1200, 200);
      expect(calls.feedback).toEqual([{ name: 'orders', holdWeight: 3, holdMs: 1000, counted: true, countedAt: 200 }]);
    });

    it('has Scheduler.feedback pass the send instant it is given, and refuse one later than now, applying nothing', async () => {
      const { clock, calls, scheduler } = setup();
      const l = scheduler.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
      await clock.advance(100);
      linkOf(l).granted(probe(120), 100, true);
      const stated = { limited: false, limit: 10, remaining: 6 };
      for (const bad of [101, Number.NaN, '99'])
        expect(() => scheduler.feedback(l, stated, bad as number)).toThrow(/`sentAt`/);
      expect(calls.feedback).toEqual([]);
      expect(l.usedAt(100)).toBe(0);
      scheduler.feedback(l, stated, 99);
      expect(calls.feedback).toEqual([]);
      scheduler.feedback(l, stated, 100);
      expect(calls.feedback).toEqual([{ name: 'orders', holdWeight: 4, holdMs: 1000, counted: true, countedAt: 100 }]);
    });

    it("gives the count an answer states the instant its request was sent, through the account limiter's round trip", async () => {
      const clock = new VirtualClock({ start: 0, wallStart: Date.parse('2026-11-01T10:00:00Z') });
      const { broker, calls } = fakeBroker();
      let n = 0;
      // Grants what is asked a moment later, each the one request let through on a limit no process knows.
      broker.acquire = (linked, weight) =>
        void Promise.resolve().then(() => {
          const id = `p.${++n}`;
          for (const l of linked) {
            linkOf(l).asked();
            linkOf(l).granted(
              { id, granted: weight, sent: 0, until: clock.now() + 20, unstamped: 0, redisOffset: 0 },
              clock.now(),
              true,
            );
          }
          linkOf(linked[0]!).host.wake();
        });
      const limiter = new AccountLimiter({
        accounts: [{ id: 'main', role: 'main' }],
        clock,
        store: { limit: (o, host) => new SharedLimit(o, broker, host) },
      });
      const place = {
        method: 'POST',
        path: '/futures/usdt/orders',
        body: { contract: 'BTC_USDT', size: 1, price: '60000' },
      };
      const sentAt: number[] = [];
      await clock.advance(10);
      await limiter.roundTrip('main', place).run(async (t) => {
        sentAt.push(t.sentMono);
        await clock.advance(50);
        t.answered({
          status: 201,
          headers: { 'X-Gate-RateLimit-Limit': '100', 'X-Gate-RateLimit-Requests-Remain': '97' },
        });
      });
      expect(sentAt).toEqual([10]);
      expect(calls.feedback).toContainEqual({
        name: 'main:futures.place',
        holdWeight: 3,
        holdMs: 1000,
        counted: true,
        countedAt: 10,
      });
      limiter.close();
    });
  });
});
