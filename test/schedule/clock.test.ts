import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidInputError, TooManyTimersError } from '../../src/errors.js';
import { MAX_TIMEOUT_MS, VirtualClock, systemClock } from '../../src/schedule/clock.js';
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
    await expect(clock.advance(-1)).rejects.toThrow('Expected `ms` of VirtualClock.advance to be a non-negative number of milliseconds, got -1');
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
    expect((error as TooManyTimersError).message).toBe('VirtualClock.runAll: more than 100 timers fired; is something rescheduling forever?');
    expect(clock.now()).toBe(100_000);
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
    const clock = { ...systemClock, now: () => Date.now(), setTimer: (cb: () => void, ms: number) => (timers++, systemClock.setTimer(cb, ms)) };
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
    const clock = { ...systemClock, now: () => Date.now(), setTimer: (cb: () => void, ms: number) => (timers++, systemClock.setTimer(cb, ms)) };
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
