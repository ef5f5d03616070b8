import { InvalidInputError, UnknownFieldError } from '../errors.js';
import { HOUR_MS, addUtcDays, formatUtcInstant, parseUtcDay, utcDayStart } from '../rules/calendar.js';
import type { FamilyOptions } from '../rules/family.js';
import { checkFields } from '../internal/parse.js';
import { type TierChange, type Timeline, type TimelineInput, buildTimeline } from '../rules/timeline.js';
import { checkHoursOnce } from '../rules/timeline/input.js';
import { InputFileError } from './input.js';
import { readJson } from './read-json.js';
import { escapeXml, timelineSvg } from './chart.js';
import { isProjected, lastDataDay } from './projection.js';
import { fillRatioText, ratioJson, ratioText, table, throttleText, usdt } from './render.js';
import {
  type SpotHour,
  type SpotThrottlePeriod,
  readSpotHour,
  spotThrottlePeriods,
  spotTimelines,
} from './spot-hours.js';

/** The fields of a timeline file: the timeline's own, and the spot activity of R14. */
const FILE_FIELDS = ['accounts', 'activity', 'vipLevel', 'vipChanges', 'spotHours'];

/** A timeline file read and computed. */
export interface TimelineRun {
  readonly input: TimelineInput;
  readonly timeline: Timeline;
  readonly from: number;
  readonly to: number;
  /** The hours the spot low-fill throttle held each account (R14); null when the file gives no `spotHours`. */
  readonly spot: readonly SpotThrottlePeriod[] | null;
  /**
   * The end of the last UTC day the file gives activity for (daily or spot hours), of any account.
   */
  readonly dataEnd: number;
  /**
   * Each account's own end of data: the end of the last UTC day the file gives it activity for;
   * `dataEnd` for an account it gives none. See {@link projectedFrom}.
   */
  readonly dataEnds: ReadonlyMap<string, number>;
}

/**
 * Reads a timeline file (JSON): `{ accounts, activity, vipLevel?, vipChanges? }` as
 * {@link buildTimeline} takes it, instants as ISO text (`2026-11-05T10:00:00Z`) or epoch ms, and
 * `spotHours?: [{ account, hour, requests, traded }]`, each account's hourly spot activity, as
 * AccountLimiter.seed takes it (R14). An error names the line of the value it is about.
 */
export function readTimeline(file: string, text: string, options: FamilyOptions): TimelineRun {
  const { value, lineOf } = readJson(file, text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputFileError(file, 1, 'Expected an object { "accounts", "activity", "vipLevel", "vipChanges" }');
  }
  const v = value as Record<string, unknown>;
  const { spotHours, ...rest } = v;
  const input = rest as unknown as TimelineInput;
  let timeline: Timeline;
  let spot: SpotThrottlePeriod[] | null = null;
  let hours: SpotHour[] = [];
  try {
    checkFields(v, FILE_FIELDS, 'the timeline input');
    timeline = buildTimeline(input, options);
    if (spotHours !== undefined) {
      hours = readSpotHours(spotHours, input);
      spot = spotThrottlePeriods(spotTimelines(hours));
    }
  } catch (e) {
    if (e instanceof InvalidInputError) {
      throw new InputFileError(file, lineOf(pathOf(e)), e.message);
    }
    throw e;
  }
  if (Array.isArray(v.activity) && v.activity.length === 0) {
    throw new InputFileError(
      file,
      lineOf(['activity']),
      'no activity: `activity` is empty, and without it every limit stays at tier 1; give each account\'s daily figures ({ "account", "day", "contracts" })',
    );
  }
  const instants = [
    timeline.start,
    ...timeline.changes.map((c) => c.at),
    ...timeline.snapshots.map((s) => s.day),
    ...(spot ?? []).map((p) => p.until),
  ];
  const from = Math.min(timeline.start, ...(spot ?? []).map((p) => utcDayStart(p.from)));
  // The timeline read every day already: this cannot fail.
  const days = [
    ...input.activity.map((a, i) => ({ account: a.account, day: parseUtcDay(a.day, `\`activity[${i}].day\``) })),
    ...hours.map((h) => ({ account: h.account, day: utcDayStart(h.hour) })),
  ];
  const dataEnd = addUtcDays(Math.max(...days.map((d) => d.day)), 1);
  const dataEnds = new Map<string, number>();
  for (const { account, day } of days) dataEnds.set(account, Math.max(dataEnds.get(account) ?? 0, addUtcDays(day, 1)));
  return { input, timeline, from, to: addUtcDays(Math.max(...instants), 1), spot, dataEnd, dataEnds };
}

/** The `spotHours` of a timeline file, each of an account of the file and each hour once per account. */
function readSpotHours(value: unknown, input: TimelineInput): SpotHour[] {
  if (!Array.isArray(value))
    throw new InvalidInputError('`spotHours`', value, 'an array of hours { "account", "hour", "requests", "traded" }');
  const ids = Array.isArray(input.accounts) ? input.accounts.map((a) => a.id) : [];
  const hours = value.map((h: unknown, i) => {
    const at = `spotHours[${i}]`;
    if (typeof h !== 'object' || h === null || Array.isArray(h))
      throw new InvalidInputError(`\`${at}\``, h, 'an object { "account", "hour", "requests", "traded" }');
    checkFields(h, ['account', 'hour', 'requests', 'traded'], `\`${at}\``);
    const row = h as Record<string, unknown>;
    if (typeof row.account !== 'string' || !ids.includes(row.account))
      throw new InvalidInputError(`\`${at}.account\``, row.account, `an account of \`accounts\` (${ids.join(', ')})`);
    return readSpotHour(
      row.account,
      [row.hour, row.requests, row.traded],
      [`${at}.hour`, `${at}.requests`, `${at}.traded`],
    );
  });
  checkHoursOnce(hours, (i) => `\`spotHours[${i}].hour\``);
  return hours;
}

/** The path in the file of the value an error is about, read from its message (an unknown field: the field itself). */
export function pathOf(e: InvalidInputError): (string | number)[] {
  const m = /`?(accounts|activity|vipChanges|spotHours|hours)\[(\d+)\](?:\.(\w+))?/.exec(e.message);
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
    isProjected(run, c) ? 'yes' : 'no',
  ]);
  const projected = new Set(run.timeline.changes.filter((c) => isProjected(run, c)).map((c) => c.account));
  const note =
    projected.size === 0
      ? []
      : [
          '',
          "projected: from the first 00:00 snapshot that counts a day after the account's last day of data, as if it did",
          'nothing more (what the rules make of the days the file does not give, not history).',
          `Last day of data: ${run.input.accounts
            .filter((a) => projected.has(a.id))
            .map((a) => `${a.id} ${lastDataDay(run, a.id)}`)
            .join(', ')}.`,
        ];
  return [
    `Limits from ${formatUtcInstant(run.from)}: ${run.timeline.changes.length} change${run.timeline.changes.length === 1 ? '' : 's'}`,
    '',
    table(['instant (UTC)', 'account', 'from r/s', 'to r/s', 'tier', 'reason', 'snapshot ratio', 'projected'], rows),
    ...note,
    ...(run.spot === null ? [] : ['', ...renderSpotPeriods(run.spot)]),
  ].join('\n');
}

/** The hours of the spot low-fill throttle (R14), one row a period. */
function renderSpotPeriods(periods: readonly SpotThrottlePeriod[]): string[] {
  if (periods.length === 0) return ['Spot low-fill throttle (R14): never in force.'];
  const hours = (p: SpotThrottlePeriod): number => (p.until - p.from) / HOUR_MS;
  const total = periods.reduce((n, p) => n + hours(p), 0);
  const rows = periods.map((p) => [
    p.account,
    formatUtcInstant(p.from),
    formatUtcInstant(p.until),
    String(hours(p)),
    throttleText(p.throttle),
    p.throttle.reason,
    String(p.requests),
    usdt(p.traded),
    fillRatioText(p.requests, p.traded),
  ]);
  return [
    `Spot low-fill throttle (R14): ${periods.length} period${periods.length === 1 ? '' : 's'}, ${total} hour${total === 1 ? '' : 's'} in all, spot placement and amendment limited per account`,
    '',
    table(
      [
        'account',
        'from (UTC)',
        'until (UTC)',
        'hours',
        'spot limit',
        'reason',
        'requests 24 h',
        'traded USDT',
        'fill ratio',
      ],
      rows,
    ),
    '',
    'Each period starts at the hourly check that found the 24 hours before it under 0.1 USDT per spot request (the figures',
    'shown), and ends at the first check that did not.',
  ];
}

/** The throttled periods as JSON-ready data. */
function spotPeriodJson(p: SpotThrottlePeriod): unknown {
  return {
    account: p.account,
    from: formatUtcInstant(p.from),
    until: formatUtcInstant(p.until),
    limit: p.throttle.limit,
    windowMs: p.throttle.windowMs,
    reason: p.throttle.reason,
    requests: p.requests,
    traded: p.traded.toFixed(),
  };
}

/** The changes as JSON-ready data. */
export function timelineJson(run: TimelineRun): unknown {
  return {
    from: formatUtcInstant(run.from),
    changes: run.timeline.changes.map((c: TierChange) => ({
      at: formatUtcInstant(c.at),
      account: c.account,
      from: c.previousTier?.limit ?? null,
      to: c.limit,
      tier: c.tier.tier,
      reason: c.reason,
      snapshotRatio: c.rating === null ? null : ratioJson(c.rating.effective).ratio,
      projected: isProjected(run, c),
    })),
    lastDataDay: Object.fromEntries(run.input.accounts.map((a) => [a.id, lastDataDay(run, a.id)])),
    spotThrottles: run.spot === null ? null : run.spot.map(spotPeriodJson),
  };
}

/** A page with the chart and the table of changes. */
export function timelineHtml(run: TimelineRun): string {
  const rows = run.timeline.changes
    .map(
      (c) =>
        `<tr><td>${formatUtcInstant(c.at)}</td><td>${escapeXml(c.account)}</td><td>${c.previousTier?.limit ?? '-'}</td><td>${c.limit}</td><td>${c.tier.tier}</td><td>${c.reason}</td><td>${isProjected(run, c) ? 'yes' : 'no'}</td></tr>`,
    )
    .join('\n');
  const spot =
    run.spot === null || run.spot.length === 0
      ? ''
      : `
<h2>Spot low-fill throttle (R14)</h2>
<table><thead><tr><th>account</th><th>from (UTC)</th><th>until (UTC)</th><th>spot limit</th><th>reason</th><th>requests 24 h</th><th>traded USDT</th><th>fill ratio</th></tr></thead>
<tbody>
${run.spot.map((p) => `<tr><td>${escapeXml(p.account)}</td><td>${formatUtcInstant(p.from)}</td><td>${formatUtcInstant(p.until)}</td><td>${throttleText(p.throttle)}</td><td>${p.throttle.reason}</td><td>${p.requests}</td><td>${usdt(p.traded)}</td><td>${fillRatioText(p.requests, p.traded)}</td></tr>`).join('\n')}
</tbody></table>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>traderatio timeline</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}</style>
</head><body>
<h1>Limits over time</h1>
${timelineSvg(run)}
<table><thead><tr><th>instant (UTC)</th><th>account</th><th>from r/s</th><th>to r/s</th><th>tier</th><th>reason</th><th>projected</th></tr></thead>
<tbody>
${rows}
</tbody></table>${spot}
</body></html>
`;
}
