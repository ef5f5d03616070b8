import { describe, expect, it } from 'vitest';
import { advise } from '../../src/advise/advise.js';
import { OKX_WORKED_EXAMPLE } from '../../src/rules/okx/example.js';
import { OKX } from '../../src/rules/okx/rulebook.js';

describe('advise under OKX’s rulebook', () => {
  it("rates the help article's family by OKX's tiers, and finds each account's next tier", () => {
    const advice = advise(OKX_WORKED_EXAMPLE, { rulebook: OKX, ownVolumeThreshold: '0' });
    expect(advice.vipLevel).toBe(5);
    expect(advice.now.accounts.map((a) => a.tier.limit)).toEqual([2500, 1750, 1750]);
    // A: 10.43 to 20 needs 20 x 11.5 - 120 = 110 USDT more.
    const a = advice.findings.find((f) => f.kind === 'next-tier-maker' && f.account === 'A');
    expect(a?.figures).toMatchObject({ makerVolume: '110', tier: 7, limit: 3000 });
    expect(a?.change).toBe('A: 110 USDT more maker volume for tier 7 (3000 per 2 s), by its own ratio');
  });

  it('reads instrument ids however they are written, pairs included', () => {
    const accounts = [
      { account: 'A', contracts: [{ contract: 'btc-usdt-swap', makerVolume: '100', place: 50, cancel: 40 }] },
    ];
    const advice = advise(
      { accounts, pairs: [{ account: 'A', contract: 'BTC-USDT-SWAP', pairs: 30 }] },
      { rulebook: OKX },
    );
    // Cancels do not count on OKX: a pair made one amend saves nothing.
    expect(advice.findings.find((f) => f.kind === 'amend-pairs')?.figures).toEqual({ pairs: 30, requestsSaved: 0 });
  });

  it('refuses hourly activity and throttle options OKX has no throttle for, naming the field', () => {
    const accounts = [{ account: 'A', contracts: [{ contract: 'BTC-USDT-SWAP', makerVolume: '100', place: 50 }] }];
    expect(() => advise({ accounts, hours: [{ account: 'A', market: 'spot', hours: [] }] }, { rulebook: OKX })).toThrow(
      'Expected `hours[0].market` to be a market with an hourly throttle under OKX API v5',
    );
    expect(() => advise(accounts, { rulebook: OKX, abuse: {} })).toThrow(
      'Expected `abuse` to be nothing: okx has no such throttle',
    );
    expect(() => advise(accounts, { rulebook: OKX, coefficients: { BTC_USDT: '1' } })).toThrow(
      'Unknown field `coefficients`',
    );
    expect(() =>
      advise([{ account: 'A', contracts: [{ contract: 'BTC_USDT', place: 1 }] }], { rulebook: OKX }),
    ).toThrow('got "BTC_USDT"');
  });
});
