import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { INSTANT_RANGE, isInstant, parseInstant, parseNonNegativeDecimal, parseUnixSeconds, readOptions } from '../../src/rules/parse.js';

const T = Date.parse('2026-11-01T00:00:00Z');

describe('parseInstant', () => {
  it('takes epoch milliseconds from 2000-01-01 to 2200-01-01', () => {
    expect(INSTANT_RANGE).toEqual({ from: Date.UTC(2000, 0, 1), to: Date.UTC(2200, 0, 1) });
    expect(parseInstant(T, '`at`')).toBe(T);
    expect(parseInstant(INSTANT_RANGE.from, '`at`')).toBe(INSTANT_RANGE.from);
    expect(parseInstant(INSTANT_RANGE.to - 1, '`at`')).toBe(INSTANT_RANGE.to - 1);
  });

  it.each([
    ['microseconds by mistake', T * 1000],
    ['past the range', 9e15],
    ['the end of the range', Date.UTC(2200, 0, 1)],
    ['seconds by mistake', T / 1000],
    ['before 2000', Date.UTC(1999, 11, 31, 23, 59, 59, 999)],
    ['negative', -1],
    ['a fraction', T + 0.5],
    ['NaN', Number.NaN],
    ['Infinity', Infinity],
    ['text', String(T)],
    ['undefined', undefined],
  ])('refuses an instant %s, naming the field', (_, value) => {
    expect(isInstant(value)).toBe(false);
    expect(() => parseInstant(value, '`at`')).toThrow(InvalidInputError);
    expect(() => parseInstant(value, '`at`')).toThrow('Expected `at` to be an instant in epoch milliseconds (an integer) from 2000-01-01 to 2200-01-01');
  });

  it('reads Unix seconds in the same range', () => {
    expect(parseUnixSeconds(T / 1000 + 0.25, '`t`')).toBe(T / 1000 + 0.25);
    expect(() => parseUnixSeconds(T, '`t`')).toThrow('Expected `t` to be Unix seconds from 2000-01-01 to 2200-01-01, got 1793491200000');
    expect(() => parseUnixSeconds(Number.NaN, '`t`')).toThrow(InvalidInputError);
  });
});

describe('parseNonNegativeDecimal', () => {
  it('reads zero of either sign as 0, as its comment says, and refuses any other negative amount', () => {
    for (const zero of [-0, '-0', '-0.00', '+0']) expect(parseNonNegativeDecimal(zero, '`v`').toString()).toBe('0');
    expect(parseNonNegativeDecimal(-0, '`v`').isNegative()).toBe(false);
    expect(() => parseNonNegativeDecimal('-0.01', '`v`')).toThrow('Expected `v` to be a non-negative decimal string, got "-0.01"');
    expect(() => parseNonNegativeDecimal(-5, '`v`')).toThrow(InvalidInputError);
  });
});

describe('readOptions', () => {
  it('takes an object or nothing, and refuses null naming the options', () => {
    expect(readOptions(undefined)).toEqual({});
    const given = { a: 1 };
    expect(readOptions(given)).toBe(given);
    expect(() => readOptions(null as never, 'the ratio options')).toThrow('Expected the ratio options to be an options object, or nothing for the defaults, got null');
    expect(() => readOptions([] as never)).toThrow(InvalidInputError);
  });
});
