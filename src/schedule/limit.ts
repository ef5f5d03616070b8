import type { WindowLimitState } from './window.js';

/**
 * What a scheduler admits tasks against: at most `limit` weight in any `windowMs` (R13). The
 * in-memory {@link WindowLimit} is one, and so is a `SharedLimit` of `traderatio/redis`; each
 * member is documented there.
 *
 * @example
 * ```ts
 * import { type Limit, Scheduler } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const scheduler = new Scheduler({ clock: new VirtualClock() })
 * const place: Limit = scheduler.limit({ name: 'futures.place', limit: 100, windowMs: 1000 })
 * await scheduler.schedule(() => 'sent', { limits: place, weight: 3 }) // 'sent'
 * place.usedAt(0) // 3
 * ```
 */
export interface Limit {
  /** @internal The scheduler that owns the limit, told of each change of N or W; null until one does. */
  owner: LimitOwner | null;
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
  readonly maxWindowMs: number;
  readonly marginMs: number;
  capacity(priority?: number): number;
  tryTake(weight: number, at: number, priority?: number): number;
  waitFor(weight: number, at: number, priority?: number): number;
  lacks(weight: number, at: number): boolean;
  request(linked: readonly Limit[], weight: number, priority: number, at: number): void;
  isShared(): boolean;
  take(weight: number, at: number): void;
  fitsAnytime(weight: number, priority?: number): boolean;
  takeUnstamped(weight: number): void;
  stamp(at: number): void;
  usedAt(at: number): number;
  update(change: { readonly limit?: number; readonly windowMs?: number }): void;
  pause(until: number): void;
  shrink(remaining: number, until: number, at: number): void;
  extend(weight: number, sentAt: number, arrivedAt: number): void;
  snapshot(): WindowLimitState;
}

/** @internal What a limit tells the scheduler that owns it. */
export interface LimitOwner {
  /** N or W of `limit` changed, from `from`. */
  changed(limit: Limit, from: { limit: number; windowMs: number }): void;
}
