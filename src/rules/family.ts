import { InvalidInputError } from '../errors.js';
import type { DecimalInput } from './decimal.js';
import { type Fixed, fixedCmp, fixedFromDec } from './fixed.js';
import { parseId, parseNonNegativeDecimal } from './parse.js';
import {
  type ActivityTotals, type ContractActivity, EMPTY_TOTALS, type RatioConfig, type RatioOptions, type RatioResult,
  type Fraction, addTotals, compareFractions, fractionOf, fractionOfTotals, ratioOfTotals, resolveRatioOptions, totalsOf,
} from './ratio.js';
import { type Tier, type TierRow, type TierTable, resolveTiers, tierOfFraction, tierOfRatio } from './tiers.js';
import { TIERED_VIP_LEVEL, parseVipLevel } from './vip.js';

/** How a family's accounts are rated (R7). */
export type FamilyKind = 'standard' | 'broker';

/** Options of a family's ratios and limits (R1-R4, R7). */
export interface FamilyOptions extends RatioOptions {
  /**
   * Own 7-day volume (maker + taker, unweighted USDT) from which an account is rated by
   * max(own ratio, aggregated ratio); below it, by the aggregated ratio. 0 applies max() to every
   * account, as the exchange's worked example does. @default "1000000"
   */
  readonly ownVolumeThreshold?: DecimalInput;
  /** `broker`: every account is rated by its own ratio only. @default "standard" */
  readonly kind?: FamilyKind;
  /** Tier table (R3). @default DEFAULT_TIERS */
  readonly tiers?: TierTable | readonly TierRow[];
}

/** {@link FamilyOptions} resolved once. */
export interface FamilyConfig {
  readonly kind: 'family-config';
  readonly ratio: RatioConfig;
  readonly ownVolumeThreshold: Fixed;
  readonly familyKind: FamilyKind;
  readonly tiers: TierTable;
}

/** Validates family options into their complete form. */
export function resolveFamilyOptions(options: FamilyOptions | FamilyConfig = {}): FamilyConfig {
  if ('kind' in options && options.kind === 'family-config') return options;
  const o = options as FamilyOptions;
  if (o.kind !== undefined && o.kind !== 'standard' && o.kind !== 'broker') {
    throw new InvalidInputError('`kind`', o.kind, '"standard" or "broker"');
  }
  return {
    kind: 'family-config',
    ratio: resolveRatioOptions(o),
    ownVolumeThreshold: fixedFromDec(parseNonNegativeDecimal(o.ownVolumeThreshold ?? '1000000', '`ownVolumeThreshold`')),
    familyKind: o.kind ?? 'standard',
    tiers: resolveTiers(o.tiers),
  };
}

/** One account's activity over the 7-day window. */
export interface AccountActivity {
  /** The account's id (uid or any name). */
  readonly account: string;
  /** Its activity per contract. */
  readonly contracts: readonly ContractActivity[];
}

/**
 * Why an account has its effective ratio (R7):
 * - `aggregated`: own volume below the threshold, so the family's aggregated ratio;
 * - `max-own` / `max-aggregated`: at or above the threshold, max() picked its own / the aggregated ratio;
 * - `own`: a broker family, own ratio only.
 */
export type RatioBasis = 'aggregated' | 'max-own' | 'max-aggregated' | 'own';

/** One account's ratios, tier and limit. */
export interface AccountRating {
  readonly account: string;
  /** The account's own ratio (R1 over its own activity). */
  readonly own: RatioResult;
  /** The ratio that sets its tier: `own` or the family's aggregated ratio. */
  readonly effective: RatioResult;
  readonly basis: RatioBasis;
  /** Tier of the effective ratio (R3), or tier 1 below VIP 14 (R4). */
  readonly tier: Tier;
}

/** A family's ratios and limits at one snapshot. */
export interface FamilyRating {
  /** R1 over every account's activity, main included. */
  readonly aggregated: RatioResult;
  /** One rating per account, in the order given. */
  readonly accounts: readonly AccountRating[];
}

/**
 * Rates a family from totals already summed per account (`ids[i]` has `totals[i]`), as the
 * timeline does for every window. `vipLevel` below 14 puts every account at tier 1 (R4).
 */
export function rateTotals(
  ids: readonly string[],
  totals: readonly ActivityTotals[],
  config: FamilyConfig,
  vipLevel: number = TIERED_VIP_LEVEL,
): FamilyRating {
  let sum = EMPTY_TOTALS;
  for (const t of totals) sum = addTotals(sum, t);
  const aggregated = ratioOfTotals(sum, config.ratio);
  const tiered = vipLevel >= TIERED_VIP_LEVEL;
  const aggregatedTier = tiered && config.familyKind !== 'broker' ? tierOfRatio(aggregated, config.tiers) : config.tiers[0]!;
  const accounts = ids.map((account, i) => rateAccount(account, totals[i]!, sum, aggregated, aggregatedTier, config, tiered));
  return { aggregated, accounts };
}

/**
 * Rates one account of a family given the family's summed totals, aggregated ratio and its tier
 * (R7): broker families by the own ratio; otherwise the aggregated ratio below the volume
 * threshold and max(own, aggregated) from it.
 */
export function rateAccount(
  account: string,
  totals: ActivityTotals,
  familyTotals: ActivityTotals,
  aggregated: RatioResult,
  aggregatedTier: Tier,
  config: FamilyConfig,
  tiered: boolean,
): AccountRating {
  // An account with exactly the family's activity shares its ratio object.
  const own = totals === familyTotals ? aggregated : ratioOfTotals(totals, config.ratio);
  const basis = chooseBasis(fractionOf(own), fractionOf(aggregated), config);
  const effective = basis === 'own' || basis === 'max-own' ? own : aggregated;
  const tier = !tiered ? config.tiers[0]! : effective === aggregated ? aggregatedTier : tierOfRatio(effective, config.tiers);
  return { account, own, effective, basis, tier };
}

/** Which ratio rates an account (R7), decided on exact fractions. */
function chooseBasis(own: Fraction, aggregated: Fraction, config: FamilyConfig): RatioBasis {
  if (config.familyKind === 'broker') return 'own';
  if (fixedCmp(own.volume, config.ownVolumeThreshold) < 0) return 'aggregated';
  return compareFractions(own, aggregated) > 0 ? 'max-own' : 'max-aggregated';
}

/**
 * Only the tiers of {@link rateTotals} (by ratio, before R4): what a timeline needs for every
 * account and day, without making the ratings it will mostly never show.
 */
export function tiersOfTotals(totals: readonly ActivityTotals[], config: FamilyConfig): Tier[] {
  let sum = EMPTY_TOTALS;
  for (const t of totals) sum = addTotals(sum, t);
  const aggregated = fractionOfTotals(sum, config.ratio);
  const aggregatedTier = tierOfFraction(aggregated, config.tiers);
  return totals.map((t) => {
    const own = t === sum ? aggregated : fractionOfTotals(t, config.ratio);
    const basis = chooseBasis(own, aggregated, config);
    return basis === 'own' || basis === 'max-own' ? tierOfFraction(own, config.tiers) : aggregatedTier;
  });
}

/**
 * Ratios, tiers and limits of a main account and its sub-accounts over one 7-day window (R1-R4, R7).
 *
 * @example
 * ```ts
 * const family = rateFamily([
 *   { account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '100', takerVolume: '200', place: 30 }] },
 *   { account: 'B', contracts: [{ contract: 'BTC_USDT', makerVolume: '50', place: 40 }] },
 * ], { ownVolumeThreshold: '0' })
 * family.accounts[0]!.tier.limit // 250
 * ```
 */
export function rateFamily(
  accounts: readonly AccountActivity[],
  options: FamilyOptions | FamilyConfig = {},
  vipLevel: number = TIERED_VIP_LEVEL,
): FamilyRating {
  const config = resolveFamilyOptions(options);
  const level = parseVipLevel(vipLevel);
  if (!Array.isArray(accounts)) throw new InvalidInputError('`accounts`', accounts, 'an array');
  const ids: string[] = [];
  const totals: ActivityTotals[] = [];
  const seen = new Set<string>();
  for (const a of accounts) {
    const id = parseId(a?.account, '`account`');
    if (seen.has(id)) throw new InvalidInputError('`account`', id, 'each account once');
    seen.add(id);
    ids.push(id);
    totals.push(totalsOf(a.contracts, config.ratio, ` in account ${id}`));
  }
  return rateTotals(ids, totals, config, level);
}
