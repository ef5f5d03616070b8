import { fc, test } from '@fast-check/vitest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidInputError, TooManyTimersError } from '../../src/errors.js';
import { MAX_TIMEOUT_MS, systemClock } from '../../src/schedule/clock.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { Scheduler } from '../../src/schedule/scheduler.js';

const DAY = 86_400_000;

describe('VirtualClock', () => {
  it('fires timers in time order, then in the order set, as time passes them', async () => {
    const clock = new VirtualClock({ start: 100, wallStart: 5000 });
    const fired: string[] = [];
    clock.setTimer(() => fired.push(`b@${clock.now()}`), 50);
    clock.setTimer(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimer(() => fired.push(`c@${clock.now()}`), 50);
    const dropped = clock.setTimer(() => fired.push('never'), 20);
    clock.clearTimer(dropped);
    await clock.advance(49);
    expect(fired).toEqual(['a@110']);
    await clock.advance(1);
    expect(fired).toEqual(['a@110', 'b@150', 'c@150']);
    expect(clock.wall()).toBe(5050);
  });

  it('runs every timer to the end, including those set by timers', async () => {
    const clock = new VirtualClock();
    let n = 0;
    const tick = (): void => {
      if (++n < 5) clock.setTimer(tick, 100);
    };
    clock.setTimer(tick, 100);
    await clock.runAll();
    expect([n, clock.now(), clock.pendingTimers]).toEqual([5, 500, 0]);
  });

  it('refuses to move time back, naming the value', async () => {
    const clock = new VirtualClock({ start: 100 });
    await expect(clock.advance(-1)).rejects.toThrow(InvalidInputError);
    await expect(clock.advance(-1)).rejects.toThrow(
      'Expected `ms` of VirtualClock.advance to be a non-negative number of milliseconds, got -1',
    );
    expect(clock.now()).toBe(100);
  });

  it('stops a run whose timers never run out after `limit` of them, with a TooManyTimersError', async () => {
    const clock = new VirtualClock();
    const tick = (): void => {
      clock.setTimer(tick, 1000);
    };
    tick();
    const error = await clock.runAll(100).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManyTimersError);
    expect((error as TooManyTimersError).code).toBe('TOO_MANY_TIMERS');
    expect((error as TooManyTimersError).limit).toBe(100);
    expect((error as TooManyTimersError).message).toBe(
      'VirtualClock.runAll: more than 100 timers fired; is something rescheduling forever?',
    );
    expect(clock.now()).toBe(100_000);
  });
});

describe('VirtualClock.moveTo', () => {
  it('fires every timer due on the way at once, in order, without letting promise callbacks run', async () => {
    const clock = new VirtualClock({ start: 100 });
    const fired: string[] = [];
    let settled = false;
    clock.setTimer(() => {
      fired.push(`b@${clock.now()}`);
      void Promise.resolve().then(() => (settled = true));
    }, 50);
    clock.setTimer(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimer(() => fired.push(`c@${clock.now()}`), 50);
    clock.clearTimer(clock.setTimer(() => fired.push('never'), 20));
    clock.moveTo(149);
    expect([fired, clock.now(), clock.pendingTimers]).toEqual([['a@110'], 149, 2]);
    clock.moveTo(300);
    expect([fired, clock.now(), clock.pendingTimers, settled]).toEqual([['a@110', 'b@150', 'c@150'], 300, 0, false]);
    await Promise.resolve();
    expect(settled).toBe(true);
  });

  it('fires a timer set by a timer on the way, and leaves time where it is for an instant already passed', () => {
    const clock = new VirtualClock();
    const fired: number[] = [];
    clock.setTimer(() => clock.setTimer(() => fired.push(clock.now()), 30), 10);
    clock.moveTo(100);
    clock.moveTo(50);
    expect([fired, clock.now()]).toEqual([[40], 100]);
  });

  it('refuses an instant that is not a number, naming it, and moves nothing', () => {
    const clock = new VirtualClock({ start: 5 });
    let fired = false;
    clock.setTimer(() => (fired = true), 0);
    for (const bad of [Number.NaN, Infinity, '10', undefined]) {
      expect(() => clock.moveTo(bad as number)).toThrow(InvalidInputError);
      expect(() => clock.moveTo(bad as number)).toThrow(
        'Expected `at` of VirtualClock.moveTo to be an instant on this clock (a finite number)',
      );
    }
    expect([clock.now(), fired, clock.pendingTimers]).toEqual([5, false, 1]);
  });

  test.prop([
    fc.array(fc.record({ delay: fc.integer({ min: 0, max: 50 }), cleared: fc.boolean() }), { maxLength: 200 }),
  ])(
    'fires the timers not cleared in order of instant, then of setting, whatever the order they were set in',
    (timers) => {
      const clock = new VirtualClock();
      const fired: number[] = [];
      timers.forEach((t, i) => {
        const handle = clock.setTimer(() => fired.push(i), t.delay);
        if (t.cleared) clock.clearTimer(handle);
      });
      expect(clock.pendingTimers).toBe(timers.filter((t) => !t.cleared).length);
      clock.moveTo(25);
      clock.moveTo(60);
      const expected = timers
        .map((t, i) => ({ ...t, i }))
        .filter((t) => !t.cleared)
        .sort((a, b) => a.delay - b.delay || a.i - b.i)
        .map((t) => t.i);
      expect(fired).toEqual(expected);
      expect(clock.pendingTimers).toBe(0);
    },
  );

  it('keeps no more than a few cleared timers for each live one', () => {
    const clock = new VirtualClock();
    const kept = clock.setTimer(() => {}, 1_000_000);
    for (let i = 0; i < 100_000; i++) clock.clearTimer(clock.setTimer(() => {}, 500_000 + i));
    expect(clock.pendingTimers).toBe(1);
    expect(clock.heldTimers).toBeLessThanOrEqual(2 * 1 + 64);
    // A handle of another clock, or no timer at all, is let be, as clearTimeout lets it be.
    const other = new VirtualClock();
    const theirs = other.setTimer(() => {}, 10);
    for (const handle of [theirs, undefined, null, 42]) clock.clearTimer(handle);
    expect([clock.pendingTimers, other.pendingTimers]).toEqual([1, 1]);
    clock.clearTimer(kept);
    clock.clearTimer(kept);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('systemClock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // Fake timers fire a delay longer than setTimeout keeps after 1 ms, as Node does.
  it('waits a delay longer than setTimeout keeps in chunks, firing once at its end', () => {
    vi.useFakeTimers();
    let fired = 0;
    systemClock.setTimer(() => fired++, 40 * DAY);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(40 * DAY - 2);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
    vi.advanceTimersByTime(100 * DAY);
    expect(fired).toBe(1);
  });

  it('clears and unrefs a long timer whatever chunk it is in', () => {
    vi.useFakeTimers();
    let fired = 0;
    const handle = systemClock.setTimer(() => fired++, 3 * MAX_TIMEOUT_MS) as { unref(): unknown };
    expect(handle.unref()).toBe(handle);
    vi.advanceTimersByTime(MAX_TIMEOUT_MS + 10);
    systemClock.clearTimer(handle);
    vi.advanceTimersByTime(3 * MAX_TIMEOUT_MS);
    expect(fired).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps a scheduler waiting on a limit of 1 per 30 days from looking again every millisecond', async () => {
    vi.useFakeTimers();
    // The scheduler's timer on the system clock, time read from the faked Date.
    let timers = 0;
    const clock = {
      ...systemClock,
      now: () => Date.now(),
      setTimer: (cb: () => void, ms: number) => (timers++, systemClock.setTimer(cb, ms)),
    };
    const scheduler = new Scheduler({ clock });
    const l = scheduler.limit({ limit: 1, windowMs: 30 * DAY });
    let ran = 0;
    await scheduler.schedule(() => ran++, { limits: l });
    const second = scheduler.schedule(() => ran++, { limits: l, deadline: Date.now() + 60 * DAY });
    vi.advanceTimersByTime(1000);
    expect([ran, timers]).toEqual([1, 1]);
    vi.advanceTimersByTime(30 * DAY);
    await second;
    expect(ran).toBe(2);
    expect(timers).toBe(1);
  });

  it('refuses a task at its deadline 60 days off, having looked once', async () => {
    vi.useFakeTimers();
    let timers = 0;
    const clock = {
      ...systemClock,
      now: () => Date.now(),
      setTimer: (cb: () => void, ms: number) => (timers++, systemClock.setTimer(cb, ms)),
    };
    const scheduler = new Scheduler({ clock });
    const l = scheduler.limit({ limit: 1, windowMs: 90 * DAY });
    await scheduler.schedule(() => 0, { limits: l });
    const late = scheduler.schedule(() => 1, { limits: l, deadline: Date.now() + 60 * DAY });
    const refused = late.catch((e: { reason?: string }) => e.reason);
    vi.advanceTimersByTime(1000);
    expect(timers).toBe(1);
    vi.advanceTimersByTime(60 * DAY - 1001);
    expect(timers).toBe(1);
    vi.advanceTimersByTime(2);
    expect(await refused).toBe('deadline');
    expect(timers).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
