import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/internal/decimal.js';
import {
  DEFAULT_TIERS,
  createTierTable,
  resolveTiers,
  tierFor,
  tierIndexReached,
  tierOfRatio,
} from '../../src/rules/tiers.js';
import { tradeRatio } from '../../src/rules/ratio.js';

describe('tierFor (see docs/rules.md#r3)', () => {
  it('puts 8.19 in tier 4 (250 r/s) and 10.06 in tier 5 (300 r/s)', () => {
    expect(tierFor('8.19')).toMatchObject({ tier: 4, limit: 250 });
    expect(tierFor('10.06')).toMatchObject({ tier: 5, limit: 300 });
  });

  it.each([
    ['0', 1, 100],
    ['0.999999999999999999', 1, 100],
    ['1', 2, 150],
    ['2.99', 2, 150],
    ['3', 3, 200],
    ['4.9999', 3, 200],
    ['5', 4, 250],
    ['9.99', 4, 250],
    ['10', 5, 300],
    ['19.999', 5, 300],
    ['20', 6, 350],
    ['49.99999', 6, 350],
    ['50', 7, 400],
    ['1000000', 7, 400],
  ])('puts ratio %s in tier %i (%i r/s)', (ratio, tier, limit) => {
    expect(tierFor(ratio)).toMatchObject({ tier, limit });
  });

  it('puts an undefined ratio (null) in tier 1', () => {
    expect(tierFor(null).tier).toBe(1);
  });

  it('gives every tier its bounds', () => {
    expect(DEFAULT_TIERS.map((t) => [t.minRatio.toString(), t.maxRatio?.toString() ?? null, t.limit])).toEqual([
      ['0', '1', 100],
      ['1', '3', 150],
      ['3', '5', 200],
      ['5', '10', 250],
      ['10', '20', 300],
      ['20', '50', 350],
      ['50', null, 400],
    ]);
  });
});

describe('tierOfRatio (see docs/rules.md#r1, #r3)', () => {
  it('compares the exact fraction at a bound: 1.2/1.2 is tier 2, just under 5 is tier 3, 15/3 is tier 4', () => {
    const exactlyOne = tradeRatio([{ contract: 'SOL_USDT', makerVolume: '1.2', place: 3 }]); // 1.2 / 1.2
    expect(tierOfRatio(exactlyOne).tier).toBe(2);
    const justBelowFive = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '14.99999999999999999999', place: 3 }]);
    expect(tierOfRatio(justBelowFive).tier).toBe(3);
    const fiveOverThree = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '15', place: 3 }]);
    expect(tierOfRatio(fiveOverThree).tier).toBe(4);
  });

  it('decides on the fraction, never on a quotient rounded for display', () => {
    const exact = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '29.999999', place: 3 }]);
    const displayed = {
      numerator: exact.numerator,
      denominator: exact.denominator,
      makerVolume: exact.makerVolume,
      takerVolume: exact.takerVolume,
      volume: exact.volume,
      requests: exact.requests,
      ratio: new Dec(exact.ratio!.toFixed(2)),
    };
    expect(displayed.ratio.toString()).toBe('10');
    expect(tierOfRatio(displayed).tier).toBe(4);
    expect(tierFor(displayed.ratio).tier).toBe(5);
  });
});

describe('createTierTable (see docs/rules.md#r3)', () => {
  it('accepts a valid user table and looks ratios up in it', () => {
    const table = createTierTable([
      { minRatio: '0', limit: 50 },
      { minRatio: '2.5', limit: 60 },
    ]);
    expect(tierFor('2.4999', table).limit).toBe(50);
    expect(tierFor('2.5', table).limit).toBe(60);
    expect(resolveTiers(table)).toBe(table);
  });

  it('refuses a table that does not start at 0', () => {
    expect(() => createTierTable([{ minRatio: '1', limit: 100 }])).toThrow('Expected `tiers[0].minRatio` to be 0');
  });

  it('refuses bounds that do not increase strictly', () => {
    expect(() =>
      createTierTable([
        { minRatio: '0', limit: 100 },
        { minRatio: '3', limit: 150 },
        { minRatio: '3', limit: 200 },
      ]),
    ).toThrow('Expected `tiers[2].minRatio` to be greater than `tiers[1].minRatio` ("3")');
  });

  it('refuses limits that are not positive integers or that fall', () => {
    expect(() => createTierTable([{ minRatio: '0', limit: 0 }])).toThrow('`tiers[0].limit`');
    expect(() =>
      createTierTable([
        { minRatio: '0', limit: 100 },
        { minRatio: '1', limit: 90 },
      ]),
    ).toThrow('`tiers[1].limit`');
    expect(() => createTierTable([])).toThrow('`tiers`');
  });
});

describe('tierFor with a table of rows', () => {
  it('refuses an empty table instead of answering undefined', () => {
    expect(() => tierFor('5', [])).toThrow('Expected `tiers` to be a non-empty array');
  });

  it('validates rows as createTierTable does: unsorted bounds are refused, sorted ones give the right tier', () => {
    expect(() =>
      tierFor('5', [
        { minRatio: '0', limit: 100 },
        { minRatio: '10', limit: 300 },
        { minRatio: '3', limit: 200 },
      ]),
    ).toThrow('`tiers[2].minRatio`');
    expect(
      tierFor('5', [
        { minRatio: '0', limit: 100 },
        { minRatio: '3', limit: 200 },
        { minRatio: '10', limit: 300 },
      ]),
    ).toMatchObject({ tier: 2, limit: 200 });
    expect(() => tierOfRatio(tradeRatio([]), [])).toThrow('`tiers`');
  });
});

describe('tierIndexReached (see docs/rules.md#r3)', () => {
  const bounds = DEFAULT_TIERS.map((t) => t.minRatio.toNumber());
  const indexOf = (x: number): number => tierIndexReached(bounds.length, (i) => x >= bounds[i]!);

  it('puts a ratio below every bound but the first in the first tier, without asking about tier 1', () => {
    const asked: number[] = [];
    expect(tierIndexReached(bounds.length, (i) => (asked.push(i), 0.5 >= bounds[i]!))).toBe(0);
    expect(asked).not.toContain(0);
  });

  it('includes a bound in the tier it opens: 1 is tier 2, 0.999 tier 1, 50 the top tier', () => {
    expect(indexOf(1)).toBe(1);
    expect(indexOf(0.999)).toBe(0);
    expect(indexOf(50)).toBe(bounds.length - 1);
    expect(indexOf(1e9)).toBe(bounds.length - 1);
  });

  it('gives the only tier of a one-tier table', () => {
    expect(tierIndexReached(1, () => true)).toBe(0);
  });

  test.prop([fc.double({ min: 0, max: 100, noNaN: true })])('agrees with tierFor on the default table', (x) => {
    expect(indexOf(x) + 1).toBe(tierFor(new Dec(x)).tier);
  });
});
