import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { Histogram } from '../../../src/cli/simulate/histogram.js';

/** The q-quantile as the histogram defines it: the value of rank ceil(q * n), exactly. */
function exact(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

describe('Histogram', () => {
  it('gives 0 when empty, and the largest delay as its max', () => {
    const h = new Histogram();
    expect(h.quantile(0.5)).toBe(0);
    for (const ms of [3, 0, 250.5, 1]) h.add(ms);
    expect(h.max).toBe(250.5);
    expect(h.total).toBe(4);
  });

  test.prop([
    fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1e6, noNaN: true })), { minLength: 1, maxLength: 200 }),
    fc.constantFrom(0.5, 0.9, 0.99, 1),
  ])('reads a quantile at most 1% above the exact one, never below it nor above the max', (values, q) => {
    const h = new Histogram();
    for (const v of values) h.add(v);
    const want = exact(values, q);
    const got = h.quantile(q);
    if (want <= 0.001) expect(got).toBe(0);
    else {
      expect(got).toBeGreaterThanOrEqual(want * (1 - 1e-9));
      expect(got).toBeLessThanOrEqual(want * 1.01 * (1 + 1e-9));
    }
    expect(got).toBeLessThanOrEqual(Math.max(...values));
  });
});
