import { InvalidInputError, UnknownFieldError } from '../errors.js';
import { formatUtcInstant } from '../rules/calendar.js';
import type { FamilyOptions } from '../rules/family.js';
import { type LimitChange, type Timeline, type TimelineInput, buildTimeline } from '../rules/timeline.js';
import { InputFileError, readJson } from './input.js';
import { escapeXml, timelineSvg } from './chart.js';
import { ratioJson, ratioText, table } from './render.js';

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
  const input = v as unknown as TimelineInput;
  let timeline: Timeline;
  try {
    timeline = buildTimeline(input, options);
  } catch (e) {
    if (e instanceof InvalidInputError) {
      throw new InputFileError(file, lineOf(pathOf(e)), e.message);
    }
    throw e;
  }
  if (Array.isArray(v.activity) && v.activity.length === 0) {
    throw new InputFileError(file, lineOf(['activity']), 'no activity: `activity` is empty, and without it every limit stays at tier 1; give each account\'s daily figures ({ "account", "day", "contracts" })');
  }
  const instants = [timeline.start, ...timeline.changes.map((c) => c.at), ...timeline.snapshots.map((s) => s.day)];
  return { input, timeline, from: timeline.start, to: Math.max(...instants) + 86_400_000 };
}

/** The path in the file of the value an error is about, read from its message (an unknown field: the field itself). */
function pathOf(e: InvalidInputError): (string | number)[] {
  const m = /`?(accounts|activity|vipChanges)\[(\d+)\](?:\.(\w+))?/.exec(e.message);
  const path: (string | number)[] = m === null ? [] : [m[1]!, Number(m[2]), ...(m[3] === undefined ? [] : [m[3]])];
  if (e instanceof UnknownFieldError) {
    const c = /`contracts\[(\d+)\]`/.exec(e.message);
    if (c !== null) path.push('contracts', Number(c[1]));
    path.push(e.key);
  }
  return path;
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
    c.rating === null ? '-' : ratioText(c.rating.effective),
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
      snapshotRatio: c.rating === null ? null : ratioJson(c.rating.effective).ratio,
    })),
  };
}

/** A page with the chart and the table of changes. */
export function timelineHtml(run: TimelineRun): string {
  const rows = run.timeline.changes
    .map((c) => `<tr><td>${formatUtcInstant(c.at)}</td><td>${escapeXml(c.account)}</td><td>${c.previousTier?.limit ?? '-'}</td><td>${c.limit}</td><td>${c.tier.tier}</td><td>${c.reason}</td></tr>`)
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
