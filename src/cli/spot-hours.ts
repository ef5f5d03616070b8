import {
  type AbuseTimeline,
  type Throttle,
  type ThrottleState,
  buildAbuseTimeline,
  resolveAbuseOptions,
} from '../rules/abuse.js';
import { HOUR_MS, parseUtcHour } from '../rules/calendar.js';
import type { Dec } from '../internal/decimal.js';
import { parseCount, parseNonNegativeDecimal } from '../internal/parse.js';
import {
  type SpotFillClearance,
  buildSpotFillTimeline,
  resolveSpotFillOptions,
  spotFillClearance,
} from '../rules/spot-fill.js';
import { wholeNumber } from './whole-number.js';

/**
 * One hour of an account's spot activity as the command line reads it (see docs/rules.md#r14): spot place, amend
 * and cancel requests (each order of a batch, failed ones included) and USDT traded on spot.
 */
export interface SpotHour {
  readonly account: string;
  readonly hour: number;
  readonly requests: number;
  readonly traded: Dec;
}

/**
 * Reads one hour of spot activity, naming the fields as the file spells them (`names`: the hour,
 * the requests and the USDT traded). A count may be given as digits (CSV) or a JSON number.
 */
export function readSpotHour(
  account: string,
  values: readonly [unknown, unknown, unknown],
  names: readonly [string, string, string],
): SpotHour {
  const [hour, requests, traded] = values;
  const digits = (v: unknown): unknown => (typeof v === 'string' ? (wholeNumber(v) ?? v) : v);
  return {
    account,
    hour: parseUtcHour(digits(hour), `\`${names[0]}\``),
    requests: parseCount(digits(requests), `\`${names[1]}\``),
    traded: parseNonNegativeDecimal(traded === undefined || traded === '' ? '0' : traded, `\`${names[2]}\``),
  };
}

/** Each account's hours, in the order the accounts first appear, made into a throttle timeline by `build`. */
function timelinesOf(
  hours: readonly SpotHour[],
  build: (hours: readonly SpotHour[]) => AbuseTimeline,
): Map<string, AbuseTimeline> {
  const byAccount = new Map<string, SpotHour[]>();
  for (const h of hours) {
    let list = byAccount.get(h.account);
    if (list === undefined) byAccount.set(h.account, (list = []));
    list.push(h);
  }
  return new Map([...byAccount].map(([account, list]) => [account, build(list)]));
}

/** Each account's spot low-fill throttle over time (see docs/rules.md#r14), in the order the accounts first appear. */
export function spotTimelines(hours: readonly SpotHour[]): Map<string, AbuseTimeline> {
  const config = resolveSpotFillOptions();
  return timelinesOf(hours, (list) => buildSpotFillTimeline(list, config));
}

/**
 * Each account's futures abuse throttle over time (see docs/rules.md#r9), from its hourly futures order requests and
 * USDT traded, in the order the accounts first appear.
 */
export function abuseTimelines(hours: readonly SpotHour[]): Map<string, AbuseTimeline> {
  const config = resolveAbuseOptions();
  return timelinesOf(hours, (list) => buildAbuseTimeline(list, config));
}

/**
 * Hours during which an hourly throttle held one account's placement and amendment: the spot
 * low-fill throttle (see docs/rules.md#r14) on spot, or the abuse throttle (see docs/rules.md#r9) on futures.
 */
export interface ThrottlePeriod {
  readonly account: string;
  /** The hourly check that put it in force. */
  readonly from: number;
  /** The hourly check that lifted it (or changed its reason). */
  readonly until: number;
  readonly throttle: Throttle;
  /** Requests and USDT traded in the 24 hours the first check looked at. */
  readonly requests: number;
  readonly traded: Dec;
}

/**
 * The throttled periods of every account, in time order: from each change that puts the throttle
 * in force to the next change. The last check of a timeline (25 hours after its last hour) sees an
 * empty window, so every period ends.
 */
export function throttlePeriods(timelines: ReadonlyMap<string, AbuseTimeline>): ThrottlePeriod[] {
  const out: ThrottlePeriod[] = [];
  for (const [account, timeline] of timelines) {
    timeline.changes.forEach((c, i) => {
      if (c.throttle === null) return;
      out.push({
        account,
        from: c.at,
        until: timeline.changes[i + 1]!.at,
        throttle: c.throttle,
        requests: c.requests,
        traded: c.traded,
      });
    });
  }
  return out.sort((a, b) => a.from - b.from || (a.account < b.account ? -1 : 1));
}

/** One account's spot low-fill throttle now and at the next hourly check (see docs/rules.md#r14). */
export interface SpotFillOutlook {
  readonly account: string;
  /** The decision in force during the current hour (its check looked at the 24 hours before it). */
  readonly now: ThrottleState;
  /** The decision of the next check, on the 23 hours before the current one and the current one so far. */
  readonly next: ThrottleState;
  /** How far the next check's window stands from the throttle: requests that still fit, USDT to trade. */
  readonly clearance: SpotFillClearance;
}

/**
 * Where each account stands with the spot low-fill throttle (see docs/rules.md#r14) during the hour `current`, its
 * activity so far counted, as AccountLimiter.spotFillHeadroom counts it live.
 */
export function spotFillOutlook(timelines: ReadonlyMap<string, AbuseTimeline>, current: number): SpotFillOutlook[] {
  const config = resolveSpotFillOptions();
  return [...timelines].map(([account, timeline]) => {
    const next = timeline.throttleAt(current + HOUR_MS);
    return { account, now: timeline.throttleAt(current), next, clearance: spotFillClearance(next, config) };
  });
}
