import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, type RefusalReason } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import type { Submission } from '../../src/schedule/queue.js';
import { Scheduler } from '../../src/schedule/scheduler.js';

/** A submission that writes down what it is told. */
function recorder(): Submission & { readonly refusals: RefusalReason[]; readonly errors: unknown[] } {
  const refusals: RefusalReason[] = [];
  const errors: unknown[] = [];
  return { refusals, errors, refused: (r) => refusals.push(r), failed: (e) => errors.push(e) };
}

const arrivals = fc.record({
  limits: fc.array(fc.record({ n: fc.integer({ min: 1, max: 5 }), w: fc.integer({ min: 10, max: 200 }) }), {
    minLength: 1,
    maxLength: 3,
  }),
  tasks: fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: 60 }),
      limits: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      weight: fc.integer({ min: 1, max: 3 }),
      priority: fc.constantFrom(0, 0, 1),
    }),
    { maxLength: 60 },
  ),
});

describe('Scheduler.submit', () => {
  test.prop([arrivals], { numRuns: 100 })(
    'sends every task when schedule() would, in the same order',
    async ({ limits, tasks }) => {
      // The same arrivals through schedule() on a clock advanced with promises settling, and
      // through submit() on a clock moved synchronously.
      const viaSchedule: string[] = [];
      {
        const clock = new VirtualClock();
        const s = new Scheduler({ clock });
        const ls = limits.map((l) => s.limit({ limit: l.n, windowMs: l.w }));
        const pending: Promise<unknown>[] = [];
        let at = 0;
        for (const [i, t] of tasks.entries()) {
          at += t.gap;
          await clock.advanceTo(at);
          const mine = ls.filter((_, k) => t.limits[k] === true);
          pending.push(
            s
              .schedule(() => viaSchedule.push(`${i}@${clock.now()}`), {
                limits: mine,
                weight: t.weight,
                priority: t.priority,
              })
              .catch((e: Error) => viaSchedule.push(`${i} ${e.message.slice(0, 9)}`)),
          );
        }
        await clock.runAll();
        await Promise.all(pending);
      }
      const viaSubmit: string[] = [];
      {
        const clock = new VirtualClock();
        const s = new Scheduler({ clock });
        const ls = limits.map((l) => s.limit({ limit: l.n, windowMs: l.w }));
        const sub = recorder();
        let at = 0;
        for (const [i, t] of tasks.entries()) {
          at += t.gap;
          clock.moveTo(at);
          const route = s.route({
            limits: ls.filter((_, k) => t.limits[k] === true),
            weight: t.weight,
            priority: t.priority,
          });
          s.submit((arrival) => viaSubmit.push(`${arrival}@${clock.now()}`), i, route, sub);
        }
        for (let n = 0; clock.pendingTimers > 0 && n < 10_000; n++) clock.moveTo(clock.now() + 1);
        expect(sub.refusals).toEqual(viaSchedule.filter((x) => !x.includes('@')).map(() => 'too-heavy'));
      }
      expect(viaSubmit).toEqual(viaSchedule.filter((x) => x.includes('@')));
    },
  );

  it('runs a task that fits inside submit, and counts its weight at the instant read after it', () => {
    const clock = new VirtualClock({ start: 500 });
    const s = new Scheduler({ clock });
    const place = s.limit({ name: 'place', limit: 2, windowMs: 1000 });
    const route = s.route({ limits: [place], weight: 2, priority: 0 });
    const seen: number[] = [];
    // The task moves the clock: its weight counts from where the clock is after it, not before.
    s.submit(
      (arg) => {
        seen.push(arg);
        clock.moveTo(700);
      },
      7,
      route,
      recorder(),
    );
    expect(seen).toEqual([7]);
    expect([place.usedAt(1699), place.usedAt(1700)]).toEqual([2, 0]);
  });

  it('refuses with the reason, runs nothing and counts the refusal: too heavy, queue full, lowered below the weight while waiting, closed', () => {
    const clock = new VirtualClock();
    const s = new Scheduler({ clock, maxQueue: 2 });
    const place = s.limit({ name: 'place', limit: 3, windowMs: 1000 });
    const sub = recorder();
    const ran: number[] = [];
    const run = (arg: number): void => {
      ran.push(arg);
    };
    s.submit(run, 1, s.route({ limits: [place], weight: 4, priority: 0 }), sub);
    expect(sub.refusals).toEqual(['too-heavy']);
    const three = s.route({ limits: [place], weight: 3, priority: 0 });
    for (let i = 2; i <= 5; i++) s.submit(run, i, three, sub);
    expect(ran).toEqual([2]);
    expect(sub.refusals).toEqual(['too-heavy', 'queue-full']);
    place.update({ limit: 2 });
    expect(sub.refusals).toEqual(['too-heavy', 'queue-full', 'too-heavy', 'too-heavy']);
    // Waiting (3 of the lower 2 are still in the window) when the scheduler closes; one after.
    s.submit(run, 6, s.route({ limits: [place], weight: 1, priority: 0 }), sub);
    s.close();
    s.submit(run, 7, s.route({ limits: [place], weight: 1, priority: 0 }), sub);
    clock.moveTo(10_000);
    expect(ran).toEqual([2]);
    expect(sub.refusals).toEqual(['too-heavy', 'queue-full', 'too-heavy', 'too-heavy', 'closed', 'closed']);
    expect(s.stats().refused).toMatchObject({ 'too-heavy': 3, 'queue-full': 1, closed: 2 });
  });

  it('checks the weight against the limits of a change due now, as schedule() does', async () => {
    for (const via of ['submit', 'schedule'] as const) {
      const clock = new VirtualClock({ start: 100 });
      const s = new Scheduler({ clock });
      const place = s.limit({ limit: 1, windowMs: 100 });
      s.setBoundary(100, () => place.update({ limit: 5 }));
      const sub = recorder();
      const ran: number[] = [];
      if (via === 'submit')
        s.submit((arg) => ran.push(arg), 1, s.route({ limits: [place], weight: 3, priority: 0 }), sub);
      else
        await s
          .schedule(() => ran.push(1), { limits: place, weight: 3 })
          .catch((e: Error) => sub.refused(e.message as RefusalReason));
      expect({ via, ran, refusals: sub.refusals, limit: place.limit }).toEqual({
        via,
        ran: [1],
        refusals: [],
        limit: 5,
      });
    }
  });

  it('hands an error the task throws to the submission, and goes on with the next task', () => {
    const clock = new VirtualClock();
    const s = new Scheduler({ clock });
    const place = s.limit({ limit: 1, windowMs: 100 });
    const route = s.route({ limits: [place], weight: 1, priority: 0 });
    const sub = recorder();
    const ran: string[] = [];
    const task = (arg: number): void => {
      ran.push(`${arg}@${clock.now()}`);
      if (arg % 2 === 1) throw new Error(`task ${arg}`);
    };
    for (let i = 1; i <= 4; i++) s.submit(task, i, route, sub);
    clock.moveTo(1000);
    expect(ran).toEqual(['1@0', '2@100', '3@200', '4@300']);
    expect(sub.errors.map((e) => (e as Error).message)).toEqual(['task 1', 'task 3']);
  });

  it('refuses a route it cannot check, naming the field, and makes nothing', () => {
    const s = new Scheduler({ clock: new VirtualClock() });
    const other = new Scheduler({ clock: new VirtualClock() }).limit({ limit: 1, windowMs: 10 });
    const mine = s.limit({ name: 'mine', limit: 1, windowMs: 10 });
    const cases: [object, string][] = [
      [{ limits: [other], weight: 1, priority: 0 }, 'each of `limits`'],
      [{ limits: [mine, mine], weight: 1, priority: 0 }, '`limits`'],
      [{ limits: [mine], weight: 0, priority: 0 }, '`weight`'],
      [{ limits: [mine], weight: 1, priority: Number.NaN }, '`priority`'],
      [undefined as unknown as object, 'the route'],
    ];
    for (const [options, field] of cases) {
      const error = (() => {
        try {
          s.route(options as never);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toContain(`Expected ${field}`);
    }
    // A task that is not a function, or a route of another scheduler, is refused before anything
    // is taken or queued.
    const mineRoute = s.route({ limits: [mine], weight: 1, priority: 0 });
    const theirs = new Scheduler({ clock: new VirtualClock() }).route({ limits: [], weight: 1, priority: 0 });
    expect(() => s.submit('run' as never, 0, mineRoute, recorder())).toThrow('Expected the task to be a function');
    expect(() => s.submit(() => {}, 0, theirs, recorder())).toThrow(
      'Expected the route to be a route of this scheduler',
    );
    expect(() => s.submit(() => {}, 0, undefined as never, recorder())).toThrow(InvalidInputError);
    expect(s.stats()).toMatchObject({ queued: 0, dispatched: 0 });
    expect(mine.usedAt(0)).toBe(0);
  });
});
