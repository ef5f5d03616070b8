import { InvalidInputError, TooManyTimersError } from '../errors.js';
import type { Clock } from '../schedule/clock.js';
import { heapOf, heapPop, heapPush } from '../schedule/heap.js';

interface VirtualTimer {
  readonly at: number;
  readonly seq: number;
  readonly callback: () => void;
  /** The clock that set it: a handle of another clock is not cleared by this one. */
  readonly clock: VirtualClock;
  /** Fired or cleared: it stays in the heap until it reaches the top, where it is dropped. */
  done: boolean;
}

/**
 * A clock that moves only when told: for tests, simulations and replays. Timers fire in time
 * order (ties in the order set) as `advance` passes them, and the promises they settle are given
 * the chance to run before time moves on. Nothing sleeps.
 *
 * @example
 * ```ts
 * import { Scheduler } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const clock = new VirtualClock({ start: 0, wallStart: Date.parse('2026-11-21T00:00:00Z') })
 * const scheduler = new Scheduler({ clock })
 * const place = scheduler.limit({ limit: 1, windowMs: 60_000 })
 * const sent: number[] = []
 * for (let i = 0; i < 3; i++) void scheduler.schedule(() => sent.push(clock.now()), { limits: place })
 * await clock.advance(120_000)
 * sent // [0, 60000, 120000]
 * new Date(clock.wall()).toISOString() // '2026-11-21T00:02:00.000Z'
 * ```
 */
export class VirtualClock implements Clock {
  #time: number;
  readonly #wallOffset: number;
  /** Timers by instant, then by the order they were set: a binary heap. */
  #heap: VirtualTimer[] = [];
  #live = 0;
  #seq = 0;

  constructor(options: { readonly start?: number; readonly wallStart?: number } = {}) {
    this.#time = options.start ?? 0;
    this.#wallOffset = (options.wallStart ?? 0) - this.#time;
  }

  now(): number {
    return this.#time;
  }

  wall(): number {
    return this.#time + this.#wallOffset;
  }

  setTimer(callback: () => void, delayMs: number): unknown {
    const timer: VirtualTimer = {
      at: this.#time + Math.max(0, delayMs),
      seq: this.#seq++,
      callback,
      clock: this,
      done: false,
    };
    heapPush(this.#heap, timer, earlier);
    this.#live++;
    return timer;
  }

  clearTimer(handle: unknown): void {
    // As clearTimeout does, a handle that is not a live timer of this clock is let be.
    const timer = handle as VirtualTimer | null | undefined;
    if (typeof timer !== 'object' || timer === null || timer.clock !== this || timer.done) return;
    timer.done = true;
    this.#live--;
    // Cleared timers wait in the heap until they reach its top; never many more than live ones.
    if (this.#heap.length > 2 * this.#live + 64) {
      this.#heap = heapOf(
        this.#heap.filter((t) => !t.done),
        earlier,
      );
    }
  }

  /** Timers set and not yet fired. */
  get pendingTimers(): number {
    return this.#live;
  }

  /** @internal Timer entries held: those of `pendingTimers` and cleared ones not yet let go. */
  get heldTimers(): number {
    return this.#heap.length;
  }

  /** Moves time forward by `ms`, firing every timer due on the way. */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0))
      throw new InvalidInputError('`ms` of VirtualClock.advance', ms, 'a non-negative number of milliseconds');
    await this.advanceTo(this.#time + ms);
  }

  /** Moves time forward to `at`, firing every timer due on the way. */
  async advanceTo(at: number): Promise<void> {
    await settle();
    for (;;) {
      const next = this.#nextTimer();
      if (next === undefined || next.at > at) break;
      this.#fire(next);
      await settle();
    }
    this.#time = Math.max(this.#time, at);
    await settle();
  }

  /**
   * Moves time forward to `at` at once, firing every timer due on the way in order, without
   * waiting: promise callbacks run only when the caller yields. For work whose timers do all of
   * it synchronously, such as a replay of a log through a scheduler, where a macrotask turn per
   * timer would cost more than the work. An instant earlier than now leaves time where it is.
   *
   * @example
   * ```ts
   * import { Scheduler } from 'traderatio'
   * import { VirtualClock } from 'traderatio/testing'
   *
   * const clock = new VirtualClock()
   * const scheduler = new Scheduler({ clock })
   * const place = scheduler.limit({ limit: 1, windowMs: 1000 })
   * const sent: number[] = []
   * for (let i = 0; i < 3; i++) void scheduler.schedule(() => sent.push(clock.now()), { limits: place })
   * clock.moveTo(1500)
   * sent // [0, 1000]
   * clock.now() // 1500
   * ```
   */
  moveTo(at: number): void {
    if (typeof at !== 'number' || !Number.isFinite(at))
      throw new InvalidInputError('`at` of VirtualClock.moveTo', at, 'an instant on this clock (a finite number)');
    for (;;) {
      const next = this.#nextTimer();
      if (next === undefined || next.at > at) break;
      this.#fire(next);
    }
    if (at > this.#time) this.#time = at;
  }

  /** Fires timers, moving time as far as needed, until none is left (at most `limit` of them). */
  async runAll(limit = 1_000_000): Promise<void> {
    await settle();
    for (let n = 0; n < limit; n++) {
      const next = this.#nextTimer();
      if (next === undefined) return;
      await this.advanceTo(next.at);
    }
    throw new TooManyTimersError(
      limit,
      `VirtualClock.runAll: more than ${limit} timers fired; is something rescheduling forever?`,
    );
  }

  /** Takes `timer` (the earliest) off the heap, moves time to it and calls it back. */
  #fire(timer: VirtualTimer): void {
    heapPop(this.#heap, earlier);
    timer.done = true;
    this.#live--;
    if (timer.at > this.#time) this.#time = timer.at;
    timer.callback();
  }

  /** The earliest timer not yet fired or cleared, the done ones above it dropped. */
  #nextTimer(): VirtualTimer | undefined {
    const heap = this.#heap;
    while (heap.length > 0 && heap[0]!.done) heapPop(heap, earlier);
    return heap[0];
  }
}

function earlier(a: VirtualTimer, b: VirtualTimer): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** Lets every pending promise callback run (a macrotask turn). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
