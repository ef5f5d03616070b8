import type { WindowLimitState } from './window.js';

/**
 * A limit a scheduler admits tasks against: at most `limit` weight in any interval of `windowMs`
 * (R13). The in-memory window ({@link WindowLimit}) and the limit shared through a store
 * (`SharedLimit` of `traderatio/redis`) both are one; {@link Scheduler.limit} makes them, through
 * the scheduler's store. Instants are milliseconds on the scheduler's clock.
 *
 * @example
 * ```ts
 * const place: Limit = scheduler.limit({ name: 'futures.place', limit: 100, windowMs: 1000 })
 * place.waitFor(1, clock.now()) // 0: a task of weight 1 may start now
 * ```
 */
export interface Limit {
  readonly name: string;
  /** N: the most weight in any window. */
  readonly limit: number;
  /** W: the window, in milliseconds. */
  readonly windowMs: number;
  /** The longest window `update` may set, in milliseconds. */
  readonly maxWindowMs: number;
  /** How much longer than the window each dispatch is counted, in milliseconds. */
  readonly marginMs: number;
  /** The most weight a task of this priority may ever take (N less the reserves above it). */
  capacity(priority?: number): number;
  /** Takes `weight` at `at` if it fits (0), else the wait in milliseconds; Infinity: never. */
  tryTake(weight: number, at: number, priority?: number): number;
  /** How long from `at` until `weight` fits, in milliseconds: 0 now, Infinity never. */
  waitFor(weight: number, at: number, priority?: number): number;
  /** Whether the limit waits for permits held elsewhere (a shared store) rather than for time. */
  lacks(weight: number, at: number): boolean;
  /** Asks the store for permits for a task on `linked` (this limit among them), all or none. */
  request(linked: readonly Limit[], weight: number, priority: number, at: number): void;
  /** Whether the budget is shared with other processes. */
  isShared(): boolean;
  /** Counts `weight` as dispatched at `at`, without checking. */
  take(weight: number, at: number): void;
  /** Whether `weight` fits whatever the instant (nothing counted could hold it back). */
  fitsAnytime(weight: number, priority?: number): boolean;
  /** Counts `weight` as dispatched, its instant given by the next `stamp`. */
  takeUnstamped(weight: number): void;
  /** Gives the weight taken without an instant the instant `at`, read after it was taken. */
  stamp(at: number): void;
  /** The weight counted in the window that ends at `at`. */
  usedAt(at: number): number;
  /** Sets a new N or W (R13); the scheduler applies it to its waiting tasks at once. */
  update(change: { readonly limit?: number; readonly windowMs?: number }): void;
  /** Admits nothing before `until` (a 429, R12). */
  pause(until: number): void;
  /** The exchange says `remaining` are left until `until` (R12): counts at least that much. */
  shrink(remaining: number, until: number, at: number): void;
  /** The exchange counted `weight` from `arrivedAt`, later than it was sent (R13). */
  extend(weight: number, sentAt: number, arrivedAt: number): void;
  /** The state as plain data. */
  snapshot(): WindowLimitState;
}
