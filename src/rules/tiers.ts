import { InvalidInputError, show } from '../errors.js';
import type { Dec, DecimalInput } from '../internal/decimal.js';
import { checkFields, parseNonNegativeDecimal, parsePositiveInteger } from '../internal/parse.js';
import { type Fixed, fixedCmp, fixedFromDec, fixedMul } from '../internal/fixed.js';
import { type Fraction, type RatioResult, fractionOf } from './ratio.js';
import { partitionPoint } from '../internal/search.js';
import { GATE } from './gate/rulebook.js';
import type { Rulebook } from './rulebook.js';

/**
 * One row of a tier table as a user writes it.
 *
 * @example
 * ```ts
 * import { tierFor, type TierRow } from 'traderatio/rules'
 *
 * const rows: TierRow[] = [{ minRatio: '0', limit: 100 }, { minRatio: '2.5', limit: 300 }]
 * tierFor('2.5', rows).limit // 300
 * ```
 */
export interface TierRow {
  /** The lowest ratio of the tier (included). The first row's must be 0. */
  readonly minRatio: DecimalInput;
  /** Order placement and amendment limit of the tier, requests per tier window (Gate: per second; OKX: per 2 s). */
  readonly limit: number;
}

/**
 * One tier of a validated table.
 *
 * @example
 * ```ts
 * import { tierFor, type Tier } from 'traderatio/rules'
 *
 * const tier: Tier = tierFor('8.19')
 * tier.tier // 4
 * tier.limit // 250
 * tier.maxRatio?.toString() // '10'
 * ```
 */
export interface Tier {
  /** 1 for the lowest tier. */
  readonly tier: number;
  /** Lowest ratio of the tier, included. */
  readonly minRatio: Dec;
  /** Lowest ratio of the next tier (excluded), or `null` for the top tier. */
  readonly maxRatio: Dec | null;
  /** Requests per tier window: per second under Gate's rules, per 2 s under OKX's. */
  readonly limit: number;
}

/**
 * A validated tier table: tiers in increasing order, tier 1 first.
 *
 * @example
 * ```ts
 * import { tierFor, type TierTable, createTierTable } from 'traderatio/rules'
 *
 * const table: TierTable = createTierTable([{ minRatio: '0', limit: 100 }, { minRatio: '4', limit: 200 }])
 * table.map((t) => t.maxRatio?.toString() ?? null) // ['4', null]
 * tierFor('3.99', table).tier // 1
 * ```
 */
export type TierTable = readonly Tier[];

const TIER_ROW_FIELDS: readonly string[] = ['minRatio', 'limit'];

/**
 * Validates a tier table (see docs/rules.md#r3): the first bound is 0, bounds increase strictly,
 * limits are positive integers that never decrease from one tier to the next.
 *
 * @example
 * ```ts
 * import { tierFor, createTierTable } from 'traderatio/rules'
 *
 * const table = createTierTable([{ minRatio: '0', limit: 100 }, { minRatio: '2', limit: 300 }])
 * tierFor('2', table).limit // 300
 * ```
 */
export function createTierTable(rows: readonly TierRow[]): TierTable {
  if (!Array.isArray(rows) || rows.length === 0) {
    throw new InvalidInputError('`tiers`', rows, 'a non-empty array of { minRatio, limit }');
  }
  const parsed = rows.map((row: TierRow, i) => {
    if (typeof row !== 'object' || row === null)
      throw new InvalidInputError(`\`tiers[${i}]\``, row, 'an object { minRatio, limit }');
    checkFields(row, TIER_ROW_FIELDS, `\`tiers[${i}]\``);
    return {
      minRatio: parseNonNegativeDecimal(row.minRatio, `\`tiers[${i}].minRatio\``),
      limit: parsePositiveInteger(row.limit, `\`tiers[${i}].limit\``),
    };
  });
  if (!parsed[0]!.minRatio.isZero()) {
    throw new InvalidInputError('`tiers[0].minRatio`', rows[0]!.minRatio, '0 (the first tier starts at ratio 0)');
  }
  for (let i = 1; i < parsed.length; i++) {
    if (!parsed[i]!.minRatio.greaterThan(parsed[i - 1]!.minRatio)) {
      throw new InvalidInputError(
        `\`tiers[${i}].minRatio\``,
        rows[i]!.minRatio,
        `greater than \`tiers[${i - 1}].minRatio\` (${show(rows[i - 1]!.minRatio)}): bounds must increase strictly`,
      );
    }
    if (parsed[i]!.limit < parsed[i - 1]!.limit) {
      throw new InvalidInputError(
        `\`tiers[${i}].limit\``,
        rows[i]!.limit,
        `at least \`tiers[${i - 1}].limit\` (${parsed[i - 1]!.limit}): a better ratio never lowers the limit`,
      );
    }
  }
  const table: TierTable = Object.freeze(
    parsed.map((row, i) =>
      Object.freeze({
        tier: i + 1,
        minRatio: row.minRatio,
        maxRatio: parsed[i + 1]?.minRatio ?? null,
        limit: row.limit,
      }),
    ),
  );
  validated.add(table);
  return table;
}

const validated = new WeakSet<TierTable>();

/**
 * Gate's perpetual-futures tier table (see docs/rules.md#r3): 100 to 400 requests per second.
 *
 * @example
 * ```ts
 * import { DEFAULT_TIERS } from 'traderatio/rules'
 *
 * DEFAULT_TIERS.map((t) => t.limit) // [100, 150, 200, 250, 300, 350, 400]
 * DEFAULT_TIERS.map((t) => t.minRatio.toNumber()) // [0, 1, 3, 5, 10, 20, 50]
 * ```
 */
export const DEFAULT_TIERS: TierTable = createTierTable(GATE.tiers.rows);

const tables = new WeakMap<Rulebook, TierTable>([[GATE, DEFAULT_TIERS]]);

/** A rulebook's tier table, validated once. */
export function tierTableOf(rulebook: Rulebook): TierTable {
  let table = tables.get(rulebook);
  if (table === undefined) tables.set(rulebook, (table = createTierTable(rulebook.tiers.rows)));
  return table;
}

/** Resolves a `tiers` option: a validated table passes through, rows are validated, none gives `fallback`. */
export function resolveTiers(
  tiers: TierTable | readonly TierRow[] | undefined,
  fallback: TierTable = DEFAULT_TIERS,
): TierTable {
  if (tiers === undefined) return fallback;
  if (validated.has(tiers as TierTable)) return tiers as TierTable;
  return createTierTable(tiers as readonly TierRow[]);
}

/**
 * The tier of a ratio (see docs/rules.md#r3). Bounds include their lower end: 1 is tier 2, 0.999...
 * is tier 1. `null` (no counted requests) is the lowest tier. `tiers` is a table made by {@link
 * createTierTable}, or rows that are validated as it validates them (an empty table or bounds out
 * of order are refused).
 *
 * @example
 * ```ts
 * import { tierFor } from 'traderatio/rules'
 *
 * tierFor('8.19').limit  // 250
 * tierFor('10.06').limit // 300
 * ```
 */
export function tierFor(ratio: DecimalInput | null, tiers: TierTable | readonly TierRow[] = DEFAULT_TIERS): Tier {
  const table = resolveTiers(tiers);
  if (ratio === null) return table[0]!;
  const r = parseNonNegativeDecimal(ratio, '`ratio`');
  return table[tierIndexReached(table.length, (i) => r.greaterThanOrEqualTo(table[i]!.minRatio))]!;
}

/**
 * The index in a tier table of the highest tier whose lower bound a ratio reaches (see
 * docs/rules.md#r3), given `reaches(i)`: whether the ratio is at or above the bound of the tier at
 * index `i`. The bounds increase, so the tiers reached are a prefix; the first tier's bound is 0,
 * reached by every ratio, and is not asked about. Every tier lookup (on decimals, exact fractions
 * or screening doubles) is this one.
 */
export function tierIndexReached(tierCount: number, reaches: (index: number) => boolean): number {
  return partitionPoint(tierCount - 1, (i) => reaches(i + 1));
}

/**
 * The tier of a computed ratio, decided exactly on the fraction (numerator >= bound x denominator),
 * so that a quotient rounded for display never moves an account across a bound (see
 * docs/rules.md#r1, #r3).
 *
 * @example
 * ```ts
 * import { tradeRatio, tierOfRatio } from 'traderatio/rules'
 *
 * // Exactly 5: tier 4.
 * tierOfRatio(tradeRatio([{ contract: 'BTC_USDT', makerVolume: '15', place: 3 }])).tier // 4
 * ```
 */
export function tierOfRatio(ratio: RatioResult, tiers: TierTable | readonly TierRow[] = DEFAULT_TIERS): Tier {
  return tierOfFraction(fractionOf(ratio), resolveTiers(tiers));
}

/** {@link tierOfRatio} on an exact fraction, with a validated table. */
export function tierOfFraction({ numerator, denominator }: Fraction, tiers: TierTable): Tier {
  if (denominator.units === 0n) return tiers[0]!;
  const bounds = boundsOf(tiers);
  return tiers[tierIndexReached(tiers.length, (i) => fixedCmp(numerator, fixedMul(bounds[i]!, denominator)) >= 0)]!;
}

const boundCache = new WeakMap<TierTable, readonly Fixed[]>();
function boundsOf(tiers: TierTable): readonly Fixed[] {
  let b = boundCache.get(tiers);
  if (b === undefined) boundCache.set(tiers, (b = tiers.map((t) => fixedFromDec(t.minRatio))));
  return b;
}
