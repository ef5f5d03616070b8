import { describe, expect, it } from 'vitest';
import { okx, rulesOf } from '../../../src/rules/exchange-rules.js';
import { OKX_WORKED_EXAMPLE } from '../../../src/rules/okx/example.js';
import { OKX } from '../../../src/rules/okx/rulebook.js';

describe("OKX's fill ratio", () => {
  it('divides unweighted volume by new and amend requests times their multipliers', () => {
    const r = okx.tradeRatio([
      { contract: 'BTC-USDT-SWAP', makerVolume: '60', takerVolume: '40', place: 8, amend: 2, cancel: 500 },
      { contract: 'SOL-USDT-SWAP', takerVolume: '10', place: 5 },
    ]);
    // (60 + 40 + 10) / (10 x 1 + 5 x 0.2): cancels never count, taker volume weighs 1.
    expect([r.numerator.toString(), r.denominator.toString(), r.ratio?.toString(), r.requests]).toEqual([
      '110',
      '11',
      '10',
      15,
    ]);
  });

  it('puts a ratio of exactly 1 in tier 2 and a hair below in tier 1', () => {
    const exactly = okx.tradeRatio([{ contract: 'XRP-USDT', makerVolume: '0.1', place: 1 }]);
    expect(exactly.ratio?.toString()).toBe('1');
    expect(okx.tierOfRatio(exactly)).toMatchObject({ tier: 2, limit: 1250 });
    const below = okx.tradeRatio([{ contract: 'XRP-USDT', makerVolume: '0.09999999', place: 1 }]);
    expect(okx.tierOfRatio(below)).toMatchObject({ tier: 1, limit: 1000 });
  });

  it("gives the report's figures where nothing is counted: 9999 with volume, 0 without", () => {
    const volumeOnly = okx.tradeRatio([{ contract: 'BTC-USDT-SWAP', makerVolume: '5', cancel: 10 }]);
    expect([volumeOnly.ratio?.toString(), volumeOnly.denominator.toString()]).toEqual(['9999', '0']);
    expect(okx.tierOfRatio(volumeOnly).limit).toBe(10_000);
    const nothing = okx.tradeRatio([{ contract: 'BTC-USDT-SWAP', cancel: 10 }]);
    expect(nothing.ratio?.toString()).toBe('0');
    expect(okx.tierOfRatio(nothing).limit).toBe(1000);
  });

  it('counts cancels only when asked, and refuses what is not an OKX instrument, naming it', () => {
    const r = okx.tradeRatio([{ contract: 'BTC-USDT-SWAP', makerVolume: '20', place: 1, cancel: 1 }], {
      countCancels: true,
    });
    expect(r.ratio?.toString()).toBe('10');
    expect(() => okx.tradeRatio([{ contract: 'BTC_USDT', place: 1 }])).toThrow(
      /^Expected `contract` to be an OKX instrument id whose kind can be read.*got "BTC_USDT"$/,
    );
    expect(() => okx.tradeRatio([], { coefficients: { BTC_USDT: '1' } })).toThrow('Unknown field `coefficients`');
  });
});

describe("OKX's tiers", () => {
  it.each([
    ['0', 1000],
    ['0.99999999', 1000],
    ['1', 1250],
    ['1.99999999', 1250],
    ['2', 1500],
    ['3', 1750],
    ['4.99', 1750],
    ['5', 2000],
    ['10', 2500],
    ['20', 3000],
    ['49.99999999', 3000],
    ['50', 10_000],
    ['9999', 10_000],
  ])('give %s %i requests per 2 s', (ratio, limit) => {
    expect(okx.tierFor(ratio).limit).toBe(limit);
  });

  it('count per 2 s, from VIP 5', () => {
    expect(OKX.tiers.windowMs).toBe(2000);
    expect([okx.isTieredVip(4), okx.isTieredVip(5)]).toEqual([false, true]);
    const good = [{ account: 'main', contracts: [{ contract: 'BTC-USDT-SWAP', makerVolume: '60', place: 10 }] }];
    expect(okx.rateFamily(good).accounts[0]!.tier.limit).toBe(2000);
    expect(okx.rateFamily(good, {}, 4).accounts[0]!.tier.limit).toBe(1000);
  });
});

describe("OKX's family rule and the help article's worked example", () => {
  it('follows the computation: A 10.4, B 2.13, C 3.06, the main account 3.01', () => {
    const family = okx.rateFamily(OKX_WORKED_EXAMPLE, { ownVolumeThreshold: '0' });
    const [a, b, c] = family.accounts;
    // (100 + 20) / (10 x 1 + 15 x 0.1); (200 + 20) / (100 + 30 x 0.1); (300 + 20) / (100 + 45 x 0.1)
    expect([a!.own.numerator, a!.own.denominator].map(String)).toEqual(['120', '11.5']);
    expect([b!.own.numerator, b!.own.denominator].map(String)).toEqual(['220', '103']);
    expect([c!.own.numerator, c!.own.denominator].map(String)).toEqual(['320', '104.5']);
    expect([family.aggregated.numerator, family.aggregated.denominator].map(String)).toEqual(['660', '219']);
    expect([a, b, c, { own: family.aggregated }].map((x) => x!.own.ratio!.toDecimalPlaces(2, 1).toString())).toEqual([
      '10.43',
      '2.13',
      '3.06',
      '3.01',
    ]);
  });

  it('rates A by max(10.4, 3.01) at 2,500, B by max(2.13, 3.01) at 1,750, C by max(3.06, 3.01) at 1,750', () => {
    const family = okx.rateFamily(OKX_WORKED_EXAMPLE, { ownVolumeThreshold: '0' });
    expect(family.accounts.map((x) => [x.account, x.basis, x.tier.limit])).toEqual([
      ['A', 'max-own', 2500],
      ['B', 'max-aggregated', 1750],
      ['C', 'max-own', 1750],
    ]);
  });

  it('rates every account of so small a volume by the aggregated ratio by default (under 1,000,000 USDT)', () => {
    const family = okx.rateFamily(OKX_WORKED_EXAMPLE);
    expect(family.accounts.map((x) => [x.basis, x.tier.limit])).toEqual([
      ['aggregated', 1750],
      ['aggregated', 1750],
      ['aggregated', 1750],
    ]);
  });

  it('rates a broker family by each own ratio only', () => {
    const family = okx.rateFamily(OKX_WORKED_EXAMPLE, { kind: 'broker' });
    expect(family.accounts.map((x) => x.tier.limit)).toEqual([2500, 1500, 1750]);
  });

  it('takes max(own, aggregated) from exactly 1,000,000 USDT of own volume, the aggregate a hair below', () => {
    const family = (volume: string) =>
      okx.rateFamily([
        { account: 'main', contracts: [{ contract: 'BTC-USDT-SWAP', makerVolume: '100', place: 100 }] },
        { account: 'sub', contracts: [{ contract: 'BTC-USDT-SWAP', makerVolume: volume, place: 50_000 }] },
      ]);
    // Own 1,000,000 / 50,000 = 20: 3,000; the family's 1,000,100 / 50,100 = 19.96: 2,500.
    expect(family('1000000').accounts[1]).toMatchObject({ basis: 'max-own', tier: { limit: 3000 } });
    expect(family('999999.99999999').accounts[1]).toMatchObject({ basis: 'aggregated', tier: { limit: 2500 } });
  });
});

describe('rulesOf', () => {
  it('checks a rulebook once, naming the first field that is wrong', () => {
    expect(() => rulesOf({ ...OKX, timing: { ...OKX.timing, lowering: 'later' as never } })).toThrow(
      'Expected `rulebook.timing.lowering` to be "at-snapshot" or "after-grace", got "later"',
    );
    expect(() => rulesOf({ ...OKX, tiers: { ...OKX.tiers, windowMs: 0 } })).toThrow('`rulebook.tiers.windowMs`');
    expect(() => rulesOf({ ...OKX, tiers: { rows: [{ minRatio: '1', limit: 5 }], windowMs: 2000 } })).toThrow(
      '`tiers[0].minRatio`',
    );
    expect(() => rulesOf({ ...OKX, extra: 1 } as never)).toThrow('Unknown field `extra` in the rulebook');
    expect(rulesOf(OKX)).toBe(okx);
  });
});
