import { type FamilyRating, rateFamily } from '../rules/family.js';
import { WORKED_EXAMPLE } from '../rules/example.js';
import type { RatioResult } from '../rules/ratio.js';

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

function example(io: Io): void {
  io.out("The exchange's worked example: main account A, sub-accounts B and C (R1, R7)\n");
  io.out(render('With ownVolumeThreshold 0 (max(own, aggregated) for every account, as the example does):',
    rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' })));
  io.out('');
  io.out(render('With the default ownVolumeThreshold 1,000,000 USDT (small accounts take the aggregated ratio):',
    rateFamily(WORKED_EXAMPLE)));
}

/** Where the command line writes: standard output and standard error, one line per call. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}

const HELP = `Usage: traderatio <command>

Commands:
  example    print the exchange's worked example: ratios, aggregated ratio and limits
  help       show this help`;

/** Runs the command line with `argv` (without node and the script); returns the exit code. */
export function run(argv: readonly string[], io: Io): number {
  const [command] = argv;
  switch (command) {
    case 'example':
      example(io);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.out(HELP);
      return 0;
    default:
      io.err(`traderatio: unknown command "${command}"\n\n${HELP}`);
      return 2;
  }
}
