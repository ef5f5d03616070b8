import { describe, expect, it } from 'vitest';
import { wholeNumber } from '../../src/cli/whole-number.js';

describe('wholeNumber', () => {
  it.each([
    ['0', 0],
    ['250', 250],
    ['007', 7],
    ['9007199254740991', 9007199254740991],
  ])('reads %s as %d', (text, n) => {
    expect(wholeNumber(text)).toBe(n);
  });

  it.each(['', ' 1', '1 ', '-5', '+5', '1.0', '1e3', '0x10', 'ten', '9007199254740992'])('refuses "%s"', (text) => {
    expect(wholeNumber(text)).toBeUndefined();
  });

  it('takes a sign when signed', () => {
    expect(wholeNumber('-3600000', 'signed')).toBe(-3_600_000);
    expect(wholeNumber('+5', 'signed')).toBe(5);
    expect(wholeNumber('--5', 'signed')).toBeUndefined();
    expect(wholeNumber('-9007199254740992', 'signed')).toBeUndefined();
  });
});
