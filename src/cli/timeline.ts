import { InvalidInputError, UnknownFieldError } from '../errors.js';
import { HOUR_MS, addUtcDays, formatUtcInstant, parseUtcDay, utcDayStart } from '../rules/calendar.js';
import { type FamilyConfig, type FamilyOptions, resolveFamilyOptions } from '../rules/family.js';
import { GATE } from '../rules/gate/rulebook.js';
import type { Rulebook } from '../rules/rulebook.js';
import { checkFields } from '../internal/parse.js';
import { type TierChange, type Timeline, type TimelineInput, buildTimeline } from '../rules/timeline/timeline.js';
import { checkHoursOnce } from '../rules/timeline/input.js';
import { InputFileError } from './input.js';
import { readJson } from './read-json.js';
import { escapeXml, timelineSvg } from './chart.js';
import { isProjected, lastDataDay } from './projection.js';
import { type GracePeriod, gracePeriods } from './grace.js';
import { fillRatioText, rateUnit, ratioJson, ratioText, table, throttleText, usdt } from './render.js';
import {
  type SpotHour,
  type ThrottlePeriod,
  abuseTimelines,
  readSpotHour,
  spotTimelines,
  throttlePeriods,
} from './spot-hours.js';

/** The fields of a timeline file: the timeline's own, and the hourly activity of the abuse and spot low-fill throttles (see docs/rules.md#r9, #r14). */
const FILE_FIELDS = ['accounts', 'activity', 'vipLevel', 'vipChanges', 'hours', 'spotHours'];

/** A timeline file read and computed. */
export interface TimelineRun {
  /** The rules the timeline follows. */
  readonly rulebook: Rulebook;
  readonly input: TimelineInput;
  readonly timeline: Timeline;
  readonly from: number;
  readonly to: number;
  /** The hours the abuse throttle held each account's futures placement (see docs/rules.md#r9); null when the file gives no `hours`. */
  readonly abuse: readonly ThrottlePeriod[] | null;
  /** The hours the spot low-fill throttle held each account (see docs/rules.md#r14); null when the file gives no `spotHours`. */
  readonly spot: readonly ThrottlePeriod[] | null;
  /** The days a worse snapshot's lowering waited (a rulebook whose lowerings wait a day; none otherwise). */
  readonly grace: readonly GracePeriod[];
  /**
   * The end of the last UTC day the file gives activity for (daily, hours or spot hours), of any account.
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
 * `hours?` and `spotHours?: [{ account, hour, requests, traded }]`, each account's hourly futures
 * and spot order flow, as AccountLimiter.seed takes them (see docs/rules.md#r9, #r14): the history file `simulate
 * --history` and the model exchange read. An error names the line of the value it is about.
 * The rules are `rulebook`'s: its instrument names, tiers and timing; the hourly activity of a
 * throttle it does not have is refused, naming the field.
 */
export function readTimeline(
  file: string,
  text: string,
  options: FamilyOptions,
  rulebook: Rulebook = GATE,
): TimelineRun {
  const { value, lineOf } = readJson(file, text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputFileError(file, 1, 'Expected an object { "accounts", "activity", "vipLevel", "vipChanges" }');
  }
  const v = value as Record<string, unknown>;
  const { hours: futuresHours, spotHours, ...rest } = v;
  const input = rest as unknown as TimelineInput;
  let timeline: Timeline;
  let config: FamilyConfig;
  let abuse: ThrottlePeriod[] | null = null;
  let spot: ThrottlePeriod[] | null = null;
  const hours: SpotHour[] = [];
  try {
    checkFields(v, FILE_FIELDS, 'the timeline input');
    for (const [field, throttle] of [
      ['hours', rulebook.throttles.abuse],
      ['spotHours', rulebook.throttles.spotFill],
    ] as const) {
      if (v[field] !== undefined && throttle === null)
        throw new InputFileError(
          file,
          lineOf([field]),
          `Expected no \`${field}\` under ${rulebook.title}: the hourly activity of the ${field === 'hours' ? 'abuse throttle' : 'spot low-fill throttle'}, which ${rulebook.name} does not have`,
        );
    }
    config = resolveFamilyOptions(options, rulebook);
    timeline = buildTimeline(input, config);
    if (futuresHours !== undefined) {
      const read = readHours(futuresHours, 'hours', input);
      abuse = throttlePeriods(abuseTimelines(read));
      hours.push(...read);
    }
    if (spotHours !== undefined) {
      const read = readHours(spotHours, 'spotHours', input);
      spot = throttlePeriods(spotTimelines(read));
      hours.push(...read);
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
    ...[...(abuse ?? []), ...(spot ?? [])].map((p) => p.until),
  ];
  const from = Math.min(timeline.start, ...[...(abuse ?? []), ...(spot ?? [])].map((p) => utcDayStart(p.from)));
  // The timeline read every day already: this cannot fail.
  const days = [
    ...input.activity.map((a, i) => ({ account: a.account, day: parseUtcDay(a.day, `\`activity[${i}].day\``) })),
    ...hours.map((h) => ({ account: h.account, day: utcDayStart(h.hour) })),
  ];
  const dataEnd = addUtcDays(Math.max(...days.map((d) => d.day)), 1);
  const dataEnds = new Map<string, number>();
  for (const { account, day } of days) dataEnds.set(account, Math.max(dataEnds.get(account) ?? 0, addUtcDays(day, 1)));
  return {
    rulebook,
    input,
    timeline,
    from,
    to: addUtcDays(Math.max(...instants), 1),
    abuse,
    spot,
    grace: gracePeriods(timeline, config.tiers, rulebook),
    dataEnd,
    dataEnds,
  };
}

/** The `hours` or `spotHours` of a timeline file, each of an account of the file and each hour once per account. */
function readHours(value: unknown, field: 'hours' | 'spotHours', input: TimelineInput): SpotHour[] {
  if (!Array.isArray(value))
    throw new InvalidInputError(`\`${field}\``, value, 'an array of hours { "account", "hour", "requests", "traded" }');
  const ids = Array.isArray(input.accounts) ? input.accounts.map((a) => a.id) : [];
  const hours = value.map((h: unknown, i) => {
    const at = `${field}[${i}]`;
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
  checkHoursOnce(hours, (i) => `\`${field}[${i}].hour\``);
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
    `Limits from ${formatUtcInstant(run.from)} (${run.rulebook.title}): ${run.timeline.changes.length} change${run.timeline.changes.length === 1 ? '' : 's'}`,
    '',
    table(
      [
        'instant (UTC)',
        'account',
        `from ${rateUnit(run.rulebook)}`,
        `to ${rateUnit(run.rulebook)}`,
        'tier',
        'reason',
        'snapshot ratio',
        'projected',
      ],
      rows,
    ),
    ...note,
    ...(run.rulebook.timing.lowering === 'after-grace' ? ['', ...renderGrace(run)] : []),
    ...(run.abuse === null ? [] : ['', ...renderPeriods('abuse', run.abuse)]),
    ...(run.spot === null ? [] : ['', ...renderPeriods('spot', run.spot)]),
  ].join('\n');
}

/** The days of grace of a rulebook whose lowerings wait a day, one row a day. */
function renderGrace(run: TimelineRun): string[] {
  const unit = rateUnit(run.rulebook);
  if (run.grace.length === 0) return ["Lowerings wait a day (from 08:00 UTC of the worse snapshot's day): none here."];
  const rows = run.grace.map((g) => [
    g.account,
    formatUtcInstant(g.from),
    formatUtcInstant(g.until),
    `${g.held.limit} ${unit}`,
    `${g.snapshotTier.limit} ${unit}`,
    g.outcome,
  ]);
  return [
    `Days of grace: ${run.grace.length}, a worse snapshot's lowering waiting a day`,
    '',
    table(['account', 'from (UTC)', 'until (UTC)', 'kept', 'snapshot gives', 'then'], rows),
    '',
    'Each starts at 08:00 UTC of a snapshot whose tier is worse than the one in force, which is kept until 08:00 UTC of',
    "the next day: lowered then, or cancelled when that day's snapshot gives the better tier again.",
  ];
}

/** How the text and the page name the periods of each hourly throttle a timeline file may give the activity of. */
const THROTTLES = {
  abuse: {
    title: 'Futures abuse throttle (R9)',
    market: 'futures',
    ratio: 'fill rate',
    explained: [
      'Each period starts at the hourly check that found more than 86,400 futures order requests in the 24 hours before it',
      'under 0.01 USDT per request (the figures shown), and ends at the first check that did not.',
    ],
  },
  spot: {
    title: 'Spot low-fill throttle (R14)',
    market: 'spot',
    ratio: 'fill ratio',
    explained: [
      'Each period starts at the hourly check that found the 24 hours before it under 0.1 USDT per spot request (the figures',
      'shown), and ends at the first check that did not.',
    ],
  },
} as const;

/** The hours of an hourly throttle (see docs/rules.md#r9 or #r14), one row a period. */
function renderPeriods(kind: keyof typeof THROTTLES, periods: readonly ThrottlePeriod[]): string[] {
  const { title, market, ratio, explained } = THROTTLES[kind];
  if (periods.length === 0) return [`${title}: never in force.`];
  const hours = (p: ThrottlePeriod): number => (p.until - p.from) / HOUR_MS;
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
    `${title}: ${periods.length} period${periods.length === 1 ? '' : 's'}, ${total} hour${total === 1 ? '' : 's'} in all, ${market} placement and amendment limited per account`,
    '',
    table(
      [
        'account',
        'from (UTC)',
        'until (UTC)',
        'hours',
        `${market} limit`,
        'reason',
        'requests 24 h',
        'traded USDT',
        ratio,
      ],
      rows,
    ),
    '',
    ...explained,
  ];
}

/** The throttled periods as JSON-ready data. */
function periodJson(p: ThrottlePeriod): unknown {
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
    exchange: run.rulebook.name,
    windowMs: run.rulebook.tiers.windowMs,
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
    grace: run.grace.map((g) => ({
      account: g.account,
      from: formatUtcInstant(g.from),
      until: formatUtcInstant(g.until),
      kept: g.held.limit,
      snapshotLimit: g.snapshotTier.limit,
      outcome: g.outcome,
    })),
    abuseThrottles: run.abuse === null ? null : run.abuse.map(periodJson),
    spotThrottles: run.spot === null ? null : run.spot.map(periodJson),
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
  const periods = (kind: keyof typeof THROTTLES, list: readonly ThrottlePeriod[] | null): string => {
    if (list === null || list.length === 0) return '';
    const { title, market, ratio } = THROTTLES[kind];
    return `
<h2>${title}</h2>
<table><thead><tr><th>account</th><th>from (UTC)</th><th>until (UTC)</th><th>${market} limit</th><th>reason</th><th>requests 24 h</th><th>traded USDT</th><th>${ratio}</th></tr></thead>
<tbody>
${list.map((p) => `<tr><td>${escapeXml(p.account)}</td><td>${formatUtcInstant(p.from)}</td><td>${formatUtcInstant(p.until)}</td><td>${throttleText(p.throttle)}</td><td>${p.throttle.reason}</td><td>${p.requests}</td><td>${usdt(p.traded)}</td><td>${fillRatioText(p.requests, p.traded)}</td></tr>`).join('\n')}
</tbody></table>`;
  };
  const spot = periods('abuse', run.abuse) + periods('spot', run.spot);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>traderatio timeline</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}</style>
</head><body>
<h1>Limits over time</h1>
${timelineSvg(run)}
<table><thead><tr><th>instant (UTC)</th><th>account</th><th>from ${rateUnit(run.rulebook)}</th><th>to ${rateUnit(run.rulebook)}</th><th>tier</th><th>reason</th><th>projected</th></tr></thead>
<tbody>
${rows}
</tbody></table>${spot}
</body></html>
`;
}
