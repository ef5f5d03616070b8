import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { micros } from '../../src/model-exchange/http.js';

/** The reference: the whole microseconds as `String` writes them. */
const reference = (ms: number): string => String(Math.floor(ms * 1000));

describe('micros', () => {
  test.prop([
    fc.oneof(
      fc.double({ noNaN: false }),
      fc.double({ min: 946_684_800_000, max: 7_258_118_400_000 }),
      // The last microsecond of a second, and the first of the next.
      fc.integer({ min: 1, max: 4_000_000_000 }).chain((s) => fc.constantFrom((s * 1e6 - 1) / 1000, (s * 1e6) / 1000)),
    ),
  ])('writes the microseconds of an instant as String(Math.floor(ms * 1000)) does', (ms) => {
    expect(micros(ms)).toBe(reference(ms));
  });

  it('writes the instants around the fast path as String does', () => {
    for (const ms of [
      0,
      -0,
      0.001,
      999.999,
      1000,
      -1000,
      2 ** 52 / 1000 - 0.001,
      2 ** 52 / 1000,
      1e300,
      Infinity,
      Number.NaN,
    ])
      expect(micros(ms)).toBe(reference(ms));
  });
});
