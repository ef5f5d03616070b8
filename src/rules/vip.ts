import { InvalidInputError } from '../errors.js';
import { GATE } from './gate/rulebook.js';
import type { Tier, TierTable } from './tiers.js';

/**
 * The VIP level from which Gate's perpetual-futures limits follow the trade ratio (see
 * docs/rules.md#r4); a rulebook gives its own (`tieredVipLevel`: OKX's is 5).
 *
 * @example
 * ```ts
 * import { TIERED_VIP_LEVEL, isTieredVip } from 'traderatio/rules'
 *
 * TIERED_VIP_LEVEL // 14
 * isTieredVip(TIERED_VIP_LEVEL - 1) // false
 * ```
 */
export const TIERED_VIP_LEVEL: number = GATE.tieredVipLevel;

/**
 * Reads a VIP level: a whole number from 0 to the exchange's highest level (`highest`, Gate's 16
 * unless given; a rulebook's `highestVipLevel`).
 *
 * @example
 * ```ts
 * import { parseVipLevel } from 'traderatio/rules'
 *
 * parseVipLevel(14) // 14
 * let refused: unknown
 * try { parseVipLevel(1e308) } catch (e) { refused = e }
 * (refused as Error).message // 'Expected `vipLevel` to be a VIP level (a whole number from 0 to 16), got 1e+308'
 * ```
 */
export function parseVipLevel(value: unknown, field = '`vipLevel`', highest: number = GATE.highestVipLevel): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > highest) {
    throw new InvalidInputError(field, value, `a VIP level (a whole number from 0 to ${highest})`);
  }
  return value;
}

/**
 * Whether an account at this VIP level is tiered by its trade ratio (see docs/rules.md#r4): level
 * `tieredFrom` (Gate's 14 unless given) or higher. Below it the account is at tier 1.
 * Sub-accounts share their main account's level.
 *
 * @example
 * ```ts
 * import { isTieredVip } from 'traderatio/rules'
 *
 * isTieredVip(14) // true
 * isTieredVip(13) // false
 * isTieredVip(5, 5) // true
 * ```
 */
export function isTieredVip(level: number, tieredFrom: number = TIERED_VIP_LEVEL): boolean {
  return parseVipLevel(level) >= tieredFrom;
}

/**
 * The tier in force for an account at this VIP level whose trade ratio earns `ratioTier` (see
 * docs/rules.md#r4): that tier from `tieredFrom` (Gate's VIP 14 unless given), the first tier of
 * `tiers` below it, whatever the ratio. Every rating, the timeline, the account limiter and the
 * command line ask this one function, so that the threshold and the fallback live in one place.
 */
export function tierInForce(
  vipLevel: number,
  ratioTier: Tier,
  tiers: TierTable,
  tieredFrom: number = TIERED_VIP_LEVEL,
): Tier {
  return isTieredVip(vipLevel, tieredFrom) ? ratioTier : tiers[0]!;
}
