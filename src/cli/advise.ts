import { type Advice, type Outcome, advise } from '../advise/advise.js';
import type { AdviseOptions } from '../advise/options.js';
import { LogActivity, type LogAccount } from '../advise/log-activity.js';
import type { ThrottleNearMiss } from '../advise/throttles.js';
import { apiOf } from '../catalog/exchange-api.js';
import { resolve } from '../advise/options.js';
import { HOUR_MS, addUtcDays, formatUtcDay, formatUtcInstant, utcDayStart } from '../rules/calendar.js';
import type { RatioResult } from '../rules/ratio.js';
import { GATE } from '../rules/gate/rulebook.js';
import type { Rulebook } from '../rules/rulebook.js';
import { resolveTiers, tierTableOf } from '../rules/tiers.js';
import { isTieredVip } from '../rules/vip.js';
import { adviceSvg, type RatioSeries } from './advise-chart.js';
import { escapeXml } from './chart.js';
import { readLog } from './simulate/read-log.js';
import { Replay } from './simulate/replay.js';
import { readPlan } from './plan.js';
import { accountRatingJson, rateUnit, ratioJson, ratioText, table } from './render.js';
import { MAX_LINE_BYTES, type Source, readText } from './source.js';

/** What `traderatio advise` read, and the advice. */
export interface AdviceRun {
  /** The rules the family was rated by. */
  readonly rulebook: Rulebook;
  readonly advice: Advice;
  /** `plan`: 7-day aggregates; `log`: a request log, with the days its window covers and the chart's series. */
  readonly format: 'plan' | 'log';
  readonly log: {
    readonly lines: number;
    readonly seconds: number;
    readonly from: number;
    readonly to: number;
    /** The 7 UTC days the findings rate: [windowFrom, windowTo]. */
    readonly windowFrom: number;
    readonly windowTo: number;
    readonly series: RatioSeries;
  } | null;
}

/** Options of the command: those of {@link advise}, and the window of a cancel + place pair. */
export interface AdviceRunOptions extends AdviseOptions {
  /** A placement this long after a cancel (or sooner) on the same contract from the same account is a pair, ms. @default 1000 */
  readonly pairWindowMs?: number;
  readonly onProgress?: (bytes: number, lines: number) => void;
}

/** The first line of `text` that is neither blank nor a comment. */
function firstLine(text: string): string {
  for (const line of text.split('\n')) if (line.trim() !== '' && !line.trimStart().startsWith('#')) return line;
  return '';
}

/**
 * The input again, its first piece already read: `head` says whether it is a request log (a CSV
 * header with an `at` column) or 7-day aggregates (the plan format: CSV or JSON).
 */
async function peek(source: Source): Promise<{ readonly log: boolean; readonly source: Source }> {
  const it = source.chunks[Symbol.asyncIterator]();
  // Pieces are read until the header is whole (or 64 KiB or the end has come): a pipe may bring it in parts.
  const head: (Buffer | string)[] = [];
  let text = '';
  let ended = false;
  while (!ended && text.length < 65_536) {
    const next = await it.next();
    if (next.done === true) ended = true;
    else {
      head.push(next.value);
      text += typeof next.value === 'string' ? next.value : next.value.toString('utf8');
      const line = firstLine(text.replace(/^\uFEFF/, ''));
      if (line !== '' && text.includes('\n', text.indexOf(line))) break;
    }
  }
  const header = firstLine(text.replace(/^\uFEFF/, ''))
    .toLowerCase()
    .split(',')
    .map((c) => c.trim().replace(/^"|"$/g, ''));
  const log = !/\.json$/i.test(source.name) && header.includes('at');
  async function* again(): AsyncIterable<Buffer | string> {
    yield* head;
    if (ended) return;
    for (let next = await it.next(); next.done !== true; next = await it.next()) yield next.value;
  }
  return { log, source: { ...source, chunks: again() } };
}

/**
 * Reads a family's activity, from a request log (the `simulate` format, streamed) or 7-day
 * aggregates (the `plan` format), and advises on it. A log's findings rate the 7 UTC days that end
 * with its last day, and its chart rates each of its days the same way, with and without the changes.
 */
export async function runAdvice(input: Source, options: AdviceRunOptions = {}): Promise<AdviceRun> {
  const { log, source } = await peek(input);
  const { pairWindowMs = 1000, onProgress, ...adviseOptions } = options;
  const rulebook = options.rulebook ?? GATE;
  if (!log) {
    const plan = readPlan(source.name, await readText(source, MAX_LINE_BYTES), rulebook);
    return {
      rulebook,
      format: 'plan',
      log: null,
      advice: advise(
        plan.accounts.map((a) => ({ account: a.account, contracts: a.contracts })),
        adviseOptions,
      ),
    };
  }
  const started = performance.now();
  const api = apiOf(rulebook);
  const activity = new LogActivity(pairWindowMs, api);
  // Where only successful requests count in the ratio (OKX), the log is replayed as simulate
  // replays it, and a request the exchange would refuse is left out of the activity.
  const resolved = rulebook.ratio.countsRefused ? null : resolve(adviseOptions);
  // The orders of the request being replayed that the exchange admits (all, unless it refuses some).
  let admitted = 0;
  const replay =
    resolved === null
      ? null
      : new Replay(source.name, resolved.family, api, resolved.vipLevel, undefined, null, (r) => {
          admitted = r.admitted;
        });
  type Both = { readonly activity: LogAccount; readonly replay: ReturnType<Replay['account']> | null };
  const summary = await readLog<Both>(
    source,
    api,
    {
      time: (at) => replay?.time(at),
      account: (id, no) => ({ activity: activity.account(id), replay: replay?.account(id, no) ?? null }),
      request: (at, a, c, contract, no) => {
        admitted = c.orders;
        if (replay !== null) replay.request(at, a.replay!, c, contract, no);
        if (admitted === c.orders) activity.request(at, a.activity, c, contract);
        else if (admitted > 0) activity.request(at, a.activity, { ...c, orders: admitted, weight: admitted }, contract);
      },
      fill: (at, a, market, contract, role, volume) => {
        // Validated by the activity first: a bad fill is refused with the activity's message.
        activity.fill(at, a.activity, market, contract, role, volume);
        replay?.fill(at, a.replay!, market, contract, role, volume);
      },
    },
    onProgress,
  );
  const seconds = (performance.now() - started) / 1000;
  const lastDay = utcDayStart(summary.to);
  const advice = advise(activity.window(lastDay, true), adviseOptions);
  const series: { day: number; now: RatioResult; changed: RatioResult | null }[] = [];
  for (const day of activity.days()) {
    const a = advise({ ...activity.window(day, false), hours: [] }, adviseOptions);
    series.push({ day, now: a.now.aggregated, changed: a.combination?.outcome.aggregated ?? null });
  }
  return {
    rulebook,
    format: 'log',
    advice,
    log: {
      lines: summary.lines,
      seconds,
      from: summary.from,
      to: summary.to,
      windowFrom: addUtcDays(lastDay, -6),
      windowTo: lastDay,
      series: { points: series, tiers: resolveTiers(options.tiers, tierTableOf(rulebook)) },
    },
  };
}

function limitsText(o: Outcome): string {
  return o.accounts.map((a) => `${a.account} ${a.tier.limit}`).join(', ');
}

function gainText(n: number, unit: string): string {
  return n > 0 ? `+${n} ${unit}` : n < 0 ? `${n} ${unit}` : '0';
}

/** The advice as text: where it stands, the ranked findings, their combination, the throttles. */
export function renderAdvice(run: AdviceRun): string {
  const { advice, rulebook } = run;
  const unit = rateUnit(rulebook);
  const now = advice.now;
  const out: string[] = [];
  if (run.log !== null) {
    const l = run.log;
    out.push(
      `${l.lines.toLocaleString('en-US')} lines from ${formatUtcInstant(l.from)} to ${formatUtcInstant(l.to)}, read in ${l.seconds.toFixed(2)} s (${Math.round(l.lines / Math.max(l.seconds, 0.001)).toLocaleString('en-US')} lines/s)`,
    );
    out.push(
      `Rated: the 7 days ${formatUtcDay(l.windowFrom)} to ${formatUtcDay(l.windowTo)} (the snapshot of ${formatUtcDay(addUtcDays(l.windowTo, 1))} 00:00 UTC)`,
    );
  }
  out.push(
    `Family: ${now.accounts.length} account${now.accounts.length === 1 ? '' : 's'}, VIP ${advice.vipLevel}${!isTieredVip(advice.vipLevel, rulebook.tieredVipLevel) ? ` (below ${rulebook.tieredVipLevel}: every account at tier 1, whatever the ratio)` : ''}; ${rulebook.title}`,
  );
  out.push(
    `Now: aggregated ratio ${ratioText(now.aggregated)} (tier ${now.aggregatedTier.tier}); limits ${limitsText(now)} ${unit}`,
    '',
  );
  const row = (f: Advice['findings'][number], i: number) => [
    String(i + 1),
    f.rules.join(','),
    f.cost === 'free' ? 'free' : f.cost === 'volume' ? 'volume' : '-',
    f.change,
    ratioText(f.outcome.aggregated),
    limitsText(f.outcome),
    gainText(f.gain, unit),
  ];
  const header = ['rank', 'rule', 'cost', 'change', 'aggregated', `limits ${unit}`, 'gain'];
  const actionable = advice.findings.filter((f) => !f.informational);
  out.push('What to change: free changes first, then changes in volume, each ranked by the limit it adds:');
  out.push(actionable.length === 0 ? '  none' : table(header, actionable.map(row)));
  const informational = advice.findings.filter((f) => f.informational);
  if (informational.length > 0) {
    out.push('', 'Informational (where to quote, how the family is set up), apart:');
    out.push(
      table(
        header,
        informational.map((f, i) => row(f, actionable.length + i)),
      ),
    );
  }
  const c = advice.combination;
  if (c !== null)
    out.push(
      '',
      `Together (${c.kinds.join(', ')}): aggregated ratio ${ratioText(c.outcome.aggregated)} (tier ${c.outcome.aggregatedTier.tier}); limits ${limitsText(c.outcome)} ${unit}; ${gainText(c.outcome.gain, unit)}`,
    );
  for (const f of advice.findings.filter((x) => x.kind === 'heavy-contracts')) {
    out.push(
      '',
      `Heavy contracts (${f.rules.join(', ')}): ${f.figures.heavyRequests} requests weigh ${f.figures.heavyWeighted}; the other ${f.figures.otherRequests} weigh ${f.figures.otherWeighted}.`,
    );
  }
  const { abuse, spotFill } = rulebook.throttles;
  if (run.log !== null && abuse === null && spotFill === null) {
    out.push('', `24-hour throttles: none (${rulebook.name} has no hourly check: ${rulebook.title})`);
  } else if (run.log !== null || advice.throttles.length > 0) {
    out.push(
      '',
      `24-hour throttles (R9 futures, R14 spot): ${advice.throttles.length === 0 ? 'no hourly check tripped or came within 10% of tripping' : `${advice.throttles.length} hourly check${advice.throttles.length === 1 ? '' : 's'} tripped or came within 10%`}`,
    );
    if (advice.throttles.length > 0) {
      // Consecutive checks that saw the same window (one busy hour is seen by 24 checks) share a row.
      const groups: { first: ThrottleNearMiss; last: ThrottleNearMiss; n: number }[] = [];
      for (const t of advice.throttles) {
        const g = groups.at(-1);
        const same =
          g !== undefined &&
          g.last.account === t.account &&
          g.last.rule === t.rule &&
          g.last.checkedAt + HOUR_MS === t.checkedAt &&
          g.last.requests === t.requests &&
          g.last.traded.equals(t.traded) &&
          g.last.tripped?.reason === t.tripped?.reason;
        if (same) {
          g.last = t;
          g.n++;
        } else groups.push({ first: t, last: t, n: 1 });
      }
      const shown = groups
        .slice(0, 20)
        .map(({ first: t, last, n }) => [
          t.account,
          t.rule,
          n === 1
            ? formatUtcInstant(t.checkedAt)
            : `${formatUtcInstant(t.checkedAt)} to ${formatUtcInstant(last.checkedAt)} (${n})`,
          t.requests.toLocaleString('en-US'),
          t.traded.toString(),
          t.tripped === null ? 'no' : `${t.tripped.limit} per ${t.tripped.windowMs / 1000} s`,
          t.clearVolume.toString(),
        ]);
      out.push(
        table(
          ['account', 'rule', 'checked at (UTC)', 'requests', 'traded USDT', 'tripped', 'USDT more to stay clear'],
          shown,
        ),
      );
      if (groups.length > 20) out.push(`... ${groups.length - 20} more (--json lists them all)`);
    }
  }
  return out.join('\n');
}

function outcomeJson(o: Outcome): unknown {
  return {
    aggregated: { ...ratioJson(o.aggregated), tier: o.aggregatedTier.tier, limit: o.aggregatedTier.limit },
    accounts: o.accounts.map((a) => ({ ...accountRatingJson(a), gain: a.gain })),
    gain: o.gain,
  };
}

/** The advice as JSON-ready data: decimals as strings. */
export function adviceJson(run: AdviceRun): unknown {
  const { advice } = run;
  return {
    exchange: run.rulebook.name,
    windowMs: run.rulebook.tiers.windowMs,
    format: run.format,
    ...(run.log === null
      ? {}
      : {
          log: {
            lines: run.log.lines,
            seconds: run.log.seconds,
            from: run.log.from,
            to: run.log.to,
            windowFrom: formatUtcDay(run.log.windowFrom),
            windowTo: formatUtcDay(run.log.windowTo),
            days: run.log.series.points.map((p) => ({
              day: formatUtcDay(p.day),
              now: ratioJson(p.now).ratio,
              changed: p.changed === null ? null : ratioJson(p.changed).ratio,
            })),
          },
        }),
    vipLevel: advice.vipLevel,
    now: outcomeJson(advice.now),
    findings: advice.findings.map((f, i) => ({
      rank: i + 1,
      kind: f.kind,
      rules: f.rules,
      account: f.account,
      change: f.change,
      cost: f.cost,
      informational: f.informational,
      gain: f.gain,
      figures: f.figures,
      outcome: outcomeJson(f.outcome),
    })),
    combination:
      advice.combination === null
        ? null
        : { kinds: advice.combination.kinds, outcome: outcomeJson(advice.combination.outcome) },
    throttles: advice.throttles.map((t) => ({
      account: t.account,
      rule: t.rule,
      market: t.market,
      checkedAt: formatUtcInstant(t.checkedAt),
      requests: t.requests,
      traded: t.traded.toString(),
      tripped: t.tripped,
      withMargin: t.withMargin,
      clearVolume: t.clearVolume.toString(),
    })),
  };
}

/** A page with the chart of the ratio over the log's days (with and without the changes) and the advice. */
export function adviceHtml(run: AdviceRun): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>traderatio advise</title>
<style>body{font-family:sans-serif;margin:2em}pre{font-size:12px}</style>
</head><body>
<h1>What would raise the ratio</h1>
${run.log === null ? '' : adviceSvg(run.log.series)}
<pre>${escapeXml(renderAdvice(run))}</pre>
</body></html>
`;
}
