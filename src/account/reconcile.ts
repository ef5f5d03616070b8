import type { FamilyConfig } from '../rules/family.js';
import { type RateLimitReport, type ReportPolicy, type TierReconciliation, reconcileTier } from '../rules/report.js';
import type { Tier } from '../rules/tiers.js';
import type { AccountStatus, LimiterEvent } from './limiter-events.js';

/** An account's tier by the rules and the exchange's report held for it (see docs/rules.md#r16). */
export interface HeldReport {
  /** The tier the rules give (after a live downgrade) and why, before the exchange's report. */
  local: { tier: Tier; reason: AccountStatus['reason'] };
  /** The exchange's latest report not older than the latest snapshot (see docs/rules.md#r16), or null. */
  report: RateLimitReport | null;
  /**
   * When the report held was taken, on the rules' clock: it holds until the rules change the limit
   * at a boundary after it (see docs/rules.md#r16), as the 08:00 raise of a report asked at 07:00.
   */
  takenAt: number;
  /** The report held is a figure a placement's answer stated (see docs/rules.md#r16), not GET /account/rate_limit's. */
  stated: boolean;
  /** The limit the latest such figure stated. */
  statedLimit: number | null;
  /**
   * A lowering in force one window before its boundary (see docs/rules.md#r15), which the report held cannot know
   * of yet: the tier in force is no higher than it. Null when none is ahead.
   */
  lowering: { tier: Tier; reason: AccountStatus['reason'] } | null;
}

/** What a report is reconciled against at `at`. */
export interface ReconcileContext {
  readonly at: number;
  /** The instant after which a report is news: the latest snapshot or VIP change (see `latestChange`). */
  readonly snapshotAt: number;
  readonly policy: ReportPolicy;
  readonly tiers: FamilyConfig['tiers'];
}

/**
 * Reconciles a new report of the exchange with the rules' tier (see docs/rules.md#r16), and holds it when it is news
 * (made at or after `snapshotAt`, and not older than the report held).
 */
export function takeReport(held: HeldReport, report: RateLimitReport, context: ReconcileContext): TierReconciliation {
  const r = reconcileTier({
    local: held.local.tier.tier,
    snapshotAt: context.snapshotAt,
    report,
    at: context.at,
    policy: context.policy,
    tiers: context.tiers,
  });
  if (report.updatedAt >= context.snapshotAt && (held.report === null || report.updatedAt >= held.report.updatedAt)) {
    held.report = report;
    held.takenAt = context.at;
    held.stated = false;
  }
  return r;
}

/**
 * The tier in force: the rules' (`held.local`), reconciled with the exchange's report held (see docs/rules.md#r16).
 * A report older than the latest snapshot or VIP change is dropped: it spoke of what came before.
 */
export function reconciled(
  held: HeldReport,
  context: ReconcileContext,
): { tier: Tier; reason: AccountStatus['reason'] } {
  if (held.report === null) return held.local;
  const r = reconcileTier({
    local: held.local.tier.tier,
    snapshotAt: context.snapshotAt,
    report: held.report,
    at: context.at,
    policy: context.policy,
    tiers: context.tiers,
  });
  if (r.disagreement?.stale === true) held.report = null;
  if (r.source !== 'report') return held.local;
  const lowering = held.lowering;
  return lowering !== null && lowering.tier.tier < r.tier.tier ? lowering : { tier: r.tier, reason: 'report' };
}

/**
 * The `report` event of a disagreement between the exchange's report and the rules (see docs/rules.md#r16), with
 * the tier in force after it.
 */
export function reportEvent(
  account: string,
  at: number,
  report: RateLimitReport,
  d: NonNullable<TierReconciliation['disagreement']>,
  inForce: { readonly tier: Tier; readonly reason: AccountStatus['reason'] },
): LimiterEvent {
  return {
    type: 'report',
    account,
    at,
    local: { tier: d.local.tier, limit: d.local.limit },
    reported: {
      tier: d.reported.tier,
      limit: d.reported.limit,
      ratio: report.ratio.toString(),
      mainRatio: report.mainRatio.toString(),
      updatedAt: report.updatedAt,
    },
    reportAgeMs: d.reportAgeMs,
    stale: d.stale,
    policy: d.policy,
    inForce: { tier: inForce.tier.tier, limit: inForce.tier.limit },
    source: inForce.reason === 'report' ? 'report' : 'local',
  };
}
