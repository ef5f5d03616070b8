import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { timeAxis } from '../../src/cli/ticks.js';

const at = (iso: string): number => Date.parse(iso);
const WIDTH = 828;

describe('timeAxis', () => {
  it('ticks two days every three hours, midnight showing the day', () => {
    const axis = timeAxis(at('2026-11-05T00:00:00Z'), at('2026-11-07T00:00:00Z'), WIDTH);
    expect(axis.step).toBe('3 hours');
    expect(axis.ticks.slice(0, 10).map((t) => t.label)).toEqual([
      'Nov 5',
      '03:00',
      '06:00',
      '09:00',
      '12:00',
      '15:00',
      '18:00',
      '21:00',
      'Nov 6',
      '03:00',
    ]);
    expect(axis.ticks.map((t) => t.year)).toEqual(['2026', ...Array(axis.ticks.length - 1).fill(null)]);
  });

  it('ticks a fortnight by day, with six-hour lines between', () => {
    const axis = timeAxis(at('2026-11-01T00:00:00Z'), at('2026-11-16T00:00:00Z'), WIDTH);
    expect(axis).toMatchObject({ step: 'days', minorStep: '6 hours' });
    expect(axis.ticks.map((t) => t.label)).toEqual([
      'Nov 1',
      'Nov 2',
      'Nov 3',
      'Nov 4',
      'Nov 5',
      'Nov 6',
      'Nov 7',
      'Nov 8',
      'Nov 9',
      'Nov 10',
      'Nov 11',
      'Nov 12',
      'Nov 13',
      'Nov 14',
      'Nov 15',
      'Nov 16',
    ]);
    expect(axis.minor).toHaveLength(15 * 3);
  });

  it('ticks 90 days on Mondays, with the days between', () => {
    const axis = timeAxis(at('2026-09-01T00:00:00Z'), at('2026-11-30T00:00:00Z'), WIDTH);
    expect(axis).toMatchObject({ step: 'weeks, from Monday', minorStep: 'days' });
    expect(axis.ticks.slice(0, 3).map((t) => [new Date(t.at).toISOString(), t.label, t.year])).toEqual([
      ['2026-09-07T00:00:00.000Z', 'Sep 7', '2026'],
      ['2026-09-14T00:00:00.000Z', 'Sep 14', null],
      ['2026-09-21T00:00:00.000Z', 'Sep 21', null],
    ]);
    expect(axis.ticks.every((t) => new Date(t.at).getUTCDay() === 1)).toBe(true);
  });

  it('ticks a year by month, giving the year where one begins', () => {
    const axis = timeAxis(at('2026-03-10T00:00:00Z'), at('2027-03-10T00:00:00Z'), WIDTH);
    expect(axis).toMatchObject({ step: 'months', minorStep: 'weeks, from Monday' });
    expect(axis.ticks.map((t) => (t.year === null ? t.label : `${t.label} ${t.year}`))).toEqual([
      'Apr 2026',
      'May',
      'Jun',
      'Jul',
      'Aug',
      'Sep',
      'Oct',
      'Nov',
      'Dec',
      'Jan 2027',
      'Feb',
      'Mar',
    ]);
  });

  it('ticks a decade by year', () => {
    const axis = timeAxis(at('2020-06-01T00:00:00Z'), at('2030-06-01T00:00:00Z'), WIDTH);
    expect(axis.step).toBe('years');
    expect(axis.ticks.map((t) => t.label)).toEqual([
      '2021',
      '2022',
      '2023',
      '2024',
      '2025',
      '2026',
      '2027',
      '2028',
      '2029',
      '2030',
    ]);
  });

  it('reads the same in any time zone of the machine', () => {
    const before = process.env.TZ;
    try {
      process.env.TZ = 'Pacific/Kiritimati';
      const axis = timeAxis(at('2026-11-01T00:00:00Z'), at('2026-11-16T00:00:00Z'), WIDTH);
      expect(axis.ticks[0]).toEqual({ at: at('2026-11-01T00:00:00Z'), label: 'Nov 1', year: '2026' });
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });

  // The labels of a long span once ran into one another: ticks never come closer than the gap
  // asked for (a month as short as February aside, 28 days of 30.44), and all fall in the span.
  test.prop([
    fc.integer({ min: at('2000-01-01T00:00:00Z'), max: at('2100-01-01T00:00:00Z') }),
    fc.integer({ min: 3_600_000, max: 40 * 365 * 86_400_000 }),
    fc.integer({ min: 200, max: 2000 }),
  ])('keeps ticks apart and inside the span', (from, span, width) => {
    const to = from + span;
    const { ticks, minor } = timeAxis(from, to, width);
    const px = (ms: number): number => (ms * width) / span;
    expect(ticks.length).toBeGreaterThan(0);
    for (const [i, t] of ticks.entries()) {
      expect(t.at).toBeGreaterThanOrEqual(from);
      expect(t.at).toBeLessThanOrEqual(to);
      expect(t.label).not.toBe('');
      if (i > 0) expect(px(t.at - ticks[i - 1]!.at)).toBeGreaterThanOrEqual(50 * (28 / 30.44));
    }
    for (const [i, m] of minor.entries()) if (i > 0) expect(px(m - minor[i - 1]!)).toBeGreaterThanOrEqual(4.5);
  });
});
