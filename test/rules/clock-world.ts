import type { ClockSample } from '../../src/rules/exchange-clock.js';

/** One request as it really happened: when it left (true local time) and how long each leg took, ms. */
export interface Request {
  readonly at: number;
  readonly up: number;
  readonly gateway: number;
  readonly down: number;
}

/** How the local clocks read. */
export interface Local {
  /**
   * Samples carry monotonic instants, read as true local time since `MONO_ORIGIN`: exactly, or
   * (`'ms'`) in whole milliseconds, as a coarse monotonic clock reads.
   */
  readonly mono?: boolean | 'ms';
  /** The wall clock reads this much ahead of true local time (a step), ms. */
  readonly step?: number;
}

/** Where the monotonic clock starts: not on a whole millisecond of the wall clock. */
export const MONO_ORIGIN = Date.parse('2026-11-21T00:00:00Z') + 0.375;

/** The monotonic clock's reading at true local time `t`. */
export function monoAt(t: number, mono: true | 'ms'): number {
  return mono === 'ms' ? Math.floor(t - MONO_ORIGIN) : t - MONO_ORIGIN;
}

/**
 * The sample a request gives in a world where the exchange's clock reads `offsetMs` ahead of true
 * local time: gateway instants in whole microseconds, wall instants floored to whole milliseconds
 * as `Date.now()` reads them. Computed in integer microseconds, so that the world itself is exact.
 */
export function sample(offsetMs: number, r: Request, local: Local = {}): ClockSample {
  const us = (ms: number): number => Math.round(ms * 1000);
  const send = us(r.at);
  const inTime = send + us(r.up) + us(offsetMs);
  const outTime = inTime + us(r.gateway);
  const receive = outTime - us(offsetMs) + us(r.down);
  const step = local.step ?? 0;
  const wall = {
    sentAt: Math.floor(send / 1000) + step,
    receivedAt: Math.floor(receive / 1000) + step,
    inTime,
    outTime,
  };
  return local.mono
    ? { ...wall, sentMono: monoAt(send / 1000, local.mono), receivedMono: monoAt(receive / 1000, local.mono) }
    : wall;
}

/** A small deterministic generator of jitter, milliseconds in [min, max). */
export function jitter(seed: number, min: number, max: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return min + (s / 2 ** 32) * (max - min);
  };
}
