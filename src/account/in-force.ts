import {
  type AbuseConfig,
  type AbuseTimeline,
  type HourlyActivity,
  type Throttle,
  buildAbuseTimeline,
} from '../rules/abuse.js';
import { HOUR_MS, utcHourStart } from '../rules/calendar.js';
import type { AccountRating, FamilyConfig } from '../rules/family.js';
import type { RatioResult } from '../rules/ratio.js';
import { type SpotFillConfig, buildSpotFillTimeline } from '../rules/spot-fill.js';
import {
  type ChangeReason,
  type DailyActivity,
  type DailyRating,
  type Timeline,
  type TimelineAccount,
  type VipChange,
  buildTimeline,
} from '../rules/timeline/timeline.js';
import type { Tier } from '../rules/tiers.js';
import { isTieredVip } from '../rules/vip.js';

/** Where an account's hourly order requests and USDT traded are read (a `Tracker`). */
export interface HourlyCounts {
  hourlyActivity(account: string): readonly HourlyActivity[];
}

/**
 * What the limits in force are read from: the family's limit timeline and the hourly counts the
 * throttles look at. Every field is read, none is changed.
 */
export interface LimitsState {
  /** The family's limit timeline (see docs/rules.md#r3 to #r8): its accounts, VIP history and daily activity. */
  readonly timeline: Timeline;
  /** Futures order requests and fills by the hour, for the abuse throttle (see docs/rules.md#r9). */
  readonly futures: HourlyCounts;
  /** Spot order requests and fills by the hour, for the low-fill throttle (see docs/rules.md#r14); null: never throttled. */
  readonly spot: HourlyCounts | null;
  readonly abuse: AbuseConfig;
  /** @default the defaults of the spot low-fill throttle (see docs/rules.md#r14) */
  readonly spotFill?: SpotFillConfig;
  /** The first VIP level tiered by the ratio (see docs/rules.md#r4). @default 14 (Gate's; OKX's is 5) */
  readonly tieredFrom?: number;
}

/**
 * Where the exchange's clock may be (see docs/rules.md#r15): `early` the earliest instant it may read, where a raise
 * is certain, `late` the latest, where a lowering is already due. One instant for both when the
 * clock is known.
 */
export interface InstantBounds {
  readonly early: number;
  readonly late: number;
}

/** The tier, limit and throttles the rules put in force for one account. */
export interface LimitsInForce {
  /** The tier (see docs/rules.md#r3 to #r8). */
  readonly tier: Tier;
  /** Futures placement and amendment, requests per second (the tier's limit). */
  readonly limit: number;
  readonly vipLevel: number;
  /** Why the tier is what it is: `vip-below-14` below VIP 14 (see docs/rules.md#r4), else as `lastChange`. */
  readonly reason: ChangeReason | 'initial';
  /** The reason of the change that set the tier, or `initial` before any. */
  readonly lastChange: ChangeReason | 'initial';
  /** The abuse throttle (see docs/rules.md#r9), or null. */
  readonly throttle: Throttle | null;
  /** The spot low-fill throttle (see docs/rules.md#r14), or null. */
  readonly spotThrottle: Throttle | null;
  /** The latest snapshot's rating of the account (see docs/rules.md#r1, #r7), or null before the first one. */
  readonly rating: AccountRating | null;
}

/**
 * The tier, limit and throttles in force for `account` at `at` (see docs/rules.md#r3 to #r9, #r14): a pure function of
 * the state and the instant, which the account limiter refreshes on and the model exchange
 * answers from (and through it `simulate`). With bounds for `at`, a lowering is read at `late`
 * and a raise at `early` (see docs/rules.md#r15): the tier is the lower of the two, each throttle the stricter, and
 * the rest comes with the tier. An account created within the bounds has no state before its
 * creation: `early` is then its creation. The account must be one of the timeline's and not be
 * created after `late` (the timeline throws otherwise). The answer holds until the next whole
 * hour, VIP change or creation.
 */
export function limitsAt(state: LimitsState, account: TimelineAccount, at: number | InstantBounds): LimitsInForce {
  const early = typeof at === 'number' ? at : at.early;
  const late = typeof at === 'number' ? at : at.late;
  const s =
    typeof at === 'number'
      ? state.timeline.limitAt(account.id, at)
      : stricterState(
          state.timeline.limitAt(account.id, Math.max(early, account.createdAt ?? early)),
          state.timeline.limitAt(account.id, late),
        );
  const abuse = buildAbuseTimeline(state.futures.hourlyActivity(account.id), state.abuse);
  const spot =
    state.spot === null ? null : buildSpotFillTimeline(state.spot.hourlyActivity(account.id), state.spotFill);
  const lastChange = s.since?.reason ?? 'initial';
  return {
    tier: s.tier,
    limit: s.limit,
    vipLevel: s.vipLevel,
    // Below VIP 14 the tier is 1 whatever changed last (a drop at the instant of a raise changes nothing).
    reason: !isTieredVip(s.vipLevel, state.tieredFrom) ? 'vip-below-14' : lastChange,
    lastChange,
    throttle: throttleAt(abuse, early, late),
    spotThrottle: spot === null ? null : throttleAt(spot, early, late),
    rating: s.rating,
  };
}

/**
 * Of two readings of what is in force, the stricter (see docs/rules.md#r15: a lowering is never late): the one of
 * the lower tier, with each throttle the stricter of the two.
 */
export function stricterLimits(a: LimitsInForce, b: LimitsInForce): LimitsInForce {
  const base = stricterState(a, b);
  return {
    ...base,
    throttle: stricterThrottle(a.throttle, b.throttle),
    spotThrottle: stricterThrottle(a.spotThrottle, b.spotThrottle),
  };
}

/** Whether two readings of what is in force set the same limits: the tier and both throttles. */
export function sameLimits(a: LimitsInForce, b: LimitsInForce): boolean {
  return (
    a.tier.tier === b.tier.tier && sameThrottle(a.throttle, b.throttle) && sameThrottle(a.spotThrottle, b.spotThrottle)
  );
}

function sameThrottle(a: Throttle | null, b: Throttle | null): boolean {
  return a === null || b === null ? a === b : a.reason === b.reason && a.limit === b.limit && a.windowMs === b.windowMs;
}

/** Of the states at both edges of the exchange's clock (see docs/rules.md#r15), the one of the lower tier (a raise waits, a lowering does not). */
function stricterState<S extends { readonly tier: Tier }>(early: S, late: S): S {
  return early.tier.tier < late.tier.tier ? early : late;
}

/** The stricter of a throttle timeline's throttles at both edges. */
function throttleAt(timeline: AbuseTimeline, early: number, late: number): Throttle | null {
  const t = timeline.throttleAt(late).throttle;
  return early === late ? t : stricterThrottle(timeline.throttleAt(early).throttle, t);
}

/** Of two throttles, the stricter: any throttle over none, else the lower rate. */
function stricterThrottle(a: Throttle | null, b: Throttle | null): Throttle | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.limit / a.windowMs < b.limit / b.windowMs ? a : b;
}

/** Where a family's order requests and fills are read, by the day and by the hour (a `Tracker`). */
export interface FamilyCounts extends HourlyCounts {
  dailyActivity(): readonly DailyActivity[];
}

/** What a family is rated on: its accounts, VIP history and counted futures activity. */
export interface FamilyActivity {
  readonly accounts: readonly TimelineAccount[];
  /** The VIP level before the first change (see docs/rules.md#r4). */
  readonly vipLevel: number;
  readonly vipChanges: readonly VipChange[];
  /** The family's futures order requests and fills (see docs/rules.md#r1, #r9): a `Tracker`, or a view of one. */
  readonly futures: FamilyCounts;
  /** The family's spot order requests and fills (see docs/rules.md#r14). */
  readonly spot?: FamilyCounts;
}

/** What is in force for one account at an instant. */
export interface AccountInForce {
  /** The tier (see docs/rules.md#r3 to #r8). */
  readonly tier: Tier;
  /** Futures placement and amendment, requests per second (the tier's limit). */
  readonly limit: number;
  /** The abuse throttle (see docs/rules.md#r9), or null. */
  readonly throttle: Throttle | null;
  /** The spot low-fill throttle (see docs/rules.md#r14), or null. */
  readonly spotThrottle: Throttle | null;
  readonly vipLevel: number;
  /** Why the tier is what it is: the last change's reason, or `initial`. */
  readonly reason: ChangeReason | 'initial';
  /** The latest snapshot's rating of the account (see docs/rules.md#r1, #r7), or null before the first one. */
  readonly rating: AccountRating | null;
}

/** What is in force for a family's accounts from `at` until `until`. */
export interface FamilyInForce {
  readonly at: number;
  /** The first instant at which it may change: the next whole hour, VIP change or creation. */
  readonly until: number;
  readonly accounts: ReadonlyMap<string, AccountInForce>;
  /** The family's aggregated ratio at the latest snapshot (see docs/rules.md#r7), or null before the first one. */
  readonly aggregated: RatioResult | null;
  /** The instant of the latest snapshot (00:00 UTC), or null. */
  readonly snapshotAt: number | null;
}

/**
 * The tier, limit and throttles in force for every account of a family at `at` (see docs/rules.md#r3 to #r9, #r14), from
 * the same pure rules the account limiter refreshes on: the limit timeline's `limitAt` and the
 * throttle timelines' `throttleAt`. Both change only at whole hours, VIP changes and creations, so the
 * answer holds until `until`.
 */
export function familyInForce(
  family: FamilyActivity,
  config: FamilyConfig,
  abuse: AbuseConfig,
  at: number,
  spotFill?: SpotFillConfig,
): FamilyInForce {
  const timeline = buildTimeline(
    {
      accounts: family.accounts,
      activity: family.futures.dailyActivity(),
      vipLevel: family.vipLevel,
      vipChanges: family.vipChanges,
    },
    config,
  );
  let until = utcHourStart(at) + HOUR_MS;
  for (const v of family.vipChanges) if (v.at > at && v.at < until) until = v.at;
  const state: LimitsState = {
    timeline,
    futures: family.futures,
    spot: family.spot ?? null,
    abuse,
    ...(spotFill === undefined ? {} : { spotFill }),
  };
  const accounts = new Map<string, AccountInForce>();
  for (const a of family.accounts) {
    if (a.createdAt !== undefined && a.createdAt > at) {
      if (a.createdAt < until) until = a.createdAt;
      continue;
    }
    const l = limitsAt(state, a, at);
    accounts.set(a.id, {
      tier: l.tier,
      limit: l.limit,
      throttle: l.throttle,
      spotThrottle: l.spotThrottle,
      vipLevel: l.vipLevel,
      reason: l.lastChange,
      rating: l.rating,
    });
  }
  let snapshot: DailyRating | null = null;
  for (const s of timeline.snapshots) if (s.day <= at) snapshot = s;
  return { at, until, accounts, aggregated: snapshot?.aggregated ?? null, snapshotAt: snapshot?.day ?? null };
}
