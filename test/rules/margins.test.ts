import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { makePlan } from '../../src/cli/plan.js';
import { InvalidInputError } from '../../src/errors.js';
import { tierMargins } from '../../src/rules/margins.js';
import { tradeRatio } from '../../src/rules/ratio.js';
import { Dec } from '../../src/internal/decimal.js';

const nine = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '900', place: 100 }]);

describe('tierMargins options', () => {
  it('reads tier rows as a table and refuses null options or an empty table with an InvalidInputError', () => {
    const rows = [
      { minRatio: '0', limit: 10 },
      { minRatio: '10', limit: 20 },
    ];
    expect(tierMargins(nine, { tiers: rows }).up?.makerVolume.toString()).toBe('100');
    expect(() => tierMargins(nine, null as never)).toThrow(InvalidInputError);
    expect(() => tierMargins(nine, { tiers: [] })).toThrow('`tiers`');
  });
});

describe('tierMargins (see docs/rules.md#r1, #r3)', () => {
  it('gives what reaches the tier above, and the spare before the tier below: both down figures keep the tier', () => {
    const m = tierMargins(nine);
    expect(m.up).toMatchObject({ tier: { tier: 5 }, fewerRequests: 10 });
    expect(m.up?.makerVolume.toString()).toBe('100');
    expect(m.down).toMatchObject({ tier: { tier: 3 }, spareRequests: 80 });
    expect(m.down?.makerVolume.toString()).toBe('400');
    // The spare keeps the tier; one request more, or any more volume lost, drops it.
    expect(tierMargins(tradeRatio([{ contract: 'BTC_USDT', makerVolume: '900', place: 180 }])).tier.tier).toBe(4);
    expect(tierMargins(tradeRatio([{ contract: 'BTC_USDT', makerVolume: '900', place: 181 }])).tier.tier).toBe(3);
    expect(tierMargins(tradeRatio([{ contract: 'BTC_USDT', makerVolume: '500', place: 100 }])).tier.tier).toBe(4);
    expect(tierMargins(tradeRatio([{ contract: 'BTC_USDT', makerVolume: '499.99999999', place: 100 }])).tier.tier).toBe(
      3,
    );
  });

  it('gives a spare of 0 volume and 0 requests at a ratio exactly on the bound', () => {
    const m = tierMargins(tradeRatio([{ contract: 'BTC_USDT', makerVolume: '1000', place: 100 }]));
    expect(m.tier.tier).toBe(5);
    expect(m.down?.makerVolume.toString()).toBe('0');
    expect(m.down?.spareRequests).toBe(0);
  });
});

// A ratio of `maker` USDT over `btc` BTC_USDT requests (coefficient 1) and `sol` SOL_USDT ones (0.4).
const ratioOf = (maker: string, btc: number, sol = 0) =>
  tradeRatio([
    { contract: 'BTC_USDT', makerVolume: maker, place: btc },
    ...(sol > 0 ? [{ contract: 'SOL_USDT', place: sol }] : []),
  ]);

describe('tierMargins at the edges of the tiers (see docs/rules.md#r1, #r3)', () => {
  it('on a bound: the tier of the bound, nothing to spare below, the full step to the next bound above', () => {
    // 500 / 100 = 5 exactly: tier 4; the next bound is 10, so 500 more, or 50 fewer requests.
    const m = tierMargins(ratioOf('500', 100));
    expect(m.tier.tier).toBe(4);
    expect(m.up).toMatchObject({ tier: { tier: 5, limit: 300 }, fewerRequests: 50 });
    expect(m.up?.makerVolume.toString()).toBe('500');
    expect(m.down).toMatchObject({ tier: { tier: 3, limit: 200 }, spareRequests: 0 });
    expect(m.down?.makerVolume.toString()).toBe('0');
  });

  it('one unit (1e-8 USDT) below a bound: the tier below, 1e-8 USDT or one request to reach it', () => {
    const m = tierMargins(ratioOf('499.99999999', 100));
    expect(m.tier.tier).toBe(3);
    expect(m.up).toMatchObject({ tier: { tier: 4 }, fewerRequests: 1 });
    expect(m.up?.makerVolume.toString()).toBe('0.00000001');
    // 499.99999999 / 99 = 5.05...: one request fewer does reach tier 4.
    expect(tierMargins(ratioOf('499.99999999', 99)).tier.tier).toBe(4);
    // To the bound below (3): 499.99999999 - 300 may be lost, and 66 requests added (499.99999999 / 166 >= 3 > 499.99999999 / 167).
    expect(m.down?.makerVolume.toString()).toBe('199.99999999');
    expect(m.down?.spareRequests).toBe(66);
  });

  it('just below tier 2 on a single request: 1e-8 USDT reaches it, no count of fewer requests does', () => {
    // 1 USDT over 1 request is ratio 1, tier 2; 0.99999999 over 1 request: tier 1, and dropping the
    // one request leaves no counted request (an undefined ratio, tier 1): no count of fewer requests reaches tier 2.
    const m = tierMargins(ratioOf('0.99999999', 1));
    expect(m.tier.tier).toBe(1);
    expect(m.up?.fewerRequests).toBeNull();
    expect(m.up?.makerVolume.toString()).toBe('0.00000001');
    expect(m.down).toBeNull();
  });

  it('at the top tier (ratio 50 and above): nothing up, the spare before tier 6 down', () => {
    for (const [maker, spare, lost] of [
      ['5000', 0, '0'],
      ['7000', 40, '2000'],
    ] as const) {
      const m = tierMargins(ratioOf(maker, 100));
      expect(m.tier).toMatchObject({ tier: 7, limit: 400 });
      expect(m.up).toBeNull();
      expect(m.down).toMatchObject({ tier: { tier: 6, limit: 350 }, spareRequests: spare });
      expect(m.down?.makerVolume.toString()).toBe(lost);
    }
  });

  it('at tier 1: nothing down; with no volume, only volume reaches tier 2', () => {
    const m = tierMargins(ratioOf('0', 100));
    expect(m.tier.tier).toBe(1);
    expect(m.down).toBeNull();
    expect(m.up?.makerVolume.toString()).toBe('100');
    expect(m.up?.fewerRequests).toBeNull();
  });

  it('with no counted request (an undefined ratio): tier 1 and no margins', () => {
    expect(tierMargins(ratioOf('1000', 0))).toEqual({
      tier: expect.objectContaining({ tier: 1 }),
      up: null,
      down: null,
    });
  });

  it('counts requests on a contract of the given coefficient: 0.4 weighs 2.5 times fewer', () => {
    // 900 / 100 = 9: 10 fewer BTC_USDT requests reach 10, or 25 fewer at 0.4; 80 more BTC_USDT, or 200 at 0.4, keep 5.
    const m = tierMargins(ratioOf('900', 100), { coefficient: '0.4' });
    expect(m.up?.fewerRequests).toBe(25);
    expect(m.down?.spareRequests).toBe(200);
    expect(tierMargins(ratioOf('900', 100, 200)).tier.tier).toBe(4);
    expect(tierMargins(ratioOf('900', 100, 201)).tier.tier).toBe(3);
  });

  it('counts maker volume at the given weight', () => {
    // 900 / 100 = 9: 100 of weighted volume reaches 10, which is 200 USDT at weight 0.5.
    const m = tierMargins(ratioOf('900', 100), { makerWeight: '0.5' });
    expect(m.up?.makerVolume.toString()).toBe('200');
    expect(m.down?.makerVolume.toString()).toBe('800');
  });
});

describe('margins below VIP 14 (see docs/rules.md#r4)', () => {
  it('are given by the plan from VIP 14 and not below it, where no ratio moves the tier', () => {
    const input = {
      accounts: [{ account: 'main', contracts: [{ contract: 'BTC_USDT', makerVolume: '900', place: 100 }], line: 2 }],
      spotHours: [],
    };
    const tiered = makePlan(input, {}, 14).accounts[0]!;
    expect(tiered).toMatchObject({
      tier: 4,
      limit: 250,
      margins: { up: { tier: { tier: 5 } }, down: { tier: { tier: 3 } } },
    });
    const below = makePlan(input, {}, 13).accounts[0]!;
    expect(below).toMatchObject({ tier: 1, limit: 100, margins: { tier: { tier: 1 }, up: null, down: null } });
  });
});

// The exact tier of numerator / denominator, counted from the default bounds (see docs/rules.md#r3).
const BOUNDS = ['0', '1', '3', '5', '10', '20', '50'];
const exactTier = (n: Dec, d: Dec) => BOUNDS.filter((b) => n.greaterThanOrEqualTo(d.times(b))).length;
const UNIT = new Dec('1e-8');

describe('tierMargins properties (see docs/rules.md#r1, #r3)', () => {
  // Maker and taker volume (taker weighs 0.9, so numerators of 9 decimals need rounding), requests
  // on BTC_USDT and SOL_USDT, and ratios landing on a bound or 1e-8 either side of one.
  const activity = fc
    .record({
      btc: fc.integer({ min: 0, max: 2000 }),
      sol: fc.integer({ min: 0, max: 2000 }),
      bound: fc.constantFrom('0.5', '1', '3', '5', '10', '20', '50', '64.3'),
      delta: fc.constantFrom('0', '1e-8', '-1e-8', '0.37'),
      taker: fc.bigInt({ min: 0n, max: 10n ** 12n }),
    })
    .filter(({ btc, sol }) => btc + sol > 0)
    .map(({ btc, sol, bound, delta, taker }) => {
      const maker = Dec.max(0, new Dec(bound).times(new Dec(btc).plus(new Dec(sol).times('0.4'))).plus(delta));
      const takerVolume = new Dec(taker.toString()).times(UNIT).toFixed();
      return [
        { contract: 'BTC_USDT', makerVolume: maker.toFixed(), takerVolume, place: btc },
        ...(sol > 0 ? [{ contract: 'SOL_USDT', place: sol }] : []),
      ];
    });

  test.prop([activity, fc.constantFrom('1', '0.4')], { numRuns: 300 })(
    'each margin is the least (up) or the most (down) that does it: one unit less up falls short, one unit more down drops the tier',
    (contracts, coefficient) => {
      const r = tradeRatio(contracts);
      const n = r.numerator;
      const d = r.denominator;
      const c = new Dec(coefficient);
      const m = tierMargins(r, { coefficient });
      expect(m.tier.tier).toBe(exactTier(n, d));
      if (m.up === null) expect(m.tier.tier).toBe(7);
      else {
        const next = m.up.tier.tier;
        expect(next).toBe(m.tier.tier + 1);
        const v = m.up.makerVolume;
        expect(exactTier(n.plus(v), d)).toBeGreaterThanOrEqual(next);
        if (v.greaterThan(0)) expect(exactTier(n.plus(v).minus(UNIT), d)).toBeLessThan(next);
        const k = m.up.fewerRequests;
        if (k === null) {
          // No count of fewer requests that leaves one counted reaches the next tier.
          const most = d.dividedBy(c).ceil().minus(1);
          if (most.greaterThanOrEqualTo(0)) expect(exactTier(n, d.minus(most.times(c)))).toBeLessThan(next);
        } else {
          expect(d.minus(c.times(k)).greaterThan(0)).toBe(true);
          expect(exactTier(n, d.minus(c.times(k)))).toBeGreaterThanOrEqual(next);
          if (k > 0) expect(exactTier(n, d.minus(c.times(k - 1)))).toBeLessThan(next);
        }
      }
      if (m.down === null) expect(m.tier.tier).toBe(1);
      else {
        expect(m.down.tier.tier).toBe(m.tier.tier - 1);
        const v = m.down.makerVolume;
        expect(v.greaterThanOrEqualTo(0)).toBe(true);
        expect(exactTier(n.minus(v), d)).toBe(m.tier.tier);
        expect(exactTier(n.minus(v).minus(UNIT), d)).toBeLessThan(m.tier.tier);
        const s = m.down.spareRequests;
        expect(exactTier(n, d.plus(c.times(s)))).toBe(m.tier.tier);
        expect(exactTier(n, d.plus(c.times(s + 1)))).toBeLessThan(m.tier.tier);
      }
    },
  );
});
