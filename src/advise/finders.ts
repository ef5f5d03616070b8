import { Dec } from '../internal/decimal.js';
import { toDec } from '../internal/fixed.js';
import { type AccountActivity, rateFamily, readFamilyOptions } from '../rules/family.js';
import { accountMargins } from '../rules/margins.js';
import { type RatioResult, compareRatio } from '../rules/ratio.js';
import { type Tier, tierOfRatio } from '../rules/tiers.js';
import { isTieredVip } from '../rules/vip.js';
import type { AccountOutcome, AdviceInput, Finding, FindingKind, Outcome } from './advise.js';
import {
  heavyQuoting,
  isHeavy,
  requestsToDrop,
  withAccountApart,
  withAmends,
  withHeavyMoved,
  withMakerAdded,
  withMakerShare,
  withRequestsDroppedFrom,
} from './edits.js';
import { type AdviseOptions, type Resolved, adviseOptionFields } from './options.js';
import { joined, outcomeOf, ratioFigure, ratioInSentence } from './outcome.js';

/** What every finder reads: the options, the input, the family as it is. */
export interface AdviceScope {
  readonly r: Resolved;
  /** The options as given, for the finders that rate the family under other options. */
  readonly options: AdviseOptions;
  readonly input: Required<AdviceInput>;
  /** The family rated as it is. */
  readonly now: Outcome;
  /** Whether the advice is about this account (every account when no `account` is given). */
  readonly advised: (a: { readonly account: string }) => boolean;
  /** Whether the account has futures activity: a spot-only one is no subject of a futures finding. */
  readonly trades: (a: AccountOutcome) => boolean;
  /** A finding with its gain: to the advised account, or summed over the family. */
  readonly finding: (f: Omit<Finding, 'gain' | 'informational'>) => Finding;
}

/** A change to the activity that the combination of the order-flow changes applies. */
export interface ActivityEdit {
  readonly kind: FindingKind;
  readonly edit: (a: readonly AccountActivity[]) => AccountActivity[];
}

/** What a finder found: its findings, in order, and the edit it adds to the combination, if any. */
export interface Found {
  readonly findings: readonly Finding[];
  readonly edit?: ActivityEdit;
}

/** One kind of advice: reads the scope, returns what it found (nothing when it does not apply). */
export type Finder = (s: AdviceScope) => Found;

const NOTHING: Found = { findings: [] };

/** Cancel + place pairs sent as one amend each: one counted request saved per pair. @see docs/rules.md#r1 */
export function amendPairs(s: AdviceScope): Found {
  const { r, input, now } = s;
  const pairs = input.pairs.filter((p) => p.pairs > 0);
  if (pairs.length === 0) return NOTHING;
  const edit = (a: readonly AccountActivity[]) => withAmends(a, pairs);
  const outcome = outcomeOf(edit(input.accounts), r, now);
  const count = pairs.reduce((sum, p) => sum + p.pairs, 0);
  const finding = s.finding({
    kind: 'amend-pairs',
    rules: [r.rulebook.ruleIds.ratio],
    account: null,
    cost: 'free',
    change: `send ${count} cancel + place pair${count === 1 ? '' : 's'} as one amend each`,
    figures: { pairs: count, requestsSaved: now.aggregated.requests - outcome.aggregated.requests },
    outcome,
  });
  return { findings: [finding], edit: { kind: 'amend-pairs', edit } };
}

/**
 * Taker volume filled as maker: the least share that takes an account to its next tier, or the
 * share the options give. @see docs/rules.md#r1
 */
export function takerToMaker(s: AdviceScope): Found {
  const { r, input, now } = s;
  const ratio = r.family.ratio;
  const taker = now.aggregated.takerVolume;
  const weightGain = toDec(ratio.makerWeight).minus(toDec(ratio.takerWeight));
  if (taker.isZero() || r.takerShare.isZero() || !weightGain.greaterThan(0)) return NOTHING;
  // Below the level the exchange tiers from no share reaches a tier: the default share is tried.
  const reaching =
    r.takerShareGiven || !isTieredVip(r.vipLevel, r.rulebook.tieredVipLevel)
      ? null
      : takerShareToNextTier(now, r, weightGain, (a) => s.advised(a) && s.trades(a));
  const takerShare = reaching?.share ?? r.takerShare;
  const edit = (a: readonly AccountActivity[]) => withMakerShare(a, takerShare);
  const moved = taker.times(takerShare);
  const reach =
    reaching === null
      ? ''
      : `: ${reaching.account} reaches tier ${reaching.tier.tier} (${reaching.tier.limit} ${r.unit})`;
  const finding = s.finding({
    kind: 'taker-to-maker',
    rules: [r.rulebook.ruleIds.ratio],
    account: null,
    cost: 'volume',
    change: `fill ${takerShare.times(100).toString()}% of taker volume (${moved.toString()} USDT) as maker${reach}`,
    figures: {
      share: takerShare.toString(),
      movedVolume: moved.toString(),
      numeratorGain: weightGain.times(moved).toString(),
      ...(reaching === null ? {} : { reaches: reaching.account, tier: reaching.tier.tier, limit: reaching.tier.limit }),
    },
    outcome: outcomeOf(edit(input.accounts), r, now),
  });
  return { findings: [finding], edit: { kind: 'taker-to-maker', edit } };
}

/**
 * Requests on the heavy contracts: their split from the others, and a share of them sent on a
 * contract of the default coefficient. @see docs/rules.md#r2
 */
export function heavyContracts(s: AdviceScope): Found {
  const { r, input, now } = s;
  const ratio = r.family.ratio;
  const split = (heavy: boolean) =>
    rateFamily(
      input.accounts.map((a) => ({
        account: a.account,
        contracts: a.contracts.filter((c) => isHeavy(c.contract, ratio) === heavy),
      })),
      r.family,
    ).aggregated;
  const heavy = split(true);
  const light = split(false);
  if (heavy.requests === 0 || r.heavyShare.isZero()) return NOTHING;
  const edit = (a: readonly AccountActivity[]) => withHeavyMoved(a, r.heavyShare, ratio);
  const finding = s.finding({
    kind: 'heavy-contracts',
    rules: [r.rulebook.ruleIds.weights],
    account: null,
    cost: 'informational',
    change: `${heavyQuoting(ratio)} for ${r.heavyShare.times(100).toString()}% of their requests and fills`,
    figures: {
      heavyRequests: heavy.requests,
      heavyWeighted: heavy.denominator.toString(),
      otherRequests: light.requests,
      otherWeighted: light.denominator.toString(),
      share: r.heavyShare.toString(),
    },
    outcome: outcomeOf(edit(input.accounts), r, now),
  });
  return { findings: [finding], edit: { kind: 'heavy-contracts', edit } };
}

/** Whether the family findings apply: more than one account, in a standard family. */
const isStandardFamily = (s: AdviceScope): boolean =>
  s.input.accounts.length > 1 && s.r.family.familyKind === 'standard';

/** Each account whose own ratio pulls the aggregated ratio down, rated apart from the family. @see docs/rules.md#r7 */
export function familyApart(s: AdviceScope): Found {
  const { r, input, now } = s;
  if (!isStandardFamily(s)) return NOTHING;
  const findings: Finding[] = [];
  for (const a of now.accounts) {
    if (!s.trades(a) || a.own.ratio === null || compareRatio(a.own, now.aggregated) >= 0) continue;
    const { rest, alone } = withAccountApart(input.accounts, a.account);
    const outcome = joined(input.accounts, outcomeOf(rest, r, now), outcomeOf(alone, r, now));
    findings.push(
      s.finding({
        kind: 'family-apart',
        rules: [r.rulebook.ruleIds.family],
        account: a.account,
        cost: 'informational',
        change: `${a.account}'s own ratio (${a.own.ratio.toFixed(4)}) pulls the aggregated ratio down: rated apart from the family`,
        figures: { ownRatio: ratioFigure(a.own), aggregatedWithout: ratioFigure(outcome.aggregated) },
        outcome,
      }),
    );
  }
  return { findings };
}

/**
 * Each account under the own-volume threshold whose own ratio beats the aggregated one, with the
 * volume that takes it over. @see docs/rules.md#r7
 */
export function familyThreshold(s: AdviceScope): Found {
  const { r, input, now, options } = s;
  if (!isStandardFamily(s)) return NOTHING;
  const threshold = toDec(r.family.ownVolumeThreshold);
  const findings: Finding[] = [];
  for (const a of now.accounts.filter(s.advised)) {
    if (
      !s.trades(a) ||
      a.basis !== 'aggregated' ||
      compareRatio(a.own, now.aggregated) <= 0 ||
      tierOfRatio(a.own, r.family.tiers).limit <= a.tier.limit
    )
      continue;
    const more = threshold.minus(a.own.volume);
    // The gain of crossing the threshold alone: the account rated by max(own, aggregated) on the
    // ratios it has, not on the ratios the volume that takes it over would give it.
    const over = readFamilyOptions(
      { ...options, ownVolumeThreshold: a.own.volume.toFixed() },
      adviseOptionFields(r.rulebook),
      'the advise options',
      r.rulebook,
    );
    const crossed = outcomeOf(input.accounts, r, now, over).accounts.find((x) => x.account === a.account)!;
    // Below the level the exchange tiers from every account is at tier 1 whatever its ratio: crossing gives nothing.
    if (crossed.tier.limit <= a.tier.limit) continue;
    const accounts = now.accounts.map((x) => (x.account === a.account ? crossed : x));
    findings.push(
      s.finding({
        kind: 'family-threshold',
        rules: [r.rulebook.ruleIds.family],
        account: a.account,
        cost: 'volume',
        change: `${a.account} trades ${a.own.volume.toString()} USDT, under the ${threshold.toString()} USDT threshold: ${more.toString()} USDT more takes it over, where its own ratio (${ratioInSentence(a.own)}) rates it: tier ${crossed.tier.tier} (${crossed.tier.limit} ${r.unit})`,
        figures: {
          volume: a.own.volume.toString(),
          threshold: threshold.toString(),
          makerVolume: more.toString(),
          tier: crossed.tier.tier,
          limit: crossed.tier.limit,
        },
        outcome: { ...now, accounts, gain: accounts.reduce((sum, x) => sum + x.gain, 0) },
      }),
    );
  }
  return { findings };
}

/** The family rated as a broker family: every account by its own ratio. @see docs/rules.md#r7 */
export function familyBroker(s: AdviceScope): Found {
  const { r, input, now, options } = s;
  if (!isStandardFamily(s)) return NOTHING;
  const broker = readFamilyOptions(
    { ...options, kind: 'broker' },
    adviseOptionFields(r.rulebook),
    'the advise options',
    r.rulebook,
  );
  const finding = s.finding({
    kind: 'family-broker',
    rules: [r.rulebook.ruleIds.family],
    account: null,
    cost: 'informational',
    change: 'rate the family as a broker family (every account by its own ratio)',
    figures: {},
    outcome: outcomeOf(input.accounts, r, now, broker),
  });
  return { findings: [finding] };
}

/**
 * Per account, the next tier over every path of the family rules (the margins `plan` gives): the
 * maker volume to add, and the fewest requests to drop. @see docs/rules.md#r3
 */
export function nextTier(s: AdviceScope): Found {
  const { r, input, now } = s;
  if (!isTieredVip(r.vipLevel, r.rulebook.tieredVipLevel)) return NOTHING;
  const ratio = r.family.ratio;
  const findings: Finding[] = [];
  for (const a of now.accounts.filter((x) => s.advised(x) && s.trades(x))) {
    const up = accountMargins(a.own, now.aggregated, r.family).up;
    if (up === null) continue;
    findings.push(
      s.finding({
        kind: 'next-tier-maker',
        rules: [r.rulebook.ruleIds.ratio, r.rulebook.ruleIds.tiers],
        account: a.account,
        cost: 'volume',
        change: `${a.account}: ${up.makerVolume.toString()} USDT more maker volume for tier ${up.tier.tier} (${up.tier.limit} ${r.unit})${up.makerPath === 'aggregated' ? '' : `, by its own ratio${up.makerPath === 'threshold' ? ' over the threshold' : ''}`}`,
        figures: {
          makerVolume: up.makerVolume.toString(),
          path: up.makerPath,
          tier: up.tier.tier,
          limit: up.tier.limit,
        },
        outcome: outcomeOf(withMakerAdded(input.accounts, a.account, up.makerVolume), r, now),
      }),
    );
    if (up.requestWeight === null) continue;
    // The fewest requests that weigh enough: the heaviest contracts first, then the others.
    const drops = requestsToDrop(
      input.accounts.find((x) => x.account === a.account)!.contracts,
      up.requestWeight,
      ratio,
    );
    if (drops === null) continue;
    const edited = withRequestsDroppedFrom(input.accounts, a.account, drops, ratio);
    const outcome = outcomeOf(edited, r, now);
    if (outcome.accounts.find((x) => x.account === a.account)!.tier.tier < up.tier.tier) continue;
    const fewer = drops.reduce((sum, d) => sum + d.count, 0);
    const where = drops.map((d) => `${d.count} on ${d.contract}`).join(', ');
    findings.push(
      s.finding({
        kind: 'next-tier-requests',
        rules: [r.rulebook.ruleIds.ratio, r.rulebook.ruleIds.tiers],
        account: a.account,
        cost: 'volume',
        change: `${a.account}: ${fewer} requests fewer (${where}) for tier ${up.tier.tier} (${up.tier.limit} ${r.unit})`,
        figures: {
          fewerRequests: fewer,
          byContract: where,
          path: up.requestPath!,
          tier: up.tier.tier,
          limit: up.tier.limit,
        },
        outcome,
      }),
    );
  }
  return { findings };
}

/**
 * The advisor's finders, in the order their findings are listed before the ranking (the ranking
 * is stable: findings that rank equal keep this order), and their edits combined.
 */
export const FINDERS: readonly Finder[] = [
  amendPairs,
  takerToMaker,
  heavyContracts,
  familyApart,
  familyThreshold,
  familyBroker,
  nextTier,
];

/**
 * The least share of every account's taker volume that, filled as maker instead, takes one of the
 * `eligible` accounts to its next tier: by the aggregated ratio, or by its own where its own ratio
 * rates it (over the threshold, or in a broker family). Rounded up to 0.0001; null when no share
 * up to all of it does. @see docs/rules.md#r1, docs/rules.md#r3, docs/rules.md#r7
 */
function takerShareToNextTier(
  now: Outcome,
  r: Resolved,
  weightGain: Dec,
  eligible: (a: AccountOutcome) => boolean,
): { share: Dec; account: string; tier: Tier } | null {
  const tiers = r.family.tiers;
  const agg = now.aggregated;
  const broker = r.family.familyKind === 'broker';
  const threshold = toDec(r.family.ownVolumeThreshold);
  let best: { share: Dec; account: string; tier: Tier } | null = null;
  for (const a of now.accounts.filter(eligible)) {
    const next = tiers[a.tier.tier];
    if (next === undefined) continue;
    const b = next.minRatio;
    // The numerator a share s adds: weightGain x s x the taker volume it moves.
    const needed = (x: RatioResult, takerVolume: Dec): Dec | null =>
      x.denominator.isZero() || takerVolume.isZero()
        ? null
        : b.times(x.denominator).minus(x.numerator).dividedBy(weightGain.times(takerVolume));
    const shares = [
      broker ? null : needed(agg, agg.takerVolume),
      broker || a.own.volume.greaterThanOrEqualTo(threshold) ? needed(a.own, a.own.takerVolume) : null,
    ]
      .filter((x) => x !== null)
      .filter((x) => x.lessThanOrEqualTo(1));
    if (shares.length === 0) continue;
    const share = Dec.max(0, Dec.min(...shares)).toDecimalPlaces(4, Dec.ROUND_UP);
    if (best === null || share.lessThan(best.share))
      best = { share: Dec.min(share, 1), account: a.account, tier: next };
  }
  return best;
}
