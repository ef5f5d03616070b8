// The scheduler's properties, stated once for any store of its limits: the memory store
// (scheduler.prop.test.ts) and the Redis store (test/redis/scheduler.prop.test.ts) both hold them.
import { fc, test } from '@fast-check/vitest';
import { afterEach, beforeEach, describe, expect, vi } from 'vitest';
import { RefusedError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import type { StoreLimit } from '../../src/schedule/limit.js';
import { Scheduler } from '../../src/schedule/scheduler.js';

/** One run's scheduler on a virtual clock, with the store under test, and how to move its clock. */
export interface ContractWorld {
  readonly clock: VirtualClock;
  readonly scheduler: Scheduler<StoreLimit>;
  /** Moves the clock to `at`, firing the timers due on the way. */
  advanceTo(at: number): Promise<void>;
  /** Fires timers until none is left. */
  runAll(): Promise<void>;
  /** Ends the run: closes the store and removes what it left. */
  close(): Promise<void>;
}

/** A store the scheduler's properties are checked with. */
export interface ContractStore {
  readonly name: string;
  /** A scheduler of `maxQueue` with this store, fresh for one run. */
  world(maxQueue: number): Promise<ContractWorld>;
  /**
   * Whether a window made longer counts what was sent before the shorter one in force ended. The
   * Redis store forgets a grant once it has left the window in force: its runs make windows no
   * longer than the one in force (a known gap, docs/distributed.md).
   */
  readonly widens: boolean;
}

/** The memory store, the scheduler's default, on a VirtualClock. */
export const inMemory: ContractStore = {
  name: 'memory store',
  widens: true,
  async world(maxQueue) {
    const clock = new VirtualClock();
    const scheduler = new Scheduler({ clock, maxQueue });
    return {
      clock,
      scheduler,
      advanceTo: (at) => clock.advanceTo(at),
      runAll: () => clock.runAll(),
      close: async () => {},
    };
  },
};

/** For a store that cannot widen a window, each change of a window made no longer than the one in force. */
function narrowed<E extends { readonly kind: string }>(
  store: ContractStore,
  specs: readonly { readonly w: number }[],
  sorted: { e: E; id: number }[],
): { e: E; id: number }[] {
  if (store.widens) return sorted;
  const w = specs.map((s) => s.w);
  return sorted.map(({ e, id }) => {
    const c = e as unknown as { kind: string; limit: number; w: number };
    if (c.kind !== 'change' && c.kind !== 'update') return { e, id };
    w[c.limit] = Math.min(w[c.limit]!, c.w);
    return { e: { ...e, w: w[c.limit] }, id };
  });
}

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
  .array(fc.record({ n: fc.integer({ min: 1, max: 6 }), w: fc.integer({ min: 10, max: 300 }) }), {
    minLength: 1,
    maxLength: 3,
  })
  .chain((limits) =>
    fc.record({
      limits: fc.constant(limits),
      events: fc.array(
        fc.oneof(
          {
            weight: 5,
            arbitrary: fc.record({
              kind: fc.constant('task' as const),
              at: fc.integer({ min: 0, max: 2000 }),
              limits: fc.subarray(
                limits.map((_, i) => i),
                { minLength: 0 },
              ),
              weight: fc.integer({ min: 1, max: 3 }),
              priority: fc.constantFrom(0, 0, 1, 5),
              abortAt: fc.option(fc.integer({ min: 0, max: 2500 }), { nil: null }),
              deadline: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: null }),
            }),
          },
          {
            weight: 1,
            arbitrary: fc.record({
              kind: fc.constant('change' as const),
              at: fc.integer({ min: 0, max: 2000 }),
              limit: fc.nat({ max: limits.length - 1 }),
              n: fc.integer({ min: 1, max: 6 }),
              w: fc.integer({ min: 10, max: 300 }),
            }),
          },
        ),
        { maxLength: 60 },
      ),
    }),
  );

/** The scheduler's properties (see docs/rules.md#r13) with `store`'s limits. */
export function schedulerContract(store: ContractStore): void {
  describe(`Scheduler properties (see docs/rules.md#r13), ${store.name}`, () => {
    // A dispatch and a change of its limit at the same instant: the dispatch counts against the
    // limit it was sent under, and against the new one for what follows.
    const sameInstant = {
      limits: [
        { n: 6, w: 22 },
        { n: 3, w: 113 },
      ],
      events: [
        { kind: 'task' as const, at: 2, limits: [1], weight: 2, priority: 0 as const, abortAt: null, deadline: null },
        { kind: 'change' as const, at: 2, limit: 1, n: 1, w: 10 },
        { kind: 'task' as const, at: 5, limits: [1], weight: 1, priority: 0 as const, abortAt: null, deadline: null },
      ],
    };
    test.prop([scenario], { numRuns: 120, examples: [[sameInstant]] })(
      'never over any window, nothing lost or run twice, first-in-first-out within a priority',
      async ({ limits: specs, events }) => {
        const world = await store.world(1000);
        const { clock, scheduler } = world;
        const limits: StoreLimit[] = specs.map((s, i) =>
          scheduler.limit({ name: `L${i}`, limit: s.n, windowMs: s.w, maxWindowMs: 300 }),
        );
        const runs = new Map<number, number>();
        // Each dispatch with N and W of every limit as they were when it was sent (a change at the
        // same instant may come before or after it).
        const dispatched: { id: number; at: number; arrival: Arrival; inForce: { n: number; w: number }[] }[] = [];
        const outcomes = new Map<number, 'ran' | string>();
        const settled: Promise<unknown>[] = [];

        const sorted = narrowed(
          store,
          specs,
          events.map((e, id) => ({ e, id })).sort((a, b) => a.e.at - b.e.at || a.id - b.id),
        );
        for (const { e, id } of sorted) {
          await world.advanceTo(e.at);
          if (e.kind === 'change') {
            limits[e.limit]!.update({ limit: e.n, windowMs: e.w });
            continue;
          }
          const controller = new AbortController();
          if (e.abortAt !== null) clock.setTimer(() => controller.abort(), Math.max(0, e.abortAt - clock.now()));
          const p = scheduler.schedule(
            () => {
              runs.set(id, (runs.get(id) ?? 0) + 1);
              dispatched.push({
                id,
                at: clock.now(),
                arrival: e,
                inForce: limits.map((l) => ({ n: l.limit, w: l.windowMs })),
              });
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
          settled.push(
            p.then(
              (v) => {
                expect(v).toBe(id);
                outcomes.set(id, 'ran');
              },
              (err: unknown) => {
                expect(err).toBeInstanceOf(RefusedError);
                outcomes.set(id, (err as RefusedError).reason);
              },
            ),
          );
        }
        await world.runAll();
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
            const sum = on
              .slice(0, k + 1)
              .filter((x) => x.at > d.at - w)
              .reduce((s, x) => s + x.arrival.weight, 0);
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
        await world.close();
      },
    );
  });
}

const MAX_W = 300;
const MAX_PAUSE = 500;

// An abort or a deadline refuses a task that would otherwise wait forever, hiding a wedged queue:
// one task in four has each.
const sometimes = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });

const task = (limits: number) =>
  fc.record({
    kind: fc.constant('task' as const),
    at: fc.integer({ min: 0, max: 600 }),
    limits: fc.subarray([...Array(limits).keys()], { minLength: 0 }),
    weight: fc.integer({ min: 1, max: 6 }),
    priority: fc.constantFrom(0, 0, 1, 5),
    abortAt: sometimes(fc.integer({ min: 0, max: 2500 })),
    deadline: sometimes(fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.constant(Infinity))),
  });

// Limit 0 keeps a reserve of 1 for priority 5, so its N stays at 2 or more.
const livenessScenario = fc
  .array(fc.record({ n: fc.integer({ min: 2, max: 8 }), w: fc.integer({ min: 10, max: MAX_W }) }), {
    minLength: 1,
    maxLength: 3,
  })
  .chain((limits) =>
    fc.record({
      limits: fc.constant(limits),
      // Closing refuses whatever waits: in one run in four.
      closeAt: sometimes(fc.integer({ min: 0, max: 700 })),
      events: fc.array(
        fc.oneof(
          { weight: 8, arbitrary: task(limits.length) },
          {
            weight: 2,
            arbitrary: fc.record({
              kind: fc.constant('update' as const),
              at: fc.integer({ min: 0, max: 600 }),
              limit: fc.nat({ max: limits.length - 1 }),
              n: fc.integer({ min: 2, max: 8 }),
              w: fc.integer({ min: 10, max: MAX_W }),
            }),
          },
          {
            weight: 1,
            arbitrary: fc.record({
              kind: fc.constant('feedback' as const),
              at: fc.integer({ min: 0, max: 600 }),
              limit: fc.nat({ max: limits.length - 1 }),
              n: fc.integer({ min: 2, max: 8 }),
            }),
          },
          {
            weight: 1,
            arbitrary: fc.record({
              kind: fc.constant('pause' as const),
              at: fc.integer({ min: 0, max: 600 }),
              limit: fc.nat({ max: limits.length - 1 }),
              ms: fc.integer({ min: 1, max: MAX_PAUSE }),
            }),
          },
          {
            weight: 1,
            arbitrary: fc.record({
              kind: fc.constant('listener' as const),
              at: fc.integer({ min: 0, max: 600 }),
              throws: fc.boolean(),
            }),
          },
        ),
        { maxLength: 50 },
      ),
    }),
  );

/** The scheduler's liveness with `store`'s limits. */
export function livenessContract(store: ContractStore): void {
  describe(`Scheduler liveness, ${store.name}`, () => {
    beforeEach(() => {
      vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    // A limit lowered below the weight of a task waiting on it, with a lighter task behind.
    const lowered = {
      limits: [{ n: 8, w: 100 }],
      closeAt: null,
      events: [
        { kind: 'task' as const, at: 0, limits: [0], weight: 7, priority: 0 as const, abortAt: null, deadline: null },
        { kind: 'task' as const, at: 1, limits: [0], weight: 6, priority: 0 as const, abortAt: null, deadline: null },
        { kind: 'task' as const, at: 1, limits: [0], weight: 1, priority: 0 as const, abortAt: null, deadline: null },
        { kind: 'update' as const, at: 2, limit: 0, n: 3, w: 100 },
      ],
    };
    test.prop([livenessScenario], { numRuns: 400, examples: [[lowered]] })(
      'every task runs exactly once or is refused with a reason, whatever limits, pauses, aborts, listeners and close do, and no window holds more than N',
      async ({ limits: specs, closeAt, events }) => {
        const world = await store.world(1000);
        const { clock, scheduler } = world;
        const limits: StoreLimit[] = specs.map((s, i) =>
          scheduler.limit({
            name: `L${i}`,
            limit: s.n,
            windowMs: s.w,
            maxWindowMs: MAX_W,
            ...(i === 0 ? { reserve: { priority: 5, weight: 1 } } : {}),
          }),
        );
        let throwing = false;
        scheduler.on(() => {
          if (throwing) throw new Error('listener bug');
        });
        const runs = new Map<number, number>();
        const dispatched: {
          at: number;
          limits: readonly number[];
          weight: number;
          inForce: { n: number; w: number }[];
        }[] = [];
        const outcomes = new Map<number, string>();
        const settled: Promise<unknown>[] = [];

        const sorted = narrowed(
          store,
          specs,
          events.map((e, id) => ({ e, id })).sort((a, b) => a.e.at - b.e.at || a.id - b.id),
        );
        let totalWeight = 0;
        if (closeAt !== null) clock.setTimer(() => scheduler.close(), closeAt);
        for (const { e, id } of sorted) {
          await world.advanceTo(e.at);
          switch (e.kind) {
            case 'update':
              limits[e.limit]!.update({ limit: e.n, windowMs: e.w });
              continue;
            case 'feedback':
              scheduler.feedback(limits[e.limit]!, { limited: false, limit: e.n });
              continue;
            case 'pause':
              scheduler.feedback(limits[e.limit]!, { limited: true, retryAfterMs: e.ms });
              continue;
            case 'listener':
              throwing = e.throws;
              continue;
          }
          totalWeight += e.weight;
          const controller = new AbortController();
          if (e.abortAt !== null) clock.setTimer(() => controller.abort(), Math.max(0, e.abortAt - clock.now()));
          const p = scheduler.schedule(
            () => {
              runs.set(id, (runs.get(id) ?? 0) + 1);
              dispatched.push({
                at: clock.now(),
                limits: e.limits,
                weight: e.weight,
                inForce: limits.map((l) => ({ n: l.limit, w: l.windowMs })),
              });
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
          settled.push(
            p.then(
              () => outcomes.set(id, 'ran'),
              (err: unknown) => outcomes.set(id, err instanceof RefusedError ? err.reason : `threw ${String(err)}`),
            ),
          );
        }
        // Past the last event, abort and deadline, the longest pause, and one longest window per
        // unit of weight given.
        await world.advanceTo(Math.max(3000, sorted.at(-1)?.e.at ?? 0) + MAX_PAUSE + (totalWeight + 1) * MAX_W);

        const tasks = sorted.filter((x) => x.e.kind === 'task');
        expect(outcomes.size).toBe(tasks.length);
        for (const { id } of tasks) {
          const outcome = outcomes.get(id)!;
          expect(['ran', 'aborted', 'deadline', 'too-heavy', 'closed', 'queue-full']).toContain(outcome);
          expect(runs.get(id) ?? 0).toBe(outcome === 'ran' ? 1 : 0);
        }
        await Promise.all(settled);

        // At each dispatch, the weight sent in (t - W, t] up to and including it is at most N, with
        // the N and W in force when it was sent.
        specs.forEach((_, li) => {
          const on = dispatched.filter((d) => d.limits.includes(li));
          on.forEach((d, k) => {
            const { n, w } = d.inForce[li]!;
            const sum = on
              .slice(0, k + 1)
              .filter((x) => x.at > d.at - w)
              .reduce((s, x) => s + x.weight, 0);
            expect(sum).toBeLessThanOrEqual(n);
          });
        });
        expect(scheduler.stats().queued).toBe(0);
        expect(clock.pendingTimers).toBe(0);
        await world.close();
      },
      // About 2 s alone; more on a machine busy with other suites.
      30_000,
    );
  });
}
