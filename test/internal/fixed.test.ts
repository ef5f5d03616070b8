import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { Dec } from '../../src/internal/decimal.js';
import {
  FixedSum,
  fixedAdd,
  fixedCmp,
  fixedFromDec,
  fixedFromPlainText,
  fixedMul,
  toDec,
} from '../../src/internal/fixed.js';

const plain = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat({ max: 20 })).map(([units, scale]) => {
  const digits = units.toString().padStart(scale + 1, '0');
  if (scale === 0) return digits;
  return `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
});

describe('Fixed', () => {
  test.prop([fc.array(plain, { maxLength: 30 })])('FixedSum adds exactly what decimal.js adds', (texts) => {
    const sum = new FixedSum();
    let expected = new Dec(0);
    for (const t of texts) {
      expect(sum.addText(t)).toBe(true);
      expected = expected.plus(t);
    }
    expect(toDec(sum.value()).equals(expected)).toBe(true);
  });

  test.prop([plain, plain])('compares, adds and multiplies exactly', (a, b) => {
    const x = fixedFromPlainText(a)!;
    const y = fixedFromPlainText(b)!;
    expect(fixedCmp(x, y)).toBe(new Dec(a).comparedTo(b));
    expect(toDec(fixedMul(x, y)).equals(new Dec(a).times(b))).toBe(true);
    expect(toDec(fixedAdd(x, y)).equals(new Dec(a).plus(b))).toBe(true);
  });

  it('refuses text that is not a plain non-negative decimal', () => {
    for (const bad of ['', '.', '.5', '5.', '-1', '+1', '1e5', ' 1', '1,5', '1.2.3']) {
      expect(fixedFromPlainText(bad)).toBeUndefined();
      expect(new FixedSum().addText(bad)).toBe(false);
    }
  });

  it('converts Decimals exactly, however small or large', () => {
    expect(toDec(fixedFromDec(new Dec('1e-30'))).equals('1e-30')).toBe(true);
    expect(toDec(fixedFromDec(new Dec('123456789012345678901234567890.5'))).toFixed()).toBe(
      '123456789012345678901234567890.5',
    );
  });

  it('refuses a negative or infinite Decimal with an InvalidInputError naming the value', () => {
    expect(() => fixedFromDec(new Dec('-5'))).toThrow(InvalidInputError);
    expect(() => fixedFromDec(new Dec('-5'))).toThrow(
      'Expected `d` of fixedFromDec to be a non-negative finite decimal, got -5',
    );
    expect(() => fixedFromDec(new Dec(Infinity))).toThrow('got Infinity');
  });
});
