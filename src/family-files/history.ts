import { InvalidInputError } from '../errors.js';
import { DAY_MS, HOUR_MS, formatUtcDay, parseUtcDay, utcDayStart, utcHourStart } from '../rules/calendar.js';
import type { DecimalInput } from '../internal/decimal.js';
import type { DailyActivity } from '../rules/timeline/timeline.js';
import { checkFields, parseId, parseNonNegativeDecimal } from '../internal/parse.js';
import { checkHoursOnce } from '../rules/timeline/input.js';
import { readInstant } from './instant.js';

/** One hour of an account's order requests and USDT traded, futures (see docs/rules.md#r9) or spot (see docs/rules.md#r14). */
export interface HistoryHour {
  readonly account: string;
  readonly hour: number;
  readonly requests: number;
  readonly traded?: DecimalInput;
}

/** History as the core seeds it. */
export interface History {
  readonly days: readonly DailyActivity[];
  readonly hours: readonly HistoryHour[];
  /** Hours of spot order requests and USDT traded on spot, the activity of the spot low-fill throttle (see docs/rules.md#r14). */
  readonly spotHours?: readonly HistoryHour[];
}

/**
 * Reads a history file (already parsed from JSON): the `activity` of a `timeline` file (one entry
 * per account and UTC day, `{ account, day, contracts }`), optionally `hours` of the abuse window
 * (`{ account, hour, requests, traded }`, see docs/rules.md#r9) and `spotHours`, the same for spot order requests
 * and USDT traded on spot (the spot low-fill throttle, see docs/rules.md#r14). A day is `YYYY-MM-DD` or a whole number of
 * days relative to the model's today (`-1` is yesterday); an hour is ISO text or a number of hours
 * relative to the current hour. Nothing may lie after `now`. The other keys of a timeline file
 * (`accounts`, `vipLevel`, `vipChanges`) are left to the accounts file; any other key is refused.
 */
export function readHistory(file: unknown, now: number): History {
  const f = file as { activity?: unknown; hours?: unknown; spotHours?: unknown };
  if (typeof f !== 'object' || f === null || Array.isArray(f))
    throw new InvalidInputError(
      'the history file',
      file,
      'an object { "activity": [...], "hours"?: [...], "spotHours"?: [...] }',
    );
  checkFields(f, ['activity', 'hours', 'spotHours', 'accounts', 'vipLevel', 'vipChanges'], 'the history file');
  const activity = f.activity ?? [];
  if (!Array.isArray(activity))
    throw new InvalidInputError('`activity`', activity, 'an array of { "account", "day", "contracts" }');
  const today = utcDayStart(now);
  const days = activity.map((d: DailyActivity, i): DailyActivity => {
    if (typeof d !== 'object' || d === null)
      throw new InvalidInputError(`\`activity[${i}]\``, d, 'an object { "account", "day", "contracts" }');
    const day =
      typeof d.day === 'number' && Number.isSafeInteger(d.day) && d.day <= 0 && d.day > -10_000
        ? today + d.day * DAY_MS
        : parseUtcDay(d.day, `\`activity[${i}].day\``);
    if (day > today)
      throw new InvalidInputError(
        `\`activity[${i}].day\``,
        d.day,
        `a day up to the model's today (${formatUtcDay(today)})`,
      );
    return { ...d, day: formatUtcDay(day) };
  });
  const spotHours = readHours(f.spotHours, 'spotHours', now);
  return { days, hours: readHours(f.hours, 'hours', now), ...(spotHours.length > 0 ? { spotHours } : {}) };
}

/** The `hours` or `spotHours` of a history file: `{ account, hour, requests, traded }` each. */
function readHours(value: unknown, name: string, now: number): HistoryHour[] {
  const list = value ?? [];
  if (!Array.isArray(list))
    throw new InvalidInputError(`\`${name}\``, list, 'an array of { "account", "hour", "requests", "traded" }');
  const hour0 = utcHourStart(now);
  const hours = list.map((h: { account: string; hour: unknown; requests: number; traded?: DecimalInput }, i) => {
    const where = `\`${name}[${i}]`;
    if (typeof h !== 'object' || h === null)
      throw new InvalidInputError(`${where}\``, h, 'an object { "account", "hour", "requests", "traded" }');
    checkFields(h, ['account', 'hour', 'requests', 'traded'], `${where}\``);
    parseId(h.account, `${where}.account\``);
    const hour =
      typeof h.hour === 'number' && Number.isSafeInteger(h.hour) && h.hour <= 0 && h.hour > -10_000
        ? hour0 + h.hour * HOUR_MS
        : utcHourStart(readInstant(h.hour, `${where}.hour\``));
    if (hour > hour0) throw new InvalidInputError(`${where}.hour\``, h.hour, 'an hour up to the current one');
    if (typeof h.requests !== 'number' || !Number.isSafeInteger(h.requests) || h.requests < 0)
      throw new InvalidInputError(`${where}.requests\``, h.requests, 'a non-negative integer');
    if (h.traded !== undefined) parseNonNegativeDecimal(h.traded, `${where}.traded\``);
    return { account: h.account, hour, requests: h.requests, ...(h.traded === undefined ? {} : { traded: h.traded }) };
  });
  // A relative hour is shown as written: its instant depends on when the file is read.
  checkHoursOnce(
    hours,
    (i) => `\`${name}[${i}].hour\``,
    (i) => (list[i] as { hour: unknown }).hour,
  );
  return hours;
}
