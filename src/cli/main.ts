import { parseArgs } from 'node:util';
import { TraderatioError } from '../errors.js';
import { type FamilyRating, rateFamily } from '../rules/family.js';
import { WORKED_EXAMPLE } from '../rules/example.js';
import type { RatioResult } from '../rules/ratio.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { makePlan, readPlan } from './plan.js';
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

function writeOut(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new TraderatioError('OUTPUT_FILE', `${file}: cannot write it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** Runs the command line with `argv` (without node and the script); resolves to the exit code. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'plan':
        return plan(rest, io);
      case 'timeline':
        return timeline(rest, io);
      case 'example':
        return example(io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(rest[0] === 'plan' ? PLAN_HELP : rest[0] === 'timeline' ? TIMELINE_HELP : HELP);
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
