import { Dec, type DecimalInput } from '../internal/decimal.js';
import { parsePositiveDecimal, readOptions } from '../internal/parse.js';
import type { FamilyConfig } from './family.js';
import { toDec } from '../internal/fixed.js';
import type { RatioResult } from './ratio.js';
import { type Tier, type TierRow, type TierTable, resolveTiers, tierOfRatio } from './tiers.js';

/**
 * How far a ratio is from the tiers around it.
 *
 * @example
 * ```ts
 * import { tierMargins, tradeRatio, type TierMargins } from 'traderatio/rules'
 *
 * const m: TierMargins = tierMargins(tradeRatio([{ contract: 'BTC_USDT', makerVolume: '300', place: 100 }]))
 * m.tier.tier // 3
 * m.up?.tier.limit // 250
 * m.down?.tier.limit // 150
 * tierMargins(tradeRatio([])).up // null
 * ```
 */
export interface TierMargins {
  readonly tier: Tier;
  /** What reaches the next tier up, or `null` at the top (or with no counted request). */
  readonly up: {
    readonly tier: Tier;
    /** More maker volume, USDT (rounded up to 8 decimals), with nothing else changed. */
    readonly makerVolume: Dec;
    /** Fewer requests on a contract of the given coefficient, with nothing else changed (null: none would do). At most 2^53 - 1. */
    readonly fewerRequests: number | null;
  } | null;
  /**
   * The spare before the tier below, or `null` at the bottom (or with no counted request): what
   * may be lost, or added, with the tier kept. Both figures mean the same: the most that keeps
   * the tier, so that any more drops it (at a ratio exactly on the bound, both are 0).
   */
  readonly down: {
    /** The tier below. */
    readonly tier: Tier;
    /** Maker volume, USDT, that may be lost with the tier kept (rounded down to 8 decimals); losing more drops it. */
    readonly makerVolume: Dec;
    /** Requests on a contract of the given coefficient that may be added with the tier kept; one more drops it. At most 2^53 - 1 (more than any account sends). */
    readonly spareRequests: number;
  } | null;
}

/**
 * The margins of a ratio to the tiers above and below (see docs/rules.md#r1, #r3). Up: the least
 * maker volume to add, or the fewest requests to drop, that reach the next tier up. Down: the most
 * maker volume that may be lost, or the most requests that may be added, with the tier kept. Exact,
 * from the ratio's fraction. Tiers only apply from the tiered VIP level (Gate's 14; see
 * docs/rules.md#r4): below it no volume changes the tier, and the callers that know the VIP level
 * (the plan command, `AccountLimiter.whatIf`) give no margins.
 *
 * @example
 * ```ts
 * import { tierMargins, tradeRatio } from 'traderatio/rules'
 *
 * const r = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '900', place: 100 }]) // 9: tier 4
 * // 100 more maker volume, or 10 fewer requests, reach 10 (tier 5).
 * tierMargins(r).up?.makerVolume.toString() // '100'
 * tierMargins(r).up?.fewerRequests // 10
 * // 400 less volume, or 80 more requests, still keep 5 (tier 4).
 * tierMargins(r).down?.makerVolume.toString() // '400'
 * tierMargins(r).down?.spareRequests // 80
 * ```
 */
export function tierMargins(
  ratio: RatioResult,
  options?: {
    readonly tiers?: TierTable | readonly TierRow[];
    readonly makerWeight?: DecimalInput;
    readonly coefficient?: DecimalInput;
  },
): TierMargins {
  const o = readOptions(options, 'the margin options', ['tiers', 'makerWeight', 'coefficient']);
  const tiers = resolveTiers(o.tiers);
  const tier = tierOfRatio(ratio, tiers);
  const n = ratio.numerator;
  const d = ratio.denominator;
  if (d.isZero()) return { tier, up: null, down: null };
  const mw = parsePositiveDecimal(o.makerWeight ?? '1', '`makerWeight`');
  const c = parsePositiveDecimal(o.coefficient ?? '1', '`coefficient`');
  const next = tiers[tier.tier];
  let up: TierMargins['up'] = null;
  if (next !== undefined) {
    const makerVolume = Dec.max(0, next.minRatio.times(d).minus(n).dividedBy(mw)).toDecimalPlaces(8, Dec.ROUND_UP);
    // The ratio reaches the bound when d - k c <= n / bound.
    const fewer = n.isZero() ? null : safeCount(d.minus(n.dividedBy(next.minRatio)).dividedBy(c).ceil());
    up = {
      tier: next,
      makerVolume,
      fewerRequests: fewer !== null && fewer < Math.ceil(d.dividedBy(c).toNumber()) ? Math.max(0, fewer) : null,
    };
  }
  let down: TierMargins['down'] = null;
  if (tier.tier > 1) {
    const below = tiers[tier.tier - 2]!;
    const makerVolume = n.minus(tier.minRatio.times(d)).dividedBy(mw).toDecimalPlaces(8, Dec.ROUND_DOWN);
    // It keeps the tier while n / (d + k c) >= bound: k <= (n / bound - d) / c.
    const spareRequests = safeCount(n.dividedBy(tier.minRatio).minus(d).dividedBy(c).floor());
    down = { tier: below, makerVolume, spareRequests };
  }
  return { tier, up, down };
}

/** A whole count as a number, held to the exact integer range: never a binary float such as 2.4e57. */
function safeCount(k: Dec): number {
  return k.greaterThan(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : k.toNumber();
}

/**
 * The way a change reaches a tier under the family rule (see docs/rules.md#r7): the family's
 * aggregated ratio; the account's own ratio (max(own, aggregated), or a broker family's own ratio);
 * or the own-volume threshold, when the own ratio is already there and only the volume that takes
 * the account over the threshold is missing.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type MarginPath } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const body = { contract: 'BTC_USDT', size: 1, price: '60000' }
 * for (let i = 0; i < 10; i++) await limiter.request('main', 'POST', '/futures/usdt/orders', () => 1, { body })
 * limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '55' }) // a ratio of 5.5: tier 4
 * const path: MarginPath | undefined = limiter.whatIf('main').up?.makerPath
 * path // 'aggregated'
 * limiter.close()
 * ```
 */
export type MarginPath = 'aggregated' | 'own' | 'threshold';

/**
 * What reaches one tier above an account's, over every path of the family rule, the least of each
 * kind of change.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type TierStep } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const body = { contract: 'BTC_USDT', size: 1, price: '60000' }
 * for (let i = 0; i < 10; i++) await limiter.request('main', 'POST', '/futures/usdt/orders', () => 1, { body })
 * limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '55' }) // a ratio of 5.5: tier 4
 * const steps: readonly TierStep[] = limiter.whatIf('main').steps
 * steps.map((s) => s.tier.tier) // [5, 6, 7]
 * steps[0]?.makerVolume.toString() // '45'
 * limiter.close()
 * ```
 */
export interface TierStep {
  readonly tier: Tier;
  /** More maker volume for the account, USDT (rounded up to 8 decimals): the least over every path. */
  readonly makerVolume: Dec;
  /** The path that least volume takes. */
  readonly makerPath: MarginPath;
  /**
   * Weighted requests (requests times their coefficient) the account must drop, the least over
   * the aggregated and the own path, or null when no drop within its own requests reaches the
   * tier (an undefined ratio is the lowest tier; see docs/rules.md#r1).
   */
  readonly requestWeight: Dec | null;
  /** The path of `requestWeight`. */
  readonly requestPath: 'aggregated' | 'own' | null;
  /** `requestWeight` as requests on a contract of the given coefficient, rounded up; null: none would do. At most 2^53 - 1. */
  readonly fewerRequests: number | null;
}

/**
 * An account's margins over every path of the family rule: every tier above, and the spare before
 * the tier below.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type AccountMargins } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const body = { contract: 'BTC_USDT', size: 1, price: '60000' }
 * for (let i = 0; i < 10; i++) await limiter.request('main', 'POST', '/futures/usdt/orders', () => 1, { body })
 * limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '55' }) // a ratio of 5.5: tier 4
 * const m: AccountMargins = limiter.whatIf('main')
 * m.down?.makerVolume.toString() // '5'
 * m.down?.spareRequests // 1
 * limiter.close()
 * ```
 */
export interface AccountMargins extends TierMargins {
  /** What reaches the next tier up (the first of `steps`), or null at the top or when nothing would. */
  readonly up: TierStep | null;
  /** Every tier above the account's, nearest first, each with the least change that reaches it. */
  readonly steps: readonly TierStep[];
}

/** Options of {@link accountMargins}. */
export interface AccountMarginOptions {
  /** The coefficient of the contract `fewerRequests` and `spareRequests` count on. @default 1 */
  readonly coefficient?: DecimalInput;
}

/**
 * The margins of one account of a family, decided over every path of the family rule at once (see
 * docs/rules.md#r1, #r3, #r7). Its tier is the one its rating gives: the aggregated ratio under the
 * own-volume threshold, max(own, aggregated) from it, the own ratio in a broker family. Up, for
 * every tier above: the least maker volume the account may add that reaches it, by the aggregated
 * ratio (which it raises too), by its own ratio, or by the volume that takes it over the threshold,
 * whichever is least; and the fewest weighted requests it may drop, by the aggregated or its own
 * ratio, within its own requests. Down: the most maker volume that may be lost, or requests that
 * may be added, with the tier kept by any path (losing more drops it). The family's VIP level is
 * the caller's: below the tiered level (see docs/rules.md#r4) no change moves an account from tier
 * 1. `plan`, `advise` and `AccountLimiter.whatIf` all ask this function.
 */
export function accountMargins(
  own: RatioResult,
  aggregated: RatioResult,
  family: FamilyConfig,
  options: AccountMarginOptions = {},
): AccountMargins {
  const tiers = family.tiers;
  const mw = toDec(family.ratio.makerWeight);
  const c = parsePositiveDecimal(options.coefficient ?? '1', '`coefficient`');
  const threshold = toDec(family.ownVolumeThreshold);
  const broker = family.familyKind === 'broker';
  const ownCounts = !own.denominator.isZero();
  const aggCounts = !broker && !aggregated.denominator.isZero();
  // The own ratio rates the account now (with max()) when it is over the threshold, or always in a
  // broker family.
  const eligible = broker || own.volume.greaterThanOrEqualTo(threshold);
  const ownTier = tierOfRatio(own, tiers);
  const aggTier = tierOfRatio(aggregated, tiers);
  const tier = broker ? ownTier : eligible && ownTier.tier > aggTier.tier ? ownTier : aggTier;

  const steps: TierStep[] = [];
  for (const next of tiers.slice(tier.tier)) {
    const b = next.minRatio;
    // Maker volume x raises both numerators by mw x, and the account's volume by x.
    let maker: { x: Dec; path: MarginPath } | null = null;
    if (aggCounts)
      maker = {
        x: Dec.max(0, b.times(aggregated.denominator).minus(aggregated.numerator).dividedBy(mw)),
        path: 'aggregated',
      };
    if (ownCounts) {
      const byRatio = Dec.max(0, b.times(own.denominator).minus(own.numerator).dividedBy(mw));
      const over = broker ? new Dec(0) : Dec.max(0, threshold.minus(own.volume));
      const x = Dec.max(byRatio, over);
      if (maker === null || x.lessThan(maker.x)) maker = { x, path: over.greaterThan(byRatio) ? 'threshold' : 'own' };
    }
    if (maker === null) break;
    // Dropping w weighted requests of the account: N / (D - w) >= b with D - w > 0, and w within
    // its own.
    let drop: { w: Dec; path: 'aggregated' | 'own' } | null = null;
    const least = (r: RatioResult): Dec | null => {
      if (r.numerator.isZero()) return null;
      const w = Dec.max(0, r.denominator.minus(r.numerator.dividedBy(b)));
      return w.lessThan(r.denominator) && w.lessThanOrEqualTo(own.denominator) ? w : null;
    };
    if (aggCounts) {
      const w = least(aggregated);
      if (w !== null) drop = { w, path: 'aggregated' };
    }
    if (ownCounts && eligible) {
      const w = least(own);
      if (w !== null && (drop === null || w.lessThan(drop.w))) drop = { w, path: 'own' };
    }
    let fewer: number | null = null;
    if (drop !== null) {
      const r = drop.path === 'own' ? own : aggregated;
      // The quotient is rounded at 80 digits: the count is settled on exact products, N >= b (D - k
      // c).
      const reaches = (k: Dec): boolean => r.numerator.greaterThanOrEqualTo(b.times(r.denominator.minus(k.times(c))));
      let k = Dec.max(0, drop.w.dividedBy(c).ceil());
      while (k.greaterThan(0) && reaches(k.minus(1))) k = k.minus(1);
      while (!reaches(k)) k = k.plus(1);
      // Requests of coefficient c come whole: k of them must leave a request counted, and be the
      // account's own.
      fewer = k.times(c).lessThan(r.denominator) && k.times(c).lessThanOrEqualTo(own.denominator) ? safeCount(k) : null;
    }
    steps.push({
      tier: next,
      makerVolume: maker.x.toDecimalPlaces(8, Dec.ROUND_UP),
      makerPath: maker.path,
      requestWeight: drop?.w ?? null,
      requestPath: drop?.path ?? null,
      fewerRequests: fewer,
    });
  }

  let down: TierMargins['down'] = null;
  if (tier.tier > 1) {
    const b = tier.minRatio;
    // Every path that holds the tier now; the most that keeps any of them.
    const holds: { r: RatioResult; own: boolean }[] = [];
    if (aggCounts && aggTier.tier >= tier.tier) holds.push({ r: aggregated, own: false });
    // An own ratio with volume and no request yet holds the tier once requests come: it counts for
    // the spare requests.
    if (eligible && (ownTier.tier >= tier.tier || (!ownCounts && !own.numerator.isZero())))
      holds.push({ r: own, own: true });
    let makerVolume = new Dec(0);
    let spare = new Dec(0);
    for (const { r, own: byOwn } of holds) {
      if (!r.denominator.isZero()) {
        let x = r.numerator.minus(b.times(r.denominator)).dividedBy(mw);
        // Below the threshold the own ratio no longer rates the account.
        if (byOwn && !broker) x = Dec.min(x, own.volume.minus(threshold));
        makerVolume = Dec.max(makerVolume, x);
      }
      // Settled on exact products: the most k with N >= b (D + k c).
      const keeps = (k: Dec): boolean => r.numerator.greaterThanOrEqualTo(b.times(r.denominator.plus(k.times(c))));
      let k = Dec.max(0, r.numerator.dividedBy(b).minus(r.denominator).dividedBy(c).floor());
      while (!keeps(k) && k.greaterThan(0)) k = k.minus(1);
      while (keeps(k.plus(1))) k = k.plus(1);
      spare = Dec.max(spare, k);
    }
    down = {
      tier: tiers[tier.tier - 2]!,
      makerVolume: makerVolume.toDecimalPlaces(8, Dec.ROUND_DOWN),
      spareRequests: safeCount(spare),
    };
  }
  return { tier, up: steps[0] ?? null, steps, down };
}
