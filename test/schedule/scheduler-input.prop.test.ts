import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import type { StoreLimit } from '../../src/schedule/limit.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import { WindowLimit, type WindowLimitState } from '../../src/schedule/window.js';
import { badPositive } from '../arbitraries.js';
import { waitOf } from './wait.js';

/** One world: a scheduler with two limits (one with a reserve), a bare WindowLimit, and a scheduler of its own's limit. */
interface World {
  readonly clock: VirtualClock;
  readonly scheduler: Scheduler;
  readonly place: StoreLimit;
  readonly cancel: StoreLimit;
  readonly bare: WindowLimit;
  readonly foreign: StoreLimit;
}

function world(): World {
  const clock = new VirtualClock({ start: 0, wallStart: Date.UTC(2026, 10, 1) });
  const scheduler = new Scheduler({ clock });
  return {
    clock,
    scheduler,
    place: scheduler.limit({
      name: 'place',
      limit: 10,
      windowMs: 1000,
      maxWindowMs: 2000,
      reserve: { priority: 10, weight: 2 },
    }),
    cancel: scheduler.limit({ name: 'cancel', limit: 20, windowMs: 500, maxWindowMs: 2000 }),
    bare: new WindowLimit({ name: 'bare', limit: 8, windowMs: 700 }),
    foreign: new Scheduler({ clock }).limit({ name: 'foreign', limit: 5, windowMs: 1000 }),
  };
}

const which = fc.constantFrom('place' as const, 'cancel' as const);

const valid = fc.oneof(
  fc.record({
    kind: fc.constant('acquire' as const),
    limits: fc.subarray(['place', 'cancel'] as const, { minLength: 1 }),
    weight: fc.integer({ min: 1, max: 3 }),
    priority: fc.constantFrom(0, 0, 10),
  }),
  fc.record({
    kind: fc.constant('take' as const),
    weight: fc.integer({ min: 1, max: 3 }),
    priority: fc.constantFrom(0, 1),
  }),
  fc.record({ kind: fc.constant('pause' as const), limit: which, retryAfterMs: fc.integer({ min: 0, max: 1500 }) }),
  fc.record({
    kind: fc.constant('remaining' as const),
    limit: which,
    remaining: fc.integer({ min: 0, max: 20 }),
    inMs: fc.integer({ min: 0, max: 1500 }),
  }),
  fc.record({ kind: fc.constant('lower' as const), limit: which, to: fc.integer({ min: 3, max: 12 }) }),
  fc.record({
    kind: fc.constant('update' as const),
    limit: which,
    n: fc.integer({ min: 3, max: 25 }),
    windowMs: fc.integer({ min: 100, max: 2000 }),
  }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 1500 }) }),
);
type Valid = typeof valid extends fc.Arbitrary<infer T> ? T : never;

function apply(w: World, o: Valid): void | Promise<void> {
  const now = w.clock.now();
  switch (o.kind) {
    case 'acquire':
      waitOf(
        w.scheduler.tryAcquire(
          o.limits.map((k) => w[k]),
          o.weight,
          o.priority,
        ),
      );
      return;
    case 'take':
      waitOf(w.bare.tryTake(o.weight, now, o.priority));
      return;
    case 'pause':
      w.scheduler.feedback(w[o.limit], { limited: true, retryAfterMs: o.retryAfterMs });
      return;
    case 'remaining':
      w.scheduler.feedback(w[o.limit], { limited: false, remaining: o.remaining, resetAtMs: w.clock.wall() + o.inMs });
      return;
    case 'lower':
      w.scheduler.feedback(w[o.limit], { limited: false, limit: o.to });
      return;
    case 'update':
      w[o.limit].update({ limit: o.n, windowMs: o.windowMs });
      return;
    case 'advance':
      return w.clock.advance(o.ms);
  }
}

/** A call that must be refused, with the field its InvalidInputError must name. */
interface Refused {
  readonly call: (w: World) => unknown;
  readonly field: string;
}

const badNumber = fc.constantFrom<unknown>(Number.NaN, Infinity, -Infinity, '5', null, {});
const spoilState = fc.constantFrom<[string, (s: WindowLimitState) => unknown]>(
  ['`entries[0][1]` of the limit state', (s) => ({ ...s, entries: [[0, -50]] })],
  ['`entries[0][0]` of the limit state', (s) => ({ ...s, entries: [[Number.NaN, 1]] })],
  ['`entries` of the limit state', (s) => ({ ...s, entries: 'none' })],
  ['`holds[0][0]` of the limit state', (s) => ({ ...s, holds: [[-1, 10]] })],
  ['`holds` of the limit state', (s) => ({ ...s, holds: {} })],
  ['`pausedUntil` of the limit state', (s) => ({ ...s, pausedUntil: Number.NaN })],
);

const refused: fc.Arbitrary<Refused> = fc.oneof(
  fc.tuple(which, badPositive).map(
    ([k, weight]): Refused => ({
      call: (w) => waitOf(w.scheduler.tryAcquire(w[k], weight as number)),
      field: '`weight`',
    }),
  ),
  fc.constantFrom<unknown>(-100, '', '2').map(
    (weight): Refused => ({
      call: (w) => waitOf(w.scheduler.tryAcquire([w.place, w.cancel], weight as number)),
      field: '`weight`',
    }),
  ),
  badNumber.map(
    (priority): Refused => ({
      call: (w) => waitOf(w.scheduler.tryAcquire(w.place, 1, priority as number)),
      field: '`priority`',
    }),
  ),
  badNumber.map(
    (at): Refused => ({ call: (w) => waitOf(w.scheduler.tryAcquire(w.cancel, 1, 0, at as number)), field: '`at`' }),
  ),
  fc.constant<Refused>({ call: (w) => waitOf(w.scheduler.tryAcquire(w.foreign)), field: 'each of `limits`' }),
  fc.constant<Refused>({
    call: (w) => waitOf(w.scheduler.tryAcquire([w.place, w.foreign])),
    field: 'each of `limits`',
  }),
  fc.constant<Refused>({ call: (w) => waitOf(w.scheduler.tryAcquire(w.bare)), field: 'each of `limits`' }),
  fc.constant<Refused>({ call: (w) => waitOf(w.scheduler.tryAcquire([w.cancel, w.cancel])), field: '`limits`' }),
  fc.constant<Refused>({
    call: (w) => w.scheduler.feedback(w.foreign, { limited: true }),
    field: 'the limit given feedback',
  }),
  fc
    .constantFrom<unknown>(null, undefined, 'slow down', 429)
    .map((f): Refused => ({ call: (w) => w.scheduler.feedback(w.place, f as never), field: 'the feedback' })),
  fc.tuple(which, fc.constantFrom<unknown>(Number.NaN, -5, '1000', Infinity)).map(
    ([k, v]): Refused => ({
      call: (w) => w.scheduler.feedback(w[k], { limited: true, retryAfterMs: v as number }),
      field: '`feedback.retryAfterMs`',
    }),
  ),
  fc.tuple(which, fc.constantFrom<unknown>(Number.NaN, -1, 'soon')).map(
    ([k, v]): Refused => ({
      call: (w) => w.scheduler.feedback(w[k], { limited: true, resetAtMs: v as number }),
      field: '`feedback.resetAtMs`',
    }),
  ),
  fc.constantFrom<unknown>(1, 'true', null).map(
    (v): Refused => ({
      call: (w) => w.scheduler.feedback(w.cancel, { limited: v as boolean }),
      field: '`feedback.limited`',
    }),
  ),
  fc.constantFrom<unknown>(-1, 2.5, '3').map(
    (v): Refused => ({
      call: (w) =>
        w.scheduler.feedback(w.cancel, { limited: false, remaining: v as number, resetAtMs: w.clock.wall() + 100 }),
      field: '`feedback.remaining`',
    }),
  ),
  fc.constantFrom<unknown>(0, -3, 1.5, '4').map(
    (v): Refused => ({
      call: (w) => w.scheduler.feedback(w.cancel, { limited: true, limit: v as number }),
      field: '`feedback.limit`',
    }),
  ),
  // At or below the reserve of 2, with a pause that must not be applied either.
  fc.constantFrom(1, 2).map(
    (v): Refused => ({
      call: (w) => w.scheduler.feedback(w.place, { limited: true, retryAfterMs: 900, limit: v }),
      field: '`feedback.limit`',
    }),
  ),
  fc
    .tuple(which, badPositive)
    .map(([k, v]): Refused => ({ call: (w) => w[k].update({ limit: v as number }), field: `\`limit\` of ${k}` })),
  fc
    .tuple(which, fc.constantFrom<unknown>(0, -1, 2001, Number.NaN, '100'))
    .map(([k, v]): Refused => ({ call: (w) => w[k].update({ windowMs: v as number }), field: `\`windowMs\` of ${k}` })),
  fc.constant<Refused>({ call: (w) => w.place.update({ limit: 2, windowMs: 300 }), field: '`limit` of place' }),
  fc.constant<Refused>({ call: (w) => w.cancel.update(null as never), field: 'update of cancel' }),
  badPositive.map(
    (v): Refused => ({ call: (w) => waitOf(w.bare.tryTake(v as number, w.clock.now())), field: '`weight` of bare' }),
  ),
  badNumber.map((v): Refused => ({ call: (w) => waitOf(w.bare.tryTake(1, v as number)), field: '`at` of bare' })),
  badNumber.map(
    (v): Refused => ({
      call: (w) => waitOf(w.bare.tryTake(1, w.clock.now(), v as number)),
      field: '`priority` of bare',
    }),
  ),
  badPositive.map(
    (v): Refused => ({ call: (w) => w.bare.take(v as number, w.clock.now()), field: '`weight` of bare' }),
  ),
  spoilState.map(
    ([field, spoil]): Refused => ({
      call: (w) =>
        WindowLimit.restore(
          spoil(JSON.parse(JSON.stringify(w.bare.snapshot())) as WindowLimitState) as WindowLimitState,
        ),
      field,
    }),
  ),
);

function state(w: World) {
  const { queued, dispatched, refused: r, limits } = w.scheduler.stats();
  return {
    stats: { queued, dispatched, refused: r, limits },
    place: w.place.snapshot(),
    cancel: w.cancel.snapshot(),
    bare: w.bare.snapshot(),
    foreign: w.foreign.snapshot(),
    timers: w.clock.pendingTimers,
  };
}

describe('Scheduler and WindowLimit: refused input changes nothing', () => {
  test.prop([fc.array(fc.tuple(valid, fc.array(refused, { maxLength: 3 })), { minLength: 1, maxLength: 40 })], {
    numRuns: 150,
  })(
    'valid calls interleaved with refused ones give the state of the valid calls alone, and every refusal names its field',
    async (steps) => {
      const alone = world();
      const mixed = world();
      for (const [o, calls] of steps) {
        await apply(alone, o);
        await apply(mixed, o);
        for (const { call, field } of calls) {
          let error: unknown;
          try {
            call(mixed);
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(InvalidInputError);
          expect((error as InvalidInputError).field).toBe(field.replaceAll('`', ''));
        }
        expect(state(mixed)).toEqual(state(alone));
      }
      await alone.clock.advance(5000);
      await mixed.clock.advance(5000);
      expect(state(mixed)).toEqual(state(alone));
    },
  );
});
