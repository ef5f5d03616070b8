import { describe, expect, it } from 'vitest';
import { isTieredVip, parseVipLevel, tierInForce } from '../../src/rules/vip.js';
import { DEFAULT_TIERS, tierFor } from '../../src/rules/tiers.js';
import { rateFamily } from '../../src/rules/family.js';
import { WORKED_EXAMPLE } from '../../src/rules/example.js';
import { OKX } from '../../src/rules/okx/rulebook.js';
import { okx } from '../../src/rules/exchange-rules.js';
import { buildTimeline } from '../../src/rules/timeline/timeline.js';

describe('isTieredVip (see docs/rules.md#r4)', () => {
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

  it('refuses a VIP level that is not a whole number from 0 to the highest level', () => {
    for (const bad of [-1, 14.5, Number.NaN, '14', 17, 1e308, Number.POSITIVE_INFINITY]) {
      expect(() => parseVipLevel(bad)).toThrow('a VIP level (a whole number from 0 to 16)');
    }
    expect(parseVipLevel(0)).toBe(0);
    expect(parseVipLevel(16)).toBe(16);
    expect(parseVipLevel(9, '`level`', OKX.highestVipLevel)).toBe(9);
    expect(() => parseVipLevel(10, '`level`', OKX.highestVipLevel)).toThrow(
      'Expected `level` to be a VIP level (a whole number from 0 to 9), got 10',
    );
  });

  it("refuses a level past the exchange's highest in a timeline and a family rating", () => {
    const input = {
      accounts: [{ id: 'main', role: 'main' as const }],
      activity: [
        { account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] },
      ],
    };
    expect(() => buildTimeline({ ...input, vipLevel: 1e308 })).toThrow(
      'Expected `vipLevel` to be a VIP level (a whole number from 0 to 16), got 1e+308',
    );
    expect(buildTimeline({ ...input, vipLevel: 16 }).limitAt('main', Date.parse('2026-11-02T08:00:00Z')).limit).toBe(
      250,
    );
    expect(() =>
      buildTimeline({ ...input, vipChanges: [{ at: Date.parse('2026-11-01T12:00:00Z'), level: 17 }] }),
    ).toThrow('Expected `vipChanges[0].level` to be a VIP level (a whole number from 0 to 16), got 17');
    expect(() => okx.buildTimeline({ ...input, vipLevel: 10 })).toThrow('from 0 to 9');
    expect(() => okx.rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' }, 10)).toThrow('from 0 to 9');
    expect(() => rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' }, 17)).toThrow('from 0 to 16');
    expect(rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' }, 16).accounts.map((a) => a.tier.limit)).toEqual([
      250, 250, 300,
    ]);
  });

  it('puts every account of a family below VIP 14 at tier 1, sub-accounts sharing the level', () => {
    const below = rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' }, 13);
    expect(below.accounts.map((a) => a.tier.limit)).toEqual([100, 100, 100]);
    const at = rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' }, 14);
    expect(at.accounts.map((a) => a.tier.limit)).toEqual([250, 250, 300]);
  });
});
