import { describe, expect, it } from 'vitest';
import { FixedCount } from '../../src/model-exchange/fixed-count.js';
import { SlidingCount } from '../../src/model-exchange/sliding-count.js';

describe('FixedCount', () => {
  it('resets at every multiple of W, so 2N can arrive within one W across a boundary', () => {
    const c = new FixedCount();
    for (let i = 0; i < 3; i++) if (c.fits(999, 1, 3, 1000)) c.add(999, 1);
    expect(c.fits(999, 1, 3, 1000)).toBe(false);
    expect(c.freeAt(999, 1, 3, 1000)).toBe(1000);
    expect(c.fits(1000, 3, 3, 1000)).toBe(true);
    c.add(1000, 3);
    expect(c.most).toBe(3);
  });

  it('where a sliding count refuses the same arrivals', () => {
    const c = new SlidingCount(3);
    c.add(999, 3);
    expect(c.fits(1000, 1, 3, 1000)).toBe(false);
    expect(c.freeAt(1000, 1, 3, 1000)).toBe(1999);
  });

  it('never fits a weight above N', () => {
    const c = new FixedCount();
    expect(c.fits(0, 4, 3, 1000)).toBe(false);
    expect(c.freeAt(0, 4, 3, 1000)).toBe(Infinity);
  });
});
