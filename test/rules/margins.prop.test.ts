import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { Dec, type DecimalInput } from '../../src/internal/decimal.js';
import { type AccountActivity, type FamilyConfig, rateFamily, resolveFamilyOptions } from '../../src/rules/family.js';
import { accountMargins } from '../../src/rules/margins.js';

// Small families a brute-force search can rate change by change: a few accounts trading BTC_USDT
// (coefficient 1) and SOL_USDT (0.4), a tier table of four tiers, any own-volume threshold (see docs/rules.md#r7).
const TIERS = [
  { minRatio: '0', limit: 10 },
  { minRatio: '1', limit: 20 },
  { minRatio: '2', limit: 30 },
  { minRatio: '4', limit: 40 },
];

interface Small {
  readonly maker: number;
  readonly taker: number;
  readonly btc: number;
  readonly sol: number;
}

const small: fc.Arbitrary<Small> = fc.record({
  maker: fc.integer({ min: 0, max: 30 }),
  taker: fc.integer({ min: 0, max: 30 }),
  btc: fc.integer({ min: 0, max: 12 }),
  sol: fc.integer({ min: 0, max: 12 }),
});

/** The family with `account` changed: maker volume added (or lost, when negative) and BTC_USDT placements added (or dropped). */
function changed(family: readonly Small[], account: number, maker: DecimalInput, btc: number): AccountActivity[] {
  return family.map((a, i) => ({
    account: `a${i}`,
    contracts: [
      {
        contract: 'BTC_USDT',
        makerVolume: i === account ? new Dec(a.maker).plus(maker).toFixed() : String(a.maker),
        takerVolume: String(a.taker),
        place: a.btc + (i === account ? btc : 0),
      },
      { contract: 'SOL_USDT', place: a.sol },
    ],
  }));
}

const tierOf = (
  family: readonly Small[],
  config: FamilyConfig,
  account: number,
  maker: DecimalInput = 0,
  btc = 0,
): number => rateFamily(changed(family, account, maker, btc), config).accounts[account]!.tier.tier;

describe('accountMargins against a brute-force search (see docs/rules.md#r1, #r3, #r7)', () => {
  test.prop(
    [
      fc.array(small, { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 0, max: 60 }),
      fc.constantFrom('standard' as const, 'broker' as const),
    ],
    { numRuns: 120 },
  )(
    'gives the tier of the rules, the least maker volume and the fewest requests that reach every tier above, and the spare below',
    (family, threshold, kind) => {
      const config = resolveFamilyOptions({ ownVolumeThreshold: String(threshold), kind, tiers: TIERS });
      const rating = rateFamily(changed(family, -1, 0, 0), config);
      family.forEach((a, i) => {
        const m = accountMargins(rating.accounts[i]!.own, rating.aggregated, config);
        const now = rating.accounts[i]!.tier.tier;
        expect(m.tier.tier).toBe(now);
        // Maker volume: the first whole USDT that reaches each tier (every path at once, whatever
        // it is) is the least volume rounded up; the least volume itself reaches it, a hair less does not.
        const firstAt = new Map<number, number>();
        for (let x = 0; x <= 400 && !firstAt.has(TIERS.length); x++) {
          const t = tierOf(family, config, i, x);
          for (let j = now + 1; j <= t; j++) if (!firstAt.has(j)) firstAt.set(j, x);
        }
        expect(m.steps.map((s) => s.tier.tier)).toEqual([...firstAt.keys()].sort());
        for (const s of m.steps) {
          expect(s.makerVolume.ceil().toNumber()).toBe(firstAt.get(s.tier.tier));
          expect(tierOf(family, config, i, s.makerVolume)).toBeGreaterThanOrEqual(s.tier.tier);
          if (s.makerVolume.greaterThan(0))
            expect(tierOf(family, config, i, s.makerVolume.minus('1e-8'))).toBeLessThan(s.tier.tier);
          // Requests: the fewest BTC_USDT placements dropped that reach the tier.
          let fewest: number | null = null;
          for (let k = 1; k <= a.btc && fewest === null; k++)
            if (tierOf(family, config, i, 0, -k) >= s.tier.tier) fewest = k;
          if (fewest !== null) expect(s.fewerRequests).toBe(fewest);
          else if (s.fewerRequests !== null) expect(s.fewerRequests).toBeGreaterThan(a.btc);
        }
        // Down: the most BTC_USDT requests added, and whole USDT of maker volume lost, with the tier kept.
        if (m.down === null) expect(now).toBe(1);
        else {
          let added = 0;
          while (added < 500 && tierOf(family, config, i, 0, added + 1) >= now) added++;
          if (added < 500) expect(m.down.spareRequests).toBe(added);
          let lost = 0;
          while (lost < a.maker && tierOf(family, config, i, -(lost + 1)) >= now) lost++;
          if (lost < a.maker) expect(m.down.makerVolume.floor().toNumber()).toBe(lost);
          if (m.down.makerVolume.lessThanOrEqualTo(a.maker))
            expect(tierOf(family, config, i, m.down.makerVolume.negated())).toBeGreaterThanOrEqual(now);
          if (m.down.makerVolume.plus('1e-8').lessThanOrEqualTo(a.maker))
            expect(tierOf(family, config, i, m.down.makerVolume.plus('1e-8').negated())).toBeLessThan(now);
        }
      });
    },
    // Each run rates a few hundred changed families: generous for a busy machine.
    120_000,
  );
});
