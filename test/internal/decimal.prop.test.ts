import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { Dec, decimalNumber } from '../../src/internal/decimal.js';

describe('decimalNumber', () => {
  test.prop([
    fc.oneof(
      fc.double({ noNaN: false }).map((n) => new Dec(n)),
      fc.stringMatching(/^-?\d{1,40}(\.\d{1,40})?(e[+-]?\d{1,3})?$/).map((t) => new Dec(t)),
    ),
  ])('is the number toNumber gives', (d) => {
    expect(Object.is(decimalNumber(d), d.toNumber())).toBe(true);
  });
});
