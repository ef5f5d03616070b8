import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../src/rules/calendar.js';
import { Dec } from '../../src/internal/decimal.js';
import {
  type HourCounts,
  THROTTLE_WINDOW_HOURS,
  nextThrottleCheck,
  readThrottleWindow,
  throttleWindow,
  throttleWindowSums,
} from '../../src/rules/throttle-window.js';

const CHECK = Date.UTC(2026, 10, 2, 5);

describe('throttleWindow (see docs/rules.md#r9, #r14)', () => {
  it('reads the 24 hours before the check: its start in, the check hour out', () => {
    expect(throttleWindow(CHECK)).toEqual({ from: Date.UTC(2026, 10, 1, 5), to: CHECK });
    expect(throttleWindow(CHECK).to - throttleWindow(CHECK).from).toBe(86_400_000);
    expect(THROTTLE_WINDOW_HOURS).toBe(24);
  });
});

describe('nextThrottleCheck (see docs/rules.md#r9, #r14)', () => {
  it('is the whole hour after the instant: 04:59:59.999 is checked at 05:00, 05:00 at 06:00', () => {
    expect(nextThrottleCheck(Date.UTC(2026, 10, 1, 4, 59, 59, 999))).toBe(Date.UTC(2026, 10, 1, 5));
    expect(nextThrottleCheck(Date.UTC(2026, 10, 1, 5))).toBe(Date.UTC(2026, 10, 1, 6));
  });

  it('reads a window that holds the instant and the 23 whole hours before its hour', () => {
    const at = Date.UTC(2026, 10, 1, 23, 59, 59, 999);
    const { from, to } = throttleWindow(nextThrottleCheck(at));
    expect(at >= from && at < to).toBe(true);
    expect(from).toBe(Date.UTC(2026, 10, 1, 0));
  });
});

describe('throttleWindowSums (see docs/rules.md#r9, #r14)', () => {
  const hour = (h: number, requests: number, traded: string): HourCounts => ({
    hour: Date.UTC(2026, 10, 1, h),
    requests,
    traded: new Dec(traded),
  });

  it('sums the hours of the window: 24 hours before the check in, the check hour out', () => {
    const sums = throttleWindowSums([hour(4, 1000, '1'), hour(5, 86_400, '2'), hour(28, 1, '0.5'), hour(29, 10, '7')]);
    const w = sums(CHECK); // CHECK is 29:00 on Nov 1's clock
    expect(w.requests).toBe(86_401);
    expect(w.traded.toString()).toBe('2.5');
    expect(sums(CHECK + HOUR_MS).requests).toBe(11);
    expect(sums(Date.UTC(2026, 10, 1, 4)).requests).toBe(0);
  });

  it('gives zero on no hours', () => {
    const w = throttleWindowSums([])(CHECK);
    expect(w.requests).toBe(0);
    expect(w.traded.isZero()).toBe(true);
  });

  it('refuses a request total past 2^53', () => {
    expect(() => throttleWindowSums([hour(1, Number.MAX_SAFE_INTEGER, '0'), hour(2, 1, '0')])).toThrow(
      'requests in total',
    );
  });

  test.prop([fc.uniqueArray(fc.integer({ min: 0, max: 96 }), { maxLength: 40 }), fc.integer({ min: -2, max: 100 })])(
    'agrees with summing the hours whose start lies in the window',
    (hs, c) => {
      const rows = [...hs].sort((a, b) => a - b).map((h) => hour(h, h + 1, String(h)));
      const check = Date.UTC(2026, 10, 1, c);
      const { from, to } = throttleWindow(check);
      const inside = rows.filter((r) => r.hour >= from && r.hour < to);
      const w = throttleWindowSums(rows)(check);
      expect(w.requests).toBe(inside.reduce((n, r) => n + r.requests, 0));
      expect(w.traded.toString()).toBe(inside.reduce((d, r) => d.plus(r.traded), new Dec(0)).toString());
    },
  );
});

describe('readThrottleWindow (see docs/rules.md#r9, #r14)', () => {
  it('reads a count and a decimal, and refuses anything else naming the field', () => {
    const w = readThrottleWindow({ requests: 86_400, traded: '864' });
    expect(w.requests).toBe(86_400);
    expect(w.traded.toString()).toBe('864');
    expect(() => readThrottleWindow(null)).toThrow('Expected the window to be an object { requests, traded }');
    expect(() => readThrottleWindow({ requests: -1, traded: '0' })).toThrow('`requests`');
    expect(() => readThrottleWindow({ requests: 1, traded: '-1' })).toThrow('`traded`');
  });
});
