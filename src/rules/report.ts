import { InvalidInputError } from '../errors.js';
import type { Dec } from '../internal/decimal.js';
import { parseInstant, parseNonNegativeDecimal, parsePositiveInteger } from '../internal/parse.js';
import { type Tier, type TierRow, type TierTable, resolveTiers } from './tiers.js';

/**
 * One row of GET /account/rate_limit (R16): the exchange's own figure for the account.
 *
 * @example
 * ```ts
 * import { type RateLimitReport, readRateLimitReport, reportFor } from 'traderatio/rules'
 *
 * const row: RateLimitReport | undefined = reportFor(readRateLimitReport({ tier: '2', ratio: '1.5', main_ratio: '1.5', updated_at: 1795219200 }))
 * row?.mainRatio.toString() // '1.5'
 * ```
 */
export interface RateLimitReport {
  /** `type` as the exchange writes it (`spot`, `futures`), when the row has one. */
  readonly type?: string;
  /** `tier`: the fill-ratio tier the exchange applies. */
  readonly tier: number;
  /** `ratio`: the account's fill ratio. */
  readonly ratio: Dec;
  /** `main_ratio`: the main account's total fill ratio. */
  readonly mainRatio: Dec;
  /** `updated_at` (Unix seconds) as epoch milliseconds: when the exchange computed it. */
  readonly updatedAt: number;
}

/**
 * Reads the answer of GET /account/rate_limit (R16): rows of string fields `tier`, `ratio`,
 * `main_ratio`, `updated_at` (Unix seconds) and maybe `type`. Numbers are accepted where the API
 * writes strings. Each field is validated and a bad one is named with its row; two rows of the
 * same `type` are refused (one is a mistake, and which is unknown). A single row object is read as
 * a list of one.
 *
 * @example
 * ```ts
 * import { readRateLimitReport } from 'traderatio/rules'
 *
 * const [row] = readRateLimitReport([{ type: 'futures', tier: '4', ratio: '8.19', main_ratio: '8.19', updated_at: '1795219200' }])
 * row?.tier // 4
 * row?.ratio.toString() // '8.19'
 * row?.updatedAt // 1795219200000
 * ```
 */
export function readRateLimitReport(rows: unknown): readonly RateLimitReport[] {
  const list: readonly unknown[] = Array.isArray(rows) ? rows : typeof rows === 'object' && rows !== null ? [rows] : [];
  if (list.length === 0) {
    throw new InvalidInputError(
      'the GET /account/rate_limit answer',
      rows,
      'a non-empty array of { tier, ratio, main_ratio, updated_at }',
    );
  }
  const types = new Map<string | undefined, number>();
  return Object.freeze(
    list.map((row, i) => {
      if (typeof row !== 'object' || row === null)
        throw new InvalidInputError(`row ${i}`, row, 'an object { tier, ratio, main_ratio, updated_at }');
      const r = row as Record<string, unknown>;
      const type = r['type'];
      if (type !== undefined && (typeof type !== 'string' || type.length === 0)) {
        throw new InvalidInputError(`\`type\` of row ${i}`, type, 'a non-empty string ("spot", "futures")');
      }
      const first = types.get(type as string | undefined);
      if (first !== undefined) {
        throw new InvalidInputError(
          `\`type\` of row ${i}`,
          type ?? 'absent',
          `a type not already given by row ${first}`,
        );
      }
      types.set(type as string | undefined, i);
      return Object.freeze({
        ...(type === undefined ? {} : { type: type as string }),
        tier: readTier(r['tier'], `\`tier\` of row ${i}`),
        ratio: parseNonNegativeDecimal(r['ratio'], `\`ratio\` of row ${i}`),
        mainRatio: parseNonNegativeDecimal(r['main_ratio'], `\`main_ratio\` of row ${i}`),
        updatedAt: readSeconds(r['updated_at'], `\`updated_at\` of row ${i}`),
      });
    }),
  );
}

/**
 * The row of a market: the one of that `type`, else the one without a type, else `undefined`.
 * The fill-ratio tiers are those of perpetual futures (R3), hence the default.
 *
 * @example
 * ```ts
 * import { readRateLimitReport, reportFor } from 'traderatio/rules'
 *
 * const reports = readRateLimitReport([
 *   { type: 'spot', tier: '1', ratio: '0', main_ratio: '0', updated_at: '1795219200' },
 *   { type: 'futures', tier: '4', ratio: '8.19', main_ratio: '8.19', updated_at: '1795219200' },
 * ])
 * reportFor(reports)?.tier // 4
 * reportFor(reports, 'spot')?.tier // 1
 * ```
 */
export function reportFor(reports: readonly RateLimitReport[], type = 'futures'): RateLimitReport | undefined {
  return reports.find((r) => r.type === type) ?? reports.find((r) => r.type === undefined);
}

/**
 * What to do when the exchange's report and the local rules disagree (R16): `adopt` the report
 * when it is at least as new as the latest snapshot; `report` only (keep the local tier); `min`,
 * the lower of the two (for engines that must never exceed).
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
export interface ReconcileInput {
  /** The tier the local rules put in force at `at`. */
  readonly local: number;
  /** The instant of the latest snapshot (00:00 UTC, R5), or `null` before the first. */
  readonly snapshotAt: number | null;
  /** The exchange's report for the same account and market ({@link reportFor}). */
  readonly report: RateLimitReport;
  /** Now, epoch milliseconds: the report's age is measured to it. */
  readonly at: number;
  /** @default 'adopt' */
  readonly policy?: ReportPolicy;
  /** The tier table both tiers are read in. @default DEFAULT_TIERS */
  readonly tiers?: TierTable | readonly TierRow[];
}

/**
 * A disagreement between the local tier and the exchange's, to report (R16).
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
export interface TierDisagreement {
  /** The tier the local rules put in force. */
  readonly local: Tier;
  /** The tier the exchange reports. */
  readonly reported: Tier;
  /** `at - updatedAt`, milliseconds (negative when the local clock is behind the exchange's). */
  readonly reportAgeMs: number;
  /** The report is older than the latest snapshot: it speaks of an earlier window and changed nothing. */
  readonly stale: boolean;
  readonly policy: ReportPolicy;
  readonly report: RateLimitReport;
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
export interface TierReconciliation {
  readonly tier: Tier;
  readonly source: 'local' | 'report';
  /** `null` when both agree; nothing is ever changed silently. */
  readonly disagreement: TierDisagreement | null;
}

/**
 * Reconciles the locally computed tier with the exchange's report (R16). A report older than the
 * latest snapshot speaks of an earlier window: it never changes the tier, whatever the policy. A
 * newer one (or one made at the snapshot's instant) sets the tier in force under `adopt` (the
 * default), leaves the local one under `report`, and under `min` the lower of the two wins. Every
 * disagreement is returned with both tiers and the report's age, to be reported.
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
export function reconcileTier(input: ReconcileInput): TierReconciliation {
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

// The API writes the tier as a string ("4").
function readTier(value: unknown, field: string): number {
  return parsePositiveInteger(typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value, field);
}

function readSeconds(value: unknown, field: string): number {
  const ms = parseNonNegativeDecimal(value, field).times(1000).round().toNumber();
  if (!Number.isSafeInteger(ms)) throw new InvalidInputError(field, value, 'Unix seconds');
  return ms;
}
