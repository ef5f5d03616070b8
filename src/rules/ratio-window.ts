import { DAY_MS, type TimeSpan } from './calendar.js';

/** The days a rating covers (see docs/rules.md#r1, #r5): the 7 whole UTC days before its 00:00. */
export const RATIO_WINDOW_DAYS = 7;

/**
 * The 7 UTC days a rating taken at 00:00 UTC of `ratingDay` covers (see docs/rules.md#r1, #r5):
 * from 00:00 seven days before it to the rating's 00:00, excluded. The rating's own day is not in
 * it: activity at 23:59:59.999 the day before counts, activity at the rating's 00:00 counts from
 * the next rating. `ratingDay` is epoch milliseconds at 00:00 UTC.
 */
export function ratioWindow(ratingDay: number): TimeSpan {
  return { from: ratingDay - RATIO_WINDOW_DAYS * DAY_MS, to: ratingDay };
}

/**
 * Per-day counts summed over the window of the rating at `ratingDay` ({@link ratioWindow}):
 * `countsOf(day)` for each of its 7 days (epoch milliseconds at 00:00 UTC), oldest first, added
 * to `zero` with `add`. A day with no counts (`undefined`) adds nothing.
 */
export function sumRatioWindow<T>(
  ratingDay: number,
  countsOf: (day: number) => T | undefined,
  add: (sum: T, counts: T) => T,
  zero: T,
): T {
  const { from, to } = ratioWindow(ratingDay);
  let sum = zero;
  for (let day = from; day < to; day += DAY_MS) {
    const counts = countsOf(day);
    if (counts !== undefined) sum = add(sum, counts);
  }
  return sum;
}
