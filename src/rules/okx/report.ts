import { InvalidInputError } from '../../errors.js';
import type { Dec } from '../../internal/decimal.js';
import { isInstant, parseNonNegativeDecimal } from '../../internal/parse.js';
import type { ReportedTier } from '../report.js';
import type { TierTable } from '../tiers.js';

const ENDPOINT = 'GET /api/v5/trade/account-rate-limit';

/**
 * What OKX reports of a sub-account's limit (see docs/okx.md#o9), read from GET
 * /api/v5/trade/account-rate-limit: the limit in force and the one expected after a pending
 * lowering, as tiers of the table, and the fill ratios behind them.
 *
 * @example
 * ```ts
 * import { type OkxRateLimitReport, okx, readAccountRateLimit } from 'traderatio/rules'
 *
 * const answer = { code: '0', msg: '', data: [{ accRateLimit: '2500', fillRatio: '4.2', mainFillRatio: '12', nextAccRateLimit: '2500', ts: '1795248000000' }] }
 * const report: OkxRateLimitReport = readAccountRateLimit(answer, okx.tiers)
 * report.tier // 6
 * report.mainRatio?.toString() // '12'
 * ```
 */
export interface OkxRateLimitReport extends ReportedTier {
  /** `accRateLimit`: the limit in force, requests per 2 s. */
  readonly limit: number;
  /**
   * `fillRatio`: the sub-account's fill ratio, `null` below VIP 5 (where OKX answers ""). OKX
   * writes "0" for no volume and "9999" for volume without a counted request.
   */
  readonly ratio: Dec | null;
  /** `mainFillRatio`: the main account's aggregated fill ratio, `null` below VIP 5. */
  readonly mainRatio: Dec | null;
  /** `nextAccRateLimit`: the limit expected in the next period (after a pending lowering), `null` below VIP 5. */
  readonly nextLimit: number | null;
  /** The tier of `nextLimit`, `null` below VIP 5. */
  readonly nextTier: number | null;
  /** `ts` as epoch milliseconds: 08:00 UTC of the day from VIP 5, the moment of the answer below it. */
  readonly updatedAt: number;
  /** Whether the account is tiered by its ratio (VIP 5 and above): the ratios are given. */
  readonly tiered: boolean;
}

/**
 * Reads OKX's answer to GET /api/v5/trade/account-rate-limit (see docs/okx.md#o9): the whole
 * answer `{ code, msg, data: [row] }`, its `data`, or the row. Every field is a string as OKX
 * writes it; the limits are found in `tiers` (the tier table of the rules in use), the ratios
 * read exactly ("" below VIP 5). An answer whose `code` is not "0" is no report, and a bad field
 * is refused naming it.
 *
 * @example
 * ```ts
 * import { okx, readAccountRateLimit } from 'traderatio/rules'
 *
 * // A lowering pending: 2,500 per 2 s today, 1,750 expected tomorrow at 08:00 UTC.
 * const row = { accRateLimit: '2500', fillRatio: '3.2', mainFillRatio: '3.2', nextAccRateLimit: '1750', ts: '1795248000000' }
 * const report = readAccountRateLimit([row], okx.tiers)
 * report.tier // 6
 * report.nextTier // 4
 * readAccountRateLimit({ ...row, fillRatio: '', mainFillRatio: '', accRateLimit: '1000', nextAccRateLimit: '' }, okx.tiers).tiered // false
 * ```
 */
export function readAccountRateLimit(answer: unknown, tiers: TierTable): OkxRateLimitReport {
  const row = rowOf(answer);
  const r = row as Record<string, unknown>;
  const field = (name: string): string => `\`${name}\` of the ${ENDPOINT} answer`;
  const limit = readLimit(r['accRateLimit'], field('accRateLimit'), tiers);
  const ratio = readRatio(r['fillRatio'], field('fillRatio'));
  const mainRatio = readRatio(r['mainFillRatio'], field('mainFillRatio'));
  const next = r['nextAccRateLimit'] === '' ? null : readLimit(r['nextAccRateLimit'], field('nextAccRateLimit'), tiers);
  const tiered = ratio !== null;
  if ((mainRatio !== null) !== tiered || (next !== null) !== tiered) {
    throw new InvalidInputError(
      field('fillRatio'),
      r['fillRatio'],
      'given with `mainFillRatio` and `nextAccRateLimit`, or "" with both (below VIP 5)',
    );
  }
  return Object.freeze({
    tier: limit.tier,
    limit: limit.limit,
    ratio,
    mainRatio,
    nextLimit: next?.limit ?? null,
    nextTier: next?.tier ?? null,
    updatedAt: readMilliseconds(r['ts'], field('ts')),
    tiered,
  });
}

/** The one row of an answer, its `data` or the row itself. */
function rowOf(answer: unknown): object {
  let rows: unknown = answer;
  if (typeof answer === 'object' && answer !== null && !Array.isArray(answer) && 'data' in answer) {
    const code = (answer as { code?: unknown }).code;
    if (code !== undefined && code !== '0') {
      throw new InvalidInputError(`\`code\` of the ${ENDPOINT} answer`, code, '"0" (an answer that carries a report)');
    }
    rows = (answer as { data: unknown }).data;
  }
  if (Array.isArray(rows)) {
    if (rows.length !== 1 || typeof rows[0] !== 'object' || rows[0] === null) {
      throw new InvalidInputError(`\`data\` of the ${ENDPOINT} answer`, rows, 'a list of one row');
    }
    return rows[0] as object;
  }
  if (typeof rows !== 'object' || rows === null) {
    throw new InvalidInputError(
      `the ${ENDPOINT} answer`,
      answer,
      'an object { code, data: [row] }, its data or its row',
    );
  }
  return rows;
}

/** A limit per 2 s as OKX writes it ("2500"), and its tier in the table. */
function readLimit(value: unknown, field: string, tiers: TierTable): { limit: number; tier: number } {
  const limit = typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  const tier = tiers.find((t) => t.limit === limit);
  if (tier === undefined) {
    throw new InvalidInputError(field, value, `a limit of the tier table (${tiers.map((t) => t.limit).join(', ')})`);
  }
  return { limit, tier: tier.tier };
}

/** A fill ratio as OKX writes it: decimal text, or "" below VIP 5. */
function readRatio(value: unknown, field: string): Dec | null {
  if (value === '') return null;
  if (typeof value !== 'string') throw new InvalidInputError(field, value, 'a decimal string, or "" below VIP 5');
  return parseNonNegativeDecimal(value, field);
}

/** Epoch milliseconds as OKX writes them ("1795248000000"). */
function readMilliseconds(value: unknown, field: string): number {
  const ms = typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!isInstant(ms)) throw new InvalidInputError(field, value, 'epoch milliseconds as text, from 2000 to 2200');
  return ms;
}
