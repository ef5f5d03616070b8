import { addUtcDays, formatUtcDay } from '../rules/calendar.js';
import type { RatioResult } from '../rules/ratio.js';
import type { TierTable } from '../rules/tiers.js';
import { LEFT, RIGHT, SHADES, TOP, WIDTH } from './chart.js';
import { timeAxis } from './ticks.js';

/** The family's aggregated ratio on each day of a log (the 7 days ending that day), as logged and with the changes. */
export interface RatioSeries {
  readonly points: readonly { readonly day: number; readonly now: RatioResult; readonly changed: RatioResult | null }[];
  readonly tiers: TierTable;
}

const HEIGHT = 420;
const BOTTOM = 56;

/**
 * A line chart of the family's aggregated ratio over the days of a log, as logged (grey) and with
 * the advisor's changes made together (blue), over bands for the tiers in view, each labelled with
 * its number and limit (R1, R3). Each point rates the 7 UTC days that end on its day.
 */
export function adviceSvg(series: RatioSeries): string {
  const points = series.points.filter((p) => p.now.ratio !== null);
  const values = points.flatMap((p) => [p.now.ratio!.toNumber(), ...(p.changed?.ratio === null || p.changed === null ? [] : [p.changed.ratio.toNumber()])]);
  const top = Math.max(1, ...values) * 1.15;
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const from = points.length === 0 ? 0 : points[0]!.day;
  const to = Math.max(points.at(-1)?.day ?? from, addUtcDays(from, 1));
  const x = (t: number): number => LEFT + ((t - from) / (to - from)) * plotWidth;
  const y = (r: number): number => TOP + plotHeight - (Math.min(r, top) / top) * plotHeight;
  const f = (n: number): string => n.toFixed(1);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${LEFT}" y="22" font-size="15" font-weight="bold">Aggregated trade ratio by day (7 days to each day)</text>`,
    points.length === 0 ? '' : `<text x="${LEFT}" y="40" fill="#555">${formatUtcDay(from)} to ${formatUtcDay(to)} (UTC). Bands: the tiers and their limits (r/s); on the right, the ratio each tier starts at.</text>`,
    `<line x1="${LEFT}" y1="56" x2="${LEFT + 24}" y2="56" stroke="#888" stroke-width="2"/><text x="${LEFT + 30}" y="60" fill="#333">as logged</text>`,
    `<line x1="${LEFT + 110}" y1="56" x2="${LEFT + 134}" y2="56" stroke="#1f4e8c" stroke-width="2.5"/><text x="${LEFT + 140}" y="60" fill="#333">with the changes together</text>`,
  ];
  series.tiers.forEach((t, k) => {
    const low = t.minRatio.toNumber();
    if (low >= top) return;
    const high = Math.min(t.maxRatio?.toNumber() ?? top, top);
    out.push(`<rect x="${LEFT}" y="${f(y(high))}" width="${plotWidth}" height="${f(y(low) - y(high))}" fill="${SHADES[k % SHADES.length]}"/>`);
    out.push(`<text x="${LEFT - 6}" y="${f((y(low) + y(high)) / 2 + 4)}" text-anchor="end" fill="#555">tier ${t.tier} · ${t.limit}</text>`);
    if (k > 0) out.push(`<text x="${LEFT + plotWidth - 4}" y="${f(y(low) - 3)}" text-anchor="end" fill="#777">${t.minRatio.toString()}</text>`);
  });
  if (points.length > 0) {
    const axis = timeAxis(from, to, plotWidth, 100);
    for (const tick of axis.ticks) {
      const tx = f(x(tick.at));
      out.push(`<line x1="${tx}" y1="${TOP}" x2="${tx}" y2="${TOP + plotHeight + 4}" stroke="#999" stroke-width="0.5"/>`);
      out.push(`<text x="${tx}" y="${TOP + plotHeight + 16}" text-anchor="middle" fill="#555">${tick.label}</text>`);
      if (tick.year !== null) out.push(`<text x="${tx}" y="${TOP + plotHeight + 29}" text-anchor="middle" fill="#555" font-weight="bold">${tick.year}</text>`);
    }
    const line = (pick: (p: (typeof points)[number]) => RatioResult | null, colour: string, width: number): void => {
      const xy = points.flatMap((p) => {
        const r = pick(p)?.ratio;
        return r === null || r === undefined ? [] : [[x(p.day), y(r.toNumber())] as const];
      });
      if (xy.length === 0) return;
      out.push(`<polyline points="${xy.map(([a, b]) => `${f(a)},${f(b)}`).join(' ')}" fill="none" stroke="${colour}" stroke-width="${width}"/>`);
      for (const [a, b] of xy) out.push(`<circle cx="${f(a)}" cy="${f(b)}" r="3" fill="${colour}"/>`);
    };
    line((p) => p.now, '#888', 2);
    line((p) => p.changed, '#1f4e8c', 2.5);
  }
  out.push('</svg>');
  return `${out.filter((l) => l !== '').join('\n')}\n`;
}
