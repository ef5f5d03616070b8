import { UTCDate } from '@date-fns/utc';
import { DAY_MS as DAY, HOUR_MS as HOUR } from '../rules/calendar.js';
import {
  addDays,
  addHours,
  addMonths,
  addWeeks,
  addYears,
  format,
  startOfDay,
  startOfHour,
  startOfMonth,
  startOfWeek,
  startOfYear,
} from 'date-fns';

/** A step of a time axis: its name for people, how to find the ticks, how to label them. */
interface Step {
  /** What the grid lines mark, for the chart's legend ("days", "weeks"). */
  readonly name: string;
  /** About how long a step is, to judge how far apart its ticks fall. */
  readonly approxMs: number;
  /** The first tick at or after `at`. */
  first(at: UTCDate): UTCDate;
  next(tick: UTCDate): UTCDate;
  label(tick: UTCDate): string;
}

/**
 * A step of `n` calendar units whose ticks fall on the units numbered a multiple of `n` (hours of
 * the day, days since 1970, months of the year, years), so that a day carries the same tick on
 * every chart.
 */
function every(
  name: string,
  n: number,
  unitMs: number,
  startOf: (d: UTCDate) => UTCDate,
  add: (d: UTCDate, k: number) => UTCDate,
  numberOf: (d: UTCDate) => number,
  label: (t: UTCDate) => string,
): Step {
  return {
    name: n === 1 ? name : `${n} ${name}`,
    approxMs: n * unitMs,
    first: (at) => {
      const unit = startOf(at);
      const start = unit.getTime() < at.getTime() ? add(unit, 1) : unit;
      return add(start, (n - (numberOf(start) % n)) % n);
    },
    next: (t) => add(t, n),
    label,
  };
}

// Midnight shows the day, the other hours the time.
const hours = (n: number): Step =>
  every(
    'hours',
    n,
    HOUR,
    startOfHour,
    addHours,
    (d) => d.getUTCHours(),
    (t) => (t.getUTCHours() === 0 ? format(t, 'MMM d') : format(t, 'HH:mm')),
  );
const days = (n: number): Step =>
  every(
    'days',
    n,
    DAY,
    startOfDay,
    addDays,
    (d) => Math.round(d.getTime() / DAY),
    (t) => format(t, 'MMM d'),
  );
const WEEKS = every(
  'weeks, from Monday',
  1,
  7 * DAY,
  (d) => startOfWeek(d, { weekStartsOn: 1 }),
  addWeeks,
  () => 0,
  (t) => format(t, 'MMM d'),
);
const months = (n: number): Step =>
  every(
    'months',
    n,
    30.44 * DAY,
    startOfMonth,
    addMonths,
    (d) => d.getUTCMonth(),
    (t) => format(t, 'MMM'),
  );
const years = (n: number): Step =>
  every(
    'years',
    n,
    365.25 * DAY,
    startOfYear,
    addYears,
    (d) => d.getUTCFullYear(),
    (t) => format(t, 'yyyy'),
  );

const HOUR_1 = hours(1);
const HOURS_6 = hours(6);
const DAY_1 = days(1);
const MONTH_1 = months(1);
const YEAR_1 = years(1);

/**
 * From the finest step to the coarsest, each with the lighter lines drawn between its ticks: the
 * axis takes the first step whose ticks are far enough apart.
 */
const STEPS: readonly (readonly [Step, Step | null])[] = [
  [HOUR_1, null],
  [hours(3), HOUR_1],
  [HOURS_6, HOUR_1],
  [hours(12), HOURS_6],
  [DAY_1, HOURS_6],
  [days(2), DAY_1],
  [WEEKS, DAY_1],
  [MONTH_1, WEEKS],
  [months(3), MONTH_1],
  [YEAR_1, MONTH_1],
  [years(2), YEAR_1],
  [years(5), YEAR_1],
  [years(10), YEAR_1],
  [years(20), years(5)],
  [years(50), years(10)],
  [years(100), years(10)],
];

/** A tick of a time axis: its instant, its label and, on the first tick and where a year begins, the year. */
export interface Tick {
  readonly at: number;
  readonly label: string;
  readonly year: string | null;
}

/** The ticks of a time axis and what its grid lines mark. */
export interface TimeAxis {
  readonly ticks: readonly Tick[];
  /** What one step between ticks is, for a legend: "days", "weeks, from Monday", "months". */
  readonly step: string;
  /** Lighter lines between the ticks (days between weekly ticks, weeks between months), or none. */
  readonly minor: readonly number[];
  readonly minorStep: string | null;
}

/**
 * Ticks for a time axis from `from` to `to` (epoch ms, UTC) drawn `widthPx` wide: the finest of
 * hours, days, weeks (from Monday), months or years whose ticks fall at least `minGapPx` apart (50 by default),
 * labelled as people read them (`06:00`, `Nov 5`, `Nov`, `2027`). The year is given on the first
 * tick and on the first tick of each new year.
 */
export function timeAxis(from: number, to: number, widthPx: number, minGapPx = 50): TimeAxis {
  const pxPerMs = widthPx / Math.max(1, to - from);
  const [step, between] = STEPS.find(([s]) => s.approxMs * pxPerMs >= minGapPx) ?? STEPS.at(-1)!;
  const ticks: Tick[] = [];
  let year = '';
  for (let t = step.first(new UTCDate(from)); t.getTime() <= to; t = step.next(t)) {
    const y = format(t, 'yyyy');
    ticks.push({
      at: t.getTime(),
      label: step.label(t),
      year: y !== year && step.approxMs < YEAR_1.approxMs ? y : null,
    });
    year = y;
  }
  // Lighter lines only where they stay at least 5 px apart.
  const minorStep = between !== null && between.approxMs * pxPerMs >= 5 ? between : null;
  const minor: number[] = [];
  if (minorStep !== null) {
    const major = new Set(ticks.map((t) => t.at));
    for (let t = minorStep.first(new UTCDate(from)); t.getTime() <= to; t = minorStep.next(t))
      if (!major.has(t.getTime())) minor.push(t.getTime());
  }
  return { ticks, step: step.name, minor, minorStep: minorStep?.name ?? null };
}

/** Where and how {@link tickMarks} draws a chart's time ticks. */
export interface TickStyle {
  /** Where a tick's grid line starts and the plot ends, in pixels from the top. */
  readonly top: number;
  readonly bottom: number;
  /** The grid line's colour and width. */
  readonly stroke: string;
  readonly width: number;
  /** How far below the plot a tick's label stands; its year stands 13 px further down. */
  readonly labelGap: number;
}

/**
 * The SVG of the ticks of a time axis, each at `x(tick.at)`: a grid line across the plot reaching 4
 * px below it, the label under it, and under that the year where the tick has one.
 */
export function tickMarks(ticks: readonly Tick[], x: (at: number) => number, style: TickStyle): string[] {
  const out: string[] = [];
  for (const tick of ticks) {
    const tx = x(tick.at).toFixed(1);
    const label = style.bottom + style.labelGap;
    out.push(
      `<line x1="${tx}" y1="${style.top}" x2="${tx}" y2="${style.bottom + 4}" stroke="${style.stroke}" stroke-width="${style.width}"/>`,
    );
    out.push(`<text x="${tx}" y="${label}" text-anchor="middle" fill="#555">${tick.label}</text>`);
    if (tick.year !== null)
      out.push(
        `<text x="${tx}" y="${label + 13}" text-anchor="middle" fill="#555" font-weight="bold">${tick.year}</text>`,
      );
  }
  return out;
}
