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
