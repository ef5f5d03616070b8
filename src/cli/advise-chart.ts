import { addUtcDays, formatUtcDay } from '../rules/calendar.js';
import type { RatioResult } from '../rules/ratio.js';
import type { TierTable } from '../rules/tiers.js';
import { LEFT, RIGHT, SHADES, TOP, WIDTH } from './chart.js';
import { LABEL_HEIGHT, type LabelWish, labelsApart } from './labels.js';
import { tickMarks, timeAxis } from './ticks.js';

/** The family's aggregated ratio on each day of a log (the 7 days ending that day), as logged and with the changes. */
export interface RatioSeries {
  readonly points: readonly { readonly day: number; readonly now: RatioResult; readonly changed: RatioResult | null }[];
  readonly tiers: TierTable;
}

const HEIGHT = 420;
const BOTTOM = 56;

/**
 * How the chart's vertical axis places a ratio: `at(r)` is its height over the axis's foot, 0 at
 * `floor`, 1 at `top`. Linear from 0 while every tier's band below `top` is at least a label high;
 * otherwise logarithmic in 1 + ratio, cut at `floor`, the ratio the lowest tier holding a value
 * starts at (the tiers below it are left out).
 */
export interface RatioAxis {
  readonly log: boolean;
  readonly floor: number;
  readonly top: number;
  at(ratio: number): number;
}

/** The axis for these ratios over these tiers, on a plot this many pixels high (see {@link RatioAxis}). */
export function ratioAxis(values: readonly number[], tiers: TierTable, plotHeight: number): RatioAxis {
  const top = Math.max(1, ...values) * 1.15;
  const bounds = tiers.map((t) => t.minRatio.toNumber());
  const whole = tiers.flatMap((t) =>
    t.maxRatio === null || t.maxRatio.toNumber() > top ? [] : [t.maxRatio.toNumber() - t.minRatio.toNumber()],
  );
  if (values.length === 0 || whole.every((span) => (span / top) * plotHeight >= LABEL_HEIGHT)) {
    return { log: false, floor: 0, top, at: (r) => Math.min(r, top) / top };
  }
  const least = Math.min(...values);
  const floor = bounds.filter((b) => b <= least).at(-1) ?? 0;
  const g = (r: number): number => Math.log1p(Math.min(Math.max(r, floor), top));
  return { log: true, floor, top, at: (r) => (g(r) - g(floor)) / (g(top) - g(floor)) };
}

/** Round ratios past the last tier's bound, for the grid of a logarithmic axis: 100, 200, 500, 1000... */
function roundRatios(above: number, below: number): number[] {
  const out: number[] = [];
  for (let decade = 10; decade < below; decade *= 10) {
    for (const m of [1, 2, 5]) if (m * decade > above && m * decade < below) out.push(m * decade);
  }
  return out;
}

/**
 * A line chart of the family's aggregated ratio over the days of a log, as logged (grey) and with
 * the advisor's changes made together (blue), over bands for the tiers in view, each labelled with
 * its number and limit, and a line where each starts, labelled with its ratio on the right (see docs/rules.md#r1,
 * #r3). Each point rates the 7 UTC days that end on its day. The ratio axis is linear from 0 when
 * every tier's band is tall enough for its label, and otherwise logarithmic, cut below the lowest
 * tier a ratio lies in, with a zigzag along its foot (see {@link ratioAxis}); a label that would
 * touch another is left out, its band and line kept.
 */
export function adviceSvg(series: RatioSeries): string {
  const points = series.points.filter((p) => p.now.ratio !== null);
  const values = points.flatMap((p) => [
    p.now.ratio!.toNumber(),
    ...(p.changed?.ratio === null || p.changed === null ? [] : [p.changed.ratio.toNumber()]),
  ]);
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const axis = ratioAxis(values, series.tiers, plotHeight);
  const { floor, top } = axis;
  const from = points.length === 0 ? 0 : points[0]!.day;
  const to = Math.max(points.at(-1)?.day ?? from, addUtcDays(from, 1));
  const foot = TOP + plotHeight;
  const x = (t: number): number => LEFT + ((t - from) / (to - from)) * plotWidth;
  const y = (r: number): number => foot - axis.at(r) * plotHeight;
  const f = (n: number): string => n.toFixed(1);
  const below = series.tiers.filter((t) => t.minRatio.toNumber() < floor);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${LEFT}" y="22" font-size="15" font-weight="bold">Aggregated trade ratio by day (7 days to each day)</text>`,
    points.length === 0
      ? ''
      : `<text x="${LEFT}" y="40" fill="#555">${formatUtcDay(from)} to ${formatUtcDay(to)} (UTC). Bands: the tiers and their limits (r/s); on the right, the ratio each tier starts at.</text>`,
    `<line x1="${LEFT}" y1="56" x2="${LEFT + 24}" y2="56" stroke="#888" stroke-width="2"/><text x="${LEFT + 30}" y="60" fill="#333">as logged</text>`,
    `<line x1="${LEFT + 110}" y1="56" x2="${LEFT + 134}" y2="56" stroke="#1f4e8c" stroke-width="2.5"/><text x="${LEFT + 140}" y="60" fill="#333">with the changes together</text>`,
  ];
  if (axis.log) {
    const cut =
      below.length === 0
        ? ''
        : `; cut at ${floor}, tier${below.length === 1 ? ` ${below[0]!.tier}` : `s ${below[0]!.tier} to ${below.at(-1)!.tier}`} below the zigzag`;
    out.push(`<text x="${LEFT + 330}" y="60" fill="#333" class="axis-note">Ratio axis: logarithmic${cut}.</text>`);
  }
  const left: LabelWish<string>[] = [];
  const right: LabelWish<string>[] = [];
  const lines: string[] = [];
  series.tiers.forEach((t, k) => {
    const low = Math.max(t.minRatio.toNumber(), floor);
    const high = Math.min(t.maxRatio?.toNumber() ?? top, top);
    if (low >= top || high <= floor) return;
    const holds = values.some((v) => v >= low && (t.maxRatio === null || v < t.maxRatio.toNumber()));
    out.push(
      `<rect x="${LEFT}" y="${f(y(high))}" width="${plotWidth}" height="${f(y(low) - y(high))}" fill="${SHADES[k % SHADES.length]}"/>`,
    );
    left.push({ y: (y(low) + y(high)) / 2, rank: (holds ? 0 : 100) - k, label: `tier ${t.tier} · ${t.limit}` });
    if (k > 0 && t.minRatio.toNumber() >= floor) {
      const b = y(t.minRatio.toNumber());
      lines.push(
        `<line x1="${LEFT}" y1="${f(b)}" x2="${LEFT + plotWidth}" y2="${f(b)}" stroke="#8fa9cc" stroke-width="0.75" class="tier-bound" data-ratio="${t.minRatio.toString()}"/>`,
      );
      right.push({ y: b, rank: 0, label: t.minRatio.toString() });
    }
  });
  if (axis.log) {
    for (const v of roundRatios(series.tiers.at(-1)!.minRatio.toNumber(), top)) {
      if (v <= floor) continue;
      lines.push(
        `<line x1="${LEFT}" y1="${f(y(v))}" x2="${LEFT + plotWidth}" y2="${f(y(v))}" stroke="#8fa9cc" stroke-width="0.5" stroke-dasharray="3 3"/>`,
      );
      right.push({ y: y(v), rank: 1, label: String(v) });
    }
  }
  out.push(...lines);
  for (const l of labelsApart(left))
    out.push(
      `<text x="${LEFT - 6}" y="${f(l.y + 4)}" text-anchor="end" fill="#555" class="tier-label">${l.label}</text>`,
    );
  for (const l of labelsApart(right))
    out.push(
      `<text x="${LEFT + plotWidth - 4}" y="${f(l.y - 3)}" text-anchor="end" fill="#777" class="ratio-label">${l.label}</text>`,
    );
  if (below.length > 0) {
    const teeth = Array.from(
      { length: Math.floor(plotWidth / 8) + 1 },
      (_, i) => `${f(LEFT + i * 8)},${f(foot - (i % 2 === 0 ? 0 : 4))}`,
    );
    out.push(`<polyline points="${teeth.join(' ')}" fill="none" stroke="#555" stroke-width="1" class="axis-break"/>`);
  }
  if (points.length > 0) {
    const time = timeAxis(from, to, plotWidth, 100);
    out.push(...tickMarks(time.ticks, x, { top: TOP, bottom: foot, stroke: '#999', width: 0.5, labelGap: 16 }));
    const line = (pick: (p: (typeof points)[number]) => RatioResult | null, colour: string, width: number): void => {
      const xy = points.flatMap((p) => {
        const r = pick(p)?.ratio;
        return r === null || r === undefined ? [] : [[x(p.day), y(r.toNumber())] as const];
      });
      if (xy.length === 0) return;
      out.push(
        `<polyline points="${xy.map(([a, b]) => `${f(a)},${f(b)}`).join(' ')}" fill="none" stroke="${colour}" stroke-width="${width}"/>`,
      );
      for (const [a, b] of xy) out.push(`<circle cx="${f(a)}" cy="${f(b)}" r="3" fill="${colour}"/>`);
    };
    line((p) => p.now, '#888', 2);
    line((p) => p.changed, '#1f4e8c', 2.5);
  }
  out.push('</svg>');
  return `${out.filter((l) => l !== '').join('\n')}\n`;
}
