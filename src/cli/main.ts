#!/usr/bin/env node
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

function example(): void {
  console.log("The exchange's worked example: main account A, sub-accounts B and C (R1, R7)\n");
  console.log(render('With ownVolumeThreshold 0 (max(own, aggregated) for every account, as the example does):',
    rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' })));
  console.log();
  console.log(render('With the default ownVolumeThreshold 1,000,000 USDT (small accounts take the aggregated ratio):',
    rateFamily(WORKED_EXAMPLE)));
}

const HELP = `Usage: traderatio <command>

Commands:
  example    print the exchange's worked example: ratios, aggregated ratio and limits
  help       show this help`;

function main(argv: readonly string[]): number {
  const [command] = argv;
  switch (command) {
    case 'example':
      example();
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(HELP);
      return 0;
    default:
      console.error(`traderatio: unknown command "${command}"\n\n${HELP}`);
      return 2;
  }
}

process.exitCode = main(process.argv.slice(2));
