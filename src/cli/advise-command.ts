import type { FamilyOptions } from '../rules/family.js';
import { adviceSvg } from './advise-chart.js';
import { adviceHtml, adviceJson, renderAdvice, runAdvice } from './advise.js';
import { type ParsedArgs, UsageError } from './options.js';
import { openSource } from './source.js';
import { wholeNumber } from './whole-number.js';

/** What `traderatio advise` is given by the command line's shared parts. */
export interface AdviseCommandContext {
  readonly file: string;
  readonly vipLevel: number;
  readonly options: FamilyOptions;
  readonly writeOut: (file: string, text: string) => void;
}

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
export async function adviseCommand(
  args: ParsedArgs,
  io: { out(line: string): void },
  { progress, stdin }: { readonly progress: boolean; readonly stdin: AsyncIterable<Buffer | string> },
  context: AdviseCommandContext,
): Promise<number> {
  const window = optionValue(
    args,
    'pair-window',
    'a whole number of milliseconds (such as 1000)',
    (v) => wholeNumber(v) !== undefined,
  );
  const takerShare = optionValue(args, 'taker-share', 'a share from 0 to 1 (such as 0.5)', isShare);
  const heavyShare = optionValue(args, 'heavy-share', 'a share from 0 to 1 (such as 0.5)', isShare);
  const account = args.values.get('account');
  const source = openSource(context.file, stdin);
  const bar = (_bytes: number, lines: number): void => {
    process.stderr.write(`\r${lines.toLocaleString('en-US')} lines `);
  };
  let run: Awaited<ReturnType<typeof runAdvice>>;
  try {
    run = await runAdvice(source, {
      ...context.options,
      vipLevel: context.vipLevel,
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
        `${args.typed.get('svg')} draws the ratio over the days of a request log; ${context.file} holds 7-day figures`,
      );
    context.writeOut(svg, adviceSvg(run.log.series));
  }
  const html = args.values.get('html');
  if (typeof html === 'string') context.writeOut(html, adviceHtml(run));
  io.out(args.values.has('json') ? JSON.stringify(adviceJson(run), null, 2) : renderAdvice(run));
  return 0;
}
