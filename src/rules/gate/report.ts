import { InvalidInputError } from '../../errors.js';
import type { Dec } from '../../internal/decimal.js';
import { parseNonNegativeDecimal, parsePositiveInteger } from '../../internal/parse.js';
import type { ReportedTier } from '../report.js';

/**
 * One row of GET /account/rate_limit: the exchange's own figure for the account (see
 * docs/rules.md#r16).
 *
 * @example
 * ```ts
 * import { type RateLimitReport, readRateLimitReport, reportFor } from 'traderatio/rules'
 *
 * const row: RateLimitReport | undefined = reportFor(readRateLimitReport({ tier: '2', ratio: '1.5', main_ratio: '1.5', updated_at: 1795219200 }))
 * row?.mainRatio.toString() // '1.5'
 * ```
 */
export interface RateLimitReport extends ReportedTier {
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
 * Reads the answer of GET /account/rate_limit (see docs/rules.md#r16): rows of string fields
 * `tier`, `ratio`, `main_ratio`, `updated_at` (Unix seconds) and maybe `type`. Numbers are accepted
 * where the API writes strings. Each field is validated and a bad one is named with its row; two
 * rows of the same `type` are refused (one is a mistake, and which is unknown). A single row object
 * is read as a list of one.
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
 * The fill-ratio tiers are those of perpetual futures (see docs/rules.md#r3), hence the default.
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

// The API writes the tier as a string ("4").
function readTier(value: unknown, field: string): number {
  return parsePositiveInteger(typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value, field);
}

function readSeconds(value: unknown, field: string): number {
  const ms = parseNonNegativeDecimal(value, field).times(1000).round().toNumber();
  if (!Number.isSafeInteger(ms)) throw new InvalidInputError(field, value, 'Unix seconds');
  return ms;
}
