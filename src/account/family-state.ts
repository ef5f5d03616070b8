import { utcDayStart } from '../rules/calendar.js';
import { type AccountRating, type FamilyConfig, type FamilyRating, rateFamily } from '../rules/family.js';
import { apiOf, namedFor } from '../catalog/exchange-api.js';
import { type DailyActivity, type Timeline, type TimelineAccount, buildTimeline } from '../rules/timeline/timeline.js';
import type { Tracker } from './tracker.js';

/**
 * What an account limiter knows of its family: the accounts, the VIP history and the counts. It is
 * what a snapshot holds, and what every rule the limiter reads is a function of (with the instant).
 */
export interface FamilyState {
  readonly accounts: readonly TimelineAccount[];
  /** The VIP level before the first change (see docs/rules.md#r4). */
  readonly vipLevel: number;
  /** VIP changes in order (see docs/rules.md#r6). */
  readonly vipChanges: readonly { readonly at: number; readonly level: number }[];
  /** Futures order requests and fills (see docs/rules.md#r1, #r9). */
  readonly tracker: Tracker;
  /** Spot order requests and fills (see docs/rules.md#r14). */
  readonly spotTracker: Tracker;
}

/**
 * The limit timeline of a family state (see docs/rules.md#r3 to #r8); it throws on a state that is not valid (accounts,
 * VIP history and counts are checked against each other).
 */
export function timelineOf(
  state: Pick<FamilyState, 'accounts' | 'vipLevel' | 'vipChanges' | 'tracker'>,
  family: FamilyConfig,
): Timeline {
  return buildTimeline(
    {
      accounts: state.accounts,
      activity: dailyNamed(state.tracker.dailyActivity(), family),
      vipLevel: state.vipLevel,
      vipChanges: state.vipChanges,
    },
    family,
  );
}

/** A tracker's days with the instruments named as the family's rulebook reads them. */
function dailyNamed(days: readonly DailyActivity[], family: FamilyConfig): readonly DailyActivity[] {
  if (apiOf(family.rulebook).activityName === null) return days;
  return days.map((d) => ({ ...d, contracts: namedFor(family.rulebook, d.contracts) }));
}

/**
 * Ratings of every account created by `now` over the 7 days before `snapshotDay` (00:00 UTC; a
 * partial today included), as the snapshot at `snapshotDay` will rate them (see docs/rules.md#r1, #r5, #r7).
 */
export function ratingsBefore(
  state: FamilyState,
  family: FamilyConfig,
  snapshotDay: number,
  now: number,
): readonly AccountRating[] {
  return familyRatingBefore(state, family, snapshotDay, now).accounts;
}

/** {@link ratingsBefore} with the family's aggregated ratio. */
export function familyRatingBefore(
  state: FamilyState,
  family: FamilyConfig,
  snapshotDay: number,
  now: number,
): FamilyRating {
  const present = state.accounts.filter((a) => a.createdAt === undefined || a.createdAt <= now);
  const accounts = present.map((a) => ({
    account: a.id,
    contracts: namedFor(family.rulebook, state.tracker.ratioWindowActivity(a.id, snapshotDay)),
  }));
  return rateFamily(accounts, family);
}

/**
 * The family's VIP level at `at` (see docs/rules.md#r4, #r6).
 */
export function vipAt(state: Pick<FamilyState, 'vipLevel' | 'vipChanges'>, at: number): number {
  let level = state.vipLevel;
  for (const v of state.vipChanges) if (v.at <= at) level = v.level;
  return level;
}

/**
 * The instant after which a report of the exchange is news (see docs/rules.md#r16): the latest 00:00 snapshot, or
 * the latest VIP change if later (a report made before it speaks of the level before). `afterMs`
 * past 00:00 where the exchange's figures change later in the day (OKX's, at 08:00 UTC: see docs/okx.md#o9).
 */
export function latestChange(state: Pick<FamilyState, 'vipChanges'>, now: number, afterMs = 0): number {
  let at = utcDayStart(now - afterMs) + afterMs;
  for (const v of state.vipChanges) if (v.at <= now && v.at > at) at = v.at;
  return at;
}
