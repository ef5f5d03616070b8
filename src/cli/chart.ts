import { formatUtcDay, formatUtcInstant } from '../rules/calendar.js';
import { parseInstant } from '../internal/parse.js';
import { tierTableOf } from '../rules/tiers.js';
import { rateUnitWords, throttleText } from './render.js';
import { tickMarks, timeAxis } from './ticks.js';
import { isProjected, lastDataDay, projectedFrom } from './projection.js';
import type { TimelineRun } from './timeline.js';

/** Text made safe to put in SVG or HTML. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The layout every chart shares: width, margins, and the shades of the tier bands (tier 1 first). */
export const WIDTH = 960;
export const LEFT = 112;
export const RIGHT = 20;
export const TOP = 84;
export const SHADES = ['#f4f4f4', '#eef3fb', '#e3ecf8', '#d6e4f5', '#c8dbf1', '#b9d1ed', '#a9c6e8'];
const PANEL = 160;
const GAP = 52;
/** The most an 11-pixel character of a label takes, and one of a panel's 12-pixel bold name. */
export const CHARACTER = 6;
const NAME_CHARACTER = 7.5;
/** The colour of the hours the spot low-fill throttle holds an account (see docs/rules.md#r14). */
const SPOT = '#e67e22';
/** The colour of the hours the abuse throttle holds an account's futures placement (see docs/rules.md#r9). */
const ABUSE = '#8e44ad';
/** The colour of a lowering's day of grace (OKX's timing). */
const GRACE = '#f1c40f';

/**
 * A step chart of each account's limit over time, one panel per account (see docs/rules.md#r5, #r6, #r8). Each tier
 * is a band labelled with its number and limit, the limit's line running through the middle of
 * its tier's band; raises at 08:00 are marked with an upward triangle, lowerings with a downward
 * one. The hours the spot low-fill throttle holds an account (see docs/rules.md#r14) are an orange band across its
 * panel, with a strip along its top, named in the legend when the file gives spot activity. The
 * time axis is ticked by hours, days, weeks or months as the span asks (see {@link timeAxis}),
 * with the year. What follows an account's data (from {@link projectedFrom}) assumes it did nothing
 * more: it is hatched, after a dashed rule with a label, the limit's line dashed and the triangles
 * paler. Where the rulebook's lowerings wait a day, each day of grace is a yellow band from 08:00
 * UTC of the worse snapshot's day to 08:00 of the next, with a strip along its bottom; outlined
 * dashed when the next snapshot cancelled the lowering. Tier bands are evenly spaced, whatever
 * the limits (OKX's top tier is 10,000 beside 3,000).
 */
export function timelineSvg(run: TimelineRun): string {
  const book = run.rulebook;
  const grace = book.timing.lowering === 'after-grace';
  const ids = run.input.accounts.map((a) => a.id);
  // The legend of each hourly throttle the file gives the activity of takes a line of its own.
  const legends = [
    ...(run.abuse === null
      ? []
      : [
          {
            colour: ABUSE,
            text: `Purple: futures placement and amendment throttled (R9 abuse throttle: over 86,400 requests in 24 hours, under 0.01 USDT traded per request)${run.abuse.length === 0 ? ', never here' : ''}.`,
            strip: 'bottom',
          },
        ]),
    ...(grace
      ? [
          {
            colour: GRACE,
            text: `Yellow: a lowering's day of grace, the better tier kept from 08:00 UTC of the worse snapshot's day until 08:00 of the next (dashed: cancelled by a better snapshot)${run.grace.length === 0 ? ', never here' : ''}.`,
            strip: 'bottom',
          },
        ]
      : []),
    ...(run.spot === null
      ? []
      : [
          {
            colour: SPOT,
            text: `Orange: spot placement and amendment throttled (R14 low-fill throttle: under 0.1 USDT traded per spot request in the 24 hours before)${run.spot.length === 0 ? ', never here' : ''}.`,
            strip: 'top',
          },
        ]),
  ];
  const top = TOP + legends.length * 18;
  const height = top + ids.length * (PANEL + GAP);
  const plotWidth = WIDTH - LEFT - RIGHT;
  const x = (t: number): number => LEFT + ((t - run.from) / (run.to - run.from)) * plotWidth;
  // Each tier's band is as tall as the others, its limit's line through its middle.
  const tiers = tierTableOf(book);
  const low = 0;
  const high = tiers.length;
  const edges = tiers.map((_, k) => k);
  edges.push(high);
  const y0 = (i: number): number => top + i * (PANEL + GAP);
  // The height of tier k's line (k from 0): the middle of its band.
  const y = (i: number, k: number): number => y0(i) + PANEL - ((k + 0.5 - low) / (high - low)) * PANEL;
  const band = (i: number, edge: number): number => y0(i) + PANEL - ((edge - low) / (high - low)) * PANEL;
  const axis = timeAxis(run.from, run.to, plotWidth);
  const f = (n: number): string => n.toFixed(1);
  // What follows an account's data assumes it did nothing more: drawn apart, never as history.
  const projected = ids.some((id) => projectedFrom(run, id) < run.to);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${LEFT}" y="22" font-size="15" font-weight="bold">${escapeXml(`${book.limited.charAt(0).toUpperCase()}${book.limited.slice(1)} limit by account (${rateUnitWords(book)})`)}</text>`,
    `<text x="${LEFT}" y="40" fill="#555">${formatUtcDay(run.from)} to ${formatUtcDay(run.to)} (UTC). Bands: the tiers and their limits. Green triangle: raised at 08:00 UTC or restored; red: lowered ${grace ? "after a day's grace" : 'at once'}.</text>`,
    `<text x="${LEFT}" y="56" fill="#555">Grid: ${axis.step}${axis.minorStep === null ? '' : ` (lighter: ${axis.minorStep})`}.${projected ? ' Hatched, right of the dashed rule: projected, as if the account did nothing after its last day of data.' : ''}</text>`,
  ];
  if (projected) {
    out.push(
      `<defs><pattern id="projected" width="7" height="7" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="7" height="7" fill="#ffffff" fill-opacity="0.45"/><line x1="0" y1="0" x2="0" y2="7" stroke="#777" stroke-width="1.5" stroke-opacity="0.45"/></pattern></defs>`,
    );
  }
  legends.forEach((l, k) => {
    const ly = 64 + k * 18;
    out.push(
      `<rect x="${LEFT}" y="${ly}" width="18" height="10" fill="${l.colour}" fill-opacity="0.35"/><rect x="${LEFT}" y="${l.strip === 'top' ? ly : ly + 7}" width="18" height="3" fill="${l.colour}"/>`,
      `<text x="${LEFT + 24}" y="${ly + 9}" fill="#555">${l.text}</text>`,
    );
  });
  ids.forEach((id, i) => {
    const base = y0(i);
    tiers.forEach((t, k) => {
      const top = band(i, edges[k + 1]!);
      out.push(
        `<rect x="${LEFT}" y="${f(top)}" width="${plotWidth}" height="${f(band(i, edges[k]!) - top)}" fill="${SHADES[k % SHADES.length]}"/>`,
      );
      out.push(
        `<text x="${LEFT - 6}" y="${f(y(i, k) + 4)}" text-anchor="end" fill="#555">tier ${t.tier} · ${t.limit}</text>`,
      );
    });
    for (const g of run.grace) {
      if (g.account !== id) continue;
      const left = x(g.from);
      const width = f(Math.max(1, x(g.until) - left));
      const title = `<title>${escapeXml(`${formatUtcInstant(g.from)} to ${formatUtcInstant(g.until)}: ${g.held.limit} kept, the snapshot giving ${g.snapshotTier.limit} (${g.outcome === 'lowered' ? 'lowered after the grace' : 'cancelled by a better snapshot'})`)}</title>`;
      const outline = g.outcome === 'cancelled' ? ` stroke="#b7950b" stroke-dasharray="4 3"` : '';
      out.push(
        `<rect x="${f(left)}" y="${base}" width="${width}" height="${PANEL}" fill="${GRACE}" fill-opacity="0.3"${outline} class="grace-${g.outcome}">${title}</rect>`,
      );
      out.push(`<rect x="${f(left)}" y="${base + PANEL - 4}" width="${width}" height="4" fill="${GRACE}"/>`);
    }
    for (const p of run.abuse ?? []) {
      if (p.account !== id) continue;
      const left = x(p.from);
      const width = f(Math.max(1, x(p.until) - left));
      const title = `<title>${escapeXml(`${formatUtcInstant(p.from)} to ${formatUtcInstant(p.until)}: futures ${throttleText(p.throttle)} (${p.throttle.reason})`)}</title>`;
      out.push(
        `<rect x="${f(left)}" y="${base}" width="${width}" height="${PANEL}" fill="${ABUSE}" fill-opacity="0.3">${title}</rect>`,
      );
      out.push(`<rect x="${f(left)}" y="${base + PANEL - 4}" width="${width}" height="4" fill="${ABUSE}"/>`);
    }
    for (const p of run.spot ?? []) {
      if (p.account !== id) continue;
      const left = x(p.from);
      const width = f(Math.max(1, x(p.until) - left));
      const title = `<title>${escapeXml(`${formatUtcInstant(p.from)} to ${formatUtcInstant(p.until)}: spot ${throttleText(p.throttle)} (${p.throttle.reason})`)}</title>`;
      out.push(
        `<rect x="${f(left)}" y="${base}" width="${width}" height="${PANEL}" fill="${SPOT}" fill-opacity="0.35">${title}</rect>`,
      );
      out.push(`<rect x="${f(left)}" y="${base}" width="${width}" height="4" fill="${SPOT}"/>`);
    }
    for (const m of axis.minor)
      out.push(
        `<line x1="${f(x(m))}" y1="${base}" x2="${f(x(m))}" y2="${base + PANEL}" stroke="#d8d8d8" stroke-width="0.5"/>`,
      );
    out.push(
      ...tickMarks(axis.ticks, x, { top: base, bottom: base + PANEL, stroke: '#999', width: 0.75, labelGap: 15 }),
    );
    out.push(`<text x="${LEFT}" y="${base - 8}" font-weight="bold" font-size="12">${escapeXml(id)}</text>`);
    const from = projectedFrom(run, id);
    const lastDay = lastDataDay(run, id);
    const xEnd = x(from);
    if (from < run.to) {
      const title = `<title>${escapeXml(`from ${formatUtcInstant(from)}: projected, as if no activity after ${lastDay}`)}</title>`;
      out.push(
        `<rect x="${f(xEnd)}" y="${base}" width="${f(x(run.to) - xEnd)}" height="${PANEL}" fill="url(#projected)" class="projection">${title}</rect>`,
      );
      out.push(
        `<line x1="${f(xEnd)}" y1="${base - 4}" x2="${f(xEnd)}" y2="${base + PANEL}" stroke="#333" stroke-width="1.25" stroke-dasharray="4 3" class="data-ends"/>`,
      );
      // Right of the rule (past the account's name) when the words fit there, else left of it,
      // else left out: the hatching and the legend say it still.
      const nameEnd = LEFT + id.length * NAME_CHARACTER + 12;
      const after = `projected: no activity after ${lastDay}`;
      const before = `data ends ${lastDay} · projected →`;
      const at = Math.max(xEnd + 4, nameEnd);
      if (at + after.length * CHARACTER <= WIDTH - RIGHT)
        out.push(`<text x="${f(at)}" y="${base - 8}" fill="#333">${after}</text>`);
      else if (xEnd - 4 - before.length * CHARACTER >= nameEnd)
        out.push(`<text x="${f(xEnd - 4)}" y="${base - 8}" text-anchor="end" fill="#333">${before}</text>`);
    }
    const changes = run.timeline.changes.filter((c) => c.account === id);
    const given = run.input.accounts.find((a) => a.id === id)?.createdAt;
    // The file may give it as ISO text: the timeline read it already, so this cannot fail.
    const created = given === undefined ? undefined : parseInstant(given, '`createdAt`');
    const start = created ?? run.from;
    // Tiers from 0, as the bands are drawn.
    const initial = (changes[0]?.at === start ? changes[0]!.tier.tier : run.timeline.limitAt(id, start).tier.tier) - 1;
    const tierAt = (t: number): number => (changes.filter((c) => c.at <= t).at(-1)?.tier.tier ?? initial + 1) - 1;
    // The step line from a to b: the tier in force at a, then each change after a up to b.
    const step = (a: number, b: number, dashed: boolean): void => {
      if (b <= a) return;
      let k = tierAt(a);
      const points: string[] = [`${f(x(a))},${f(y(i, k))}`];
      for (const c of changes) {
        if (c.at <= a || c.at > b) continue;
        points.push(`${f(x(c.at))},${f(y(i, k))}`, `${f(x(c.at))},${f(y(i, c.tier.tier - 1))}`);
        k = c.tier.tier - 1;
      }
      points.push(`${f(x(b))},${f(y(i, k))}`);
      out.push(
        `<polyline points="${points.join(' ')}" fill="none" stroke="#1f4e8c" stroke-width="2"${dashed ? ' stroke-dasharray="6 4" class="projected-limit"' : ''}/>`,
      );
    };
    step(start, Math.min(from, run.to), false);
    step(Math.max(start, from), run.to, true);
    for (const c of changes) {
      if (c.previousTier === null) continue;
      const up = c.limit > c.previousTier.limit;
      const cx = x(c.at);
      const cy = y(i, c.tier.tier - 1);
      const tri = up
        ? `${f(cx - 5)},${f(cy + 9)} ${f(cx + 5)},${f(cy + 9)} ${f(cx)},${f(cy + 1)}`
        : `${f(cx - 5)},${f(cy - 9)} ${f(cx + 5)},${f(cy - 9)} ${f(cx)},${f(cy - 1)}`;
      const guess = isProjected(run, c) ? ' fill-opacity="0.5"' : '';
      out.push(
        `<polygon points="${tri}" fill="${up ? '#2e8b3e' : '#c0392b'}"${guess}><title>${escapeXml(`${formatUtcInstant(c.at)} ${c.previousTier.limit} -> ${c.limit} (${c.reason}${isProjected(run, c) ? ', projected' : ''})`)}</title></polygon>`,
      );
    }
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
