import { DEFAULT_MAX_QUEUE } from '../../schedule/scheduler.js';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { COMMON_OPTIONS, familyOptionsOf, fileOf, rulebookOf, vipOf } from '../common-options.js';
import { type ParsedArgs, UsageError } from '../options.js';
import { writeOut } from '../output-file.js';
import { readReplayHistory } from '../simulate/history.js';
import { renderSimulation, simulationHtml, simulationJson, simulationSvg } from '../simulate/render.js';
import { simulate } from '../simulate/simulate.js';
import { type Source, openSource, readInput } from '../source.js';
import { RULEBOOK_NAMES, rulebookNamed } from '../../rules/exchange-rules.js';
import { wholeNumber } from '../whole-number.js';

/** `--max-queue N`: requests the scheduler holds waiting at once (`Infinity`: every one). */
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

/** A progress bar on standard error: the share of the file read when its size is known, lines and lines per second. */
function progressBar(source: Source, started: number): (bytes: number, lines: number) => void {
  return (bytes, lines) => {
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
}

/** `traderatio simulate FILE`: a request log replayed against the model's limits and the scheduler. */
export const simulateCommand: Command = {
  name: 'simulate',
  usage: 'simulate FILE',
  about: `replay a request log: what the exchange would refuse (Gate 429, OKX 50061 or 50011), and the delays the scheduler adds instead

FILE is a CSV request log with a header row, in time order (- reads standard input):
  at,account,method,path,contract,orders,fill_role,fill_volume
A request row has method and path (contract names the futures contract, orders a batch's size);
with --exchange okx, OKX's v5 paths (/api/v5/trade/order, /batch-orders, /amend-order, ...) and
instrument ids (BTC-USDT-SWAP) under OKX's rules: new and amend orders per 2 s under the tier,
60 per 2 s per instrument, the one-day grace of a lowering, only successful requests counted.
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
    {
      ...COMMON_OPTIONS.vip,
      help: `the family's VIP level (default: the history's "vipLevel", else the level the exchange tiers from, ${RULEBOOK_NAMES.map((n) => `${n} ${rulebookNamed(n).tieredVipLevel}`).join(', ')})`,
    },
    COMMON_OPTIONS.exchange,
    COMMON_OPTIONS.threshold,
    COMMON_OPTIONS.broker,
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
    COMMON_OPTIONS.json,
    COMMON_OPTIONS.help,
  ],
  async run(args, io, { progress, stdin }) {
    const file = fileOf(simulateCommand, args);
    const rulebook = rulebookOf(args);
    const vipLevel = args.values.has('vip') ? vipOf(args, rulebook) : undefined;
    const family = familyOptionsOf(args, rulebook);
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
    const report = await simulate(source, {
      ...family,
      rulebook,
      maxQueue,
      ...(vipLevel === undefined ? {} : { vipLevel }),
      ...(history === undefined ? {} : { history }),
      ...(progress ? { onProgress: progressBar(source, started) } : {}),
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
  },
};
