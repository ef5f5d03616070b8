import { type AccountActivity, type FamilyConfig, rateFamily } from '../rules/family.js';
import type { RatioResult } from '../rules/ratio.js';
import { tierOfRatio } from '../rules/tiers.js';
import { tierInForce } from '../rules/vip.js';
import type { Outcome } from './advise.js';
import type { Resolved } from './options.js';

/** Rates `activity` with the rules, and each account's gain over `now`. */
export function outcomeOf(
  activity: readonly AccountActivity[],
  r: Resolved,
  now: Outcome | null,
  family: FamilyConfig = r.family,
): Outcome {
  const rating = rateFamily(activity, family, r.vipLevel);
  const aggregatedTier = tierInForce(
    r.vipLevel,
    tierOfRatio(rating.aggregated, family.tiers),
    family.tiers,
    r.rulebook.tieredVipLevel,
  );
  const accounts = rating.accounts.map((a) => {
    const before = now?.accounts.find((b) => b.account === a.account)?.tier.limit ?? a.tier.limit;
    return {
      account: a.account,
      own: a.own,
      effective: a.effective,
      basis: a.basis,
      tier: a.tier,
      gain: a.tier.limit - before,
    };
  });
  return { aggregated: rating.aggregated, aggregatedTier, accounts, gain: accounts.reduce((s, a) => s + a.gain, 0) };
}

/** Two outcomes of parts of the family as one: the accounts of both, in the family's order. */
export function joined(order: readonly AccountActivity[], a: Outcome, b: Outcome): Outcome {
  const accounts = order.map(
    (x) => a.accounts.find((y) => y.account === x.account) ?? b.accounts.find((y) => y.account === x.account)!,
  );
  return {
    aggregated: a.aggregated,
    aggregatedTier: a.aggregatedTier,
    accounts,
    gain: accounts.reduce((s, x) => s + x.gain, 0),
  };
}

/** A ratio as a figure: 8 decimals, or "none" when no request was counted. */
export function ratioFigure(r: RatioResult): string {
  return r.ratio === null ? 'none' : r.ratio.toFixed(8);
}

/** A ratio as a sentence says it: 4 decimals, or "none" when no request was counted. */
export function ratioInSentence(r: RatioResult): string {
  return r.ratio === null ? 'none' : r.ratio.toFixed(4);
}
