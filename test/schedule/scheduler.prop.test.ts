import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { RefusedError } from '../../src/errors.js';
import { VirtualClock } from '../../src/schedule/clock.js';
import { type Limit, Scheduler } from '../../src/schedule/scheduler.js';

interface Arrival {
  readonly kind: 'task';
  readonly at: number;
  readonly limits: readonly number[];
  readonly weight: number;
  readonly priority: number;
  readonly abortAt: number | null;
  readonly deadline: number | null;
}

const scenario = fc
  .array(fc.record({ n: fc.integer({ min: 1, max: 6 }), w: fc.integer({ min: 10, max: 300 }) }), { minLength: 1, maxLength: 3 })
  .chain((limits) =>
    fc.record({
      limits: fc.constant(limits),
      events: fc.array(
        fc.oneof(
          { weight: 5, arbitrary: fc.record({
            kind: fc.constant('task' as const),
            at: fc.integer({ min: 0, max: 2000 }),
            limits: fc.subarray(limits.map((_, i) => i), { minLength: 0 }),
            weight: fc.integer({ min: 1, max: 3 }),
            priority: fc.constantFrom(0, 0, 1, 5),
            abortAt: fc.option(fc.integer({ min: 0, max: 2500 }), { nil: null }),
            deadline: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: null }),
          }) },
          { weight: 1, arbitrary: fc.record({
            kind: fc.constant('change' as const),
            at: fc.integer({ min: 0, max: 2000 }),
            limit: fc.nat({ max: limits.length - 1 }),
            n: fc.integer({ min: 1, max: 6 }),
            w: fc.integer({ min: 10, max: 300 }),
          }) },
        ),
        { maxLength: 60 },
      ),
    }),
  );

describe('Scheduler properties (R13)', () => {
  // A dispatch and a change of its limit at the same instant: the dispatch counts against the
  // limit it was sent under, and against the new one for what follows.
  const sameInstant = {
    limits: [{ n: 6, w: 22 }, { n: 3, w: 113 }],
    events: [
      { kind: 'task' as const, at: 2, limits: [1], weight: 2, priority: 0 as const, abortAt: null, deadline: null },
      { kind: 'change' as const, at: 2, limit: 1, n: 1, w: 10 },
      { kind: 'task' as const, at: 5, limits: [1], weight: 1, priority: 0 as const, abortAt: null, deadline: null },
    ],
  };
  test.prop([scenario], { numRuns: 120, examples: [[sameInstant]] })(
    'never over any window, nothing lost or run twice, first-in-first-out within a priority',
    async ({ limits: specs, events }) => {
      const clock = new VirtualClock();
      const scheduler = new Scheduler({ clock, maxQueue: 1000 });
      const limits: Limit[] = specs.map((s, i) => scheduler.limit({ name: `L${i}`, limit: s.n, windowMs: s.w, maxWindowMs: 300 }));
      const runs = new Map<number, number>();
      // Each dispatch with N and W of every limit as they were when it was sent (a change at the
      // same instant may come before or after it).
      const dispatched: { id: number; at: number; arrival: Arrival; inForce: { n: number; w: number }[] }[] = [];
      const outcomes = new Map<number, 'ran' | string>();
      const settled: Promise<unknown>[] = [];

      const sorted = events.map((e, id) => ({ e, id })).sort((a, b) => a.e.at - b.e.at || a.id - b.id);
      for (const { e, id } of sorted) {
        await clock.advanceTo(e.at);
        if (e.kind === 'change') {
          limits[e.limit]!.update({ limit: e.n, windowMs: e.w });
          continue;
        }
        const controller = new AbortController();
        if (e.abortAt !== null) clock.setTimer(() => controller.abort(), Math.max(0, e.abortAt - clock.now()));
        const p = scheduler.schedule(
          () => {
            runs.set(id, (runs.get(id) ?? 0) + 1);
            dispatched.push({ id, at: clock.now(), arrival: e, inForce: limits.map((l) => ({ n: l.limit, w: l.windowMs })) });
            return id;
          },
          {
            limits: e.limits.map((i) => limits[i]!),
            weight: e.weight,
            priority: e.priority,
            signal: controller.signal,
            ...(e.deadline === null ? {} : { deadline: e.deadline }),
          },
        );
        settled.push(p.then(
          (v) => { expect(v).toBe(id); outcomes.set(id, 'ran'); },
          (err: unknown) => { expect(err).toBeInstanceOf(RefusedError); outcomes.set(id, (err as RefusedError).reason); },
        ));
      }
      await clock.runAll();
      await Promise.all(settled);

      // Nothing lost, nothing run twice: every task settled once; refused ones never ran.
      const tasks = sorted.filter((x) => x.e.kind === 'task');
      expect(outcomes.size).toBe(tasks.length);
      for (const { id } of tasks) {
        expect(runs.get(id) ?? 0).toBe(outcomes.get(id) === 'ran' ? 1 : 0);
      }

      // Never over a window: at each dispatch, the weight sent in (t - W, t] up to and including
      // it is at most N, with the N and W in force when it was sent.
      specs.forEach((_, li) => {
        const on = dispatched.filter((d) => d.arrival.limits.includes(li));
        on.forEach((d, k) => {
          const { n, w } = d.inForce[li]!;
          const sum = on.slice(0, k + 1).filter((x) => x.at > d.at - w).reduce((s, x) => s + x.arrival.weight, 0);
          expect(sum).toBeLessThanOrEqual(n);
        });
      });

      // First-in-first-out within a priority among tasks that share a limit.
      for (let i = 0; i < dispatched.length; i++) {
        for (let j = i + 1; j < dispatched.length; j++) {
          const a = dispatched[i]!;
          const b = dispatched[j]!;
          const share = a.arrival.limits.some((l) => b.arrival.limits.includes(l));
          if (share && a.arrival.priority === b.arrival.priority) {
            const aFirst = a.arrival.at < b.arrival.at || (a.arrival.at === b.arrival.at && a.id < b.id);
            expect(aFirst).toBe(true);
          }
        }
      }
      expect(scheduler.stats().queued).toBe(0);
      expect(clock.pendingTimers).toBe(0);
    },
  );
});
