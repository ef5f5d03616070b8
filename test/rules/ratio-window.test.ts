import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY_MS, utcDayStart } from '../../src/rules/calendar.js';
import { RATIO_WINDOW_DAYS, ratioWindow, sumRatioWindow } from '../../src/rules/ratio-window.js';

const NOV_8 = Date.UTC(2026, 10, 8);

describe('ratioWindow (see docs/rules.md#r1, #r5)', () => {
  it('covers exactly the 7 days before the rating, not the rating day', () => {
    expect(ratioWindow(NOV_8)).toEqual({ from: Date.UTC(2026, 10, 1), to: NOV_8 });
    expect(ratioWindow(NOV_8).to - ratioWindow(NOV_8).from).toBe(7 * DAY_MS);
    expect(RATIO_WINDOW_DAYS).toBe(7);
  });

  it('holds 23:59:59.999 of the day before and 00:00 seven days before, not 00:00 of the rating day', () => {
    const { from, to } = ratioWindow(NOV_8);
    const inside = (at: number): boolean => at >= from && at < to;
    expect(inside(Date.UTC(2026, 10, 7, 23, 59, 59, 999))).toBe(true);
    expect(inside(NOV_8)).toBe(false);
    expect(inside(Date.UTC(2026, 10, 1))).toBe(true);
    expect(inside(Date.UTC(2026, 9, 31, 23, 59, 59, 999))).toBe(false);
  });
});

describe('sumRatioWindow (see docs/rules.md#r1, #r5)', () => {
  it('sums the 7 days before the rating, oldest first, and skips days without counts', () => {
    const perDay = new Map([
      [Date.UTC(2026, 9, 31), 1000], // 8 days before: out
      [Date.UTC(2026, 10, 1), 1], // exactly 7 days before: in
      [Date.UTC(2026, 10, 4), 10],
      [Date.UTC(2026, 10, 7), 100], // the day before: in
      [NOV_8, 10_000], // the rating day: out
    ]);
    const asked: number[] = [];
    expect(
      sumRatioWindow(
        NOV_8,
        (day) => (asked.push(day), perDay.get(day)),
        (a, b) => a + b,
        0,
      ),
    ).toBe(111);
    expect(asked).toEqual(Array.from({ length: 7 }, (_, i) => Date.UTC(2026, 10, 1) + i * DAY_MS));
  });

  it('gives zero over a window without counts', () => {
    expect(
      sumRatioWindow(
        NOV_8,
        () => undefined,
        (a: number, b: number) => a + b,
        0,
      ),
    ).toBe(0);
  });

  test.prop([fc.array(fc.tuple(fc.integer({ min: -10, max: 10 }), fc.nat({ max: 1000 })), { maxLength: 30 })])(
    'counts a day exactly when its 00:00 lies in the window',
    (days) => {
      const perDay = new Map(days.map(([d, n]) => [NOV_8 + d * DAY_MS, n]));
      const { from, to } = ratioWindow(NOV_8);
      let expected = 0;
      for (const [day, n] of perDay) if (utcDayStart(day) >= from && day < to) expected += n;
      expect(
        sumRatioWindow(
          NOV_8,
          (day) => perDay.get(day),
          (a, b) => a + b,
          0,
        ),
      ).toBe(expected);
    },
  );
});
