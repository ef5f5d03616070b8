import { formatUtcDay, formatUtcInstant } from '../../rules/calendar.js';
import { LEFT, RIGHT, WIDTH, escapeXml } from '../chart.js';
import { ratioJson, ratioText, table } from '../render.js';
import { tickMarks, timeAxis } from '../ticks.js';
import type { SimulationReport } from './replay.js';
import type { LimitRefusals, StartingTier } from './tally.js';
import { type SimulateTerms, termsOf } from './terms.js';

/** A count and its noun, singular for 1: "1 fill", "2,000 fills". */
export function counted(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

const when = (t: number | null): string => (t === null ? '-' : formatUtcInstant(t));

/** Where an account's starting tier comes from, in words. */
function sourceText(s: StartingTier, r: SimulationReport, terms: SimulateTerms): string {
  switch (s.source) {
    case 'history': {
      const r = s.rating!;
      const snapshot =
        s.snapshotAt === null ? 'the history' : `the snapshot of ${formatUtcDay(s.snapshotAt)} 00:00 UTC`;
      return `history: ${snapshot} rates it ${ratioText(r.effective)} (${r.basis}); ${s.reason}`;
    }
    case 'vip':
      return `VIP level below ${r.api.rulebook.tieredVipLevel}: tier 1 whatever the ratio (${terms.vipRule})`;
    case 'new-sub-account':
      return `a new sub-account: tier 1 until 08:00 UTC of the day after its creation (${terms.newSubAccountRule})`;
    default:
      return 'assumed: no activity before the log is known (give --history FILE to start from the tier it had)';
  }
}

/** Refusals by limit, each with its reasons: "futures.place 50 (tier 1 (initial) 50)". */
function byLimitText(byLimit: Readonly<Record<string, LimitRefusals>>): string {
  const entries = Object.entries(byLimit).sort((a, b) => b[1].refused - a[1].refused);
  if (entries.length === 0) return '-';
  return entries
    .map(
      ([k, l]) =>
        `${k} ${l.refused} (${Object.entries(l.reasons)
          .sort((a, b) => b[1] - a[1])
          .map(([r, n]) => `${r}: ${n}`)
          .join(', ')})`,
    )
    .join('; ');
}

/** The minutes shown in text: those with refusals, most first, at most this many. */
const MINUTES_SHOWN = 10;

/** The report of a replay as text: starting tiers first, then the refusals as sent, by account and by minute, then the scheduler. */
export function renderSimulation(r: SimulationReport, seconds: number): string {
  const terms = termsOf(r.api);
  const tierKey = r.api.tierKey;
  const start = r.start.map((s) => [
    s.account,
    String(s.tier),
    `${s.limit} ${terms.unit}`,
    when(s.at),
    sourceText(s, r, terms),
  ]);
  // Where the exchange answers by code, each limit's (OKX: 50061, 50011).
  const codeOf = (limit: string): string => (r.api.codes === null ? '' : ` (${r.api.refusalLabel(limit)})`);
  const peakOf = (account: string) => r.peaks.find((p) => p.account === account && p.limit === tierKey);
  const accounts = r.accounts.map((a) => {
    const p = peakOf(a.account);
    return [
      a.account,
      a.requests.toLocaleString('en-US'),
      a.refused.toLocaleString('en-US'),
      byLimitText(a.byLimit),
      p === undefined ? '-' : `${p.most >= p.cap ? '>=' : ''}${p.most} in ${p.windowMs / 1000} s (limit ${p.n})`,
      a.delayed.toLocaleString('en-US'),
      `${a.maxWaitMs.toFixed(1)} ms`,
    ];
  });
  const busy = r.minutes.filter((m) => m.refused > 0).sort((a, b) => b.refused - a.refused || a.minute - b.minute);
  const minutes = busy
    .slice(0, MINUTES_SHOWN)
    .sort((a, b) => a.minute - b.minute)
    .map((m) => [
      formatUtcInstant(m.minute).slice(0, 16),
      m.requests.toLocaleString('en-US'),
      m.refused.toLocaleString('en-US'),
      Object.entries(m.byLimit)
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k} ${n}`)
        .join(', '),
    ]);
  const lines = [
    `${counted(r.lines, 'line')} (${counted(r.requests, 'request')}, ${counted(r.fills, 'fill')}) from ${when(r.from)} to ${when(r.to)}, read in ${seconds.toFixed(2)} s (${Math.round(r.lines / Math.max(seconds, 0.001)).toLocaleString('en-US')} lines/s)`,
    '',
    `Starting tiers (${terms.tierLimit} as each account enters the log):`,
    table(['account', 'tier', 'limit', 'from (UTC)', 'source'], start),
    '',
    `As sent, the exchange would refuse ${counted(r.exchange.refused, terms.refusal)} ${terms.refusedWith}${r.exchange.refused === 0 ? '.' : ':'}`,
    ...Object.entries(r.exchange.byCode ?? {})
      .sort((a, b) => b[1] - a[1])
      .map(([code, n]) => `  ${n.toLocaleString('en-US').padStart(12)}  answered ${code}`),
    ...Object.entries(r.exchange.byLimit)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `  ${n.toLocaleString('en-US').padStart(12)}  over ${k}${codeOf(k)}`),
    ...r.exchange.examples.map(
      (e) => `  e.g. line ${e.line} at ${when(e.at)}: account ${e.account} over ${e.limit}${codeOf(e.limit)}`,
    ),
    '',
    `By account (refused by limit, with the reason the limit was what it was; the window of ${tierKey} furthest over its limit):`,
    table(
      [
        'account',
        'requests',
        'refused',
        'refused by limit (reason: count)',
        'most in one window',
        'delayed',
        'longest wait',
      ],
      accounts,
    ),
    '',
    busy.length === 0
      ? `By minute: no minute had a refusal (${counted(r.minutes.length, 'minute')} with requests; --json lists them all).`
      : `By minute: ${counted(busy.length, 'minute')} with refusals${busy.length > MINUTES_SHOWN ? `, the ${MINUTES_SHOWN} with the most shown` : ''} (--json lists every minute):`,
    ...(minutes.length === 0 ? [] : [table(['minute (UTC)', 'requests', 'refused', 'by limit'], minutes)]),
    '',
    `Through the scheduler: ${counted(r.scheduler.delayed, 'request')} delayed; delay p50 ${r.scheduler.p50Ms.toFixed(1)} ms, p99 ${r.scheduler.p99Ms.toFixed(1)} ms, max ${r.scheduler.maxMs.toFixed(1)} ms`,
    `  refused by the exchange at their scheduled instants: ${r.scheduler.refusedByExchange}${r.scheduler.tooHeavy > 0 ? `; ${r.scheduler.tooHeavy} too heavy for a limit, never sent` : ''}`,
    ...(r.scheduler.queueFull > 0
      ? [`  refused by the scheduler, its queue full: ${counted(r.scheduler.queueFull, 'request')}, never sent`]
      : []),
  ];
  return lines.join('\n');
}

/** The report as JSON-ready data: instants as ISO text beside the log's epoch milliseconds, ratios to 8 decimals. */
export function simulationJson(r: SimulationReport, seconds: number): unknown {
  return {
    lines: r.lines,
    requests: r.requests,
    fills: r.fills,
    from: r.from,
    to: r.to,
    seconds,
    start: r.start.map((s) => ({
      account: s.account,
      at: formatUtcInstant(s.at),
      tier: s.tier,
      limit: s.limit,
      source: s.source,
      reason: s.reason,
      snapshotAt: s.snapshotAt === null ? null : formatUtcInstant(s.snapshotAt),
      rating:
        s.rating === null
          ? null
          : { own: ratioJson(s.rating.own), effective: ratioJson(s.rating.effective), basis: s.rating.basis },
    })),
    exchange: {
      refused: r.exchange.refused,
      byLimit: r.exchange.byLimit,
      // Only where the exchange tells refusals by code (OKX); Gate answers every one with 429.
      ...(r.exchange.byCode === null ? {} : { byCode: r.exchange.byCode }),
      examples: r.exchange.examples.map((e) => ({ ...e, at: formatUtcInstant(e.at) })),
    },
    scheduler: r.scheduler,
    accounts: r.accounts,
    minutes: r.minutes.map((m) => ({ ...m, minute: formatUtcInstant(m.minute) })),
    peaks: r.peaks,
    limits: r.limits.map((l) => ({ ...l, at: formatUtcInstant(l.at) })),
  };
}

const PANEL = 150;
const GAP = 56;
const TOP = 78;

/**
 * A chart per account of a replay: the futures placement limit in force over time (a blue step
 * line, r/s, left axis; the hours an hourly check of the abuse or spot low-fill throttle throttled it (see docs/rules.md#r9, #r14), as an orange band) and the
 * requests refused as sent in each minute (red bars, right axis, scaled to the most in any minute).
 */
export function simulationSvg(r: SimulationReport): string {
  const ids = r.accounts.map((a) => a.account);
  const from = r.minutes[0]?.minute ?? r.from ?? 0;
  const to = Math.max((r.minutes.at(-1)?.minute ?? from) + 60_000, (r.to ?? from) + 1);
  const plotWidth = WIDTH - LEFT - RIGHT - 40;
  const x = (t: number): number => LEFT + ((t - from) / (to - from)) * plotWidth;
  const terms = termsOf(r.api);
  const lowest = r.api.rulebook.tiers.rows[0]!.limit;
  const top = Math.max(lowest, ...r.limits.map((l) => l.limit)) * 1.15;
  // The left axis in steps of the lowest tier's limit, doubled until at most six marks remain.
  let tickStep = lowest;
  while (Math.floor(top / tickStep) + 1 > 6) tickStep *= 2;
  const ticks = Array.from({ length: Math.floor(top / tickStep) + 1 }, (_, i) => i * tickStep);
  const height = TOP + ids.length * (PANEL + GAP);
  const f = (n: number): string => n.toFixed(1);
  const axis = timeAxis(from, to, plotWidth, 70);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${LEFT}" y="22" font-size="15" font-weight="bold">Limit in force and refusals as sent, by account</text>`,
    `<text x="${LEFT}" y="40" fill="#555">${escapeXml(`${formatUtcInstant(from)} to ${formatUtcInstant(to)} (UTC).`)} Blue: ${escapeXml(r.api.rulebook.limited)} limit (${escapeXml(terms.unit)}, left axis).</text>`,
    `<text x="${LEFT}" y="56" fill="#555">${terms.throttleRules === null ? '' : `Orange band: throttled by an hourly check (${terms.throttleRules}). `}Red bars: requests refused ${escapeXml(terms.refusedWith)} in each minute (right axis). Grid: ${axis.step}.</text>`,
  ];
  ids.forEach((id, i) => {
    const base = TOP + i * (PANEL + GAP) + 10;
    const y = (v: number): number => base + PANEL - (v / top) * PANEL;
    out.push(`<rect x="${LEFT}" y="${base}" width="${plotWidth}" height="${PANEL}" fill="#f7f7f7"/>`);
    out.push(`<text x="${LEFT}" y="${base - 8}" font-weight="bold" font-size="12">${escapeXml(id)}</text>`);
    out.push(
      ...tickMarks(axis.ticks, x, { top: base, bottom: base + PANEL, stroke: '#bbb', width: 0.5, labelGap: 15 }),
    );
    for (const v of ticks) {
      out.push(
        `<line x1="${LEFT - 4}" y1="${f(y(v))}" x2="${LEFT}" y2="${f(y(v))}" stroke="#999"/><text x="${LEFT - 6}" y="${f(y(v) + 4)}" text-anchor="end" fill="#555">${v}</text>`,
      );
    }
    // Refusals per minute, scaled to the account's busiest minute.
    const bars = r.minutes.map((m) => ({ at: m.minute, n: m.byAccount[id] ?? 0 })).filter((m) => m.n > 0);
    const most = Math.max(1, ...bars.map((b) => b.n));
    const barWidth = Math.max(3, x(from + 60_000) - x(from) - 0.5);
    for (const b of bars) {
      const h = (b.n / most) * PANEL;
      out.push(
        `<rect x="${f(x(b.at))}" y="${f(base + PANEL - h)}" width="${f(barWidth)}" height="${f(h)}" fill="#c0392b" fill-opacity="0.6"><title>${escapeXml(`${formatUtcInstant(b.at).slice(0, 16)}: ${b.n} refused`)}</title></rect>`,
      );
    }
    out.push(
      `<text x="${LEFT + plotWidth + 4}" y="${base + 10}" fill="#c0392b">${bars.length === 0 ? 'none' : most}</text>`,
    );
    out.push(`<text x="${LEFT + plotWidth + 4}" y="${base + PANEL}" fill="#c0392b">0</text>`);
    const changes = r.limits.filter((l) => l.account === id);
    const step = (pick: (l: (typeof changes)[number]) => number | null, colour: string): void => {
      const pts: string[] = [];
      const flush = (): void => {
        if (pts.length > 1)
          out.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${colour}" stroke-width="2"/>`);
        pts.length = 0;
      };
      changes.forEach((c, k) => {
        const v = pick(c);
        if (v === null) {
          flush();
          return;
        }
        const x0 = f(x(Math.max(c.at, from)));
        const x1 = f(x(changes[k + 1]?.at ?? to));
        pts.push(`${x0},${f(y(v))}`, `${x1},${f(y(v))}`);
      });
      flush();
    };
    // The hours an hourly check of the abuse or spot low-fill throttle (see docs/rules.md#r9, #r14) throttled the account: a band across the panel.
    changes.forEach((c, k) => {
      if (c.throttle === null && c.spotThrottle === null) return;
      const x0 = x(Math.max(c.at, from));
      const x1 = x(changes[k + 1]?.at ?? to);
      const what = [
        c.throttle === null ? '' : `futures placement ${c.throttle} per 10 s (R9)`,
        c.spotThrottle === null ? '' : `spot placement ${c.spotThrottle} per 10 s (R14)`,
      ]
        .filter((t) => t !== '')
        .join(', ');
      out.push(
        `<rect x="${f(x0)}" y="${base}" width="${f(Math.max(1, x1 - x0))}" height="${PANEL}" fill="#e67e22" fill-opacity="0.25"><title>${escapeXml(`from ${formatUtcInstant(c.at)}: ${what}`)}</title></rect>`,
      );
      out.push(`<rect x="${f(x0)}" y="${base}" width="${f(Math.max(1, x1 - x0))}" height="4" fill="#e67e22"/>`);
      if (x1 - x0 > 90)
        out.push(`<text x="${f(x0 + 4)}" y="${base + 16}" fill="#a04000">${escapeXml(`throttled: ${what}`)}</text>`);
    });
    step((c) => c.limit, '#1f4e8c');
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** A page with the chart and the report. */
export function simulationHtml(r: SimulationReport, seconds: number): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>traderatio simulate</title>
<style>body{font-family:sans-serif;margin:2em}pre{font-size:12px}</style>
</head><body>
<h1>What the exchange would have refused</h1>
${simulationSvg(r)}
<pre>${escapeXml(renderSimulation(r, seconds))}</pre>
</body></html>
`;
}
