import { parseArgs } from 'node:util';
import { TraderatioError } from '../errors.js';
import { type FamilyRating, rateFamily } from '../rules/family.js';
import { WORKED_EXAMPLE } from '../rules/example.js';
import type { RatioResult } from '../rules/ratio.js';
import { createReadStream, readFileSync, statSync, writeFileSync } from 'node:fs';
import { makePlan, readPlan } from './plan.js';
import { type SimulationReport, simulate } from './simulate.js';
import { readTimeline, renderTimeline, timelineHtml, timelineJson, timelineSvg } from './timeline.js';
import { planJson, renderPlan } from './render.js';

/** Where the command line writes: standard output and standard error, one line per call. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}

/** Exit codes: 0 done, 1 bad input (a file, a value), 2 bad usage (a command or flag). */
export const EXIT = { ok: 0, input: 1, usage: 2 } as const;

class UsageError extends Error {}

const HELP = `Usage: traderatio <command> [options]

Commands:
  plan FILE        ratios, tiers, limits and the margins to the tiers around, per account and for the family
  timeline FILE    each account's limit over time, with the reason of every change; a chart with --svg or --html
  simulate FILE    replay a request log: what the exchange would refuse (429), and the delays the scheduler adds instead
  example          the exchange's worked example: ratios, aggregated ratio and limits
  help [COMMAND]   this help, or a command's

Run "traderatio <command> --help" for a command's options.`;

const PLAN_HELP = `Usage: traderatio plan FILE [options]

FILE is CSV with a header row, or JSON (an array of objects with the same keys):
  account,contract,maker_volume,taker_volume,place,amend,cancel
one row per account and contract with its 7-day figures (USDT volumes, request counts).

Options:
  --vip N          the family's VIP level (default 14; below 14 every account is at tier 1)
  --threshold X    own 7-day volume (USDT) from which an account takes max(own, aggregated) (default 1000000)
  --broker         rate every account by its own ratio only
  --json           print JSON
  -h, --help       this help`;

const TIMELINE_HELP = `Usage: traderatio timeline FILE [options]

FILE is JSON: { "accounts": [{ "id", "role"?, "createdAt"? }], "activity": [{ "account", "day",
"contracts": [{ "contract", "makerVolume", "takerVolume", "place", "amend", "cancel" }] }],
"vipLevel"?, "vipChanges"?: [{ "at", "level" }] }; instants as ISO text or epoch ms, days as YYYY-MM-DD.

Options:
  --svg OUT        also write a step chart per account (tiers shaded, raises and lowerings marked)
  --html OUT       also write a page with the chart and the table
  --threshold X    own 7-day volume (USDT) from which an account takes max(own, aggregated) (default 1000000)
  --broker         rate every account by its own ratio only
  --json           print JSON
  -h, --help       this help`;

const SIMULATE_HELP = `Usage: traderatio simulate FILE [options]

FILE is a CSV request log with a header row, in time order:
  at,account,method,path,contract,orders,fill_role,fill_volume
A request row has method and path (contract names the futures contract, orders a batch's size);
a fill row has fill_role (maker or taker), fill_volume (USDT) and contract. at is epoch ms or ISO.
The log is read as a stream, in constant memory; the accounts in it form one family.

Options:
  --vip N          the family's VIP level (default 14)
  --json           print JSON
  -h, --help       this help`;

function fraction(r: RatioResult): string {
  return r.ratio === null ? 'none (no requests counted)' : `${r.numerator.toString()}/${r.denominator.toString()} = ${r.ratio.toFixed(4)}`;
}

function render(title: string, rating: FamilyRating): string {
  const lines = [title, `  aggregated ratio  ${fraction(rating.aggregated)}`];
  for (const a of rating.accounts) {
    lines.push(`  account ${a.account}  own ${fraction(a.own)}  volume ${a.own.volume.toString()} USDT`);
    lines.push(`             effective ${a.effective.ratio?.toFixed(4) ?? 'none'} (${a.basis})  tier ${a.tier.tier}  limit ${a.tier.limit} r/s`);
  }
  return lines.join('\n');
}

function example(io: Io): number {
  io.out("The exchange's worked example: main account A, sub-accounts B and C (R1, R7)\n");
  io.out(render('With ownVolumeThreshold 0 (max(own, aggregated) for every account, as the example does):',
    rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' })));
  io.out('');
  io.out(render('With the default ownVolumeThreshold 1,000,000 USDT (small accounts take the aggregated ratio):',
    rateFamily(WORKED_EXAMPLE)));
  return EXIT.ok;
}

function readFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new TraderatioError('INPUT_FILE', `${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

function vipOf(value: string | undefined): number {
  if (value === undefined) return 14;
  if (!/^\d+$/.test(value)) throw new UsageError(`--vip takes a non-negative integer, got "${value}"`);
  return Number(value);
}

function plan(args: readonly string[], io: Io): number {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { vip: { type: 'string' }, threshold: { type: 'string' }, broker: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help === true) {
    io.out(PLAN_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`plan takes one FILE, got ${positionals.length}\n\n${PLAN_HELP}`);
  const file = positionals[0]!;
  const input = readPlan(file, readFile(file));
  const result = makePlan(input, {
    ...(values.threshold === undefined ? {} : { ownVolumeThreshold: values.threshold }),
    ...(values.broker === true ? { kind: 'broker' as const } : {}),
  }, vipOf(values.vip));
  io.out(values.json === true ? JSON.stringify(planJson(result), null, 2) : renderPlan(result));
  return EXIT.ok;
}

function timeline(args: readonly string[], io: Io): number {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      svg: { type: 'string' }, html: { type: 'string' }, threshold: { type: 'string' }, broker: { type: 'boolean' },
      json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) {
    io.out(TIMELINE_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`timeline takes one FILE, got ${positionals.length}\n\n${TIMELINE_HELP}`);
  const file = positionals[0]!;
  const result = readTimeline(file, readFile(file), {
    ...(values.threshold === undefined ? {} : { ownVolumeThreshold: values.threshold }),
    ...(values.broker === true ? { kind: 'broker' as const } : {}),
  });
  if (values.svg !== undefined) writeOut(values.svg, timelineSvg(result));
  if (values.html !== undefined) writeOut(values.html, timelineHtml(result));
  io.out(values.json === true ? JSON.stringify(timelineJson(result), null, 2) : renderTimeline(result));
  return EXIT.ok;
}

async function simulateCommand(args: readonly string[], io: Io, progress: boolean): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { vip: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help === true) {
    io.out(SIMULATE_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`simulate takes one FILE, got ${positionals.length}\n\n${SIMULATE_HELP}`);
  const file = positionals[0]!;
  let size: number;
  try {
    size = statSync(file).size;
  } catch (e) {
    throw new TraderatioError('INPUT_FILE', `${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const started = performance.now();
  const bar = (bytes: number, lines: number): void => {
    const share = size === 0 ? 1 : bytes / size;
    const rate = lines / Math.max(0.001, (performance.now() - started) / 1000);
    process.stderr.write(`\r[${'#'.repeat(Math.round(share * 30)).padEnd(30, '.')}] ${(share * 100).toFixed(0).padStart(3)}%  ${lines.toLocaleString('en-US')} lines  ${Math.round(rate).toLocaleString('en-US')} lines/s `);
  };
  const report = await simulate(file, createReadStream(file, { highWaterMark: 1 << 20 }), {
    vipLevel: vipOf(values.vip),
    ...(progress ? { onProgress: bar } : {}),
  });
  if (progress) process.stderr.write('\n');
  const seconds = (performance.now() - started) / 1000;
  io.out(values.json === true ? JSON.stringify({ ...report, seconds }, null, 2) : renderSimulation(report, seconds));
  return EXIT.ok;
}

function renderSimulation(r: SimulationReport, seconds: number): string {
  const when = (t: number | null) => (t === null ? '-' : new Date(t).toISOString());
  const lines = [
    `${r.lines.toLocaleString('en-US')} lines (${r.requests.toLocaleString('en-US')} requests, ${r.fills.toLocaleString('en-US')} fills) from ${when(r.from)} to ${when(r.to)}, read in ${seconds.toFixed(2)} s (${Math.round(r.lines / Math.max(seconds, 0.001)).toLocaleString('en-US')} lines/s)`,
    '',
    `As sent, the exchange would refuse ${r.exchange.refused.toLocaleString('en-US')} request${r.exchange.refused === 1 ? '' : 's'} with 429:`,
    ...Object.entries(r.exchange.byLimit).sort((a, b) => b[1] - a[1]).map(([k, n]) => `  ${n.toLocaleString('en-US').padStart(12)}  over ${k}`),
    ...r.exchange.examples.map((e) => `  e.g. line ${e.line} at ${when(e.at)}: over ${e.limit}`),
    '',
    `Through the scheduler: ${r.scheduler.delayed.toLocaleString('en-US')} request${r.scheduler.delayed === 1 ? '' : 's'} delayed; delay p50 ${r.scheduler.p50Ms.toFixed(1)} ms, p99 ${r.scheduler.p99Ms.toFixed(1)} ms, max ${r.scheduler.maxMs.toFixed(1)} ms`,
    `  refused by the exchange at their scheduled instants: ${r.scheduler.refusedByExchange}${r.scheduler.tooHeavy > 0 ? `; ${r.scheduler.tooHeavy} too heavy for a limit, never sent` : ''}`,
  ];
  return lines.join('\n');
}

function writeOut(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new TraderatioError('OUTPUT_FILE', `${file}: cannot write it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** Runs the command line with `argv` (without node and the script); resolves to the exit code. */
export async function run(argv: readonly string[], io: Io, options: { readonly progress?: boolean } = {}): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'plan':
        return plan(rest, io);
      case 'timeline':
        return timeline(rest, io);
      case 'simulate':
        return await simulateCommand(rest, io, options.progress ?? false);
      case 'example':
        return example(io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(rest[0] === 'plan' ? PLAN_HELP : rest[0] === 'timeline' ? TIMELINE_HELP : rest[0] === 'simulate' ? SIMULATE_HELP : HELP);
        return EXIT.ok;
      default:
        throw new UsageError(`unknown command "${command}"\n\n${HELP}`);
    }
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true) {
      io.err(`traderatio: ${(e as Error).message}`);
      return EXIT.usage;
    }
    if (e instanceof TraderatioError) {
      io.err(`traderatio: ${e.message}`);
      return EXIT.input;
    }
    io.err(`traderatio: ${(e as Error).message ?? String(e)}`);
    return EXIT.input;
  }
}
