import type { CountedAction, FillRole, Tracker, TrackerState } from './tracker.js';

/** Which throttle a count serves: futures orders and fills (see docs/rules.md#r1, #r9), or spot ones (see docs/rules.md#r14). */
export type CountedMarket = 'futures' | 'spot';

/** What a count store hands back: the account's totals, summed over every process that counts. */
export interface SharedTotals {
  readonly futures: Tracker;
  readonly spot: Tracker;
  /**
   * Whether the days and hours before now may have changed since the last totals (the first
   * reading, history written, Redis having lost its data): the limits are read again.
   */
  readonly history: boolean;
}

/**
 * Counts kept for several processes at once (a Redis store's `counts()`): what an
 * {@link AccountLimiter} given such a store counts goes there, and its limits, tiers and throttles
 * are read from the totals it hands back. Not made directly.
 */
export interface SharedCounts {
  /**
   * Follows the totals of `accounts`; `now` is the limiter's instant (the hours and days counted
   * in), `onTotals` gets every new reading of the totals, its own counts not yet written included.
   */
  start(accounts: () => readonly string[], now: () => number, onTotals: (totals: SharedTotals) => void): void;
  /** Counts `orders` order requests of `action` on `contract` at `at`. */
  request(
    market: CountedMarket,
    account: string,
    contract: string,
    action: CountedAction,
    orders: number,
    at: number,
  ): void;
  /** Counts a fill of `volume` USDT (validated) on `contract` at `at`. */
  fill(
    market: CountedMarket,
    account: string,
    contract: string,
    role: FillRole,
    volume: string | number,
    at: number,
  ): void;
  /**
   * Writes history, whichever process does it, in whatever order and however often: `merge`
   * merges seeded history per account, day and hour with the history seeded before (the bucket
   * holding more requests, then more volume, is kept: a later fetch of the same history), beside
   * the live counts; `absent` writes only the days and hours the totals do not hold (a restored
   * snapshot).
   */
  seed(futures: TrackerState, spot: TrackerState, mode: 'merge' | 'absent'): void;
  /**
   * How far back from now (the limiter's instant, ms) the totals last handed over may lack another
   * process's counts: what a process counted that long ago or less may not be in them yet.
   * Infinity before the first reading.
   */
  unreadMs(now: number): number;
  /**
   * Resolves once the counts of every process up to now have been read (at a boundary): with
   * true, or with false when they could not be (Redis did not answer, or lost its data, or the
   * counts were closed), the limiter then deciding on what it has.
   */
  settle(): Promise<boolean>;
  /** Stops following the totals; what is counted and not written is written (one attempt). */
  close(): Promise<void>;
}
