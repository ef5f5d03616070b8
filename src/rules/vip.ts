import { InvalidInputError } from '../errors.js';
import type { Tier, TierTable } from './tiers.js';

/**
 * The VIP level from which perpetual-futures limits follow the trade ratio (R4).
 *
 * @example
 * ```ts
 * import { TIERED_VIP_LEVEL, isTieredVip } from 'traderatio/rules'
 *
 * TIERED_VIP_LEVEL // 14
 * isTieredVip(TIERED_VIP_LEVEL - 1) // false
 * ```
 */
export const TIERED_VIP_LEVEL = 14;

/**
 * Reads a VIP level: a non-negative integer.
 *
 * @example
 * ```ts
 * import { parseVipLevel } from 'traderatio/rules'
 *
 * parseVipLevel(14) // 14
 * let refused: unknown
 * try { parseVipLevel(-1) } catch (e) { refused = e }
 * (refused as Error).name // 'InvalidInputError'
 * ```
 */
export function parseVipLevel(value: unknown, field = '`vipLevel`'): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new InvalidInputError(field, value, 'a VIP level (a non-negative integer)');
  }
  return value;
}

/**
 * Whether an account at this VIP level is tiered by its trade ratio (R4): level 14 or higher.
 * Below 14 the account is at tier 1. Sub-accounts share their main account's level.
 *
 * @example
 * ```ts
 * import { isTieredVip } from 'traderatio/rules'
 *
 * isTieredVip(14) // true
 * isTieredVip(13) // false
 * ```
 */
export function isTieredVip(level: number): boolean {
  return parseVipLevel(level) >= TIERED_VIP_LEVEL;
}

/**
 * The tier in force for an account at this VIP level whose trade ratio earns `ratioTier` (R4):
 * that tier from VIP 14, the first tier of `tiers` below it, whatever the ratio. Every rating, the
 * timeline, the account limiter and the CLI ask this one function, so that the threshold and the
 * fallback live in one place.
 */
export function tierInForce(vipLevel: number, ratioTier: Tier, tiers: TierTable): Tier {
  return isTieredVip(vipLevel) ? ratioTier : tiers[0]!;
}
