import { FixedCount } from './fixed-count.js';
import { SlidingCount } from './sliding-count.js';

/**
 * How the exchange counts "N per W" (see docs/rules.md#r13): `sliding`, never more than N in any interval of length
 * W (the strictest reading, the default); `fixed`, counters that reset on windows aligned to
 * multiples of W on the exchange's clock, as many exchanges count.
 *
 * @example
 * ```ts
 * import { type WindowMode, startModelExchange } from 'traderatio/model-exchange'
 *
 * const window: WindowMode = 'fixed'
 * const exchange = await startModelExchange({ port: 0, window })
 * exchange.stats().window // 'fixed'
 * await exchange.close()
 * ```
 */
export type WindowMode = 'sliding' | 'fixed';

/**
 * The arrivals on one limit, as the exchange counts them. N and W are passed with every question:
 * a limit in force may change (a tier raise, a throttle) and what arrived before counts against
 * the new one (see docs/rules.md#r13). Instants must not go back.
 */
export interface ArrivalCount {
  /** Whether `weight` more arriving at `at` stays within `n` per `w`. */
  fits(at: number, weight: number, n: number, w: number): boolean;
  /** Counts `weight` arrived at `at`. */
  add(at: number, weight: number): void;
  /** Weight counted in the window that holds `at` (after `fits` at the same instant). */
  used(at: number, w: number): number;
  /** The first instant at or after `at` at which `weight` more fits within `n` per `w`. */
  freeAt(at: number, weight: number, n: number, w: number): number;
  /** The most weight counted in any one window so far. */
  readonly most: number;
}

/**
 * A counter for `mode`. `keep`: the largest N the limit can have; a sliding count keeps that many
 * arrivals at most, which decides exactly for any N up to it.
 */
export function arrivalCount(mode: WindowMode, keep: number): ArrivalCount {
  return mode === 'fixed' ? new FixedCount() : new SlidingCount(keep);
}
