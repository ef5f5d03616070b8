import { describe, expect, it } from 'vitest';
import { isTieredVip, parseVipLevel, tierInForce } from '../../src/rules/vip.js';
import { DEFAULT_TIERS, tierFor } from '../../src/rules/tiers.js';
import { rateFamily } from '../../src/rules/family.js';
import { WORKED_EXAMPLE } from '../../src/rules/example.js';

describe('isTieredVip (R4)', () => {
  it('tiers VIP 14 and above, not 13', () => {
    expect(isTieredVip(13)).toBe(false);
    expect(isTieredVip(14)).toBe(true);
    expect(isTieredVip(16)).toBe(true);
    expect(isTieredVip(0)).toBe(false);
  });

  it('keeps the tier the ratio earns from VIP 14 and puts the account at tier 1 below it', () => {
    const earned = tierFor('8.19');
    expect(tierInForce(14, earned, DEFAULT_TIERS)).toBe(earned);
    expect(tierInForce(13, earned, DEFAULT_TIERS)).toBe(DEFAULT_TIERS[0]);
    expect(tierInForce(13, earned, DEFAULT_TIERS).limit).toBe(100);
  });

  it('refuses a VIP level that is not a non-negative integer', () => {
    for (const bad of [-1, 14.5, Number.NaN, '14']) {
      expect(() => parseVipLevel(bad)).toThrow('a VIP level (a non-negative integer)');
    }
  });

  it('puts every account of a family below VIP 14 at tier 1, sub-accounts sharing the level', () => {
    const below = rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' }, 13);
    expect(below.accounts.map((a) => a.tier.limit)).toEqual([100, 100, 100]);
    const at = rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' }, 14);
    expect(at.accounts.map((a) => a.tier.limit)).toEqual([250, 250, 300]);
  });
});
