import { InvalidInputError } from '../errors.js';
import { HOUR_MS, type TimeSpan, utcHourStart } from './calendar.js';
import { type Dec, ZERO } from '../internal/decimal.js';
import { addCounts, parseCount, parseNonNegativeDecimal } from '../internal/parse.js';
import { partitionPoint } from '../internal/search.js';

/** The hours an hourly throttle check reads (see docs/rules.md#r9, #r14): the 24 whole UTC hours before it. */
export const THROTTLE_WINDOW_HOURS = 24;

/**
 * 24-hour totals the throttle is decided on.
 *
 * @example
 * ```ts
 * import { Dec } from 'traderatio'
 * import { type AbuseWindow, checkAbuse } from 'traderatio/rules'
 *
 * const window: AbuseWindow = { requests: 86_401, traded: new Dec('864.01') }
 * checkAbuse(window) // null
 * ```
 */
export interface AbuseWindow {
  /** Every place, cancel and amend request, failed ones included. */
  readonly requests: number;
  /** USDT traded, maker + taker, unweighted. */
  readonly traded: Dec;
}

/**
 * Reads a window's totals as a user gives them (see docs/rules.md#r9, #r14): an object whose
 * `requests` is a count and whose `traded` is a non-negative decimal. Anything else is refused
 * naming the field.
 */
export function readThrottleWindow(window: unknown): AbuseWindow {
  if (typeof window !== 'object' || window === null)
    throw new InvalidInputError('the window', window, 'an object { requests, traded }');
  const w = window as { readonly requests?: unknown; readonly traded?: unknown };
  return { requests: parseCount(w.requests, '`requests`'), traded: parseNonNegativeDecimal(w.traded, '`traded`') };
}

/**
 * The window the hourly throttle check at the whole UTC hour `checkAt` reads (see docs/rules.md#r9,
 * #r14): the 24 hours before it, [checkAt - 24 h, checkAt). An hour whose start is `checkAt - 24 h`
 * is in it; the hour starting at `checkAt` is not.
 */
export function throttleWindow(checkAt: number): TimeSpan {
  return { from: checkAt - THROTTLE_WINDOW_HOURS * HOUR_MS, to: checkAt };
}

/**
 * The next hourly throttle check after `at` (see docs/rules.md#r9, #r14): the whole UTC hour that
 * follows. Its window ({@link throttleWindow}) is the 23 whole hours before `at`'s hour and that
 * hour so far: what it reads is what a request at `at` adds to.
 */
export function nextThrottleCheck(at: number): number {
  return utcHourStart(at) + HOUR_MS;
}

/** One hour of counts, read: a whole UTC hour (epoch ms), its requests and the USDT traded in it. */
export interface HourCounts {
  readonly hour: number;
  readonly requests: number;
  readonly traded: Dec;
}

/**
 * The totals of any throttle window over hourly counts (see docs/rules.md#r9, #r14): returns a
 * function giving, for a check at `checkAt`, the requests and USDT traded in the hours of {@link
 * throttleWindow}. `hours` are in increasing order, each once; they are summed once up front (a
 * request total past 2^53 is refused), so that each window then costs two binary searches.
 */
export function throttleWindowSums(hours: readonly HourCounts[]): (checkAt: number) => AbuseWindow {
  // Prefix sums: prefix[k] totals hours[0..k).
  const at = hours.map((h) => h.hour);
  const prefixRequests = [0];
  const prefixTraded = [ZERO];
  for (const h of hours) {
    prefixRequests.push(addCounts(prefixRequests.at(-1)!, h.requests, 'requests in total'));
    prefixTraded.push(prefixTraded.at(-1)!.plus(h.traded));
  }
  const firstAtOrAfter = (t: number): number => partitionPoint(at.length, (i) => at[i]! < t);
  return (checkAt) => {
    const { from, to } = throttleWindow(checkAt);
    const lo = firstAtOrAfter(from);
    const hi = firstAtOrAfter(to);
    return { requests: prefixRequests[hi]! - prefixRequests[lo]!, traded: prefixTraded[hi]!.minus(prefixTraded[lo]!) };
  };
}
