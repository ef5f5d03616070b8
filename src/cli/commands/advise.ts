import { adviceSvg } from '../advise-chart.js';
import { adviceHtml, adviceJson, renderAdvice, runAdvice } from '../advise.js';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { COMMON_OPTIONS, familyOptionsOf, fileOf, rulebookOf, vipOf } from '../common-options.js';
import { type ParsedArgs, UsageError } from '../options.js';
import { writeOut } from '../output-file.js';
import { openSource } from '../source.js';
import { wholeNumber } from '../whole-number.js';

/** A numeric option, refused by name as typed. */
function optionValue(
  args: ParsedArgs,
  name: string,
  expected: string,
  valid: (v: string) => boolean,
): string | undefined {
  const v = args.values.get(name);
  if (v === undefined || v === true) return undefined;
  if (!valid(v)) throw new UsageError(`${args.typed.get(name)} takes ${expected}, got "${v}"`);
  return v;
}

const isShare = (v: string): boolean => /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(v);

/** `traderatio advise FILE`: the advice as a table, JSON (--json) and a page with its chart (--html). */
export const adviseCommand: Command = {
  name: 'advise',
  usage: 'advise FILE',
  about: `what to change in the order flow to raise the ratio: each change with its new ratios, tiers and limits, ranked

FILE is a request log as simulate reads it (a CSV header with an "at" column; streamed) or 7-day figures as plan
reads them (CSV or JSON); - reads standard input. A log's findings rate the 7 days that end with its last day.`,
  options: [
    COMMON_OPTIONS.exchange,
    COMMON_OPTIONS.vip,
    COMMON_OPTIONS.threshold,
    COMMON_OPTIONS.broker,
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
    COMMON_OPTIONS.json,
    COMMON_OPTIONS.help,
  ],
  async run(args, io, { progress, stdin }) {
    const file = fileOf(adviseCommand, args);
    const rulebook = rulebookOf(args);
    const vipLevel = vipOf(args, rulebook);
    const options = familyOptionsOf(args, rulebook);
    const window = optionValue(
      args,
      'pair-window',
      'a whole number of milliseconds (such as 1000)',
      (v) => wholeNumber(v) !== undefined,
    );
    const takerShare = optionValue(args, 'taker-share', 'a share from 0 to 1 (such as 0.5)', isShare);
    const heavyShare = optionValue(args, 'heavy-share', 'a share from 0 to 1 (such as 0.5)', isShare);
    const account = args.values.get('account');
    const source = openSource(file, stdin);
    const bar = (_bytes: number, lines: number): void => {
      process.stderr.write(`\r${lines.toLocaleString('en-US')} lines `);
    };
    let run: Awaited<ReturnType<typeof runAdvice>>;
    try {
      run = await runAdvice(source, {
        ...options,
        rulebook,
        vipLevel,
        ...(typeof account === 'string' ? { account } : {}),
        ...(window === undefined ? {} : { pairWindowMs: Number(window) }),
        ...(takerShare === undefined ? {} : { takerShare }),
        ...(heavyShare === undefined ? {} : { heavyShare }),
        ...(progress ? { onProgress: bar } : {}),
      });
    } finally {
      if (progress) process.stderr.write('\n');
    }
    const svg = args.values.get('svg');
    if (typeof svg === 'string') {
      if (run.log === null)
        throw new UsageError(
          `${args.typed.get('svg')} draws the ratio over the days of a request log; ${file} holds 7-day figures`,
        );
      writeOut(svg, adviceSvg(run.log.series));
    }
    const html = args.values.get('html');
    if (typeof html === 'string') writeOut(html, adviceHtml(run));
    io.out(args.values.has('json') ? JSON.stringify(adviceJson(run), null, 2) : renderAdvice(run));
    return EXIT.ok;
  },
};
