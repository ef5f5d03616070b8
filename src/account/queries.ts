import { type AbuseConfig, abuseLowFill } from '../rules/abuse.js';
import { DAY_MS, RAISE_OFFSET_MS, utcDayStart } from '../rules/calendar.js';
import type { FamilyConfig } from '../rules/family.js';
import { fillRateOf } from '../rules/fill-rate.js';
import { type AccountMargins, accountMargins } from '../rules/margins.js';
import type { SpotFillConfig } from '../rules/spot-fill.js';
import type { Tier } from '../rules/tiers.js';
import { isTieredVip, tierInForce } from '../rules/vip.js';
import { type FamilyState, familyRatingBefore, ratingsBefore, vipAt } from './family-state.js';
import type { HourlyCounts } from './in-force.js';
import { rollingDay, spotWindow } from './rolling-window.js';

// What an account limiter answers about the time ahead, as pure functions of its family state and
// the instant: each is read on demand, none changes anything.

/**
 * The tier in force from the next 08:00 UTC on the activity so far.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type TierAtNextRaise } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * // 10:00 UTC: today's activity is in the next 00:00 snapshot, raised at the 08:00 after it.
 * const clock = new VirtualClock({ wallStart: Date.parse('2026-11-21T10:00:00Z') })
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock })
 * const body = { contract: 'BTC_USDT', size: 1, price: '60000' }
 * for (let i = 0; i < 10; i++) await limiter.request('main', 'POST', '/futures/usdt/orders', () => 1, { body })
 * limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '55' }) // a ratio of 5.5: tier 4
 * const next: TierAtNextRaise = limiter.limitAtNext0800('main')
 * next.limit // 250
 * limiter.close()
 * ```
 */
export interface TierAtNextRaise {
  /** The next 08:00 UTC, epoch ms. */
  readonly at: number;
  readonly tier: Tier;
  /** Futures placement and amendment, requests per second. */
  readonly limit: number;
}

/**
 * The margins of the ratio that sets an account's tier at the next snapshot, over every path of
 * the family rules (see docs/rules.md#r7): `up` (the nearest of `steps`) and each step name the path of their least maker volume
 * (`makerPath`: the aggregated ratio, the own ratio, or the own-volume threshold) and of their
 * fewest requests (`requestPath`); `basis` says whose ratio sets the tier now.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type WhatIf } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const body = { contract: 'BTC_USDT', size: 1, price: '60000' }
 * for (let i = 0; i < 10; i++) await limiter.request('main', 'POST', '/futures/usdt/orders', () => 1, { body })
 * limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '55' }) // a ratio of 5.5: tier 4
 * const w: WhatIf = limiter.whatIf('main')
 * w.basis // 'aggregated'
 * w.up?.tier.tier // 5
 * w.up?.makerVolume.toString() // '45'
 * w.up?.fewerRequests // 5
 * limiter.close()
 * ```
 */
export type WhatIf = AccountMargins & { readonly basis: 'own' | 'aggregated' };

/**
 * The rolling 24 hours of the abuse rule (see docs/rules.md#r9) and the room they leave.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type AbuseHeadroom } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const body = { contract: 'BTC_USDT', size: 1, price: '60000' }
 * for (let i = 0; i < 10; i++) await limiter.request('main', 'POST', '/futures/usdt/orders', () => 1, { body })
 * limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '55' }) // a ratio of 5.5: tier 4
 * const h: AbuseHeadroom = limiter.abuseHeadroom('main')
 * h.requests // 10
 * h.fillRate // '5.5'
 * h.remaining // Infinity
 * limiter.close()
 * ```
 */
export interface AbuseHeadroom {
  readonly requests: number;
  /** USDT traded, a decimal string. */
  readonly traded: string;
  /** USDT traded per request, or null before any request. */
  readonly fillRate: string | null;
  /** Requests that fit before the throttle trips at the current fill rate (Infinity: it never does). */
  readonly remaining: number;
}

/**
 * The window of the next hourly check of the spot low-fill throttle (see docs/rules.md#r14) so far and the room it leaves.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type SpotFillHeadroom } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const h: SpotFillHeadroom = limiter.spotFillHeadroom('main')
 * h // { requests: 0, traded: '0', fillRate: null, remaining: 0, needed: '0' }
 * limiter.close()
 * ```
 */
export interface SpotFillHeadroom extends AbuseHeadroom {
  /** Spot USDT still to trade before the check to avoid the throttle ("0" if none). */
  readonly needed: string;
}

/**
 * The tier at the next 08:00 UTC given the activity so far: the snapshot of the coming 00:00
 * over the last six days and today until `now` (see docs/rules.md#r5, #r7), or of today's 00:00 before 08:00.
 * `account` must be one of the state's, created by `now`.
 */
export function tierAtNextRaise(
  state: FamilyState,
  family: FamilyConfig,
  account: string,
  now: number,
): TierAtNextRaise {
  const today = utcDayStart(now);
  const next = now < today + RAISE_OFFSET_MS ? today : today + DAY_MS;
  const rating = ratingsBefore(state, family, next, now);
  const r = rating.find((x) => x.account === account)!;
  const tier = tierInForce(vipAt(state, now), r.tier, family.tiers, family.rulebook.tieredVipLevel);
  return { at: next + RAISE_OFFSET_MS, tier, limit: tier.limit };
}

/**
 * What reaches the next tier, and the spare before the one below, at the next snapshot, over
 * every path of the family rules (see docs/rules.md#r7) at once (the account's own ratio, the family's aggregated ratio, the volume
 * that takes it over the own-volume threshold): the least maker volume or the fewest requests
 * on `contract` up, the most volume that may be lost or requests that may be added with the
 * tier kept down (see docs/rules.md#r1, #r3, #r7), each step up with the path it takes (`makerPath`, `requestPath`)
 * and every tier above in `steps`. `basis` names the ratio that sets the tier now. Below VIP 14
 * (see docs/rules.md#r4) the tier is 1 whatever the ratio: `up` and `down` are null, `steps` empty. `account` must be
 * one of the state's, created by `now`.
 */
export function whatIf(
  state: FamilyState,
  family: FamilyConfig,
  account: string,
  contract: string,
  now: number,
): WhatIf {
  const rating = familyRatingBefore(state, family, utcDayStart(now) + DAY_MS, now);
  const r = rating.accounts.find((x) => x.account === account)!;
  const basis = r.basis === 'own' || r.basis === 'max-own' ? 'own' : 'aggregated';
  const vip = vipAt(state, now);
  // Below VIP 14 every account is at tier 1 whatever its ratio (see docs/rules.md#r4): nothing moves it.
  if (!isTieredVip(vip, family.rulebook.tieredVipLevel))
    return {
      tier: tierInForce(vip, r.tier, family.tiers, family.rulebook.tieredVipLevel),
      up: null,
      down: null,
      steps: [],
      basis,
    };
  // Every path of the family rules (see docs/rules.md#r7) at once: the own ratio, the aggregated one, the own-volume threshold.
  const { tier, up, down, steps } = accountMargins(r.own, rating.aggregated, family, {
    coefficient: family.ratio.weights.weightOf(contract),
  });
  return { tier, up, down, steps, basis };
}

/**
 * The rolling 24 hours of the abuse rule (see docs/rules.md#r9) at `now`: requests, USDT traded, fill rate, and how
 * many more requests fit before the throttle trips at the current fill rate.
 */
export function abuseHeadroom(futures: HourlyCounts, abuse: AbuseConfig, account: string, now: number): AbuseHeadroom {
  const w = rollingDay(futures, account, now);
  return {
    requests: w.requests,
    traded: w.traded.toFixed(),
    fillRate: fillRateOf(w.traded, w.requests)?.toString() ?? null,
    remaining: abuseLowFill(w, abuse) ? Math.max(0, abuse.requestThreshold - w.requests) : Infinity,
  };
}

/**
 * The spot low-fill rule's window for the next hourly check (see docs/rules.md#r14): spot requests and USDT traded
 * in the 23 whole hours before this one and this one so far, the fill ratio, how many more spot
 * requests fit before that check would throttle (Infinity: none would; -1 or less: it would
 * already), and the spot USDT still to trade before the check to avoid it.
 */
export function spotFillHeadroom(
  spot: HourlyCounts,
  spotFill: SpotFillConfig,
  account: string,
  now: number,
): SpotFillHeadroom {
  const w = spotWindow(spot, account, now, spotFill);
  return {
    requests: w.requests,
    traded: w.traded.toFixed(),
    fillRate: fillRateOf(w.traded, w.requests)?.toString() ?? null,
    remaining: w.remaining,
    needed: w.needed.toFixed(),
  };
}
