import { InvalidInputError } from '../errors.js';
import type { DecimalInput } from '../internal/decimal.js';
import { type Fixed, approxOf, fixedCmp, fixedFromDec } from '../internal/fixed.js';
import { checkFields, parseId, parseNonNegativeDecimal, resolveOptions } from '../internal/parse.js';
import {
  type ActivityTotals,
  type ContractActivity,
  EMPTY_TOTALS,
  type RatioConfig,
  type RatioOptions,
  type RatioResult,
  type Fraction,
  addTotals,
  compareFractions,
  fractionOf,
  fractionOfTotals,
  ratioConfigOf,
  ratioOfTotals,
  ratioOptionFields,
  totalsOf,
} from './ratio.js';
import { GATE } from './gate/rulebook.js';
import type { Rulebook } from './rulebook.js';
import {
  type Tier,
  type TierRow,
  type TierTable,
  resolveTiers,
  tierIndexReached,
  tierOfFraction,
  tierOfRatio,
  tierTableOf,
} from './tiers.js';
import { parseVipLevel, tierInForce } from './vip.js';

/**
 * How a family's accounts are rated (see docs/rules.md#r7).
 *
 * @example
 * ```ts
 * import { rateFamily, type FamilyKind, WORKED_EXAMPLE } from 'traderatio/rules'
 *
 * const kind: FamilyKind = 'broker'
 * rateFamily(WORKED_EXAMPLE, { kind }).accounts.map((a) => a.basis) // ['own', 'own', 'own']
 * ```
 */
export type FamilyKind = 'standard' | 'broker';

/**
 * Options of a family's ratios and limits (see docs/rules.md#r1 to #r4, #r7).
 *
 * @example
 * ```ts
 * import { rateFamily, type FamilyOptions, WORKED_EXAMPLE } from 'traderatio/rules'
 *
 * const options: FamilyOptions = { ownVolumeThreshold: '0', countCancels: false }
 * rateFamily(WORKED_EXAMPLE, options).accounts.map((a) => a.tier.limit) // [250, 250, 300]
 * ```
 */
export interface FamilyOptions extends RatioOptions {
  /**
   * Own 7-day volume (maker + taker, unweighted USDT) from which an account is rated by
   * max(own ratio, aggregated ratio); below it, by the aggregated ratio. 0 applies max() to every
   * account, as the exchanges' worked examples do. @default the rulebook's: "1000000"
   */
  readonly ownVolumeThreshold?: DecimalInput;
  /** `broker`: every account is rated by its own ratio only. @default "standard" */
  readonly kind?: FamilyKind;
  /** Tier table. @default the rulebook's (Gate: DEFAULT_TIERS) */
  readonly tiers?: TierTable | readonly TierRow[];
}

/** {@link FamilyOptions} resolved once, under one rulebook. */
export interface FamilyConfig {
  readonly kind: 'family-config';
  /** The rules the family is rated by: the VIP level it is tiered from, the timing of its changes. */
  readonly rulebook: Rulebook;
  readonly ratio: RatioConfig;
  readonly ownVolumeThreshold: Fixed;
  readonly familyKind: FamilyKind;
  readonly tiers: TierTable;
}

/** The fields of {@link FamilyOptions} under a rulebook: Gate's by default. */
export function familyOptionFields(rulebook: Rulebook = GATE): readonly string[] {
  return [...ratioOptionFields(rulebook.ratio), 'ownVolumeThreshold', 'kind', 'tiers'];
}

/** The fields of {@link FamilyOptions} under Gate's rules. */
export const FAMILY_OPTION_FIELDS: readonly string[] = Object.freeze(familyOptionFields());

/**
 * Validates family options into their complete form under a rulebook, Gate's unless given (left
 * out: the rulebook's defaults; `null` is refused).
 */
export function resolveFamilyOptions(options?: FamilyOptions | FamilyConfig, rulebook: Rulebook = GATE): FamilyConfig {
  return readFamilyOptions(options, familyOptionFields(rulebook), 'the family options', rulebook);
}

/**
 * Validates family options given as part of a wider options object, whose fields are `known`
 * (the account limiter's options, say): a field in none of them is refused, naming `owner`. The
 * defaults are those of `rulebook`, Gate's unless given.
 */
export function readFamilyOptions(
  options: FamilyOptions | FamilyConfig | undefined,
  known: readonly string[],
  owner: string,
  rulebook: Rulebook = GATE,
): FamilyConfig {
  return resolveOptions<FamilyOptions, FamilyConfig>(options, 'family-config', known, owner, (o) =>
    familyConfigOf(o, rulebook),
  );
}

function familyConfigOf(o: FamilyOptions, rulebook: Rulebook): FamilyConfig {
  if (o.kind !== undefined && o.kind !== 'standard' && o.kind !== 'broker') {
    throw new InvalidInputError('`kind`', o.kind, '"standard" or "broker"');
  }
  return {
    kind: 'family-config',
    rulebook,
    ratio: ratioConfigOf(o, rulebook.ratio),
    ownVolumeThreshold: fixedFromDec(
      parseNonNegativeDecimal(o.ownVolumeThreshold ?? rulebook.family.ownVolumeThreshold, '`ownVolumeThreshold`'),
    ),
    familyKind: o.kind ?? 'standard',
    tiers: resolveTiers(o.tiers, tierTableOf(rulebook)),
  };
}

/**
 * One account's activity over the 7-day window.
 *
 * @example
 * ```ts
 * import { rateFamily, type AccountActivity } from 'traderatio/rules'
 *
 * const main: AccountActivity = { account: 'main', contracts: [{ contract: 'BTC_USDT', makerVolume: '300', place: 100 }] }
 * rateFamily([main]).accounts[0]?.tier.limit // 200
 * ```
 */
export interface AccountActivity {
  /** The account's id (uid or any name). */
  readonly account: string;
  /** Its activity per contract. */
  readonly contracts: readonly ContractActivity[];
}

/** The fields of an {@link AccountActivity}. */
const ACCOUNT_ACTIVITY_FIELDS: readonly string[] = ['account', 'contracts'];

/**
 * Why an account has its effective ratio (see docs/rules.md#r7):
 * - `aggregated`: own volume below the threshold, so the family's aggregated ratio;
 * - `max-own` / `max-aggregated`: at or above the threshold, max() picked its own / the aggregated
 *   ratio;
 * - `own`: a broker family, own ratio only.
 *
 * @example
 * ```ts
 * import { rateFamily, type RatioBasis, WORKED_EXAMPLE } from 'traderatio/rules'
 *
 * const bases: RatioBasis[] = rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' }).accounts.map((a) => a.basis)
 * bases // ['max-aggregated', 'max-aggregated', 'max-own']
 * ```
 */
export type RatioBasis = 'aggregated' | 'max-own' | 'max-aggregated' | 'own';

/**
 * One account's ratios, tier and limit.
 *
 * @example
 * ```ts
 * import { rateFamily, type AccountRating, WORKED_EXAMPLE } from 'traderatio/rules'
 *
 * const c: AccountRating = rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' }).accounts[2]!
 * c.own.ratio?.toDecimalPlaces(2).toString() // '10.06'
 * c.effective === c.own // true
 * c.tier.limit // 300
 * ```
 */
export interface AccountRating {
  readonly account: string;
  /** The account's own ratio: the ratio over its own activity (see docs/rules.md#r1). */
  readonly own: RatioResult;
  /** The ratio that sets its tier: `own` or the family's aggregated ratio. */
  readonly effective: RatioResult;
  readonly basis: RatioBasis;
  /** Tier of the effective ratio, or tier 1 below the tiered VIP level (see docs/rules.md#r3, #r4). */
  readonly tier: Tier;
}

/**
 * A family's ratios and limits at one snapshot.
 *
 * @example
 * ```ts
 * import { rateFamily, type FamilyRating, WORKED_EXAMPLE } from 'traderatio/rules'
 *
 * const family: FamilyRating = rateFamily(WORKED_EXAMPLE)
 * family.aggregated.ratio?.toDecimalPlaces(2).toString() // '8.19'
 * family.accounts.map((a) => a.account) // ['A', 'B', 'C']
 * ```
 */
export interface FamilyRating {
  /** The ratio over every account's activity, main included (see docs/rules.md#r1). */
  readonly aggregated: RatioResult;
  /** One rating per account, in the order given. */
  readonly accounts: readonly AccountRating[];
}

/**
 * Rates a family from totals already summed per account (`ids[i]` has `totals[i]`), as the timeline
 * does for every window. `vipLevel` below the tiered level (Gate's 14) puts every account at tier 1
 * (see docs/rules.md#r4).
 */
export function rateTotals(
  ids: readonly string[],
  totals: readonly ActivityTotals[],
  config: FamilyConfig,
  vipLevel: number = config.rulebook.tieredVipLevel,
): FamilyRating {
  let sum = EMPTY_TOTALS;
  for (const t of totals) sum = addTotals(sum, t);
  const aggregated = ratioOfTotals(sum, config.ratio);
  // A broker family rates every account by its own ratio: the aggregated tier is never used.
  const aggregatedTier = config.familyKind !== 'broker' ? tierOfRatio(aggregated, config.tiers) : config.tiers[0]!;
  const accounts = ids.map((account, i) => {
    const rating = rateAccount(account, totals[i]!, sum, aggregated, aggregatedTier, config);
    const tier = tierInForce(vipLevel, rating.tier, config.tiers, config.rulebook.tieredVipLevel);
    return tier === rating.tier ? rating : { ...rating, tier };
  });
  return { aggregated, accounts };
}

/**
 * Rates one account of a family given the family's summed totals, aggregated ratio and its tier
 * (see docs/rules.md#r7): broker families by the own ratio; otherwise the aggregated ratio below
 * the volume threshold and max(own, aggregated) from it. The tier is the one the ratio earns: the
 * VIP level (see docs/rules.md#r4) is applied by the caller, which knows it ({@link tierInForce}).
 */
export function rateAccount(
  account: string,
  totals: ActivityTotals,
  familyTotals: ActivityTotals,
  aggregated: RatioResult,
  aggregatedTier: Tier,
  config: FamilyConfig,
): AccountRating {
  // An account with exactly the family's activity shares its ratio object.
  const own = totals === familyTotals ? aggregated : ratioOfTotals(totals, config.ratio);
  const basis = chooseBasis(fractionOf(own), fractionOf(aggregated), config);
  const effective = basis === 'own' || basis === 'max-own' ? own : aggregated;
  // Decided by the basis, not by object identity: an account alone in its family shares the
  // aggregated ratio object, yet a broker family rates it as its own.
  const byAggregate = basis === 'aggregated' || basis === 'max-aggregated';
  const tier = byAggregate ? aggregatedTier : tierOfRatio(effective, config.tiers);
  return { account, own, effective, basis, tier };
}

/** Which ratio rates an account (see docs/rules.md#r7), decided on exact fractions. */
function chooseBasis(own: Fraction, aggregated: Fraction, config: FamilyConfig): RatioBasis {
  if (config.familyKind === 'broker') return 'own';
  if (fixedCmp(own.volume, config.ownVolumeThreshold) < 0) return 'aggregated';
  return compareFractions(own, aggregated) > 0 ? 'max-own' : 'max-aggregated';
}

/** Doubles of a window's totals: maker and taker volume and weighted requests. */
export interface ApproxTotals {
  maker: number;
  taker: number;
  weighted: number;
}

/** Doubles of summed totals, for screening. */
export function approxTotals(t: ActivityTotals): ApproxTotals {
  return { maker: approxOf(t.maker), taker: approxOf(t.taker), weighted: approxOf(t.weightedRequests) };
}

/**
 * Relative distance within which doubles may not decide. Each double here is within about a
 * hundred units in the last place (2^-53 each) of the exact value it stands for, so 1e-9 leaves
 * a margin of ten thousand; inside it, or wherever a double is not finite, the exact fractions
 * decide.
 */
const CLOSE = 1e-9;
const apart = (a: number, b: number): boolean =>
  Number.isFinite(a) && Number.isFinite(b) && Math.abs(a - b) > CLOSE * Math.max(Math.abs(a), Math.abs(b));

/**
 * A function giving the tiers of a family's windows, as {@link rateTotals} rates them, screened
 * with doubles: the exact totals (`exact()`, asked for at most once) are computed only for a
 * decision that falls within 1e-9 of a bound, a threshold or a tie. This is what lets a timeline
 * rate every account on every day without exact arithmetic for each.
 */
export function windowRater(
  config: FamilyConfig,
): (approx: readonly ApproxTotals[], exact: () => readonly ActivityTotals[]) => Tier[] {
  const mw = approxOf(config.ratio.makerWeight);
  const tw = approxOf(config.ratio.takerWeight);
  const threshold = approxOf(config.ownVolumeThreshold);
  const bounds = config.tiers.map((t) => approxOf(fixedFromDec(t.minRatio)));
  return (approx, exact) => rateWindows(approx, exact, config, mw, tw, threshold, bounds);
}

function rateWindows(
  approx: readonly ApproxTotals[],
  exact: () => readonly ActivityTotals[],
  config: FamilyConfig,
  mw: number,
  tw: number,
  threshold: number,
  bounds: readonly number[],
): Tier[] {
  let exactTotals: readonly ActivityTotals[] | undefined;
  let exactFamily: Fraction | undefined;
  const exactOf = (i: number): Fraction => fractionOfTotals((exactTotals ??= exact())[i]!, config.ratio);
  const familyExact = (): Fraction => {
    if (exactFamily === undefined) {
      let sum = EMPTY_TOTALS;
      for (const t of (exactTotals ??= exact())) sum = addTotals(sum, t);
      exactFamily = fractionOfTotals(sum, config.ratio);
    }
    return exactFamily;
  };
  // With no counted request a rulebook may give a figure of its own (OKX's 9999): left to the exact
  // fractions.
  const figureWithout = config.ratio.withoutRequests !== null;
  // The tier of n / d by doubles, or undefined when n / d is too close to a bound to tell.
  const screenTier = (n: number, d: number): Tier | undefined => {
    if (d === 0) return figureWithout ? undefined : config.tiers[0];
    const x = n / d;
    if (!Number.isFinite(x)) return undefined;
    const i = tierIndexReached(bounds.length, (j) => bounds[j]! <= x);
    if (i > 0 && !apart(x, bounds[i]!)) return undefined;
    if (i + 1 < bounds.length && !apart(x, bounds[i + 1]!)) return undefined;
    return config.tiers[i];
  };

  let fm = 0;
  let ft = 0;
  let fw = 0;
  for (const a of approx) {
    fm += a.maker;
    ft += a.taker;
    fw += a.weighted;
  }
  const fn = mw * fm + tw * ft;
  const familyTier = screenTier(fn, fw) ?? tierOfFraction(familyExact(), config.tiers);

  return approx.map((a, i) => {
    const n = mw * a.maker + tw * a.taker;
    let ownWins: boolean;
    if (config.familyKind === 'broker') {
      ownWins = true;
    } else {
      const volume = a.maker + a.taker;
      const below = apart(volume, threshold)
        ? volume < threshold
        : fixedCmp(exactOf(i).volume, config.ownVolumeThreshold) < 0;
      if (below) return familyTier;
      // max(own, aggregated): cross-multiplied; no requests sorts lowest, unless the rulebook gives
      // a figure.
      if (a.weighted === 0) ownWins = figureWithout && compareFractions(exactOf(i), familyExact()) > 0;
      else {
        const x = n * fw;
        const y = fn * a.weighted;
        ownWins = apart(x, y) ? x > y : compareFractions(exactOf(i), familyExact()) > 0;
      }
    }
    if (!ownWins) return familyTier;
    return screenTier(n, a.weighted) ?? tierOfFraction(exactOf(i), config.tiers);
  });
}

/**
 * Ratios, tiers and limits of a main account and its sub-accounts over one 7-day window (see
 * docs/rules.md#r1 to #r4, #r7).
 *
 * @example
 * ```ts
 * import { rateFamily } from 'traderatio/rules'
 *
 * const family = rateFamily([
 *   { account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '100', takerVolume: '200', place: 30 }] },
 *   { account: 'B', contracts: [{ contract: 'BTC_USDT', makerVolume: '50', place: 40 }] },
 * ], { ownVolumeThreshold: '0' })
 * family.accounts[0]!.tier.limit // 250
 * ```
 */
export function rateFamily(
  accounts: readonly AccountActivity[],
  options?: FamilyOptions,
  vipLevel?: number,
): FamilyRating;
/** @internal */
export function rateFamily(
  accounts: readonly AccountActivity[],
  options?: FamilyOptions | FamilyConfig,
  vipLevel?: number,
): FamilyRating;
export function rateFamily(
  accounts: readonly AccountActivity[],
  options: FamilyOptions | FamilyConfig = {},
  vipLevel?: number,
): FamilyRating {
  const config = resolveFamilyOptions(options);
  const level = parseVipLevel(
    vipLevel ?? config.rulebook.tieredVipLevel,
    '`vipLevel`',
    config.rulebook.highestVipLevel,
  );
  if (!Array.isArray(accounts)) throw new InvalidInputError('`accounts`', accounts, 'an array');
  const ids: string[] = [];
  const totals: ActivityTotals[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < accounts.length; i++) {
    const a = accounts[i]!;
    if (typeof a === 'object' && a !== null) checkFields(a, ACCOUNT_ACTIVITY_FIELDS, `\`accounts[${i}]\``);
    const id = parseId(a?.account, '`account`');
    if (seen.has(id)) throw new InvalidInputError('`account`', id, 'each account once');
    seen.add(id);
    ids.push(id);
    totals.push(totalsOf(a.contracts, config.ratio, ` in account ${id}`));
  }
  return rateTotals(ids, totals, config, level);
}
