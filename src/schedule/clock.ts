import { markBuild } from './build.js';
import { performance } from 'node:perf_hooks';

/**
 * Where the scheduler reads time and sets its one timer. `now()` is monotonic milliseconds (it
 * never goes back; the arrival window, docs/rules.md#r13, is measured on it); `wall()` is Unix epoch milliseconds, used only to
 * read the exchange's reset timestamps (see docs/rules.md#r12).
 *
 * @example
 * ```ts
 * import { type Clock, Scheduler } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const clock: Clock = new VirtualClock({ start: 5000 })
 * new Scheduler({ clock }).clock.now() // 5000
 * ```
 */
export interface Clock {
  now(): number;
  wall(): number;
  setTimer(callback: () => void, delayMs: number): unknown;
  clearTimer(handle: unknown): void;
}

/** The longest delay `setTimeout` keeps, in milliseconds: a longer one fires at once. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * A timer longer than `setTimeout` keeps (a 429 reset 40 days away, a limit of 1 per 30 days):
 * armed in chunks of at most {@link MAX_TIMEOUT_MS}, each counted off when it fires, so that it
 * never fires early. `unref` holds for every chunk.
 */
class LongTimer {
  private handle: ReturnType<typeof setTimeout>;
  private unrefed = false;

  constructor(
    private readonly callback: () => void,
    private left: number,
  ) {
    this.handle = this.arm();
  }

  unref(): this {
    this.unrefed = true;
    this.handle.unref?.();
    return this;
  }

  clear(): void {
    clearTimeout(this.handle);
  }

  private arm(): ReturnType<typeof setTimeout> {
    let handle: ReturnType<typeof setTimeout>;
    if (this.left > MAX_TIMEOUT_MS) {
      this.left -= MAX_TIMEOUT_MS;
      handle = setTimeout(() => {
        this.handle = this.arm();
      }, MAX_TIMEOUT_MS);
    } else {
      handle = setTimeout(this.callback, Math.max(0, Math.ceil(this.left)));
    }
    if (this.unrefed) handle.unref?.();
    return handle;
  }
}

/**
 * The machine's clocks: `performance.now()` and `Date.now()`, and `setTimeout`. A delay longer
 * than `setTimeout` keeps (about 24.8 days) is waited in chunks.
 *
 * @example
 * ```ts
 * import { Scheduler, systemClock } from 'traderatio'
 *
 * const scheduler = new Scheduler({ clock: systemClock })
 * scheduler.clock === systemClock // true
 * Math.abs(systemClock.wall() - Date.now()) < 1000 // true
 * ```
 */
export const systemClock: Clock = markBuild({
  now: () => performance.now(),
  wall: () => Date.now(),
  setTimer: (callback, delayMs) =>
    delayMs > MAX_TIMEOUT_MS ? new LongTimer(callback, delayMs) : setTimeout(callback, Math.max(0, Math.ceil(delayMs))),
  clearTimer: (handle) =>
    handle instanceof LongTimer ? handle.clear() : clearTimeout(handle as ReturnType<typeof setTimeout>),
});

/**
 * Lets the process exit while `handle` (what {@link Clock.setTimer} returned) waits: for timers of
 * background work (retries, heartbeats) that must not keep a process alive. Returns the handle.
 */
export function unrefTimer(handle: unknown): unknown {
  (handle as { unref?: () => void } | null)?.unref?.();
  return handle;
}
