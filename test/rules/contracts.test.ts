import { describe, expect, it } from 'vitest';
import { coefficientOf, normalizeContract, resolveCoefficients } from '../../src/rules/contracts.js';
import { tradeRatio } from '../../src/rules/ratio.js';

describe('normalizeContract (see docs/rules.md#r2)', () => {
  it('reads BTC-USDT and btc_usdt as BTC_USDT', () => {
    expect(normalizeContract('BTC-USDT')).toBe('BTC_USDT');
    expect(normalizeContract('btc_usdt')).toBe('BTC_USDT');
    expect(normalizeContract('1000PEPE_USDT')).toBe('1000PEPE_USDT');
  });

  it('refuses names that are not contract names', () => {
    for (const bad of ['', 'BTC', 'BTC USDT', 'BTC/USDT', '_USDT', 'BTC_', 42]) {
      expect(() => normalizeContract(bad)).toThrow('a contract name such as "BTC_USDT"');
    }
  });
});

describe('contract coefficients (see docs/rules.md#r2)', () => {
  it('weighs BTC_USDT and ETH_USDT 1 and every other contract 0.4', () => {
    const table = resolveCoefficients();
    expect(coefficientOf(table, 'BTC_USDT').toString()).toBe('1');
    expect(coefficientOf(table, 'ETH_USDT').toString()).toBe('1');
    expect(coefficientOf(table, 'SOL_USDT').toString()).toBe('0.4');
    expect(coefficientOf(table, 'NEWLY_LISTED_USDT').toString()).toBe('0.4');
  });

  it('takes the table and the default as options', () => {
    const r = tradeRatio(
      [
        { contract: 'SOL_USDT', place: 10 },
        { contract: 'XRP_USDT', place: 10 },
        { contract: 'BTC_USDT', place: 10 },
      ],
      { coefficients: { 'sol-usdt': '0.5' }, defaultCoefficient: '0.25' },
    );
    // SOL 10 x 0.5 + XRP 10 x 0.25 + BTC (no longer listed) 10 x 0.25
    expect(r.denominator.toString()).toBe('10');
  });

  it('refuses a contract listed twice after normalisation', () => {
    expect(() => resolveCoefficients({ BTC_USDT: '1', 'btc-usdt': '1' })).toThrow('BTC_USDT is already listed');
  });
});
