import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { tierMargins } from '../../src/rules/margins.js';
import { tradeRatio } from '../../src/rules/ratio.js';

const nine = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '900', place: 100 }]);

describe('tierMargins options', () => {
  it('reads tier rows as a table and refuses null options or an empty table with an InvalidInputError', () => {
    const rows = [{ minRatio: '0', limit: 10 }, { minRatio: '10', limit: 20 }];
    expect(tierMargins(nine, { tiers: rows }).up?.makerVolume.toString()).toBe('100');
    expect(() => tierMargins(nine, null as never)).toThrow(InvalidInputError);
    expect(() => tierMargins(nine, { tiers: [] })).toThrow('`tiers`');
  });
});

describe('tierMargins (R1, R3)', () => {
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
    expect(tierMargins(tradeRatio([{ contract: 'BTC_USDT', makerVolume: '499.99999999', place: 100 }])).tier.tier).toBe(3);
  });

  it('gives a spare of 0 volume and 0 requests at a ratio exactly on the bound', () => {
    const m = tierMargins(tradeRatio([{ contract: 'BTC_USDT', makerVolume: '1000', place: 100 }]));
    expect(m.tier.tier).toBe(5);
    expect(m.down?.makerVolume.toString()).toBe('0');
    expect(m.down?.spareRequests).toBe(0);
  });
});
