import { UTCDate } from '@date-fns/utc';
import { addDays, formatISO, isMatch, parse } from 'date-fns';
import { InvalidInputError } from '../errors.js';

/** One UTC day in milliseconds. Epoch milliseconds have no leap seconds, so every UTC day has it. */
export const DAY_MS = 86_400_000;
/** One hour in milliseconds. */
export const HOUR_MS = 3_600_000;
/** 08:00 UTC, the hour at which a raised limit takes effect (R5). */
export const RAISE_OFFSET_MS = 8 * HOUR_MS;

/**
 * 00:00:00.000 UTC of the day holding `at`. Independent of the machine's time zone. Epoch
 * milliseconds count no leap seconds, so every UTC day is exactly {@link DAY_MS} long and flooring
 * gives what date-fns' `startOfDay` on a `UTCDate` gives (the tests check both agree); this runs
 * on hot paths where a Date object per call is too dear.
 */
export function utcDayStart(at: number): number {
  return at - mod(at, DAY_MS);
}

/** The whole UTC hour holding `at` (see {@link utcDayStart} for why it is arithmetic). */
export function utcHourStart(at: number): number {
  return at - mod(at, HOUR_MS);
}

function mod(a: number, m: number): number {
  const r = a % m;
  return r < 0 ? r + m : r;
}

/** The UTC day `days` days after the one starting at `dayStart`. */
export function addUtcDays(dayStart: number, days: number): number {
  return addDays(new UTCDate(dayStart), days).getTime();
}

/** `YYYY-MM-DD` of the UTC day holding `at`. */
export function formatUtcDay(at: number): string {
  return formatISO(new UTCDate(at), { representation: 'date' });
}

/** ISO 8601 text of an instant in UTC, with milliseconds: `2026-11-21T08:00:00.000Z`. */
export function formatUtcInstant(at: number): string {
  return new Date(at).toISOString();
}

/**
 * Reads a UTC day: `YYYY-MM-DD` text, or epoch milliseconds at exactly 00:00 UTC. Returns the
 * day's first millisecond.
 */
export function parseUtcDay(value: unknown, field: string): number {
  if (typeof value === 'string') {
    if (/^\d{4}-\d{2}-\d{2}$/.test(value) && isMatch(value, 'yyyy-MM-dd')) {
      const day = parse(value, 'yyyy-MM-dd', new UTCDate(0));
      return day.getTime();
    }
  } else if (typeof value === 'number' && Number.isSafeInteger(value) && utcDayStart(value) === value) {
    return value;
  }
  throw new InvalidInputError(field, value, 'a UTC day as "YYYY-MM-DD" or epoch milliseconds at 00:00 UTC');
}

/** Reads a whole UTC hour: epoch milliseconds at a whole hour, or ISO text that names one. */
export function parseUtcHour(value: unknown, field: string): number {
  let at: number | undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) at = value;
  else if (typeof value === 'string' && /Z$/.test(value)) {
    const t = Date.parse(value);
    if (Number.isSafeInteger(t)) at = t;
  }
  if (at === undefined || utcHourStart(at) !== at) {
    throw new InvalidInputError(field, value, 'a whole UTC hour (epoch milliseconds or ISO text ending in Z)');
  }
  return at;
}
