import { UTCDate } from '@date-fns/utc';
import { fc, test } from '@fast-check/vitest';
import { startOfDay, startOfHour } from 'date-fns';
import { describe, expect, it } from 'vitest';
import {
  addUtcDays,
  formatUtcDay,
  isInUtcDay,
  nextDayRaiseAt,
  parseUtcDay,
  parseUtcHour,
  utcDayStart,
  utcHourStart,
} from '../../src/rules/calendar.js';

describe('calendar', () => {
  test.prop([fc.integer({ min: -8_640_000_000_000, max: 8_640_000_000_000 })])(
    'floors to the UTC day and hour exactly as date-fns does on a UTCDate',
    (at) => {
      expect(utcDayStart(at)).toBe(startOfDay(new UTCDate(at)).getTime());
      expect(utcHourStart(at)).toBe(startOfHour(new UTCDate(at)).getTime());
    },
  );

  test.prop([fc.integer({ min: 946_684_800_000, max: 7_258_118_400_000 }), fc.integer({ min: -2, max: 2 })])(
    'says an instant is in a UTC day exactly when the day holds it',
    (at, shift) => {
      const day = utcDayStart(at) + shift * 86_400_000;
      expect(isInUtcDay(at, day)).toBe(utcDayStart(at) === day);
    },
  );

  it('puts 23:59:59.999 in its day and 00:00 in the next', () => {
    expect(isInUtcDay(Date.UTC(2026, 10, 7, 23, 59, 59, 999), Date.UTC(2026, 10, 7))).toBe(true);
    expect(isInUtcDay(Date.UTC(2026, 10, 8), Date.UTC(2026, 10, 7))).toBe(false);
    expect(isInUtcDay(Date.UTC(2026, 10, 8), Date.UTC(2026, 10, 8))).toBe(true);
  });

  it('gives 08:00 UTC of the next day, from the first to the last millisecond of a day (see docs/rules.md#r8)', () => {
    expect(nextDayRaiseAt(Date.UTC(2026, 10, 1))).toBe(Date.UTC(2026, 10, 2, 8));
    expect(nextDayRaiseAt(Date.UTC(2026, 10, 1, 23, 59, 59, 999))).toBe(Date.UTC(2026, 10, 2, 8));
    expect(nextDayRaiseAt(Date.UTC(2026, 10, 2))).toBe(Date.UTC(2026, 10, 3, 8));
  });

  it('reads and writes UTC days', () => {
    expect(parseUtcDay('2026-11-21', 'day')).toBe(Date.UTC(2026, 10, 21));
    expect(formatUtcDay(Date.UTC(2026, 10, 21, 23, 59, 59, 999))).toBe('2026-11-21');
    expect(addUtcDays(Date.UTC(2026, 10, 30), 1)).toBe(Date.UTC(2026, 11, 1));
  });

  it('refuses days and hours that are not whole', () => {
    expect(() => parseUtcDay('2026-02-30', '`day`')).toThrow('Expected `day` to be a UTC day');
    expect(() => parseUtcDay(Date.UTC(2026, 1, 1, 0, 0, 0, 1), '`day`')).toThrow('got 1769904000001');
    expect(() => parseUtcDay('21/11/2026', '`day`')).toThrow('got "21/11/2026"');
    expect(parseUtcHour('2026-11-21T08:00:00Z', 'hour')).toBe(Date.UTC(2026, 10, 21, 8));
    expect(() => parseUtcHour('2026-11-21T08:00:00', '`hour`')).toThrow('`hour`');
    expect(() => parseUtcHour(Date.UTC(2026, 10, 21, 8, 1), '`hour`')).toThrow('a whole UTC hour');
  });
});

describe('calendar: the range of instants', () => {
  it('refuses days and hours before 2000 or from 2200 on, naming the field', () => {
    expect(() => parseUtcDay('1969-12-31', '`day`')).toThrow(
      'Expected `day` to be a UTC day from 2000-01-01 to 2199-12-31',
    );
    expect(() => parseUtcDay(-86_400_000, '`day`')).toThrow('`day`');
    expect(() => parseUtcDay('2200-01-01', '`day`')).toThrow('`day`');
    expect(parseUtcDay('2199-12-31', '`day`')).toBe(Date.UTC(2199, 11, 31));
    expect(() => parseUtcHour(0, '`hour`')).toThrow(
      'Expected `hour` to be a whole UTC hour from 2000-01-01 to 2199-12-31',
    );
    expect(() => parseUtcHour(Date.UTC(2026, 10, 1) * 1000, '`hour`')).toThrow('`hour`');
    expect(parseUtcHour('2026-11-01T05:00:00Z', '`hour`')).toBe(Date.UTC(2026, 10, 1, 5));
  });
});
