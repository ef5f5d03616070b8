import { InvalidInputError } from '../errors.js';
import { parseInstant, parsePositiveInteger } from '../internal/parse.js';
import type { RateLimitReport } from './gate/report.js';
import { type Tier, type TierRow, type TierTable, resolveTiers } from './tiers.js';

export { type RateLimitReport, readRateLimitReport, reportFor } from './gate/report.js';

/**
 * What an exchange's report of the account says, as far as reconciling it with the rules goes:
 * the tier it applies and when it was computed. Gate's report ({@link RateLimitReport}) and OKX's
 * (`OkxRateLimitReport`) are both one.
 *
 * @example
 * ```ts
 * import { type ReportedTier, reconcileTier } from 'traderatio/rules'
 *
 * const report: ReportedTier = { tier: 2, updatedAt: Date.parse('2026-11-21T08:00:00Z') }
 * reconcileTier({ local: 2, snapshotAt: null, report, at: Date.parse('2026-11-21T09:00:00Z') }).disagreement // null
 * ```
 */
export interface ReportedTier {
  /** The tier the exchange applies, 1 for the lowest. */
  readonly tier: number;
  /** When the exchange computed it, epoch milliseconds. */
  readonly updatedAt: number;
}

/**
 * What to do when the exchange's report and the local rules disagree (see docs/rules.md#r16):
 * `adopt` the report when it is at least as new as the latest snapshot; `report` only (keep the
 * local tier); `min`, the lower of the two (for engines that must never exceed).
 *
 * @example
 * ```ts
 * import { type ReportPolicy, readRateLimitReport, reconcileTier } from 'traderatio/rules'
 *
 * const report = readRateLimitReport({ tier: '5', ratio: '10.06', main_ratio: '8.19', updated_at: 1795219200 })[0]!
 * const policy: ReportPolicy = 'min'
 * reconcileTier({ local: 4, snapshotAt: null, report, at: 1_795_219_260_000, policy }).source // 'local'
 * ```
 */
export type ReportPolicy = 'adopt' | 'report' | 'min';

/**
 * What {@link reconcileTier} is given.
 *
 * @example
 * ```ts
 * import { type ReconcileInput, readRateLimitReport, reconcileTier } from 'traderatio/rules'
 *
 * // A report made the day before the latest snapshot (00:00 UTC) is stale: the local tier stays.
 * const report = readRateLimitReport({ tier: '5', ratio: '10.06', main_ratio: '8.19', updated_at: 1795132800 })[0]!
 * const input: ReconcileInput = { local: 4, snapshotAt: 1_795_219_200_000, report, at: 1_795_219_260_000 }
 * reconcileTier(input).tier.tier // 4
 * reconcileTier(input).disagreement?.stale // true
 * ```
 */
export interface ReconcileInput<R extends ReportedTier = RateLimitReport> {
  /** The tier the local rules put in force at `at`. */
  readonly local: number;
  /** The instant of the latest snapshot (00:00 UTC; see docs/rules.md#r5), or `null` before the first. */
  readonly snapshotAt: number | null;
  /** The exchange's report for the same account and market ({@link reportFor}). */
  readonly report: R;
  /** Now, epoch milliseconds: the report's age is measured to it. */
  readonly at: number;
  /** @default 'adopt' */
  readonly policy?: ReportPolicy;
  /** The tier table both tiers are read in. @default DEFAULT_TIERS */
  readonly tiers?: TierTable | readonly TierRow[];
}

/**
 * A disagreement between the local tier and the exchange's, to report (see docs/rules.md#r16).
 *
 * @example
 * ```ts
 * import { type TierDisagreement, readRateLimitReport, reconcileTier } from 'traderatio/rules'
 *
 * const report = readRateLimitReport({ tier: '3', ratio: '4', main_ratio: '4', updated_at: 1795219200 })[0]!
 * const d: TierDisagreement | null = reconcileTier({ local: 4, snapshotAt: null, report, at: 1_795_219_200_000, policy: 'report' }).disagreement
 * d?.local.limit // 250
 * d?.reported.limit // 200
 * ```
 */
export interface TierDisagreement<R extends ReportedTier = RateLimitReport> {
  /** The tier the local rules put in force. */
  readonly local: Tier;
  /** The tier the exchange reports. */
  readonly reported: Tier;
  /** `at - updatedAt`, milliseconds (negative when the local clock is behind the exchange's). */
  readonly reportAgeMs: number;
  /** The report is older than the latest snapshot: it speaks of an earlier window and changed nothing. */
  readonly stale: boolean;
  readonly policy: ReportPolicy;
  readonly report: R;
}

/**
 * The tier in force after reconciliation, where it comes from, and what to report.
 *
 * @example
 * ```ts
 * import { type TierReconciliation, readRateLimitReport, reconcileTier } from 'traderatio/rules'
 *
 * const report = readRateLimitReport({ tier: '4', ratio: '8.19', main_ratio: '8.19', updated_at: 1795219200 })[0]!
 * const r: TierReconciliation = reconcileTier({ local: 4, snapshotAt: null, report, at: 1_795_219_200_000 })
 * r.source // 'local'
 * r.disagreement // null
 * ```
 */
export interface TierReconciliation<R extends ReportedTier = RateLimitReport> {
  readonly tier: Tier;
  readonly source: 'local' | 'report';
  /** `null` when both agree; nothing is ever changed silently. */
  readonly disagreement: TierDisagreement<R> | null;
}

/**
 * Reconciles the locally computed tier with the exchange's report (see docs/rules.md#r16). A report
 * older than the latest snapshot speaks of an earlier window: it never changes the tier, whatever
 * the policy. A newer one (or one made at the snapshot's instant) sets the tier in force under
 * `adopt` (the default), leaves the local one under `report`, and under `min` the lower of the two
 * wins. Every disagreement is returned with both tiers and the report's age, to be reported.
 *
 * @example
 * ```ts
 * import { readRateLimitReport, reconcileTier } from 'traderatio/rules'
 *
 * const report = readRateLimitReport([{ tier: '5', ratio: '10.06', main_ratio: '8.19', updated_at: '1795219200' }])[0]!
 * const r = reconcileTier({ local: 4, snapshotAt: 1_795_219_200_000, report, at: 1_795_219_260_000 })
 * r.tier.tier // 5
 * r.source // 'report'
 * r.disagreement?.reportAgeMs // 60000
 * ```
 */
export function reconcileTier<R extends ReportedTier = RateLimitReport>(
  input: ReconcileInput<R>,
): TierReconciliation<R> {
  if (typeof input !== 'object' || input === null)
    throw new InvalidInputError('reconciliation input', input, 'an object { local, snapshotAt, report, at }');
  const tiers = resolveTiers(input.tiers);
  const local = tierOf(tiers, parsePositiveInteger(input.local, '`local`'), '`local`');
  const snapshotAt = input.snapshotAt === null ? null : parseInstant(input.snapshotAt, '`snapshotAt`');
  const at = parseInstant(input.at, '`at`');
  const policy = input.policy ?? 'adopt';
  if (policy !== 'adopt' && policy !== 'report' && policy !== 'min') {
    throw new InvalidInputError('`policy`', policy, '"adopt", "report" or "min"');
  }
  const report = input.report;
  if (typeof report !== 'object' || report === null)
    throw new InvalidInputError('`report`', report, 'a report (readRateLimitReport)');
  const reported = tierOf(tiers, parsePositiveInteger(report.tier, '`tier` of the report'), '`tier` of the report');
  const updatedAt = parseInstant(report.updatedAt, '`updatedAt` of the report');
  if (reported === local) return { tier: local, source: 'local', disagreement: null };
  const stale = snapshotAt !== null && updatedAt < snapshotAt;
  const fromReport = !stale && (policy === 'adopt' || (policy === 'min' && reported.tier < local.tier));
  return {
    tier: fromReport ? reported : local,
    source: fromReport ? 'report' : 'local',
    disagreement: { local, reported, reportAgeMs: at - updatedAt, stale, policy, report },
  };
}

function tierOf(tiers: TierTable, n: number, field: string): Tier {
  const tier = tiers[n - 1];
  if (tier === undefined) throw new InvalidInputError(field, n, `a tier of the table (1 to ${tiers.length})`);
  return tier;
}
