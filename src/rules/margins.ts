import { Dec, type DecimalInput } from './decimal.js';
import { parsePositiveDecimal, readOptions } from './parse.js';
import type { RatioResult } from './ratio.js';
import { type Tier, type TierRow, type TierTable, resolveTiers, tierOfRatio } from './tiers.js';

/**
 * How far a ratio is from the tiers around it.
 *
 * @example
 * ```ts
 * import { tierMargins, tradeRatio, type TierMargins } from 'traderatio'
 *
 * const m: TierMargins = tierMargins(tradeRatio([{ contract: 'BTC_USDT', makerVolume: '300', place: 100 }]))
 * m.tier.tier // 3
 * m.up?.tier.limit // 250
 * m.down?.tier.limit // 150
 * tierMargins(tradeRatio([])).up // null
 * ```
 */
export interface TierMargins {
  readonly tier: Tier;
  /** What reaches the next tier up, or `null` at the top (or with no counted request). */
  readonly up: {
    readonly tier: Tier;
    /** More maker volume, USDT (rounded up to 8 decimals), with nothing else changed. */
    readonly makerVolume: Dec;
    /** Fewer requests on a contract of the given coefficient, with nothing else changed (null: none would do). At most 2^53 - 1. */
    readonly fewerRequests: number | null;
  } | null;
  /**
   * The spare before the tier below, or `null` at the bottom (or with no counted request): what
   * may be lost, or added, with the tier kept. Both figures mean the same: the most that keeps
   * the tier, so that any more drops it (at a ratio exactly on the bound, both are 0).
   */
  readonly down: {
    /** The tier below. */
    readonly tier: Tier;
    /** Maker volume, USDT, that may be lost with the tier kept (rounded down to 8 decimals); losing more drops it. */
    readonly makerVolume: Dec;
    /** Requests on a contract of the given coefficient that may be added with the tier kept; one more drops it. At most 2^53 - 1 (more than any account sends). */
    readonly spareRequests: number;
  } | null;
}

/**
 * The margins of a ratio to the tiers above and below (R1, R3). Up: the least maker volume to
 * add, or the fewest requests to drop, that reach the next tier up. Down: the most maker volume
 * that may be lost, or the most requests that may be added, with the tier kept. Exact, from the
 * ratio's fraction. Tiers only apply from VIP 14 (R4): below it no volume changes the tier, and
 * the callers that know the VIP level (the plan command, `AccountLimiter.whatIf`) give no margins.
 *
 * @example
 * ```ts
 * import { tierMargins, tradeRatio } from 'traderatio'
 *
 * const r = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '900', place: 100 }]) // 9: tier 4
 * // 100 more maker volume, or 10 fewer requests, reach 10 (tier 5).
 * tierMargins(r).up?.makerVolume.toString() // '100'
 * tierMargins(r).up?.fewerRequests // 10
 * // 400 less volume, or 80 more requests, still keep 5 (tier 4).
 * tierMargins(r).down?.makerVolume.toString() // '400'
 * tierMargins(r).down?.spareRequests // 80
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
    const fewer = n.isZero() ? null : safeCount(d.minus(n.dividedBy(next.minRatio)).dividedBy(c).ceil());
    up = { tier: next, makerVolume, fewerRequests: fewer !== null && fewer < Math.ceil(d.dividedBy(c).toNumber()) ? Math.max(0, fewer) : null };
  }
  let down: TierMargins['down'] = null;
  if (tier.tier > 1) {
    const below = tiers[tier.tier - 2]!;
    const makerVolume = n.minus(tier.minRatio.times(d)).dividedBy(mw).toDecimalPlaces(8, Dec.ROUND_DOWN);
    // It keeps the tier while n / (d + k c) >= bound: k <= (n / bound - d) / c.
    const spareRequests = safeCount(n.dividedBy(tier.minRatio).minus(d).dividedBy(c).floor());
    down = { tier: below, makerVolume, spareRequests };
  }
  return { tier, up, down };
}

/** A whole count as a number, held to the exact integer range: never a binary float such as 2.4e57. */
function safeCount(k: Dec): number {
  return k.greaterThan(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : k.toNumber();
}
