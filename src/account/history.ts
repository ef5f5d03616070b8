import { apiOf } from '../catalog/exchange-api.js';
import { InvalidInputError } from '../errors.js';
import { formatUtcDay, formatUtcInstant, parseUtcDay, utcDayStart, utcHourStart } from '../rules/calendar.js';
import type { FamilyConfig } from '../rules/family.js';
import { checkFields, parseCount, parseInstant, parseNonNegativeDecimal } from '../internal/parse.js';
import type { ContractActivity } from '../rules/ratio.js';
import { type DailyActivity, type TimelineAccount, buildTimeline } from '../rules/timeline/timeline.js';
import type { Tracker } from './tracker.js';

/** An hour of order requests and USDT traded, seeded from the exchange's history. */
export interface SeededHour {
  readonly account: string;
  readonly hour: number;
  readonly requests: number;
  readonly traded?: string;
}

/** History fetched from the exchange, as the account limiter's `seed` takes it. */
export interface LimiterHistory {
  readonly days?: readonly DailyActivity[];
  readonly hours?: readonly SeededHour[];
  /** Hourly spot order requests and spot USDT traded (see docs/rules.md#r14). */
  readonly spotHours?: readonly SeededHour[];
}

/** History read and checked, in order: what {@link addHistory} adds. */
export interface ReadHistory {
  readonly days: readonly {
    readonly account: string;
    readonly start: number;
    readonly contracts: DailyActivity['contracts'];
  }[];
  readonly hours: readonly {
    readonly account: string;
    readonly hour: number;
    readonly requests: number;
    readonly traded: string;
  }[];
  readonly spotHours: readonly {
    readonly account: string;
    readonly hour: number;
    readonly requests: number;
    readonly traded: string;
  }[];
}

/**
 * Reads and checks history for a family of `accounts` at `now`: daily activity per account and
 * contract (see docs/rules.md#r1), checked as a timeline, up to today; hourly requests and USDT traded (see docs/rules.md#r9, #r14) of
 * accounts that `isAccount` knows, up to this hour. History is what already happened: a day or
 * an hour after now is refused. The first fault throws an {@link InvalidInputError} naming it.
 */
export function readHistory(
  history: LimiterHistory,
  accounts: readonly TimelineAccount[],
  isAccount: (id: string) => boolean,
  family: FamilyConfig,
  now: number,
): ReadHistory {
  if (typeof history !== 'object' || history === null)
    throw new InvalidInputError('the history', history, 'an object { days?, hours?, spotHours? }');
  checkFields(history, ['days', 'hours', 'spotHours'], 'the history');
  const { days = [], hours = [], spotHours = [] } = history;
  if (!Array.isArray(days))
    throw new InvalidInputError('`days`', days, 'an array of daily activity { account, day, contracts }');
  if (!Array.isArray(hours))
    throw new InvalidInputError('`hours`', hours, 'an array of hours { account, hour, requests, traded }');
  if (!Array.isArray(spotHours))
    throw new InvalidInputError('`spotHours`', spotHours, 'an array of hours { account, hour, requests, traded }');
  // Validated as a timeline first (accounts, days, contracts, counts, volumes).
  buildTimeline({ accounts, activity: days }, family);
  const api = apiOf(family.rulebook);
  const seededDays = days.map((d, i) => {
    const start = parseUtcDay(d.day, `\`days[${i}].day\``);
    if (start > utcDayStart(now))
      throw new InvalidInputError(
        `\`days[${i}].day\``,
        d.day,
        `a day up to today (${formatUtcDay(now)}): history is what already happened`,
      );
    // As the tracker keeps them (OKX's instrument ids with underscores).
    const contracts = d.contracts.map((c: ContractActivity) => ({ ...c, contract: api.seedName(c.contract) }));
    return { account: d.account, start, contracts };
  });
  const readHours = (list: readonly SeededHour[], name: string) =>
    list
      .map((h, i) => {
        if (typeof h !== 'object' || h === null)
          throw new InvalidInputError(`\`${name}[${i}]\``, h, 'an object { account, hour, requests, traded }');
        checkFields(h, ['account', 'hour', 'requests', 'traded'], `\`${name}[${i}]\``);
        if (!isAccount(h.account))
          throw new InvalidInputError(`\`${name}[${i}].account\``, h.account, 'an account of the limiter');
        const hour = utcHourStart(parseInstant(h.hour, `\`${name}[${i}].hour\``));
        if (hour > now)
          throw new InvalidInputError(
            `\`${name}[${i}].hour\``,
            h.hour,
            `an hour up to this one (${formatUtcInstant(utcHourStart(now))}): history is what already happened`,
          );
        parseCount(h.requests, `\`${name}[${i}].requests\``);
        parseNonNegativeDecimal(h.traded ?? '0', `\`${name}[${i}].traded\``);
        return { account: h.account, hour, requests: h.requests, traded: h.traded ?? '0' };
      })
      .sort((a, b) => a.hour - b.hour);
  const seededHours = readHours(hours, 'hours');
  const seededSpotHours = readHours(spotHours, 'spotHours');
  return { days: seededDays.sort((a, b) => a.start - b.start), hours: seededHours, spotHours: seededSpotHours };
}

/**
 * Adds read history to the counts: days and futures hours to `futures`, spot hours to `spot`.
 */
export function addHistory(history: ReadHistory, futures: Tracker, spot: Tracker): void {
  for (const d of history.days) futures.seedDay(d.account, d.start, d.contracts);
  for (const h of history.hours) futures.seedHour(h.account, h.hour, h.requests, h.traded);
  for (const h of history.spotHours) spot.seedHour(h.account, h.hour, h.requests, h.traded);
}
