import { type FamilyRating, rateFamily } from '../../rules/family.js';
import { WORKED_EXAMPLE } from '../../rules/example.js';
import type { RatioResult } from '../../rules/ratio.js';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { COMMON_OPTIONS } from '../common-options.js';
import { UsageError } from '../options.js';
import { accountRatingJson, ratioJson, ratioText } from '../render.js';

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
    accounts: rating.accounts.map(accountRatingJson),
  };
}

/** `traderatio example`: the exchange's worked example, rated two ways. */
export const exampleCommand: Command = {
  name: 'example',
  usage: 'example',
  about: "the exchange's worked example: ratios, aggregated ratio and limits",
  options: [COMMON_OPTIONS.json, COMMON_OPTIONS.help],
  run({ values, positionals }, io) {
    if (positionals.length > 0) throw new UsageError(`example takes no FILE, got "${positionals[0]}"`);
    // Who takes max(own, aggregated), read two ways (see docs/rules.md#r7-main-account-and-sub-accounts): every account, as the
    // exchange's example does, and only those over the default own-volume threshold.
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
      render(
        'With ownVolumeThreshold 0 (max(own, aggregated) for every account, as the example does):',
        readings[0][1],
      ),
    );
    io.out('');
    io.out(
      render(
        'With the default ownVolumeThreshold 1,000,000 USDT (small accounts take the aggregated ratio):',
        readings[1][1],
      ),
    );
    return EXIT.ok;
  },
};
