import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/internal/decimal.js';
import { fillRateOf, isFillRateBelow } from '../../src/rules/fill-rate.js';

describe('isFillRateBelow (see docs/rules.md#r9, #r14)', () => {
  const tenth = new Dec('0.1');

  it('does not count a fill ratio of exactly 0.1 as below 0.1', () => {
    expect(isFillRateBelow(new Dec(100), 1000, tenth)).toBe(false);
    expect(isFillRateBelow(new Dec('99.99'), 1000, tenth)).toBe(true);
    expect(isFillRateBelow(new Dec('100.01'), 1000, tenth)).toBe(false);
  });

  it('decides exactly where dividing in doubles would not: 0.3 over 3 requests is 0.1', () => {
    expect(0.3 / 3 < 0.1).toBe(true); // the double quotient falls under the bound
    expect(isFillRateBelow(new Dec('0.3'), 3, tenth)).toBe(false);
  });

  it('finds nothing traded below any positive threshold, and nothing below with no request', () => {
    expect(isFillRateBelow(new Dec(0), 1, new Dec('0.01'))).toBe(true);
    expect(isFillRateBelow(new Dec(0), 0, tenth)).toBe(false);
    expect(isFillRateBelow(new Dec(0), 5, new Dec(0))).toBe(false);
  });
});

describe('fillRateOf (see docs/rules.md#r9, #r14)', () => {
  it('divides traded by requests, and gives null with no request', () => {
    expect(fillRateOf(new Dec(100), 1000)?.toString()).toBe('0.1');
    expect(fillRateOf(new Dec(0), 0)).toBeNull();
  });
});
