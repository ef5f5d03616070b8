import { describe, expect, it } from 'vitest';
import { RefusedError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { Scheduler, type SchedulerEvent } from '../../src/schedule/scheduler.js';
import { waitOf } from './wait.js';

function setup(maxQueue?: number) {
  const clock = new VirtualClock();
  const scheduler = new Scheduler(maxQueue === undefined ? { clock } : { clock, maxQueue });
  const log: { name: string; at: number }[] = [];
  const task = (name: string) => () => {
    log.push({ name, at: clock.now() });
    return name;
  };
  return { clock, scheduler, log, task };
}

describe('Scheduler', () => {
  it('refuses a second limit with a name another limit has, and unknown limit options', () => {
    const scheduler = new Scheduler({ clock: new VirtualClock() });
    scheduler.limit({ name: 'futures.place', limit: 100, windowMs: 1000 });
    expect(() => scheduler.limit({ name: 'futures.place', limit: 50, windowMs: 1000 })).toThrow(
      'Expected `name` to be a name no other limit of this scheduler has, got "futures.place"',
    );
    expect(scheduler.stats().limits.map((l) => l.name)).toEqual(['futures.place']);
    expect(() => scheduler.limit({ name: 'b', limit: 1, window: 1000 } as never)).toThrow(
      'Unknown field `window` in the limit options: did you mean `windowMs`?',
    );
    expect(() =>
      new Scheduler({ clock: new VirtualClock() }).limit({ name: 'futures.place', limit: 1, windowMs: 1 }),
    ).not.toThrow();
  });

  it('runs a task at once, inside schedule(), when its limits allow it', async () => {
    const { scheduler, log, task } = setup();
    const l = scheduler.limit({ limit: 2, windowMs: 1000 });
    const p = scheduler.schedule(task('a'), { limits: l });
    expect(log.map((e) => e.name)).toEqual(['a']);
    await expect(p).resolves.toBe('a');
  });

  it('lets a burst of N through when idle, then one as each leaves the window (see docs/rules.md#r13)', async () => {
    const { clock, scheduler, log, task } = setup();
    const l = scheduler.limit({ limit: 3, windowMs: 1000 });
    const done = Promise.all(['a', 'b', 'c', 'd', 'e'].map((n) => scheduler.schedule(task(n), { limits: l })));
    await clock.advance(0);
    expect(log.map((e) => e.at)).toEqual([0, 0, 0]);
    await clock.advance(999);
    expect(log).toHaveLength(3);
    await clock.advance(1);
    await done;
    expect(log.map((e) => [e.name, e.at])).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 0],
      ['d', 1000],
      ['e', 1000],
    ]);
  });

  it('sustains the limit under saturation: 100 per second for a minute on the virtual clock', async () => {
    const { clock, scheduler, log, task } = setup(1_000_000);
    const l = scheduler.limit({ limit: 100, windowMs: 1000 });
    const all = Array.from({ length: 7000 }, (_, i) =>
      scheduler.schedule(task(String(i)), { limits: l }).catch(() => undefined),
    );
    await clock.advance(59_999);
    const times = log.map((e) => e.at);
    expect(times.length).toBeGreaterThanOrEqual(0.99 * 6000);
    for (let i = 100; i < times.length; i++) expect(times[i]! - times[i - 100]!).toBeGreaterThanOrEqual(1000);
    scheduler.close();
    await Promise.all(all);
  });

  it('takes linked limits all at once or not at all', async () => {
    const { clock, scheduler, log, task } = setup();
    const withdraw = scheduler.limit({ name: 'withdrawals', limit: 1, windowMs: 3000 });
    const wallet = scheduler.limit({ name: 'wallet', limit: 80, windowMs: 10_000 });
    await scheduler.schedule(task('w1'), { limits: [withdraw, wallet] });
    const w2 = scheduler.schedule(task('w2'), { limits: [withdraw, wallet] });
    await clock.advance(10);
    // The second withdrawal waits on the 1 per 3 s: nothing was charged to the wallet limit for it.
    expect(scheduler.stats().limits.find((s) => s.name === 'wallet')!.used).toBe(1);
    await clock.advance(2990);
    await w2;
    expect(log.map((e) => [e.name, e.at])).toEqual([
      ['w1', 0],
      ['w2', 3000],
    ]);
    expect(scheduler.stats().limits.find((s) => s.name === 'wallet')!.used).toBe(2);
  });

  it('never lets cancels wait behind placements: they have their own limit', async () => {
    const { clock, scheduler, log, task } = setup();
    const place = scheduler.limit({ name: 'place', limit: 2, windowMs: 1000 });
    const cancel = scheduler.limit({ name: 'cancel', limit: 5, windowMs: 1000 });
    const placements = Array.from({ length: 6 }, (_, i) => scheduler.schedule(task(`p${i}`), { limits: place }));
    await clock.advance(10);
    await scheduler.schedule(task('c0'), { limits: cancel, priority: 10 });
    expect(log.map((e) => e.name)).toEqual(['p0', 'p1', 'c0']);
    await clock.runAll();
    await Promise.all(placements);
  });

  it('serves higher priority first inside a shared limit, first-in-first-out within a priority', async () => {
    const { clock, scheduler, log, task } = setup();
    const ws = scheduler.limit({ name: 'ws', limit: 1, windowMs: 100 });
    await scheduler.schedule(task('first'), { limits: ws });
    const queued = [
      scheduler.schedule(task('place-1'), { limits: ws }),
      scheduler.schedule(task('place-2'), { limits: ws }),
      scheduler.schedule(task('cancel-1'), { limits: ws, priority: 10 }),
      scheduler.schedule(task('cancel-2'), { limits: ws, priority: 10 }),
    ];
    await clock.runAll();
    await Promise.all(queued);
    expect(log.map((e) => e.name)).toEqual(['first', 'cancel-1', 'cancel-2', 'place-1', 'place-2']);
  });

  it('sends an older task as soon as it fits when the group ahead of it sent its head and waits on its next', async () => {
    const clock = new VirtualClock();
    const s = new Scheduler({ clock });
    const one = s.limit({ name: 'one', limit: 1, windowMs: 10 });
    const three = s.limit({ name: 'three', limit: 3, windowMs: 10 });
    const sent: string[] = [];
    // At 10 the first group sends its second task (2 of three) and waits with its fourth (2
    // more): the third, older than the fourth, fits in the 1 left and goes at 10, not at 20.
    const tasks = (
      [
        [[three], 2],
        [[three], 2],
        [[one, three], 1],
        [[three], 2],
      ] as const
    ).map(([limits, weight], i) => s.schedule(() => sent.push(`${i}@${clock.now()}`), { limits: [...limits], weight }));
    await clock.runAll();
    await Promise.all(tasks);
    expect(sent).toEqual(['0@0', '1@10', '2@10', '3@20']);
  });

  it('sends first in, first out across groups that share a limit, one head at a time', async () => {
    const clock = new VirtualClock();
    const s = new Scheduler({ clock });
    const shared = s.limit({ name: 'shared', limit: 3, windowMs: 100 });
    const x = s.limit({ name: 'x', limit: 100, windowMs: 100 });
    const y = s.limit({ name: 'y', limit: 100, windowMs: 100 });
    const sent: number[] = [];
    // Tasks 4 and 6 draw on y, the others on x; all on the shared 3 per 100 ms. At 100 the x group
    // must not send 5 and 7 before the older 4.
    const tasks = [x, x, x, x, y, x, y, x].map((l, i) => s.schedule(() => sent.push(i), { limits: [shared, l] }));
    await clock.runAll();
    await Promise.all(tasks);
    expect(sent).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('lets no younger task past an older one on a limit they share, even when the older waits on another limit', async () => {
    const clock = new VirtualClock();
    const s = new Scheduler({ clock });
    const a = s.limit({ name: 'a', limit: 3, windowMs: 100 });
    const b = s.limit({ name: 'b', limit: 10, windowMs: 100 });
    const sent: string[] = [];
    // Task 1 waits for room on a behind task 0; task 2 waits behind task 1 on a, so it holds b
    // too: task 3, on b only, goes after task 2.
    const specs = [
      [[a], 1],
      [[a], 3],
      [[a, b], 1],
      [[b], 1],
    ] as const;
    const tasks = specs.map(([limits, weight], i) =>
      s.schedule(() => sent.push(`${i}@${clock.now()}`), { limits: [...limits], weight }),
    );
    await clock.runAll();
    await Promise.all(tasks);
    expect(sent).toEqual(['0@0', '1@100', '2@200', '3@200']);
  });

  it('puts a task given by a task of the running pass in its place in the order: before younger ones, after higher priorities', async () => {
    const clock = new VirtualClock();
    const s = new Scheduler({ clock });
    const l1 = s.limit({ name: 'l1', limit: 2, windowMs: 1000 });
    const l2 = s.limit({ name: 'l2', limit: 2, windowMs: 1000 });
    const sent: string[] = [];
    const all: Promise<unknown>[] = [];
    all.push(
      s.schedule(() => 0, { limits: l1 }),
      s.schedule(() => 0, { limits: l1 }),
    );
    // Sent at 1000 by the timer's pass, it gives a task on l2, then a younger one on l1 and l2:
    // the younger may not take l2's room first.
    all.push(
      s.schedule(
        () => {
          sent.push(`waiting@${clock.now()}`);
          all.push(s.schedule(() => sent.push(`older@${clock.now()}`), { limits: l2 }));
          all.push(s.schedule(() => sent.push(`younger@${clock.now()}`), { limits: [l1, l2] }));
        },
        { limits: [l1, l2] },
      ),
    );
    await clock.advance(3000);
    await Promise.all(all);
    expect(sent).toEqual(['waiting@1000', 'older@1000', 'younger@2000']);

    const c2 = new VirtualClock();
    const s2 = new Scheduler({ clock: c2 });
    const l = s2.limit({ name: 'l', limit: 2, windowMs: 1000 });
    const order: string[] = [];
    void s2.schedule(() => order.push(`first@${c2.now()}`), { limits: l, weight: 2 });
    await c2.advanceTo(300);
    // Sent at 1000, it gives two tasks of priority 0 and then one of priority 1: with room for
    // one, the priority 1 goes at once.
    void s2.schedule(
      () => {
        order.push(`parent@${c2.now()}`);
        void s2.schedule(() => order.push(`low@${c2.now()}`), { limits: l });
        void s2.schedule(() => order.push(`low2@${c2.now()}`), { limits: l, weight: 2 });
        void s2.schedule(() => order.push(`high@${c2.now()}`), { limits: l, priority: 1 });
      },
      { limits: l },
    );
    await c2.advance(5000);
    expect(order).toEqual(['first@0', 'parent@1000', 'high@1000', 'low@2000', 'low2@3000']);
  });

  it('keeps reserved headroom for a priority class', async () => {
    const { scheduler, log, task } = setup();
    const ws = scheduler.limit({ limit: 3, windowMs: 1000, reserve: { priority: 10, weight: 1 } });
    const low = [scheduler.schedule(task('p1'), { limits: ws }), scheduler.schedule(task('p2'), { limits: ws })];
    const blocked = scheduler.schedule(task('p3'), { limits: ws });
    await Promise.all(low);
    await scheduler.schedule(task('c1'), { limits: ws, priority: 10 });
    expect(log.map((e) => e.name)).toEqual(['p1', 'p2', 'c1']);
    scheduler.close();
    await expect(blocked).rejects.toMatchObject({ reason: 'closed' });
  });

  it('refuses an aborted waiter, which releases its place and never runs', async () => {
    const { clock, scheduler, log, task } = setup();
    const l = scheduler.limit({ limit: 1, windowMs: 1000 });
    await scheduler.schedule(task('a'), { limits: l });
    const controller = new AbortController();
    const b = scheduler.schedule(task('b'), { limits: l, signal: controller.signal });
    const c = scheduler.schedule(task('c'), { limits: l });
    controller.abort();
    await expect(b).rejects.toMatchObject({ name: 'RefusedError', reason: 'aborted', code: 'REFUSED_ABORTED' });
    await clock.advance(1000);
    await c;
    expect(log.map((e) => [e.name, e.at])).toEqual([
      ['a', 0],
      ['c', 1000],
    ]);
    await expect(scheduler.schedule(task('d'), { limits: l, signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      RefusedError,
    );
  });

  it('listens once to a signal however many waiters share it, and lets go when none waits', async () => {
    const { clock, scheduler, log, task } = setup();
    const l = scheduler.limit({ limit: 1, windowMs: 1000 });
    const controller = new AbortController();
    const listened: string[] = [];
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = (...args: Parameters<typeof add>) => {
      listened.push(`add ${args[0]}`);
      add(...args);
    };
    controller.signal.removeEventListener = (...args: Parameters<typeof remove>) => {
      listened.push(`remove ${args[0]}`);
      remove(...args);
    };
    await scheduler.schedule(task('a'), { limits: l });
    const waiting = ['b', 'c', 'd'].map((name) =>
      scheduler.schedule(task(name), { limits: l, signal: controller.signal }),
    );
    expect(listened).toEqual(['add abort']);
    await clock.advance(3000);
    await Promise.all(waiting);
    expect(listened).toEqual(['add abort', 'remove abort']);
    // Waiting again on it listens again; an abort refuses every waiter still on it.
    const again = ['e', 'f'].map((name) => scheduler.schedule(task(name), { limits: l, signal: controller.signal }));
    controller.abort();
    for (const p of again) await expect(p).rejects.toMatchObject({ reason: 'aborted' });
    expect(log.map((e) => e.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(listened).toEqual(['add abort', 'remove abort', 'add abort']);
  });

  it('refuses every waiter on an aborted signal before any of them could start', async () => {
    const { scheduler, log, task } = setup();
    const l = scheduler.limit({ limit: 3, windowMs: 1000 });
    await scheduler.schedule(task('a'), { limits: l, weight: 2 });
    const controller = new AbortController();
    const b = scheduler.schedule(task('b'), { limits: l, weight: 2, signal: controller.signal });
    const d = scheduler.schedule(task('d'), { limits: l, weight: 1, signal: controller.signal });
    controller.abort();
    await expect(b).rejects.toMatchObject({ reason: 'aborted' });
    // b's place freed: d would fit, but its signal is aborted too.
    await expect(d).rejects.toMatchObject({ reason: 'aborted' });
    expect(log.map((e) => e.name)).toEqual(['a']);
  });

  it('refuses a waiter whose deadline passes before its limits allow it', async () => {
    const { clock, scheduler, log, task } = setup();
    const l = scheduler.limit({ limit: 1, windowMs: 1000 });
    await scheduler.schedule(task('a'), { limits: l });
    const late = scheduler.schedule(task('late'), { limits: l, deadline: 500 });
    const fine = scheduler.schedule(task('fine'), { limits: l, deadline: 1000 });
    const lateSeen = late.catch((e: unknown) => e);
    await clock.advance(499);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(1);
    expect(await lateSeen).toMatchObject({ reason: 'deadline' });
    await clock.advance(500);
    await fine;
    expect(log.map((e) => e.name)).toEqual(['a', 'fine']);
    expect(scheduler.stats().refused.deadline).toBe(1);
  });

  it('refuses at once past maxQueue, and a weight that can never fit', async () => {
    const { scheduler, task } = setup(2);
    const l = scheduler.limit({ name: 'tiny', limit: 1, windowMs: 1000 });
    await scheduler.schedule(task('a'), { limits: l });
    const waiting = [scheduler.schedule(task('b'), { limits: l }), scheduler.schedule(task('c'), { limits: l })];
    await expect(scheduler.schedule(task('d'), { limits: l })).rejects.toMatchObject({ reason: 'queue-full' });
    await expect(scheduler.schedule(task('e'), { limits: l, weight: 2 })).rejects.toThrow(
      'weight 2 can never fit tiny',
    );
    scheduler.close();
    await Promise.allSettled(waiting);
    expect(scheduler.stats().refused).toMatchObject({ 'queue-full': 1, 'too-heavy': 1, closed: 2 });
  });

  it('applies a raised limit to the tasks already waiting (a tier raise at 08:00)', async () => {
    const { clock, scheduler, log, task } = setup();
    const place = scheduler.limit({ limit: 2, windowMs: 1000 });
    const all = Array.from({ length: 6 }, (_, i) => scheduler.schedule(task(`t${i}`), { limits: place }));
    await clock.advance(100);
    expect(log).toHaveLength(2);
    place.update({ limit: 4 });
    expect(log).toHaveLength(4);
    await clock.advance(900);
    await Promise.all(all);
    expect(log.map((e) => e.at)).toEqual([0, 0, 100, 100, 1000, 1000]);
  });

  it('counts the trailing window against a lowered limit at once (a throttle, a VIP drop)', async () => {
    const { clock, scheduler, log, task } = setup();
    const place = scheduler.limit({ limit: 4, windowMs: 1000 });
    const all = Array.from({ length: 6 }, (_, i) => scheduler.schedule(task(`t${i}`), { limits: place }));
    await clock.advance(500);
    expect(log).toHaveLength(4);
    place.update({ limit: 1 });
    await clock.advance(499);
    expect(log).toHaveLength(4);
    await clock.advance(1);
    expect(log).toHaveLength(5); // at 1000 all four have left: one may go
    await clock.runAll();
    await Promise.all(all);
    expect(log.map((e) => e.at)).toEqual([0, 0, 0, 0, 1000, 2000]);
  });

  it('pauses a limit until the reset instant after a 429, and shrinks it to what headers say remains', async () => {
    const clock = new VirtualClock({ wallStart: 1_800_000_000_000 });
    const scheduler = new Scheduler({ clock });
    const l = scheduler.limit({ limit: 10, windowMs: 1000 });
    const events: string[] = [];
    scheduler.on((e) => events.push(e.type));
    scheduler.feedback(l, { limited: true, label: 'TOO_MANY_REQUESTS', resetAtMs: 1_800_000_002_000 });
    const ran: number[] = [];
    const p = scheduler.schedule(() => ran.push(clock.now()), { limits: l });
    await clock.advance(1999);
    expect(ran).toEqual([]);
    await clock.advance(1);
    await p;
    expect(ran).toEqual([2000]);
    scheduler.feedback(l, { limited: false, remaining: 2, resetAtMs: 1_800_000_003_000 });
    expect(waitOf(scheduler.tryAcquire(l))).toBe(0);
    expect(waitOf(scheduler.tryAcquire(l))).toBe(0);
    expect(waitOf(scheduler.tryAcquire(l))).toBeGreaterThan(0);
    expect(events).toEqual(['pause', 'dispatch']);
  });

  it.each([
    [
      'a reset timestamp in milliseconds read as seconds',
      { resetAtMs: 1_800_000_002_000 * 1000 },
      'X-Gate-RateLimit-Reset-Timestamp',
    ],
    ['a reset timestamp of 1e30 seconds', { resetAtMs: 1e33 }, 'X-Gate-RateLimit-Reset-Timestamp'],
    ['a reset in the year 3000', { resetAtMs: Date.parse('3000-01-01T00:00:00Z') }, 'X-Gate-RateLimit-Reset-Timestamp'],
    ['a Retry-After of a year', { retryAfterMs: 365 * 86_400_000 }, 'Retry-After'],
  ])('bounds the pause of %s to an hour, and says so naming the header', async (_, reset, header) => {
    const clock = new VirtualClock({ wallStart: 1_800_000_000_000 });
    const scheduler = new Scheduler({ clock });
    const l = scheduler.limit({ name: 'place', limit: 10, windowMs: 1000 });
    const events: SchedulerEvent[] = [];
    scheduler.on((e) => events.push(e));
    scheduler.feedback(l, { limited: true, ...reset });
    expect(events).toEqual([
      { type: 'reset-bounded', at: 0, limit: 'place', header, resetAt: expect.any(Number), until: 3_600_000 },
      { type: 'pause', at: 0, limit: 'place', until: 3_600_000 },
    ]);
    const ran: number[] = [];
    const p = scheduler.schedule(() => ran.push(clock.now()), { limits: l });
    await clock.advance(3_599_999);
    expect(ran).toEqual([]);
    await clock.advance(1);
    await p;
    expect(ran).toEqual([3_600_000]);
  });

  it('bounds a shrink whose reset cannot be meant, and takes a reset of exactly an hour as given', async () => {
    const clock = new VirtualClock({ wallStart: 1_800_000_000_000 });
    const scheduler = new Scheduler({ clock });
    const l = scheduler.limit({ name: 'place', limit: 1, windowMs: 1000 });
    const events: string[] = [];
    scheduler.on((e) => events.push(e.type));
    scheduler.feedback(l, { limited: false, remaining: 0, resetAtMs: 1e33 });
    expect(waitOf(scheduler.tryAcquire(l))).toBe(3_600_000);
    scheduler.feedback(l, { limited: true, resetAtMs: 1_800_000_000_000 + 3_600_000 });
    expect(events).toEqual(['reset-bounded', 'pause']);
  });

  describe("takes the exchange's count of the window from an answer's headers (see docs/rules.md#r17), in the stricter direction only", () => {
    /** A limit of 10 per second with 2 sent here at 0, and the events it tells. */
    async function counted() {
      const { clock, scheduler } = setup();
      const l = scheduler.limit({ name: 'place', limit: 10, windowMs: 1000 });
      await scheduler.schedule(() => 0, { limits: l });
      await scheduler.schedule(() => 0, { limits: l });
      await clock.advance(100);
      const events: SchedulerEvent[] = [];
      scheduler.on((e) => events.push(e));
      /** How many more fit now. */
      const room = () => {
        let n = 0;
        while (waitOf(scheduler.tryAcquire(l)) === 0) n++;
        return n;
      };
      return { clock, scheduler, l, events, room };
    }

    it('holds what the exchange counted beyond this limit for one window from the answer, and says so', async () => {
      const { clock, scheduler, l, events, room } = await counted();
      // 4 of 10 left: the exchange counted 6, this limit 2.
      scheduler.feedback(l, { limited: false, remaining: 4, limit: 10 });
      expect(events).toEqual([{ type: 'recount', at: 100, limit: 'place', counted: 2, exchange: 6, until: 1100 }]);
      expect(room()).toBe(4);
      // The two sent here leave at 1000; the four held, and the four taken at 100, at 1100.
      await clock.advance(900);
      expect(room()).toBe(2);
      await clock.advance(99);
      expect(room()).toBe(0);
      await clock.advance(1);
      expect(room()).toBe(8);
    });

    it('takes Remain 0 as the window full until one window from the answer', async () => {
      const { clock, scheduler, l, events, room } = await counted();
      scheduler.feedback(l, { limited: false, remaining: 0, limit: 10 });
      expect(events.map((e) => e.type)).toEqual(['recount']);
      expect(room()).toBe(0);
      await clock.advance(999);
      expect(room()).toBe(2);
      await clock.advance(1);
      expect(room()).toBe(8);
    });

    it('changes nothing, and says nothing, when the exchange counted less than this limit (Remain = Limit) or as much', async () => {
      const { scheduler, l, events, room } = await counted();
      scheduler.feedback(l, { limited: false, remaining: 10, limit: 10 });
      scheduler.feedback(l, { limited: false, remaining: 8, limit: 10 });
      expect(events).toEqual([]);
      expect(room()).toBe(8);
    });

    it('stays as cautious as it was when a header is missing: Remain without Limit, Limit without Remain', async () => {
      const { scheduler, l, events, room } = await counted();
      scheduler.feedback(l, { limited: false, remaining: 0 });
      scheduler.feedback(l, { limited: false, limit: 10 });
      expect(events).toEqual([]);
      expect(room()).toBe(8);
    });

    it('takes nothing from the headers of another limit (a larger N than this one), and counts against a lower N it states', async () => {
      const { scheduler, l, events, room } = await counted();
      scheduler.feedback(l, { limited: false, remaining: 150, limit: 200 });
      expect(events).toEqual([]);
      // The exchange's N is 5 here, 3 of them counted: lowered to 5, and 3 held with the 2 sent here.
      scheduler.feedback(l, { limited: false, remaining: 2, limit: 5 });
      expect(l.limit).toBe(5);
      expect(events.map((e) => e.type)).toEqual(['recount', 'limit']);
      expect(room()).toBe(2);
    });
  });

  it('pauses for one window after a 429 with no reset instant, and lowers to a smaller stated limit', async () => {
    const { clock, scheduler } = setup();
    const l = scheduler.limit({ limit: 10, windowMs: 1000 });
    scheduler.feedback(l, { limited: true, limit: 5 });
    expect(l.limit).toBe(5);
    expect(waitOf(scheduler.tryAcquire(l))).toBe(1000);
    await clock.advance(1000);
    expect(waitOf(scheduler.tryAcquire(l))).toBe(0);
  });

  it('reports stats and events', async () => {
    const { clock, scheduler, task } = setup();
    const l = scheduler.limit({ name: 'place', limit: 2, windowMs: 1000 });
    const events: string[] = [];
    const stop = scheduler.on((e) => events.push(`${e.type}${e.type === 'limit' ? `:${e.to.limit}` : ''}`));
    const all = Array.from({ length: 5 }, (_, i) => scheduler.schedule(task(String(i)), { limits: l }));
    const s = scheduler.stats();
    expect(s.queued).toBe(3);
    expect(s.dispatched).toBe(2);
    expect(s.limits).toEqual([{ name: 'place', limit: 2, windowMs: 1000, used: 2, waiting: 3, expectedWaitMs: 2000 }]);
    l.update({ limit: 3 });
    stop();
    await clock.runAll();
    await Promise.all(all);
    expect(events).toEqual(['dispatch', 'dispatch', 'limit:3', 'dispatch']);
  });

  it('keeps at most one timer, and none when idle', async () => {
    const { clock, scheduler, task } = setup();
    const a = scheduler.limit({ limit: 1, windowMs: 100 });
    const b = scheduler.limit({ limit: 1, windowMs: 250 });
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < 5; i++) {
      all.push(
        scheduler.schedule(task(`a${i}`), { limits: a }),
        scheduler.schedule(task(`b${i}`), { limits: b, deadline: 10_000 }),
      );
      expect(clock.pendingTimers).toBeLessThanOrEqual(1);
    }
    while (clock.pendingTimers > 0) {
      expect(clock.pendingTimers).toBe(1);
      await clock.advance(50);
    }
    await Promise.all(all);
    expect(scheduler.stats().queued).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it("passes a task's result and error through", async () => {
    const { scheduler } = setup();
    const l = scheduler.limit({ limit: 5, windowMs: 1000 });
    await expect(scheduler.schedule(async () => 42, { limits: l })).resolves.toBe(42);
    await expect(
      scheduler.schedule(
        () => {
          throw new Error('boom');
        },
        { limits: l },
      ),
    ).rejects.toThrow('boom');
    await expect(scheduler.schedule(() => Promise.reject(new Error('later')), { limits: l })).rejects.toThrow('later');
  });

  it('refuses bad input with the field named, before queueing anything', () => {
    const { scheduler } = setup();
    const l = scheduler.limit({ limit: 5, windowMs: 1000 });
    const other = new Scheduler().limit({ limit: 1, windowMs: 1 });
    expect(() => scheduler.schedule('x' as never)).toThrow('Expected the task to be a function');
    expect(() => scheduler.schedule(() => 1, { limits: l, weight: 0 })).toThrow(
      'Expected `weight` to be a positive integer, got 0',
    );
    expect(() => scheduler.schedule(() => 1, { limits: l, priority: Number.NaN })).toThrow('`priority`');
    expect(() => scheduler.schedule(() => 1, { limits: other })).toThrow('a limit made by this scheduler');
    expect(() => scheduler.schedule(() => 1, { limits: [l, l] })).toThrow('each limit once');
    expect(() => new Scheduler({ maxQueue: -1 })).toThrow('`maxQueue`');
    expect(scheduler.stats().queued).toBe(0);
  });

  it('counts a dispatch from a clock read after the task started, never before (time moves during a pass)', async () => {
    // A clock that moves while tasks run, as a real one does: each task takes 0.05 ms.
    const base = new VirtualClock();
    let drift = 0;
    const clock = {
      now: () => base.now() + drift,
      wall: () => base.wall(),
      setTimer: base.setTimer.bind(base),
      clearTimer: base.clearTimer.bind(base),
    };
    const scheduler = new Scheduler({ clock, maxQueue: 10_000 });
    const l = scheduler.limit({ limit: 10, windowMs: 100 });
    const sent: number[] = [];
    const all = Array.from({ length: 300 }, () =>
      scheduler.schedule(
        () => {
          sent.push(clock.now());
          drift += 0.05;
        },
        { limits: l },
      ),
    );
    await base.runAll();
    await Promise.all(all);
    expect(sent).toHaveLength(300);
    for (const t of sent) expect(sent.filter((x) => x > t - 100 && x <= t).length).toBeLessThanOrEqual(10);
  });

  it('runs on the real clock: 5 per 100 ms, 12 tasks take two windows', async () => {
    const scheduler = new Scheduler();
    const l = scheduler.limit({ limit: 5, windowMs: 100 });
    const start = performance.now();
    const times = await Promise.all(
      Array.from({ length: 12 }, () => scheduler.schedule(() => performance.now() - start, { limits: l })),
    );
    // The first five go in one burst, not a window apart.
    expect(times[4]! - times[0]!).toBeLessThan(100);
    expect(times[5]!).toBeGreaterThanOrEqual(100);
    expect(times[10]!).toBeGreaterThanOrEqual(200);
    for (let i = 5; i < times.length; i++) expect(times[i]! - times[i - 5]!).toBeGreaterThanOrEqual(100);
  });
});

describe('Scheduler under a steady load below the limit', () => {
  it('runs every task at once at half the limit: 10,000 per 1 s, one task every 0.2 ms', async () => {
    const { clock, scheduler } = setup();
    const l = scheduler.limit({ limit: 10_000, windowMs: 1000 });
    let waited = 0;
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < 25_000; i++) {
      let ran = false;
      all.push(
        scheduler.schedule(
          () => {
            ran = true;
          },
          { limits: l },
        ),
      );
      if (!ran) waited++;
      await clock.advance(0.2);
    }
    await Promise.all(all);
    expect(waited).toBe(0);
  });
});
