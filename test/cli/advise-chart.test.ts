import { describe, expect, it } from 'vitest';
import { adviceSvg, type RatioSeries } from '../../src/cli/advise-chart.js';
import { LEFT, RIGHT, WIDTH } from '../../src/cli/chart.js';
import { LABEL_HEIGHT } from '../../src/cli/labels.js';
import { addUtcDays } from '../../src/rules/calendar.js';
import { tradeRatio } from '../../src/rules/ratio.js';
import { DEFAULT_TIERS } from '../../src/rules/tiers.js';

/** A ratio of exactly `r`: maker volume over 100 placements on a contract of coefficient 0.4. */
const rated = (r: number) => tradeRatio([{ contract: 'DOGE_USDT', makerVolume: String(r * 40), place: 100 }]);

/** A week of ratios, as logged and with the changes, one a day from November 14, 2026. */
function series(now: readonly number[], changed: readonly number[]): RatioSeries {
  const day = Date.parse('2026-11-14T00:00:00Z');
  return {
    tiers: DEFAULT_TIERS,
    points: now.map((r, i) => ({ day: addUtcDays(day, i), now: rated(r), changed: rated(changed[i]!) })),
  };
}

/** The labels of a column, the tiers' left of the plot or the ratios' along its right edge: their baselines and texts. */
function labels(svg: string, side: 'tiers' | 'ratios'): { y: number; text: string }[] {
  const x = side === 'tiers' ? LEFT - 6 : WIDTH - RIGHT - 4;
  return [...svg.matchAll(new RegExp(`<text x="${x}" y="([\\d.]+)" text-anchor="end"[^>]*>([^<]+)</text>`, 'g'))].map(
    (m) => ({ y: Number(m[1]), text: m[2]! }),
  );
}

/** The y of each tier's bound line, by the ratio it marks. */
function bounds(svg: string): Map<number, number> {
  return new Map(
    [...svg.matchAll(/<line x1="[\d.]+" y1="([\d.]+)"[^>]*class="tier-bound" data-ratio="([\d.]+)"\/>/g)].map((m) => [
      Number(m[2]),
      Number(m[1]),
    ]),
  );
}

/** No two labels of a column closer than a line of text: their boxes do not meet. */
function apart(ys: readonly number[]): boolean {
  const sorted = [...ys].sort((a, b) => a - b);
  return sorted.every((y, i) => i === 0 || y - sorted[i - 1]! >= LABEL_HEIGHT);
}

describe('adviceSvg', () => {
  it('writes no two tier labels over each other for ratios from 27 to 55', () => {
    const svg = adviceSvg(series([27, 30, 33, 36, 40, 44, 48], [31, 35, 39, 43, 47, 51, 55]));
    const left = labels(svg, 'tiers');
    const right = labels(svg, 'ratios');
    expect(apart(left.map((l) => l.y))).toBe(true);
    expect(apart(right.map((l) => l.y))).toBe(true);
    expect(left.map((l) => l.text)).toEqual(['tier 7 · 400', 'tier 6 · 350']);
    // The tiers below the lowest ratio are cut off, and the chart says so.
    expect(svg).toContain('Ratio axis: logarithmic; cut at 20, tiers 1 to 5 below the zigzag.');
    expect(svg).toContain('class="axis-break"');
  });

  it('keeps every tier line in view on a logarithmic axis when the ratios reach the hundreds', () => {
    const svg = adviceSvg(series([2, 4, 8, 20, 60, 150, 300], [3, 6, 12, 30, 90, 200, 450]));
    expect(svg).toContain('Ratio axis: logarithmic; cut at 1, tier 1 below the zigzag.');
    const ys = bounds(svg);
    expect([...ys.keys()]).toEqual([1, 3, 5, 10, 20, 50]);
    // Higher ratios are higher up (a smaller y), and every band is tall enough for its label.
    const inOrder = [...ys.values()];
    for (let i = 1; i < inOrder.length; i++) expect(inOrder[i - 1]! - inOrder[i]!).toBeGreaterThanOrEqual(LABEL_HEIGHT);
    expect(labels(svg, 'tiers').map((l) => l.text)).toEqual([
      'tier 7 · 400',
      'tier 6 · 350',
      'tier 5 · 300',
      'tier 4 · 250',
      'tier 3 · 200',
      'tier 2 · 150',
    ]);
    expect(labels(svg, 'ratios').map((l) => l.text)).toEqual(['500', '200', '100', '50', '20', '10', '5', '3', '1']);
  });

  it('places the points in the order of their ratios on the logarithmic axis', () => {
    const now = [2, 4, 8, 20, 60, 150, 300];
    const svg = adviceSvg(series(now, now));
    const logged = [...svg.matchAll(/<circle cx="[\d.]+" cy="([\d.]+)" r="3" fill="#888"\/>/g)].map((m) =>
      Number(m[1]),
    );
    expect(logged).toHaveLength(now.length);
    for (let i = 1; i < logged.length; i++) expect(logged[i]!).toBeLessThan(logged[i - 1]!);
  });

  it('keeps a linear axis from 0 while every band is tall enough for its label', () => {
    const svg = adviceSvg(series([5.9, 6.2, 6.5, 6.8, 7, 7, 7], [10, 11, 12, 13, 13.9, 13.9, 13.6]));
    expect(svg).not.toContain('logarithmic');
    expect(svg).not.toContain('axis-break');
    expect(labels(svg, 'tiers')).toHaveLength(5);
    // Linear: the line of ratio 10 is twice as far from the foot as that of 5.
    const ys = bounds(svg);
    const foot = 84 + 280;
    expect(foot - ys.get(10)!).toBeCloseTo(2 * (foot - ys.get(5)!), 0);
  });
});
