import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { FixedCount } from '../../src/model-exchange/fixed-count.js';
import { SlidingCount } from '../../src/model-exchange/sliding-count.js';

// Arrivals in time order: gaps of 0 to 700 ms, weights 1 to 3, a limit of N per 1000 ms.
const arrivals = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 700 }), fc.integer({ min: 1, max: 3 })), { maxLength: 200 })
  .map((list) => {
    let at = 0;
    return list.map(([gap, weight]) => ({ at: (at += gap), weight }));
  });
const n = fc.integer({ min: 1, max: 8 });
const W = 1000;

/** The reference: every admitted arrival kept, the window summed from scratch. */
function admitSlowly(
  list: readonly { at: number; weight: number }[],
  limit: number,
  inWindow: (t: number, at: number) => boolean,
): boolean[] {
  const kept: { at: number; weight: number }[] = [];
  return list.map(({ at, weight }) => {
    const used = kept.filter((k) => inWindow(k.at, at)).reduce((s, k) => s + k.weight, 0);
    if (used + weight > limit) return false;
    kept.push({ at, weight });
    return true;
  });
}

test.prop([arrivals, n])(
  'a sliding count admits exactly what summing (t - W, t] from scratch admits',
  (list, limit) => {
    const c = new SlidingCount(limit);
    const fast = list.map(({ at, weight }) => (c.fits(at, weight, limit, W) ? (c.add(at, weight), true) : false));
    expect(fast).toEqual(admitSlowly(list, limit, (k, at) => k > at - W));
  },
);

test.prop([arrivals, n])(
  'a fixed count admits exactly what summing the aligned window from scratch admits',
  (list, limit) => {
    const c = new FixedCount();
    const fast = list.map(({ at, weight }) => (c.fits(at, weight, limit, W) ? (c.add(at, weight), true) : false));
    expect(fast).toEqual(admitSlowly(list, limit, (k, at) => Math.floor(k / W) === Math.floor(at / W)));
  },
);

test.prop([arrivals, n])('freeAt is the first instant at which the weight fits', (list, limit) => {
  const c = new SlidingCount(limit);
  for (const { at, weight } of list) if (c.fits(at, weight, limit, W)) c.add(at, weight);
  const last = list.at(-1)?.at ?? 0;
  const free = c.freeAt(last, 1, limit, W);
  expect(c.fits(free, 1, limit, W)).toBe(true);
  if (free > last) {
    const again = new SlidingCount(limit);
    for (const { at, weight } of list) if (again.fits(at, weight, limit, W)) again.add(at, weight);
    expect(again.fits(free - 1, 1, limit, W)).toBe(false);
  }
});
