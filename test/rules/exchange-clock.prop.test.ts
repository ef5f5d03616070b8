import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { type ClockSample, ExchangeClock } from '../../src/rules/exchange-clock.js';
import { type Local, type Request, monoAt, sample } from './clock-world.js';

const START = Date.parse('2026-11-21T06:00:00Z');

/** True offsets up to 2 minutes either way, in whole microseconds. */
const offset = fc.integer({ min: -120_000_000, max: 120_000_000 }).map((us) => us / 1000);

/** Legs of a request in whole microseconds: up to 2 s each way, up to 50 ms at the gateway. */
const legs = fc.record({
  gap: fc.integer({ min: 0, max: 10_000_000 }).map((us) => us / 1000),
  up: fc.integer({ min: 0, max: 2_000_000 }).map((us) => us / 1000),
  gateway: fc.integer({ min: 0, max: 50_000 }).map((us) => us / 1000),
  down: fc.integer({ min: 0, max: 2_000_000 }).map((us) => us / 1000),
});

/** Requests sent one after another from 06:00. */
const requests = fc.array(legs, { minLength: 1, maxLength: 30 }).map((list) => {
  let at = START;
  return list.map(({ gap, up, gateway, down }): Request => {
    at += gap;
    const r = { at, up, gateway, down };
    at += up + gateway + down;
    return r;
  });
});

const ends = (r: Request): number => r.at + r.up + r.gateway + r.down;

type Mono = NonNullable<Local['mono']>;

/** Wall instants only, or with monotonic ones read exactly or in whole milliseconds. */
const monoKind = fc.constantFrom<Mono>(false, true, 'ms');

function feed(truth: number, list: readonly Request[], mono: Mono, window?: number): ExchangeClock {
  let clock = new ExchangeClock(window === undefined ? {} : { window });
  for (const r of list) clock = clock.add(sample(truth, r, { mono })).clock;
  return clock;
}

function at(r: Request, mono: Mono, later = 0): number | { wall: number; mono: number } {
  const t = ends(r) + later;
  return mono ? { wall: Math.floor(t), mono: monoAt(t, mono) } : Math.floor(t);
}

describe('ExchangeClock properties (see docs/rules.md#r15)', () => {
  test.prop([offset, requests, monoKind, fc.integer({ min: 1, max: 10 })])(
    'with samples of true offset X and random delays, X lies within estimate ± error',
    (truth, list, mono, window) => {
      const clock = feed(truth, list, mono, window);
      const e = clock.estimate(at(list.at(-1)!, mono))!;
      expect(Math.abs(e.offsetMs - truth)).toBeLessThanOrEqual(e.errorMs);
    },
  );

  test.prop([offset, requests, monoKind, fc.integer({ min: 0, max: 48 * 3_600_000 })])(
    "a raise is never applied before the exchange's instant, a lowering never after",
    (truth, list, mono, ahead) => {
      const clock = feed(truth, list, mono);
      const now = at(list.at(-1)!, mono);
      const boundary = Math.ceil(ends(list.at(-1)!) + truth) + ahead;
      // Applied when the wall clock first reads w, at true local time w: the exchange's clock reads w + truth.
      expect(clock.boundaryLocal(boundary, 'raise', now) + truth).toBeGreaterThanOrEqual(boundary);
      expect(clock.boundaryLocal(boundary, 'lower', now) + truth).toBeLessThanOrEqual(boundary);
    },
  );

  test.prop([
    offset,
    requests,
    monoKind,
    fc.integer({ min: 5_000, max: 3_600_000 }).chain((d) => fc.constantFrom(d, -d)),
  ])('a lone sample from a gateway far off changes nothing', (truth, list, mono, off) => {
    const clock = feed(truth, list, mono);
    const last = list.at(-1)!;
    const bad: ClockSample = sample(truth + off, { at: ends(last) + 1000, up: 3, gateway: 1, down: 3 }, { mono });
    const outcome = clock.add(bad);
    const later = at(last, mono, 1007);
    expect(outcome.accepted).toBe(false);
    expect(outcome.clock.estimate(later)).toEqual(clock.estimate(later));
  });
});
