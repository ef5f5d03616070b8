import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { rateFamily, resolveFamilyOptions } from '../../src/rules/family.js';
import { WORKED_EXAMPLE } from '../../src/rules/example.js';

const fractions = (rating: ReturnType<typeof rateFamily>) =>
  rating.accounts.map((a) => `${a.own.numerator.toString()}/${a.own.denominator.toString()}`);

describe('rateFamily (see docs/rules.md#r7)', () => {
  it("gives the worked example's own ratios 318/44, 427/54, 312/31 and aggregated 1057/129", () => {
    const rating = rateFamily(WORKED_EXAMPLE);
    expect(fractions(rating)).toEqual(['318/44', '427/54', '312/31']);
    expect(rating.aggregated.numerator.toString()).toBe('1057');
    expect(rating.aggregated.denominator.toString()).toBe('129');
    expect(rating.aggregated.ratio!.toFixed(2)).toBe('8.19');
  });

  it('gives 250, 250, 300 with threshold 0, as the exchange example does (max of own and aggregated)', () => {
    const rating = rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' });
    expect(rating.accounts.map((a) => a.tier.limit)).toEqual([250, 250, 300]);
    expect(rating.accounts.map((a) => a.basis)).toEqual(['max-aggregated', 'max-aggregated', 'max-own']);
    expect(rating.accounts[2]!.effective.ratio!.toFixed(2)).toBe('10.06');
  });

  it('gives 250, 250, 250 with the default 1,000,000 threshold: every account is small, so aggregated', () => {
    const rating = rateFamily(WORKED_EXAMPLE);
    expect(rating.accounts.map((a) => a.tier.limit)).toEqual([250, 250, 250]);
    expect(rating.accounts.map((a) => a.basis)).toEqual(['aggregated', 'aggregated', 'aggregated']);
  });

  it('applies max() from exactly 1,000,000 USDT of own volume, not at 999,999.99', () => {
    const family = (volume: string) => [
      { account: 'big', contracts: [{ contract: 'BTC_USDT', makerVolume: volume, place: 10_000 }] },
      { account: 'noisy', contracts: [{ contract: 'BTC_USDT', place: 1_000_000 }] },
    ];
    const below = rateFamily(family('999999.99')).accounts[0]!;
    expect(below.basis).toBe('aggregated');
    expect(below.tier.limit).toBe(100);
    const at = rateFamily(family('1000000')).accounts[0]!;
    expect(at.basis).toBe('max-own');
    expect(at.tier.limit).toBe(400); // own 1,000,000 / 10,000 = 100 beats aggregated 0.99
  });

  it('rates a broker family by each account own ratio only', () => {
    const rating = rateFamily(WORKED_EXAMPLE, { kind: 'broker' });
    expect(rating.accounts.map((a) => a.basis)).toEqual(['own', 'own', 'own']);
    expect(rating.accounts.map((a) => a.tier.limit)).toEqual([250, 250, 300]);
  });

  it('rates an account alone in a broker family by its own ratio', () => {
    const rating = rateFamily(
      [{ account: 'solo', contracts: [{ contract: 'BTC_USDT', makerVolume: '1200', place: 100 }] }],
      { kind: 'broker' },
    );
    expect(rating.accounts[0]).toMatchObject({ basis: 'own', tier: { tier: 5, limit: 300 } });
  });

  it('gives an account with no requests the aggregated ratio under max()', () => {
    const rating = rateFamily([
      { account: 'quiet', contracts: [{ contract: 'BTC_USDT', makerVolume: '2000000' }] },
      { account: 'busy', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] },
    ]);
    expect(rating.accounts[0]!.basis).toBe('max-aggregated');
    expect(rating.accounts[0]!.tier.limit).toBe(400);
  });

  it('refuses an account listed twice, a bad kind and a bad threshold', () => {
    expect(() =>
      rateFamily([
        { account: 'A', contracts: [] },
        { account: 'A', contracts: [] },
      ]),
    ).toThrow('each account once');
    expect(() => resolveFamilyOptions({ kind: 'club' as never })).toThrow(
      'Expected `kind` to be "standard" or "broker", got "club"',
    );
    expect(() => resolveFamilyOptions({ ownVolumeThreshold: '-1' })).toThrow('`ownVolumeThreshold`');
    expect(() => rateFamily([{ account: '', contracts: [] }])).toThrow('`account`');
  });

  it('names the account of a bad amount', () => {
    expect(() => rateFamily([{ account: 'sub-7', contracts: [{ contract: 'SOL_USDT', takerVolume: '-5' }] }])).toThrow(
      'Expected `takerVolume` of SOL_USDT in account sub-7 to be a non-negative decimal string, got "-5"',
    );
  });
});

describe('rateFamily options', () => {
  it('refuses null options with an InvalidInputError naming them, not a TypeError', () => {
    expect(() => rateFamily(WORKED_EXAMPLE, null as never)).toThrow(InvalidInputError);
    expect(() => rateFamily(WORKED_EXAMPLE, null as never)).toThrow(
      'Expected the family options to be an options object',
    );
    expect(() => resolveFamilyOptions(null as never)).toThrow('the family options');
  });
});
