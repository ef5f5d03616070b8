import { UTCDate } from '@date-fns/utc';
import { addDays, formatISO, isMatch, parse } from 'date-fns';
import { InvalidInputError } from '../errors.js';
import { isInstant } from '../internal/parse.js';

/** The instants [from, to), epoch milliseconds: `from` included, `to` excluded. */
export interface TimeSpan {
  readonly from: number;
  readonly to: number;
}

/**
 * One UTC day in milliseconds. Epoch milliseconds have no leap seconds, so every UTC day has it.
 *
 * @example
 * ```ts
 * import { DAY_MS, formatUtcDay } from 'traderatio/rules'
 *
 * formatUtcDay(Date.UTC(2026, 10, 5) + DAY_MS) // '2026-11-06'
 * ```
 */
export const DAY_MS = 86_400_000;
/**
 * One hour in milliseconds.
 *
 * @example
 * ```ts
 * import { HOUR_MS, formatUtcInstant } from 'traderatio/rules'
 *
 * formatUtcInstant(Date.UTC(2026, 10, 5, 10) + HOUR_MS) // '2026-11-05T11:00:00.000Z'
 * ```
 */
export const HOUR_MS = 3_600_000;
/** 08:00 UTC, the hour at which a raised limit takes effect (see docs/rules.md#r5). */
export const RAISE_OFFSET_MS = 8 * HOUR_MS;

/**
 * 00:00:00.000 UTC of the day holding `at`. Independent of the machine's time zone. Epoch
 * milliseconds count no leap seconds, so every UTC day is exactly {@link DAY_MS} long and flooring
 * gives what date-fns' `startOfDay` on a `UTCDate` gives (the tests check both agree); this runs
 * on hot paths where a Date object per call is too dear.
 *
 * @example
 * ```ts
 * import { formatUtcInstant, utcDayStart } from 'traderatio/rules'
 *
 * formatUtcInstant(utcDayStart(Date.UTC(2026, 10, 5, 23, 59))) // '2026-11-05T00:00:00.000Z'
 * ```
 */
export function utcDayStart(at: number): number {
  return at - mod(at, DAY_MS);
}

/**
 * The raise instant (08:00 UTC unless `raiseAfterMs` says otherwise) `days` days after the day
 * holding `at`, by default 08:00 UTC of the next day: a sub-account created at `at` is at tier 1
 * until then, and the ratio rules apply to it from then (see docs/rules.md#r8).
 */
export function nextDayRaiseAt(at: number, days = 1, raiseAfterMs: number = RAISE_OFFSET_MS): number {
  return utcDayStart(at) + days * DAY_MS + raiseAfterMs;
}

/**
 * The whole UTC hour holding `at` (see {@link utcDayStart} for why it is arithmetic).
 *
 * @example
 * ```ts
 * import { formatUtcInstant, utcHourStart } from 'traderatio/rules'
 *
 * formatUtcInstant(utcHourStart(Date.UTC(2026, 10, 5, 10, 30))) // '2026-11-05T10:00:00.000Z'
 * ```
 */
export function utcHourStart(at: number): number {
  return at - mod(at, HOUR_MS);
}

/**
 * Whether `at` falls in the UTC day that starts at `dayStart` (00:00 UTC, epoch ms): what
 * `utcDayStart(at) === dayStart` says, in two comparisons for the paths that ask it per request.
 */
export function isInUtcDay(at: number, dayStart: number): boolean {
  return at >= dayStart && at - dayStart < DAY_MS;
}

function mod(a: number, m: number): number {
  const r = a % m;
  return r < 0 ? r + m : r;
}

/**
 * The UTC day `days` days after the one starting at `dayStart`.
 *
 * @example
 * ```ts
 * import { addUtcDays, formatUtcDay, parseUtcDay } from 'traderatio/rules'
 *
 * formatUtcDay(addUtcDays(parseUtcDay('2026-11-05', 'day'), -7)) // '2026-10-29'
 * ```
 */
export function addUtcDays(dayStart: number, days: number): number {
  return addDays(new UTCDate(dayStart), days).getTime();
}

/**
 * `YYYY-MM-DD` of the UTC day holding `at`.
 *
 * @example
 * ```ts
 * import { formatUtcDay } from 'traderatio/rules'
 *
 * formatUtcDay(Date.UTC(2026, 10, 5, 23, 59, 59)) // '2026-11-05'
 * ```
 */
export function formatUtcDay(at: number): string {
  return formatISO(new UTCDate(at), { representation: 'date' });
}

/**
 * ISO 8601 text of an instant in UTC, with milliseconds: `2026-11-21T08:00:00.000Z`.
 *
 * @example
 * ```ts
 * import { formatUtcInstant } from 'traderatio/rules'
 *
 * formatUtcInstant(Date.UTC(2026, 10, 21, 8)) // '2026-11-21T08:00:00.000Z'
 * ```
 */
export function formatUtcInstant(at: number): string {
  return new Date(at).toISOString();
}

/**
 * Reads a UTC day: `YYYY-MM-DD` text, or epoch milliseconds at exactly 00:00 UTC, from 2000-01-01
 * to 2199-12-31 (the instants of `INSTANT_RANGE`). Returns the day's first millisecond.
 *
 * @example
 * ```ts
 * import { parseUtcDay } from 'traderatio/rules'
 *
 * parseUtcDay('2026-11-05', '`day`') === Date.UTC(2026, 10, 5) // true
 * parseUtcDay(Date.UTC(2026, 10, 5), '`day`') // 1793836800000
 * ```
 */
export function parseUtcDay(value: unknown, field: string): number {
  let day: number | undefined;
  if (typeof value === 'string') {
    if (/^\d{4}-\d{2}-\d{2}$/.test(value) && isMatch(value, 'yyyy-MM-dd'))
      day = parse(value, 'yyyy-MM-dd', new UTCDate(0)).getTime();
  } else if (typeof value === 'number') {
    day = value;
  }
  if (!isInstant(day) || utcDayStart(day) !== day) {
    throw new InvalidInputError(
      field,
      value,
      'a UTC day from 2000-01-01 to 2199-12-31, as "YYYY-MM-DD" or epoch milliseconds at 00:00 UTC',
    );
  }
  return day;
}

/**
 * Reads a whole UTC hour, from 2000-01-01 to 2199-12-31 (the instants of `INSTANT_RANGE`): epoch
 * milliseconds at a whole hour, or ISO text ending in Z that names one.
 */
export function parseUtcHour(value: unknown, field: string): number {
  let at: number | undefined;
  if (typeof value === 'number') at = value;
  else if (typeof value === 'string' && /Z$/.test(value)) at = Date.parse(value);
  if (!isInstant(at) || utcHourStart(at) !== at) {
    throw new InvalidInputError(
      field,
      value,
      'a whole UTC hour from 2000-01-01 to 2199-12-31 (epoch milliseconds, or ISO text ending in Z)',
    );
  }
  return at;
}
