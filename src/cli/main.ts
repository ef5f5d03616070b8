import { InvalidInputError, TraderatioError } from '../errors.js';
import { type FamilyOptions, type FamilyRating, rateFamily, resolveFamilyOptions } from '../rules/family.js';
import { WORKED_EXAMPLE } from '../rules/example.js';
import type { RatioResult } from '../rules/ratio.js';
import { TIERED_VIP_LEVEL, parseVipLevel } from '../rules/vip.js';
import { DEFAULT_MAX_QUEUE } from '../schedule/scheduler.js';
import { writeFileSync } from 'node:fs';
import { type OptionSpec, type ParsedArgs, UsageError, optionsHelp, parseOptions } from './options.js';
import { adviseCommand } from './advise-command.js';
import { modelExchangeCommand } from './model-exchange.js';
import { proxyCommand } from './proxy.js';
import { makePlan, readPlan } from './plan.js';
import { readReplayHistory } from './simulate/history.js';
import { renderSimulation, simulationHtml, simulationJson, simulationSvg } from './simulate/render.js';
import { simulate } from './simulate/simulate.js';
import type { CliErrorCode } from './input.js';
import { openSource, readInput } from './source.js';
import { timelineSvg } from './chart.js';
import { readTimeline, renderTimeline, timelineHtml, timelineJson } from './timeline.js';
import { planJson, ratioJson, ratioText, renderPlan } from './render.js';
import { wholeNumber } from './whole-number.js';

export type { CliErrorCode } from './input.js';

// The package's version, written in at build time (tsup.config.ts, vitest.config.ts).
declare const __TRADERATIO_VERSION__: string;

/** Where the command line writes: standard output and standard error, one line per call. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}

/** How the command line is run beside its arguments. */
export interface RunOptions {
  /** Draw a progress bar on standard error (simulate). @default false */
  readonly progress?: boolean;
  /** What `-` reads, given as a FILE. @default process.stdin */
  readonly stdin?: AsyncIterable<Buffer | string>;
  /** What ends a long-running command (the model exchange, the proxy): resolves with the signal's name. @default SIGINT or SIGTERM */
  readonly stop?: () => Promise<string>;
}

const ignore = (): void => {};

/**
 * The first of SIGINT and SIGTERM to arrive. Later ones are let pass while the command ends (a
 * Ctrl-C reaches both the command and the node it runs the model exchange in, which is also sent it).
 */
function onSignal(): Promise<string> {
  return new Promise((resolve) => {
    const done = (signal: string) => {
      // Ignoring first: were a signal's last listener removed, even for an instant, node would give
      // it back its default action, and a second Ctrl-C arriving then would end the process.
      process.on('SIGINT', ignore);
      process.on('SIGTERM', ignore);
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve(signal);
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}

/**
 * Exit codes: 0 done, 1 bad input (a file, a value), 2 bad usage (a command or option), 141 the
 * output closed early (a reader such as `head` done with it), as a Unix tool ended by SIGPIPE.
 */
export const EXIT = { ok: 0, input: 1, usage: 2, closedOutput: 141 } as const;

/** A command: its usage line, what it reads, its options and what it does. */
interface Command {
  readonly usage: string;
  readonly about: string;
  readonly options: readonly OptionSpec[];
  /** Why an option that other commands take is not here. */
  readonly notes?: Readonly<Record<string, string>>;
  run(args: ParsedArgs, io: Io, context: Required<RunOptions>): number | Promise<number>;
}

const HELP_OPTION: OptionSpec = { name: 'help', short: 'h', help: 'this help' };
const JSON_OPTION: OptionSpec = { name: 'json', help: 'print JSON' };
const THRESHOLD_OPTION: OptionSpec = {
  name: 'threshold',
  value: 'X',
  help: 'own 7-day volume (USDT) from which an account takes max(own, aggregated) (default 1000000)',
};
const BROKER_OPTION: OptionSpec = { name: 'broker', help: 'rate every account by its own ratio only' };
const VIP_OPTION: OptionSpec = {
  name: 'vip',
  value: 'N',
  help: `the family's VIP level (default ${TIERED_VIP_LEVEL}; below ${TIERED_VIP_LEVEL} every account is at tier 1)`,
};

const COMMANDS: Readonly<Record<string, Command>> = {
  plan: {
    usage: 'plan FILE',
    about: `ratios, tiers, limits and the margins to the tiers around, per account and for the family

FILE is CSV with a header row, or JSON (an array of objects with the same keys); - reads standard input:
  account,contract,maker_volume,taker_volume,place,amend,cancel,hour,spot_requests,spot_traded
one row per account and contract with its 7-day figures (USDT volumes, request counts); a row with an hour
instead of a contract gives the account's spot requests and spot USDT traded in that hour (the spot low-fill
throttle, R14: now, at the next hourly check, and what keeps it clear; the latest hour is the current one).`,
    options: [VIP_OPTION, THRESHOLD_OPTION, BROKER_OPTION, JSON_OPTION, HELP_OPTION],
    run: plan,
  },
  timeline: {
    usage: 'timeline FILE',
    about: `each account's limit over time, with the reason of every change; a chart with --svg or --html

FILE is JSON (- reads standard input): { "accounts": [{ "id", "role"?, "createdAt"? }], "activity": [{ "account", "day",
"contracts": [{ "contract", "makerVolume", "takerVolume", "place", "amend", "cancel" }] }],
"vipLevel"?, "vipChanges"?: [{ "at", "level" }], "spotHours"?: [{ "account", "hour", "requests", "traded" }] };
instants as ISO text or epoch ms, days as YYYY-MM-DD; spotHours gives each account's spot requests and spot USDT
traded by hour, and the hours of the spot low-fill throttle (R14) follow the limits.`,
    options: [
      {
        name: 'svg',
        value: 'OUT',
        help: 'also write a step chart per account (tiers shaded, raises and lowerings marked, spot throttle hours in orange)',
      },
      { name: 'html', value: 'OUT', help: 'also write a page with the chart and the table' },
      THRESHOLD_OPTION,
      BROKER_OPTION,
      JSON_OPTION,
      HELP_OPTION,
    ],
    notes: { vip: 'the VIP level is in the file: "vipLevel", and "vipChanges" over time' },
    run: timeline,
  },
  simulate: {
    usage: 'simulate FILE',
    about: `replay a request log: what the exchange would refuse (429), and the delays the scheduler adds instead

FILE is a CSV request log with a header row, in time order (- reads standard input):
  at,account,method,path,contract,orders,fill_role,fill_volume
A request row has method and path (contract names the futures contract, orders a batch's size);
a fill row has fill_role (maker or taker), fill_volume (USDT) and contract. at is epoch ms or ISO.
The log is read as a stream, in constant memory; the accounts in it form one family. The scheduler's
side is the library's scheduler on a virtual clock, as an engine runs it for the family.
Without --history every account starts at tier 1 (no activity before the log is known); the report
says where each account's starting tier comes from.`,
    options: [
      {
        name: 'history',
        value: 'FILE',
        help: 'what happened before the log (JSON, as timeline and the exchange read it: "activity" by day, "hours", "spotHours", "accounts", "vipLevel", "vipChanges"): each account starts at the tier it gives',
      },
      { ...VIP_OPTION, help: `the family's VIP level (default: the history's "vipLevel", else ${TIERED_VIP_LEVEL})` },
      THRESHOLD_OPTION,
      BROKER_OPTION,
      {
        name: 'svg',
        value: 'OUT',
        help: 'also write a chart per account: the limit in force over time and the requests refused in each minute',
      },
      { name: 'html', value: 'OUT', help: 'also write a page with the chart and the report' },
      {
        name: 'max-queue',
        value: 'N',
        help: `requests the scheduler holds waiting at once, as the engine's would; one more is refused and never sent (default ${DEFAULT_MAX_QUEUE.toLocaleString('en-US')}; Infinity holds every one, memory growing with the backlog)`,
      },
      JSON_OPTION,
      HELP_OPTION,
    ],
    run: simulateCommand,
  },
  advise: {
    usage: 'advise FILE',
    about: `what to change in the order flow to raise the ratio: each change with its new ratios, tiers and limits, ranked

FILE is a request log as simulate reads it (a CSV header with an "at" column; streamed) or 7-day figures as plan
reads them (CSV or JSON); - reads standard input. A log's findings rate the 7 days that end with its last day.`,
    options: [
      VIP_OPTION,
      THRESHOLD_OPTION,
      BROKER_OPTION,
      {
        name: 'account',
        value: 'ID',
        help: 'advise one account of the family: its findings, ranked by the limit they give it',
      },
      {
        name: 'pair-window',
        value: 'MS',
        help: 'a placement this soon after a cancel on the same contract and account is a pair that one amend could do (default 1000)',
      },
      {
        name: 'taker-share',
        value: 'X',
        help: 'the share of taker volume tried as maker volume, 0 to 1 (default 0.5)',
      },
      {
        name: 'heavy-share',
        value: 'X',
        help: 'the share of requests on heavy contracts tried on the others, 0 to 1 (default 0.5)',
      },
      {
        name: 'svg',
        value: 'OUT',
        help: 'also write the chart of a log: the aggregated ratio by day, with and without the changes',
      },
      { name: 'html', value: 'OUT', help: 'also write a page with the advice and, for a log, its chart' },
      JSON_OPTION,
      HELP_OPTION,
    ],
    run: (args, io, context) =>
      adviseCommand(args, io, context, {
        file: fileOf('advise', args),
        vipLevel: vipOf(args),
        options: familyOptionsOf(args),
        writeOut,
      }),
  },
  exchange: {
    usage: 'exchange',
    about: `the model exchange: a stand-in for the exchange on localhost, to run engines and tests against

It answers API v4 over HTTP and WebSocket as the exchange does, with its limits (docs/rules.md), 429s and headers.
Prints its base URL; stops on Ctrl-C (SIGINT) or SIGTERM with a summary. Files are JSON (docs/model-exchange.md):
  --accounts FILE  { "families": [{ "id", "vipLevel"?, "kind"?, "ownVolumeThreshold"?, "accounts": [{ "id", "role"?, "createdAt"?, "keys": [{ "key", "secret" }] }] }] }
  --history FILE   { "activity": [{ "account", "day", "contracts" }] (as timeline reads it), "hours"?: [{ "account", "hour", "requests", "traded" }] }
Without --accounts: one main account, KEY main-key, secret main-secret.`,
    options: [
      { name: 'port', value: 'N', help: 'the port to listen on (default 8080; 0 picks a free one)' },
      {
        name: 'host',
        value: 'ADDR',
        help: 'the address to listen on (default 127.0.0.1); off loopback the administration requires a token',
      },
      {
        name: 'admin-token',
        value: 'TOKEN',
        help: 'the token /_model/ requires as Authorization: Bearer TOKEN (made at random and printed off loopback)',
      },
      {
        name: 'accounts',
        value: 'FILE',
        help: 'families, accounts, API keys and secrets, VIP levels, creation instants',
      },
      { name: 'history', value: 'FILE', help: 'activity of the last days (and hours) to start from' },
      {
        name: 'window',
        value: 'MODE',
        help: 'sliding (never more than N in any W; default) or fixed (counters reset on aligned windows)',
      },
      {
        name: 'clock-offset-ms',
        value: 'N',
        help: "the model's clock runs N ms ahead of this machine's (negative: behind); Timestamps are checked against it",
      },
      {
        name: 'start-at',
        value: 'INSTANT',
        help: "the model's clock starts at INSTANT (2026-11-21T07:59:00Z or epoch ms); Timestamps are checked against this machine's clock",
      },
      {
        name: 'speed',
        value: 'X',
        help: "the model's clock runs X times as fast as this machine's (from --start-at, or now)",
      },
      { name: 'verify-signatures', help: "check the SIGN header of every private request with the key's secret" },
      {
        name: 'fills',
        value: 'FILE',
        help: 'the fill model: { "seed", "maker", "taker", "instruments": { "BTC_USDT": { "maker", "taker" } } }',
      },
      HELP_OPTION,
    ],
    run: modelExchange,
  },
  proxy: {
    usage: 'proxy',
    about: `a proxy in front of the exchange that keeps any engine, in any language, inside the account's limits (R1-R16)

Give the engine the proxy's URL in place of the exchange's: each API v4 request is matched to its account by the
KEY header, waits on that account's limits (cancels first), and is forwarded unchanged; answers come back as sent.
The WebSocket API too (/ws/v4/, /v4/ws/{settle}): order messages wait on their limits, the rest passes at once.
A request its limits would hold past its signature's 60 s is answered at once with TRADERATIO_REQUEST_EXPIRED.
Files are JSON (docs/proxy.md): --accounts and --history as traderatio exchange reads them (secrets may be left out).
Serves /metrics (Prometheus) and a live status page at /.`,
    options: [
      { name: 'upstream', value: 'URL', help: 'the exchange to forward to (required), e.g. https://api.gateio.ws' },
      {
        name: 'futures-ws',
        value: 'URL',
        help: "where futures WebSocket connections go, e.g. wss://fx-ws.gateio.ws (default: the upstream's host)",
      },
      { name: 'port', value: 'N', help: 'the port to listen on, 127.0.0.1 (default 8081; 0 picks a free one)' },
      {
        name: 'accounts',
        value: 'FILE',
        help: 'families, accounts and their API keys (without it: one account, KEY main-key)',
      },
      { name: 'history', value: 'FILE', help: 'activity of the last days (and hours) to start the limits from' },
      {
        name: 'redis',
        value: 'URL',
        help: 'share limits and counts with other proxies and engines through this Redis (needs ioredis or redis installed)',
      },
      {
        name: 'redis-prefix',
        value: 'NAME',
        help: 'the name of the shared budgets in Redis, one per family: NAME:FAMILY (default traderatio)',
      },
      { name: 'margin-ms', value: 'N', help: 'a safety margin on every window (R13), in milliseconds (default 0)' },
      { name: 'timeout-ms', value: 'N', help: 'the longest the exchange may take to answer a request (default 30000)' },
      { name: 'max-sockets', value: 'N', help: 'connections to the exchange open at once, at most (default 64)' },
      {
        name: 'log',
        help: 'print one line per request: method, path, status, account, wait (never a header or a body)',
      },
      HELP_OPTION,
    ],
    run: async (args, io, { stdin, stop }) => {
      await proxyCommand(args, { out: (line) => io.out(line), stdin, stop: stop() });
      return EXIT.ok;
    },
  },
  example: {
    usage: 'example',
    about: "the exchange's worked example: ratios, aggregated ratio and limits",
    options: [JSON_OPTION, HELP_OPTION],
    run: example,
  },
};

const HELP = `Usage: traderatio <command> [options]

Commands:
${Object.values(COMMANDS)
  .map((c) => `  ${c.usage.padEnd(16)} ${c.about.split('\n')[0]}`)
  .join('\n')}
  help [COMMAND]   this help, or a command's

Options:
  --version        print the version
  -h, --help       this help

Run "traderatio <command> --help" for a command's options.`;

function commandHelp(c: Command): string {
  return `Usage: traderatio ${c.usage} [options]\n\n${c.about.charAt(0).toUpperCase()}${c.about.slice(1)}\n\n${optionsHelp(c.options)}`;
}

function fraction(r: RatioResult): string {
  return r.ratio === null
    ? 'none (no requests counted)'
    : `${r.numerator.toFixed()}/${r.denominator.toFixed()} = ${ratioText(r)}`;
}

function render(title: string, rating: FamilyRating): string {
  const lines = [title, `  aggregated ratio  ${fraction(rating.aggregated)}`];
  for (const a of rating.accounts) {
    lines.push(`  account ${a.account}  own ${fraction(a.own)}  volume ${a.own.volume.toString()} USDT`);
    lines.push(
      `             effective ${ratioText(a.effective)} (${a.basis})  tier ${a.tier.tier}  limit ${a.tier.limit} r/s`,
    );
  }
  return lines.join('\n');
}

function ratingJson(threshold: string, rating: FamilyRating): unknown {
  return {
    ownVolumeThreshold: threshold,
    aggregated: ratioJson(rating.aggregated),
    accounts: rating.accounts.map((a) => ({
      account: a.account,
      own: ratioJson(a.own),
      effective: ratioJson(a.effective),
      basis: a.basis,
      tier: a.tier.tier,
      limit: a.tier.limit,
    })),
  };
}

function example({ values, positionals }: ParsedArgs, io: Io): number {
  if (positionals.length > 0) throw new UsageError(`example takes no FILE, got "${positionals[0]}"`);
  // R7 read two ways: max(own, aggregated) for every account, as the exchange's example does, and
  // with the default own-volume threshold.
  const readings = [
    ['0', rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' })],
    ['1000000', rateFamily(WORKED_EXAMPLE)],
  ] as const;
  if (values.has('json')) {
    io.out(JSON.stringify({ readings: readings.map(([t, r]) => ratingJson(t, r)) }, null, 2));
    return EXIT.ok;
  }
  io.out("The exchange's worked example: main account A, sub-accounts B and C (R1, R7)\n");
  io.out(
    render('With ownVolumeThreshold 0 (max(own, aggregated) for every account, as the example does):', readings[0][1]),
  );
  io.out('');
  io.out(
    render(
      'With the default ownVolumeThreshold 1,000,000 USDT (small accounts take the aggregated ratio):',
      readings[1][1],
    ),
  );
  return EXIT.ok;
}

async function modelExchange(args: ParsedArgs, io: Io, { stdin, stop }: Required<RunOptions>): Promise<number> {
  await modelExchangeCommand(args, { out: (line) => io.out(line), stdin, stop: stop() });
  return EXIT.ok;
}

/** The one FILE a command takes. */
function fileOf(name: string, { positionals }: ParsedArgs): string {
  if (positionals.length !== 1) {
    throw new UsageError(
      `${name} takes one FILE (or - for standard input), got ${positionals.length === 0 ? 'none' : positionals.map((p) => `"${p}"`).join(' ')}\n\n${commandHelp(COMMANDS[name]!)}`,
    );
  }
  return positionals[0]!;
}

function vipOf({ values, typed }: ParsedArgs): number {
  const value = values.get('vip');
  if (value === undefined || value === true) return TIERED_VIP_LEVEL;
  try {
    return parseVipLevel(wholeNumber(value) ?? Number.NaN);
  } catch (e) {
    if (e instanceof InvalidInputError)
      throw new UsageError(
        `${typed.get('vip')} takes a VIP level (a whole number such as ${TIERED_VIP_LEVEL}), got "${value}"`,
      );
    throw e;
  }
}

function maxQueueOf({ values, typed }: ParsedArgs): number {
  const value = values.get('max-queue');
  if (value === undefined) return DEFAULT_MAX_QUEUE;
  const n = value === true ? undefined : value === 'Infinity' ? Infinity : wholeNumber(value);
  if (n === undefined)
    throw new UsageError(
      `${typed.get('max-queue')} takes a number of requests (a whole number such as ${DEFAULT_MAX_QUEUE}, or Infinity), got ${value === true ? 'nothing' : `"${value}"`}`,
    );
  return n;
}

/** `--threshold` and `--broker`, checked here so that an error names the option as typed. */
function familyOptionsOf({ values, typed }: ParsedArgs): FamilyOptions {
  const threshold = values.get('threshold');
  const options: FamilyOptions = {
    ...(typeof threshold === 'string' ? { ownVolumeThreshold: threshold } : {}),
    ...(values.has('broker') ? { kind: 'broker' as const } : {}),
  };
  try {
    resolveFamilyOptions(options);
  } catch (e) {
    if (e instanceof InvalidInputError)
      throw new UsageError(
        `${typed.get('threshold')} takes a non-negative amount of USDT (such as 1000000 or 250000.50), got "${String(threshold)}"`,
      );
    throw e;
  }
  return options;
}

async function plan(args: ParsedArgs, io: Io, { stdin }: Required<RunOptions>): Promise<number> {
  const file = fileOf('plan', args);
  const options = familyOptionsOf(args);
  const vipLevel = vipOf(args);
  const { name, text } = await readInput(file, stdin);
  const result = makePlan(readPlan(name, text), options, vipLevel);
  io.out(args.values.has('json') ? JSON.stringify(planJson(result), null, 2) : renderPlan(result));
  return EXIT.ok;
}

async function timeline(args: ParsedArgs, io: Io, { stdin }: Required<RunOptions>): Promise<number> {
  const file = fileOf('timeline', args);
  const options = familyOptionsOf(args);
  const { name, text } = await readInput(file, stdin);
  const result = readTimeline(name, text, options);
  const svg = args.values.get('svg');
  const html = args.values.get('html');
  if (typeof svg === 'string') writeOut(svg, timelineSvg(result));
  if (typeof html === 'string') writeOut(html, timelineHtml(result));
  io.out(args.values.has('json') ? JSON.stringify(timelineJson(result), null, 2) : renderTimeline(result));
  return EXIT.ok;
}

async function simulateCommand(args: ParsedArgs, io: Io, { progress, stdin }: Required<RunOptions>): Promise<number> {
  const file = fileOf('simulate', args);
  const vipLevel = args.values.has('vip') ? vipOf(args) : undefined;
  const family = familyOptionsOf(args);
  const maxQueue = maxQueueOf(args);
  const historyFile = args.values.get('history');
  if (historyFile === true) throw new UsageError(`${args.typed.get('history')} takes a FILE`);
  if (historyFile === '-' && file === '-')
    throw new UsageError(`${args.typed.get('history')} and the log cannot both read standard input`);
  const history =
    historyFile === undefined
      ? undefined
      : await readInput(historyFile, stdin).then(({ name, text }) => readReplayHistory(name, text));
  const source = openSource(file, stdin);
  const started = performance.now();
  const bar = (bytes: number, lines: number): void => {
    const rate = lines / Math.max(0.001, (performance.now() - started) / 1000);
    const counts = `${lines.toLocaleString('en-US')} lines  ${Math.round(rate).toLocaleString('en-US')} lines/s `;
    if (source.size === null) {
      process.stderr.write(`\r${counts}`);
      return;
    }
    const share = source.size === 0 ? 1 : bytes / source.size;
    process.stderr.write(
      `\r[${'#'.repeat(Math.round(share * 30)).padEnd(30, '.')}] ${(share * 100).toFixed(0).padStart(3)}%  ${counts}`,
    );
  };
  const report = await simulate(source, {
    ...family,
    maxQueue,
    ...(vipLevel === undefined ? {} : { vipLevel }),
    ...(history === undefined ? {} : { history }),
    ...(progress ? { onProgress: bar } : {}),
  });
  if (progress) process.stderr.write('\n');
  const seconds = (performance.now() - started) / 1000;
  const svg = args.values.get('svg');
  const html = args.values.get('html');
  if (typeof svg === 'string') writeOut(svg, simulationSvg(report));
  if (typeof html === 'string') writeOut(html, simulationHtml(report, seconds));
  io.out(
    args.values.has('json')
      ? JSON.stringify(simulationJson(report, seconds), null, 2)
      : renderSimulation(report, seconds),
  );
  return EXIT.ok;
}

function writeOut(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new TraderatioError<CliErrorCode>(
      'OUTPUT_FILE',
      `${file}: cannot write it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
}

/** Control characters of a message shown as escapes, so that input never drives the terminal. */
function printable(message: string): string {
  return message.replace(/(?![\t\n])\p{Cc}/gu, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Runs the command line with `argv` (without node and the script); resolves to the exit code. */
export async function run(argv: readonly string[], io: Io, options: RunOptions = {}): Promise<number> {
  const context: Required<RunOptions> = {
    progress: options.progress ?? false,
    stdin: options.stdin ?? process.stdin,
    stop: options.stop ?? onSignal,
  };
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '--help' || name === '-h') {
      io.out(HELP);
      return EXIT.ok;
    }
    if (name === '--version') {
      io.out(__TRADERATIO_VERSION__);
      return EXIT.ok;
    }
    if (name === 'help') {
      if (rest.length > 1) throw new UsageError(`help takes at most one COMMAND, got ${rest.length}`);
      const topic = rest[0];
      if (topic === undefined) io.out(HELP);
      else if (Object.hasOwn(COMMANDS, topic)) io.out(commandHelp(COMMANDS[topic]!));
      else throw new UsageError(`no command "${topic}"; the commands are ${Object.keys(COMMANDS).join(', ')}`);
      return EXIT.ok;
    }
    if (!Object.hasOwn(COMMANDS, name)) {
      throw new UsageError(
        name.startsWith('-')
          ? `unknown option ${name}; run "traderatio --help"`
          : `unknown command "${name}"; the commands are ${Object.keys(COMMANDS).join(', ')}`,
      );
    }
    const command = COMMANDS[name]!;
    const args = parseOptions(name, rest, command.options, command.notes);
    if (args.values.has('help')) {
      io.out(commandHelp(command));
      return EXIT.ok;
    }
    return await command.run(args, io, context);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`traderatio: ${printable(e.message)}`);
      return EXIT.usage;
    }
    io.err(`traderatio: ${printable(e instanceof Error ? e.message : String(e))}`);
    return EXIT.input;
  }
}
