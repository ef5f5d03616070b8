import { InvalidInputError } from '../errors.js';
import { formatUtcInstant } from '../rules/calendar.js';
import type { FamilyOptions } from '../rules/family.js';
import { type LimitChange, type Timeline, type TimelineInput, buildTimeline } from '../rules/timeline.js';
import { DEFAULT_TIERS } from '../rules/tiers.js';
import { InputFileError, readJson } from './input.js';
import { table } from './render.js';

/** A timeline file read and computed. */
export interface TimelineRun {
  readonly input: TimelineInput;
  readonly timeline: Timeline;
  readonly from: number;
  readonly to: number;
}

/**
 * Reads a timeline file (JSON): `{ accounts, activity, vipLevel?, vipChanges? }` as
 * {@link buildTimeline} takes it, instants as ISO text (`2026-11-05T10:00:00Z`) or epoch ms. An
 * error names the line of the value it is about.
 */
export function readTimeline(file: string, text: string, options: FamilyOptions): TimelineRun {
  const { value, lineOf } = readJson(file, text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputFileError(file, 1, 'Expected an object { "accounts", "activity", "vipLevel", "vipChanges" }');
  }
  const v = value as Record<string, unknown>;
  const instant = (x: unknown, path: (string | number)[]): unknown => {
    if (typeof x !== 'string') return x;
    const t = Date.parse(x);
    if (!/(Z|[+-]\d\d:\d\d)$/.test(x) || !Number.isFinite(t)) throw new InputFileError(file, lineOf(path), `Expected \`${pathText(path)}\` to be an ISO instant with a zone (e.g. 2026-11-05T10:00:00Z), got "${x}"`);
    return t;
  };
  const accounts = Array.isArray(v.accounts)
    ? v.accounts.map((a, i) => (typeof a === 'object' && a !== null && 'createdAt' in a ? { ...a, createdAt: instant((a as { createdAt: unknown }).createdAt, ['accounts', i, 'createdAt']) } : a))
    : v.accounts;
  const vipChanges = Array.isArray(v.vipChanges)
    ? v.vipChanges.map((c, i) => (typeof c === 'object' && c !== null ? { ...c, at: instant((c as { at: unknown }).at, ['vipChanges', i, 'at']) } : c))
    : v.vipChanges;
  const input = { ...v, accounts, ...(vipChanges === undefined ? {} : { vipChanges }) } as unknown as TimelineInput;
  let timeline: Timeline;
  try {
    timeline = buildTimeline(input, options);
  } catch (e) {
    if (e instanceof InvalidInputError) {
      const m = /`?(accounts|activity|vipChanges)\[(\d+)\](?:\.(\w+))?/.exec(e.message);
      const path = m === null ? [] : [m[1]!, Number(m[2]), ...(m[3] === undefined ? [] : [m[3]])];
      throw new InputFileError(file, path.length === 0 ? 1 : lineOf(path), e.message);
    }
    throw e;
  }
  const instants = [timeline.start, ...timeline.changes.map((c) => c.at), ...timeline.snapshots.map((s) => s.day)];
  return { input, timeline, from: timeline.start, to: Math.max(...instants) + 86_400_000 };
}

function pathText(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** The changes as a table. */
export function renderTimeline(run: TimelineRun): string {
  const rows = run.timeline.changes.map((c) => [
    formatUtcInstant(c.at),
    c.account,
    c.previousTier === null ? '-' : `${c.previousTier.limit}`,
    `${c.limit}`,
    `${c.tier.tier}`,
    c.reason,
    c.rating === null ? '-' : (c.rating.effective.ratio?.toFixed(4) ?? 'none'),
  ]);
  return [
    `Limits from ${formatUtcInstant(run.from)}: ${run.timeline.changes.length} change${run.timeline.changes.length === 1 ? '' : 's'}`,
    '',
    table(['instant (UTC)', 'account', 'from r/s', 'to r/s', 'tier', 'reason', 'snapshot ratio'], rows),
  ].join('\n');
}

/** The changes as JSON-ready data. */
export function timelineJson(run: TimelineRun): unknown {
  return {
    from: formatUtcInstant(run.from),
    changes: run.timeline.changes.map((c: LimitChange) => ({
      at: formatUtcInstant(c.at),
      account: c.account,
      from: c.previousTier?.limit ?? null,
      to: c.limit,
      tier: c.tier.tier,
      reason: c.reason,
      snapshotRatio: c.rating?.effective.ratio?.toString() ?? null,
    })),
  };
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A step chart of each account's limit over time, one panel per account: tiers shaded, raises
 * at 08:00 marked with an upward triangle, lowerings with a downward one (R5, R6, R8).
 */
export function timelineSvg(run: TimelineRun): string {
  const ids = run.input.accounts.map((a) => a.id);
  const width = 960;
  const left = 70;
  const right = 20;
  const panel = 150;
  const gap = 40;
  const top = 72;
  const height = top + ids.length * (panel + gap) + 20;
  const span = run.to - run.from;
  const x = (t: number): number => left + ((t - run.from) / span) * (width - left - right);
  const maxLimit = DEFAULT_TIERS.at(-1)!.limit;
  const y0 = (i: number): number => top + i * (panel + gap);
  const y = (i: number, limit: number): number => y0(i) + panel - (limit / maxLimit) * panel;
  const shades = ['#f7f7f7', '#eef3fb', '#e3ecf8', '#d6e4f5', '#c8dbf1', '#b9d1ed', '#a9c6e8'];
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${left}" y="22" font-size="15" font-weight="bold">Futures placement limit by account (requests per second)</text>`,
    `<text x="${left}" y="38" fill="#555">Shaded bands: tiers 1 to 7. Green triangle: raised at 08:00 UTC or restored; red: lowered at once. Grid: days (UTC).</text>`,
  ];
  ids.forEach((id, i) => {
    const base = y0(i);
    let previous = 0;
    DEFAULT_TIERS.forEach((t, k) => {
      out.push(`<rect x="${left}" y="${y(i, t.limit).toFixed(1)}" width="${width - left - right}" height="${(y(i, previous) - y(i, t.limit)).toFixed(1)}" fill="${shades[k]}"/>`);
      out.push(`<text x="${left - 6}" y="${(y(i, t.limit) + 4).toFixed(1)}" text-anchor="end" fill="#555">${t.limit}</text>`);
      previous = t.limit;
    });
    for (let d = Math.ceil(run.from / 86_400_000) * 86_400_000; d <= run.to; d += 86_400_000) {
      out.push(`<line x1="${x(d).toFixed(1)}" y1="${base}" x2="${x(d).toFixed(1)}" y2="${base + panel}" stroke="#ccc" stroke-width="0.5"/>`);
      if (x(d) < width - right - 30) out.push(`<text x="${(x(d) + 2).toFixed(1)}" y="${base + panel + 12}" fill="#777">${formatUtcInstant(d).slice(5, 10)}</text>`);
    }
    out.push(`<text x="${left}" y="${base - 8}" font-weight="bold" font-size="12">${esc(id)}</text>`);
    const changes = run.timeline.changes.filter((c) => c.account === id);
    const created = run.input.accounts.find((a) => a.id === id)?.createdAt;
    let t = created ?? run.from;
    let limit = changes[0]?.at === t ? changes[0]!.limit : run.timeline.limitAt(id, t).limit;
    const points: string[] = [`${x(t).toFixed(1)},${y(i, limit).toFixed(1)}`];
    for (const c of changes) {
      points.push(`${x(c.at).toFixed(1)},${y(i, limit).toFixed(1)}`, `${x(c.at).toFixed(1)},${y(i, c.limit).toFixed(1)}`);
      limit = c.limit;
      t = c.at;
    }
    points.push(`${x(run.to).toFixed(1)},${y(i, limit).toFixed(1)}`);
    out.push(`<polyline points="${points.join(' ')}" fill="none" stroke="#1f4e8c" stroke-width="2"/>`);
    for (const c of changes) {
      if (c.previousTier === null) continue;
      const up = c.limit > c.previousTier.limit;
      const cx = x(c.at);
      const cy = y(i, c.limit);
      const tri = up ? `${cx - 5},${cy + 9} ${cx + 5},${cy + 9} ${cx},${cy + 1}` : `${cx - 5},${cy - 9} ${cx + 5},${cy - 9} ${cx},${cy - 1}`;
      out.push(`<polygon points="${tri}" fill="${up ? '#2e8b3e' : '#c0392b'}"><title>${esc(`${formatUtcInstant(c.at)} ${c.previousTier.limit} -> ${c.limit} (${c.reason})`)}</title></polygon>`);
    }
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** A page with the chart and the table of changes. */
export function timelineHtml(run: TimelineRun): string {
  const rows = run.timeline.changes
    .map((c) => `<tr><td>${formatUtcInstant(c.at)}</td><td>${esc(c.account)}</td><td>${c.previousTier?.limit ?? '-'}</td><td>${c.limit}</td><td>${c.tier.tier}</td><td>${c.reason}</td></tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>traderatio timeline</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}</style>
</head><body>
<h1>Limits over time</h1>
${timelineSvg(run)}
<table><thead><tr><th>instant (UTC)</th><th>account</th><th>from r/s</th><th>to r/s</th><th>tier</th><th>reason</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}
