import { InvalidInputError } from '../errors.js';

/** The VIP level from which perpetual-futures limits follow the trade ratio (R4). */
export const TIERED_VIP_LEVEL = 14;

/**
 * Reads a VIP level: a non-negative integer.
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
 * isTieredVip(14) // true
 * isTieredVip(13) // false
 * ```
 */
export function isTieredVip(level: number): boolean {
  return parseVipLevel(level) >= TIERED_VIP_LEVEL;
}
