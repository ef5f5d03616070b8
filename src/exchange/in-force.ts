import type { Tracker } from '../account/tracker.js';
import { type AbuseConfig, type Throttle, buildAbuseTimeline } from '../rules/abuse.js';
import { HOUR_MS, utcHourStart } from '../rules/calendar.js';
import type { AccountRating, FamilyConfig } from '../rules/family.js';
import type { RatioResult } from '../rules/ratio.js';
import { type SpotFillConfig, buildSpotFillTimeline } from '../rules/spot-fill.js';
import { type ChangeReason, type Snapshot, type TimelineAccount, type VipChange, buildTimeline } from '../rules/timeline.js';
import type { Tier } from '../rules/tiers.js';

/** What a family is rated on: its accounts, VIP history and counted futures activity. */
export interface FamilyActivity {
  readonly accounts: readonly TimelineAccount[];
  /** The VIP level before the first change (R4). */
  readonly vipLevel: number;
  readonly vipChanges: readonly VipChange[];
  /** The family's futures order requests and fills (R1, R9). */
  readonly futures: Tracker;
  /** The family's spot order requests and fills (R14). */
  readonly spot?: Tracker;
}

/** What is in force for one account at an instant. */
export interface AccountInForce {
  /** The tier of R3-R8. */
  readonly tier: Tier;
  /** Futures placement and amendment, requests per second (the tier's limit). */
  readonly limit: number;
  /** The abuse throttle of R9, or null. */
  readonly throttle: Throttle | null;
  /** The spot low-fill throttle of R14, or null. */
  readonly spotThrottle: Throttle | null;
  readonly vipLevel: number;
  /** Why the tier is what it is: the last change's reason, or `initial`. */
  readonly reason: ChangeReason | 'initial';
  /** The latest snapshot's rating of the account (R1, R7), or null before the first one. */
  readonly rating: AccountRating | null;
}

/** What is in force for a family's accounts from `at` until `until`. */
export interface FamilyInForce {
  readonly at: number;
  /** The first instant at which it may change: the next whole hour, VIP change or creation. */
  readonly until: number;
  readonly accounts: ReadonlyMap<string, AccountInForce>;
  /** The family's aggregated ratio at the latest snapshot (R7), or null before the first one. */
  readonly aggregated: RatioResult | null;
  /** The instant of the latest snapshot (00:00 UTC), or null. */
  readonly snapshotAt: number | null;
}

/**
 * The tier, limit and throttles in force for every account of a family at `at` (R3-R9, R14), from
 * the same pure rules the account limiter refreshes on: the limit timeline's `limitAt` and the
 * throttle timelines' `throttleAt`. Both change only at whole hours, VIP changes and creations, so the
 * answer holds until `until`.
 *
 * @example
 * ```ts
 * const f = familyInForce({ accounts: [{ id: 'main' }], vipLevel: 14, vipChanges: [], futures: new Tracker() }, config, abuse, Date.now())
 * f.accounts.get('main')?.limit // 100
 * ```
 */
export function familyInForce(family: FamilyActivity, config: FamilyConfig, abuse: AbuseConfig, at: number, spotFill?: SpotFillConfig): FamilyInForce {
  const timeline = buildTimeline(
    { accounts: family.accounts, activity: family.futures.dailyActivity(), vipLevel: family.vipLevel, vipChanges: family.vipChanges },
    config,
  );
  let until = utcHourStart(at) + HOUR_MS;
  for (const v of family.vipChanges) if (v.at > at && v.at < until) until = v.at;
  const accounts = new Map<string, AccountInForce>();
  for (const a of family.accounts) {
    if (a.createdAt !== undefined && a.createdAt > at) {
      if (a.createdAt < until) until = a.createdAt;
      continue;
    }
    const state = timeline.limitAt(a.id, at);
    const throttle = buildAbuseTimeline(family.futures.hourlyActivity(a.id), abuse).throttleAt(at).throttle;
    const spotThrottle = family.spot === undefined ? null : buildSpotFillTimeline(family.spot.hourlyActivity(a.id), spotFill).throttleAt(at).throttle;
    accounts.set(a.id, {
      tier: state.tier,
      limit: state.limit,
      throttle,
      spotThrottle,
      vipLevel: state.vipLevel,
      reason: state.since?.reason ?? 'initial',
      rating: state.rating,
    });
  }
  let snapshot: Snapshot | null = null;
  for (const s of timeline.snapshots) if (s.day <= at) snapshot = s;
  return { at, until, accounts, aggregated: snapshot?.aggregated ?? null, snapshotAt: snapshot?.day ?? null };
}
