import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import type { LimitStore } from '../../src/schedule/store.js';
import { WindowLimit } from '../../src/schedule/window.js';
import { waitOf } from './wait.js';

/** The field named by the InvalidInputError `call` throws (fails when it throws nothing else). */
function refusedField(call: () => unknown): string {
  try {
    call();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidInputError);
    return (e as InvalidInputError).field;
  }
  throw new Error('expected the call to be refused');
}

function setup() {
  const clock = new VirtualClock({ start: 1000, wallStart: Date.UTC(2026, 10, 1) });
  const scheduler = new Scheduler({ clock });
  const l = scheduler.limit({ name: 'place', limit: 5, windowMs: 1000, reserve: { priority: 10, weight: 2 } });
  return { clock, scheduler, l };
}

describe('Scheduler.tryAcquire input', () => {
  it('answers { ok: true } when taken, or { ok: false, retryAfterMs } and takes nothing', () => {
    const { scheduler, l } = setup();
    expect(scheduler.tryAcquire(l, 3)).toEqual({ ok: true });
    expect(scheduler.tryAcquire(l, 1)).toEqual({ ok: false, retryAfterMs: 1000 });
    expect(scheduler.tryAcquire(l, 9, 10)).toEqual({ ok: false, retryAfterMs: Infinity });
    expect(scheduler.stats()).toMatchObject({ dispatched: 1, limits: [{ used: 3 }] });
  });

  it('refuses a negative weight, which let 105 through a limit of 5, and takes nothing', () => {
    const { scheduler, l } = setup();
    expect(refusedField(() => waitOf(scheduler.tryAcquire(l, -100)))).toBe('weight');
    expect(scheduler.stats().limits[0]!.used).toBe(0);
    let through = 0;
    for (let i = 0; i < 200; i++) if (waitOf(scheduler.tryAcquire(l, 1, 10)) === 0) through++;
    expect(through).toBe(5);
  });

  it('refuses weights of text, which turned the count into a string', () => {
    const { scheduler, l } = setup();
    for (const weight of ['', '2', 1.5, 0, Number.NaN, Infinity, null])
      expect(refusedField(() => waitOf(scheduler.tryAcquire(l, weight as number)))).toBe('weight');
    expect(waitOf(scheduler.tryAcquire(l, 3))).toBe(0);
    expect(scheduler.stats().limits[0]!.used).toBe(3);
  });

  it('refuses a NaN priority, which bypassed the reserve', () => {
    const { scheduler, l } = setup();
    expect(waitOf(scheduler.tryAcquire(l, 3))).toBe(0);
    expect(refusedField(() => waitOf(scheduler.tryAcquire(l, 1, Number.NaN)))).toBe('priority');
    expect(refusedField(() => waitOf(scheduler.tryAcquire(l, 1, '10' as never)))).toBe('priority');
    expect(waitOf(scheduler.tryAcquire(l, 1))).toBeGreaterThan(0); // the reserve of 2 holds for priority 0
    expect(waitOf(scheduler.tryAcquire(l, 2, 10))).toBe(0);
  });

  it('refuses an instant that is not a finite number', () => {
    const { scheduler, l } = setup();
    expect(refusedField(() => waitOf(scheduler.tryAcquire(l, 1, 0, Number.NaN)))).toBe('at');
    expect(refusedField(() => waitOf(scheduler.tryAcquire(l, 1, 0, '1000' as never)))).toBe('at');
    expect(scheduler.stats().limits[0]!.used).toBe(0);
  });

  it('refuses a limit of another scheduler, a bare limit, a limit twice and no limit', () => {
    const { clock, scheduler, l } = setup();
    const other = new Scheduler({ clock }).limit({ limit: 5, windowMs: 1000 });
    expect(refusedField(() => waitOf(scheduler.tryAcquire(other)))).toBe('each of limits');
    expect(refusedField(() => waitOf(scheduler.tryAcquire([l, other])))).toBe('each of limits');
    expect(refusedField(() => waitOf(scheduler.tryAcquire([l, l])))).toBe('limits');
    expect(refusedField(() => waitOf(scheduler.tryAcquire(undefined as never)))).toBe('limits');
    expect(refusedField(() => waitOf(scheduler.tryAcquire({ name: 'fake' } as never)))).toBe('each of limits');
    expect(other.usedAt(clock.now())).toBe(0);
    expect(scheduler.stats()).toMatchObject({ dispatched: 0, limits: [{ used: 0 }] });
  });
});

describe('Scheduler.feedback input', () => {
  it('refuses a 429 with a NaN or negative retryAfterMs instead of silently ignoring it', () => {
    const { clock, scheduler, l } = setup();
    expect(refusedField(() => scheduler.feedback(l, { limited: true, retryAfterMs: Number.NaN }))).toBe(
      'feedback.retryAfterMs',
    );
    expect(refusedField(() => scheduler.feedback(l, { limited: true, retryAfterMs: -5 }))).toBe(
      'feedback.retryAfterMs',
    );
    expect(waitOf(scheduler.tryAcquire(l))).toBe(0);
    scheduler.feedback(l, { limited: true, retryAfterMs: 500 });
    expect(waitOf(scheduler.tryAcquire(l, 1, 0, clock.now()))).toBe(500);
  });

  it('refuses null feedback with an InvalidInputError, not a TypeError', () => {
    const { scheduler, l } = setup();
    expect(refusedField(() => scheduler.feedback(l, null as never))).toBe('the feedback');
    expect(refusedField(() => scheduler.feedback(l, 'slow down' as never))).toBe('the feedback');
  });

  it('refuses a limit header at or below the reserve before applying the pause that came with it', () => {
    const { scheduler, l } = setup();
    expect(refusedField(() => scheduler.feedback(l, { limited: true, retryAfterMs: 60_000, limit: 2 }))).toBe(
      'feedback.limit',
    );
    expect(l.limit).toBe(5);
    expect(waitOf(scheduler.tryAcquire(l))).toBe(0); // not paused
    scheduler.feedback(l, { limited: false, limit: 3 });
    expect(l.limit).toBe(3);
  });

  it('refuses each field of the wrong kind, applying nothing', () => {
    const { clock, scheduler, l } = setup();
    const before = l.snapshot();
    const cases: [object, string][] = [
      [{}, '`feedback.limited`'],
      [{ limited: 'yes' }, '`feedback.limited`'],
      [{ limited: false, label: 5 }, '`feedback.label`'],
      [{ limited: false, remaining: -1, resetAtMs: clock.wall() + 1000 }, '`feedback.remaining`'],
      [{ limited: false, remaining: '3', resetAtMs: clock.wall() + 1000 }, '`feedback.remaining`'],
      [{ limited: false, limit: 0 }, '`feedback.limit`'],
      [{ limited: false, limit: 2.5 }, '`feedback.limit`'],
      [{ limited: true, resetAtMs: Number.NaN }, '`feedback.resetAtMs`'],
      [{ limited: true, resetAtMs: '1795219200000' }, '`feedback.resetAtMs`'],
    ];
    for (const [f, field] of cases)
      expect(refusedField(() => scheduler.feedback(l, f as never))).toBe(field.replaceAll('`', ''));
    expect(l.snapshot()).toEqual(before);
  });
});

describe('Scheduler.limit with a store of its own', () => {
  it('takes a limit made once for it, and refuses one another scheduler owns, one given twice, or any other object, keeping nothing of it', () => {
    const clock = new VirtualClock();
    const made = new WindowLimit({ name: 'place', limit: 2, windowMs: 1000 });
    // Gives `made` while it is set, else a limit of its own.
    let give: WindowLimit | null = made;
    const store: LimitStore = { limit: (options) => give ?? new WindowLimit(options) };
    const first = new Scheduler({ clock, store });
    expect(first.limit({ name: 'place', limit: 2, windowMs: 1000 })).toBe(made);
    // The same limit again: to this scheduler, and to another.
    expect(refusedField(() => first.limit({ name: 'again', limit: 2, windowMs: 1000 }))).toBe(
      'the limit the store made',
    );
    const second = new Scheduler({ clock, store });
    expect(refusedField(() => second.limit({ name: 'place', limit: 2, windowMs: 1000 }))).toBe(
      'the limit the store made',
    );
    const odd: LimitStore = { limit: (options) => ({ ...options }) as never };
    expect(refusedField(() => new Scheduler({ clock, store: odd }).limit({ limit: 1, windowMs: 1000 }))).toBe(
      'the limit the store made',
    );
    // Nothing of a refused limit was kept: its name is free, and the second scheduler has no limit.
    expect(second.stats().limits).toEqual([]);
    give = null;
    expect(first.limit({ name: 'again', limit: 3, windowMs: 1000 }).limit).toBe(3);
    // The limit taken goes on under its scheduler: a change of N is told to it.
    made.update({ limit: 1 });
    expect(first.stats().limits.map((l) => [l.name, l.limit])).toEqual([
      ['place', 1],
      ['again', 3],
    ]);
  });
});
