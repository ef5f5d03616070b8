import { type RefusalReason, type RefusedError, refusal } from '../errors.js';
import type { Clock } from './clock.js';
import type { SchedulerEvent } from './events.js';
import type { StoreLimit } from './limit.js';
import type { Listeners } from './listeners.js';
import type { Waiter } from './queue.js';

/**
 * The refusals of a scheduler: each counted by reason and told to its listeners as a `refuse`
 * event, then given to the task as a {@link RefusedError} (a promise of `schedule`) or as its
 * reason alone (a submission, which makes no error).
 */
export class Refusals {
  readonly #counts: Record<RefusalReason, number> = {
    'queue-full': 0,
    aborted: 0,
    deadline: 0,
    'too-heavy': 0,
    closed: 0,
  };
  readonly #clock: Clock;
  readonly #listeners: Listeners<SchedulerEvent>;

  constructor(clock: Clock, listeners: Listeners<SchedulerEvent>) {
    this.#clock = clock;
    this.#listeners = listeners;
  }

  /** The refusals so far, by reason (a copy). */
  counts(): Record<RefusalReason, number> {
    return { ...this.#counts };
  }

  /** Counts a refusal of a task drawing on `limits` and tells the listeners. */
  count(reason: RefusalReason, limits: readonly StoreLimit[]): void {
    this.#counts[reason]++;
    if (this.#listeners.size > 0)
      this.#listeners.emit({ type: 'refuse', at: this.#clock.now(), reason, limits: limits.map((l) => l.name) });
  }

  /** Counts a refusal and gives the promise the refused task's caller gets. */
  reject<T>(reason: RefusalReason, limits: readonly StoreLimit[], message: string): Promise<T> {
    this.count(reason, limits);
    return Promise.reject(refusal(reason, message));
  }

  /** Refuses a waiter: rejects its promise, or tells its submission (no error made, no message). */
  tell(waiter: Waiter, reason: RefusalReason, limits: readonly StoreLimit[], message: string): void {
    if (typeof waiter === 'function') {
      waiter(this.reject(reason, limits, message));
    } else {
      this.count(reason, limits);
      waiter.refused(reason);
    }
  }
}
