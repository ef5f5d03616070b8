import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { WindowLimit } from '../../src/schedule/window.js';
import { waitOf } from './wait.js';

// Dispatches closer than a granule ((maxWindowMs + marginMs) / 1024) share one log entry. The
// reference is the exact log of every dispatch: counted for `span` after it was sent, it says the
// least any limit may make a caller wait; counted for `span` plus a granule, the most merging may.

/** Milliseconds from `at` until `weight` fits when each dispatch counts for `span` after it was sent. */
function exactWait(
  log: readonly (readonly [number, number])[],
  span: number,
  at: number,
  weight: number,
  cap: number,
): number {
  let used = 0;
  for (const [s, w] of log) if (s + span > at) used += w;
  if (used + weight <= cap) return 0;
  for (const [s, w] of log) {
    if (s + span <= at) continue;
    used -= w;
    if (used + weight <= cap) return s + span - at;
  }
  return Infinity;
}

const step = fc.oneof(
  // Mostly within a few granules of the last instant: the streams that merge.
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      quarters: fc.integer({ min: 0, max: 12 }),
      weight: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('gap' as const), eighths: fc.integer({ min: 1, max: 12 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      n: fc.integer({ min: 1, max: 40 }),
      eighths: fc.integer({ min: 1, max: 8 }),
    }),
  },
);

const scenario = fc.record({
  n: fc.integer({ min: 1, max: 40 }),
  // Integer windows and margins: a granule is then a binary fraction, and every instant exact.
  maxWindowMs: fc.integer({ min: 8, max: 4096 }),
  marginMs: fc.constantFrom(0, 0, 3, 16),
  steps: fc.array(step, { minLength: 1, maxLength: 400 }),
});

describe('WindowLimit merging (see docs/rules.md#r13)', () => {
  test.prop([scenario], { numRuns: 200 })(
    'never lets more than N through in any window, and never holds a caller back more than a granule longer than an exact log',
    ({ n, maxWindowMs, marginMs, steps }) => {
      const l = new WindowLimit({ limit: n, windowMs: maxWindowMs, maxWindowMs, marginMs });
      const granule = (maxWindowMs + marginMs) / 1024;
      const log: [number, number][] = [];
      let at = 0;
      for (const s of steps) {
        if (s.kind === 'gap') {
          at += (maxWindowMs * s.eighths) / 8;
          continue;
        }
        if (s.kind === 'update') {
          l.update({ limit: s.n, windowMs: Math.max(1, Math.floor((maxWindowMs * s.eighths) / 8)) });
          continue;
        }
        at += (granule * s.quarters) / 4;
        const span = l.windowMs + marginMs;
        const wait = waitOf(l.tryTake(s.weight, at));
        const least = exactWait(log, span, at, s.weight, l.limit);
        const most = exactWait(log, span + granule, at, s.weight, l.limit);
        expect(wait).toBeGreaterThanOrEqual(least);
        expect(wait).toBeLessThanOrEqual(most);
        if (wait === 0) {
          log.push([at, s.weight]);
          // The window ending at this dispatch, exactly: at most N.
          let inWindow = 0;
          for (const [t, w] of log) if (t + span > at) inWindow += w;
          expect(inWindow).toBeLessThanOrEqual(l.limit);
        }
      }
    },
  );

  test.prop([fc.integer({ min: 1, max: 20 }), fc.integer({ min: 100, max: 2000 })], { numRuns: 30 })(
    'lets a steady stream at half the limit through, at any limit and window',
    (k, windowMs) => {
      const n = k * 500;
      const l = new WindowLimit({ limit: n, windowMs });
      const every = (2 * windowMs) / n;
      let refused = 0;
      for (let i = 0; i < 3 * n; i++) if (waitOf(l.tryTake(1, i * every)) !== 0) refused++;
      expect(refused).toBe(0);
    },
  );
});
