import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { partitionPoint } from '../../src/internal/search.js';

/** The obviously correct answer: the first index where the predicate fails, found by walking. */
function linearPartitionPoint(length: number, predicate: (index: number) => boolean): number {
  let i = 0;
  while (i < length && predicate(i)) i++;
  return i;
}

describe('partitionPoint', () => {
  it('gives 0 on an empty range and never asks the predicate', () => {
    let asked = 0;
    expect(partitionPoint(0, () => (asked++, true))).toBe(0);
    expect(asked).toBe(0);
  });

  it('gives the length when the predicate holds everywhere', () => {
    expect(partitionPoint(5, () => true)).toBe(5);
    expect(partitionPoint(1, () => true)).toBe(1);
  });

  it('gives 0 when the predicate holds nowhere', () => {
    expect(partitionPoint(5, () => false)).toBe(0);
    expect(partitionPoint(1, () => false)).toBe(0);
  });

  it('finds the first element at or after a value, and one past the last at or before it', () => {
    const sorted = [1, 3, 3, 7];
    expect(partitionPoint(sorted.length, (i) => sorted[i]! < 3)).toBe(1);
    expect(partitionPoint(sorted.length, (i) => sorted[i]! <= 3)).toBe(3);
    expect(partitionPoint(sorted.length, (i) => sorted[i]! < 8)).toBe(4);
  });

  it('asks the predicate only about indices in range, at most ceil(log2(length + 1)) times', () => {
    const asked: number[] = [];
    partitionPoint(1000, (i) => (asked.push(i), i < 617));
    expect(asked.every((i) => i >= 0 && i < 1000)).toBe(true);
    expect(asked.length).toBeLessThanOrEqual(10);
  });

  test.prop([fc.array(fc.integer({ min: -20, max: 20 })), fc.integer({ min: -25, max: 25 })])(
    'agrees with a linear scan on any sorted array and cut',
    (values, cut) => {
      const sorted = [...values].sort((a, b) => a - b);
      expect(partitionPoint(sorted.length, (i) => sorted[i]! < cut)).toBe(
        linearPartitionPoint(sorted.length, (i) => sorted[i]! < cut),
      );
      expect(partitionPoint(sorted.length, (i) => sorted[i]! <= cut)).toBe(
        linearPartitionPoint(sorted.length, (i) => sorted[i]! <= cut),
      );
    },
  );

  test.prop([fc.nat({ max: 10_000 }), fc.nat({ max: 10_000 })])('finds any cut of any length', (length, at) => {
    const cut = Math.min(at, length);
    expect(partitionPoint(length, (i) => i < cut)).toBe(cut);
  });
});
