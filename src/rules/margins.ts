import { Dec, type DecimalInput } from './decimal.js';
import { parsePositiveDecimal, readOptions } from './parse.js';
import type { RatioResult } from './ratio.js';
import { type Tier, type TierRow, type TierTable, resolveTiers, tierOfRatio } from './tiers.js';

/** How far a ratio is from the tiers around it. */
export interface TierMargins {
  readonly tier: Tier;
  /** What reaches the next tier up, or `null` at the top (or with no counted request). */
  readonly up: {
    readonly tier: Tier;
    /** More maker volume, USDT (rounded up to 8 decimals), with nothing else changed. */
    readonly makerVolume: Dec;
    /** Fewer requests on a contract of the given coefficient, with nothing else changed (null: none would do). */
    readonly fewerRequests: number | null;
  } | null;
  /** What drops it to the tier below, or `null` at the bottom (or with no counted request). */
  readonly down: {
    readonly tier: Tier;
    /** Maker volume that may be lost before the ratio falls: losing more than this drops it. */
    readonly makerVolume: Dec;
    /** The number of additional requests on a contract of the given coefficient that drops it. */
    readonly moreRequests: number;
  } | null;
}

/**
 * The margins of a ratio to the tiers above and below (R1, R3): the maker volume to add, or the
 * requests to drop, to reach the next tier up; the volume that may be lost, or the requests that
 * may be added, before it falls to the next tier down. Exact, from the ratio's fraction.
 *
 * @example
 * ```ts
 * const r = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '900', place: 100 }]) // 9: tier 4
 * tierMargins(r).up?.makerVolume.toString() // '100' (to 10: tier 5)
 * tierMargins(r).up?.fewerRequests          // 10 (900 / 90 = 10)
 * ```
 */
export function tierMargins(
  ratio: RatioResult,
  options?: { readonly tiers?: TierTable | readonly TierRow[]; readonly makerWeight?: DecimalInput; readonly coefficient?: DecimalInput },
): TierMargins {
  const o = readOptions(options, 'the margin options', ['tiers', 'makerWeight', 'coefficient']);
  const tiers = resolveTiers(o.tiers);
  const tier = tierOfRatio(ratio, tiers);
  const n = ratio.numerator;
  const d = ratio.denominator;
  if (d.isZero()) return { tier, up: null, down: null };
  const mw = parsePositiveDecimal(o.makerWeight ?? '1', '`makerWeight`');
  const c = parsePositiveDecimal(o.coefficient ?? '1', '`coefficient`');
  const next = tiers[tier.tier];
  let up: TierMargins['up'] = null;
  if (next !== undefined) {
    const makerVolume = Dec.max(0, next.minRatio.times(d).minus(n).dividedBy(mw)).toDecimalPlaces(8, Dec.ROUND_UP);
    // The ratio reaches the bound when d - k c <= n / bound.
    const fewer = n.isZero() ? null : d.minus(n.dividedBy(next.minRatio)).dividedBy(c).ceil().toNumber();
    up = { tier: next, makerVolume, fewerRequests: fewer !== null && fewer < Math.ceil(d.dividedBy(c).toNumber()) ? Math.max(0, fewer) : null };
  }
  let down: TierMargins['down'] = null;
  if (tier.tier > 1) {
    const below = tiers[tier.tier - 2]!;
    const makerVolume = n.minus(tier.minRatio.times(d)).dividedBy(mw).toDecimalPlaces(8, Dec.ROUND_DOWN);
    // It falls when n / (d + k c) < bound: k > (n / bound - d) / c.
    const moreRequests = n.dividedBy(tier.minRatio).minus(d).dividedBy(c).floor().toNumber() + 1;
    down = { tier: below, makerVolume, moreRequests };
  }
  return { tier, up, down };
}
