import { DAY_MS } from '../rules/calendar.js';
import type { Rulebook } from '../rules/rulebook.js';
import type { Tier, TierTable } from '../rules/tiers.js';
import type { Timeline } from '../rules/timeline/timeline.js';
import { tierInForce } from '../rules/vip.js';

/**
 * A day of grace: a snapshot gave an account a worse tier than the one in force at its raise
 * instant, and a rulebook whose lowerings wait a day kept the better tier until the same instant
 * of the next day (see docs/okx.md#o7).
 */
export interface GracePeriod {
  readonly account: string;
  /** The raise instant of the worse snapshot's day (08:00 UTC): where a lowering at once would have been. */
  readonly from: number;
  /** A day later: the worse tier applies then, or not at all when that day's snapshot is better. */
  readonly until: number;
  /** The tier kept during the grace. */
  readonly held: Tier;
  /** The worse tier the snapshot gave (tier 1 below the tiered VIP level). */
  readonly snapshotTier: Tier;
  /** `lowered` at `until`, or `cancelled` by a better snapshot of the next day. */
  readonly outcome: 'lowered' | 'cancelled';
}

/**
 * The days of grace of a timeline, read from its snapshots and the limits it gives: for each
 * snapshot and account, a snapshot tier (as the VIP level then puts it in force) below the tier in
 * force at the snapshot's raise instant. None where the rulebook lowers at the snapshot.
 */
export function gracePeriods(timeline: Timeline, tiers: TierTable, rulebook: Rulebook): GracePeriod[] {
  if (rulebook.timing.lowering !== 'after-grace') return [];
  const out: GracePeriod[] = [];
  for (const s of timeline.snapshots) {
    const from = s.day + rulebook.timing.raiseAfterMs;
    const until = from + DAY_MS;
    const vip = timeline.vipLevelAt(s.day);
    for (const r of s.accounts) {
      const snapshotTier = tierInForce(vip, r.tier, tiers, rulebook.tieredVipLevel);
      const held = timeline.limitAt(r.account, from).tier;
      if (snapshotTier.tier >= held.tier) continue;
      const after = timeline.limitAt(r.account, until).tier;
      out.push({
        account: r.account,
        from,
        until,
        held,
        snapshotTier,
        outcome: after.tier < held.tier ? 'lowered' : 'cancelled',
      });
    }
  }
  return out;
}
