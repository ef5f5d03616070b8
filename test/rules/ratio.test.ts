import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { compareRatio, resolveRatioOptions, tradeRatio } from '../../src/rules/ratio.js';
import { WORKED_EXAMPLE } from '../../src/rules/example.js';

const A = WORKED_EXAMPLE[0]!.contracts;

describe('tradeRatio (see docs/rules.md#r1)', () => {
  it("gives the exchange's worked example exactly 318/44", () => {
    const r = tradeRatio(A);
    expect(r.numerator.toString()).toBe('318');
    expect(r.denominator.toString()).toBe('44');
    expect(r.ratio!.toFixed(10)).toBe('7.2272727273');
    expect(r.makerVolume.toString()).toBe('120');
    expect(r.takerVolume.toString()).toBe('220');
    expect(r.volume.toString()).toBe('340');
    expect(r.requests).toBe(65);
  });

  it('weighs maker by 1 and taker by 0.9 by default, and takes other weights as options', () => {
    const activity = [{ contract: 'BTC_USDT', makerVolume: '10', takerVolume: '10', place: 1 }];
    expect(tradeRatio(activity).numerator.toString()).toBe('19');
    expect(tradeRatio(activity, { makerWeight: '1', takerWeight: '1' }).numerator.toString()).toBe('20');
    expect(tradeRatio(activity, { makerWeight: '0.5', takerWeight: 0 }).numerator.toString()).toBe('5');
  });

  it('counts place, amend and cancel by default, and leaves cancels out with countCancels: false', () => {
    const activity = [{ contract: 'BTC_USDT', makerVolume: '100', place: 5, amend: 3, cancel: 2 }];
    expect(tradeRatio(activity).denominator.toString()).toBe('10');
    expect(tradeRatio(activity, { countCancels: false }).denominator.toString()).toBe('8');
  });

  it('has no ratio (null, not infinity) when no request was counted', () => {
    const r = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '1000' }]);
    expect(r.ratio).toBeNull();
    expect(r.denominator.isZero()).toBe(true);
    expect(tradeRatio([]).ratio).toBeNull();
    expect(
      tradeRatio([{ contract: 'BTC_USDT', makerVolume: '1', cancel: 4 }], { countCancels: false }).ratio,
    ).toBeNull();
  });

  it('keeps volumes exact: 999,999.99 plus 0.01 is exactly 1,000,000', () => {
    const r = tradeRatio([
      { contract: 'BTC_USDT', makerVolume: '999999.99', place: 1 },
      { contract: 'ETH_USDT', takerVolume: '0.01', place: 1 },
    ]);
    expect(r.volume.toString()).toBe('1000000');
    expect(r.numerator.toString()).toBe('999999.999');
  });

  it('sums 0.1 ten times to exactly 1 (no binary float on the money path)', () => {
    const contracts = Array.from({ length: 10 }, (_, i) => ({ contract: `C${i}_USDT`, makerVolume: '0.1', place: 1 }));
    expect(tradeRatio(contracts).makerVolume.toString()).toBe('1');
  });

  it('accepts numbers and Decimals as amounts', () => {
    expect(tradeRatio([{ contract: 'BTC_USDT', makerVolume: 12.5, place: 1 }]).numerator.toString()).toBe('12.5');
  });

  it('refuses a negative, NaN, infinite or non-numeric volume, naming the field and contract', () => {
    expect(() => tradeRatio([{ contract: 'BTC_USDT', makerVolume: '-5' }])).toThrow(
      'Expected `makerVolume` of BTC_USDT to be a non-negative decimal string, got "-5"',
    );
    expect(() => tradeRatio([{ contract: 'BTC_USDT', takerVolume: Number.NaN }])).toThrow('`takerVolume` of BTC_USDT');
    expect(() => tradeRatio([{ contract: 'BTC_USDT', takerVolume: Number.POSITIVE_INFINITY }])).toThrow(
      InvalidInputError,
    );
    expect(() => tradeRatio([{ contract: 'BTC_USDT', makerVolume: 'ten' }])).toThrow('got "ten"');
    expect(() => tradeRatio([{ contract: 'BTC_USDT', makerVolume: ' 1' }])).toThrow('got " 1"');
    expect(() => tradeRatio([{ contract: 'BTC_USDT', makerVolume: 'Infinity' }])).toThrow('got "Infinity"');
  });

  it('refuses counts that are not non-negative integers', () => {
    expect(() => tradeRatio([{ contract: 'BTC_USDT', place: -1 }])).toThrow(
      'Expected `place` of BTC_USDT to be a non-negative integer, got -1',
    );
    expect(() => tradeRatio([{ contract: 'BTC_USDT', amend: 1.5 }])).toThrow('`amend` of BTC_USDT');
    expect(() => tradeRatio([{ contract: 'BTC_USDT', cancel: 2 ** 50 }])).toThrow(
      'Expected `cancel` of BTC_USDT to be a non-negative integer below 2^50',
    );
    expect(() => tradeRatio([{ contract: 'BTC_USDT', place: 2 ** 53 }])).toThrow(
      'Expected `place` of BTC_USDT to be a non-negative integer, got',
    );
  });

  it('refuses an empty contract name and a contract listed twice in one list', () => {
    expect(() => tradeRatio([{ contract: '' }])).toThrow(
      'Expected `contract` to be a contract name such as "BTC_USDT", got ""',
    );
    expect(() =>
      tradeRatio([
        { contract: 'BTC_USDT', place: 1 },
        { contract: 'btc-usdt', place: 1 },
      ]),
    ).toThrow('BTC_USDT appears twice');
  });

  it('refuses bad options', () => {
    expect(() => resolveRatioOptions({ makerWeight: '-1' })).toThrow('`makerWeight`');
    expect(() => resolveRatioOptions({ coefficients: { SOL_USDT: '0' } })).toThrow('`coefficients.SOL_USDT`');
    expect(() => resolveRatioOptions({ defaultCoefficient: 'x' })).toThrow('`defaultCoefficient`');
  });
});

describe('a ratio result printed', () => {
  it('shows its decimals in console.log and JSON, not the exact sums inside', () => {
    const r = tradeRatio([
      { contract: 'BTC_USDT', makerVolume: '100', takerVolume: '200', place: 30 },
      { contract: 'SOL_USDT', makerVolume: '20', takerVolume: '20', place: 35 },
    ]);
    const shown = inspect(r);
    expect(shown).toBe(
      "RatioResult {\n  ratio: '7.2272727272727272727272727272727272727272727272727272727272727272727272727272727',\n" +
        "  numerator: '318',\n  denominator: '44',\n  makerVolume: '120',\n  takerVolume: '220',\n  volume: '340',\n  requests: 65\n}",
    );
    expect(shown).not.toMatch(/\d+n\b|units|scale/);
    expect(inspect({ nested: r }, { depth: 4 })).toContain("ratio: '7.2272");
    expect(JSON.parse(JSON.stringify(r))).toMatchObject({
      ratio: expect.stringMatching(/^7\.2272/),
      numerator: '318',
      requests: 65,
    });
  });
});

describe('compareRatio', () => {
  it('orders exactly and puts no ratio below every ratio', () => {
    const a = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '1', place: 3 }]);
    const b = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '3333333333', place: 10000000000 }]);
    const none = tradeRatio([]);
    expect(compareRatio(a, b)).toBe(1);
    expect(compareRatio(b, a)).toBe(-1);
    expect(compareRatio(a, a)).toBe(0);
    expect(compareRatio(none, b)).toBe(-1);
    expect(compareRatio(none, none)).toBe(0);
  });
});

describe('options left out or null', () => {
  it('takes left-out options as the defaults and refuses null with an InvalidInputError naming them', () => {
    expect(tradeRatio(A, undefined).denominator.toString()).toBe('44');
    expect(() => tradeRatio(A, null as never)).toThrow(InvalidInputError);
    expect(() => tradeRatio(A, null as never)).toThrow(
      'Expected the ratio options to be an options object, or nothing for the defaults, got null',
    );
    expect(() => resolveRatioOptions(5 as never)).toThrow('the ratio options');
  });
});
