import { DAY_MS, HOUR_MS, RAISE_OFFSET_MS, utcDayStart } from '../rules/calendar.js';
import type { AccountRating, FamilyConfig } from '../rules/family.js';
import { tierMargins } from '../rules/margins.js';
import type { Tier } from '../rules/tiers.js';
import { isTieredVip } from '../rules/vip.js';
import { type FamilyState, ratingsBefore, vipAt } from './family-state.js';

/**
 * The live downgrade of one account (the limiter's `downgrade: 'live'`, see docs/rules.md#r5): between snapshots the
 * rolling ratio of the next snapshot's window is rated as requests and fills are counted, and a
 * fall into a lower tier caps the tier at once; raises still wait for 08:00, where the cap is
 * dropped. The ratio is rated again only once enough requests were counted to cross down (each
 * weighing at most the heaviest coefficient), or on a fill.
 */
export class LiveDowngrade {
  /** The lowest tier the rolling ratio fell to since the last 08:00, or null. */
  private cap: Tier | null = null;
  /** Order requests that can be counted before the rolling ratio may cross down. */
  private budget = 0;

  constructor(private readonly family: FamilyConfig) {}

  /** `orders` order requests were counted: whether the ratio is to be rated again now. */
  count(orders: number): boolean {
    this.budget -= orders;
    return this.budget <= 0;
  }

  /**
   * The rules' tier at a refresh at `now`, capped by a fall seen since the last 08:00 (the hour
   * from 08:00 drops the cap: the 08:00 raise is due, see docs/rules.md#r5).
   */
  capped(now: number, tier: Tier): { readonly tier: Tier; readonly capped: boolean } {
    const since0800 = now - utcDayStart(now) >= RAISE_OFFSET_MS && now - utcDayStart(now) < RAISE_OFFSET_MS + HOUR_MS;
    if (since0800) this.cap = null;
    return this.cap !== null && this.cap.tier < tier.tier ? { tier: this.cap, capped: true } : { tier, capped: false };
  }

  /**
   * Rates `account` on the next snapshot's window so far and returns its rating, with `fell` when
   * it fell below `tier` (the tier now) at a tiered VIP level (see docs/rules.md#r4): the cap is then that tier.
   * Null for an account not yet created. Call {@link rearm} with the rating afterwards.
   */
  rate(
    state: FamilyState,
    account: string,
    now: number,
    tier: Tier,
  ): { readonly rating: AccountRating; readonly fell: boolean } | null {
    const r = ratingsBefore(state, this.family, utcDayStart(now) + DAY_MS, now).find((x) => x.account === account);
    if (r === undefined) return null;
    const fell = isTieredVip(vipAt(state, now)) && r.tier.tier < tier.tier;
    if (fell) this.cap = r.tier;
    return { rating: r, fell };
  }

  /**
   * Sets the requests that may be counted before the ratio could cross the bound below `rating`:
   * each weighs at most the heaviest coefficient, so counting them down is safe; then it is rated
   * again.
   */
  rearm(rating: AccountRating): void {
    const margins = tierMargins(rating.effective, {
      tiers: this.family.tiers,
      coefficient: heaviestCoefficient(this.family),
    });
    this.budget = margins.down === null ? Infinity : margins.down.spareRequests + 1;
  }
}

/** The heaviest contract coefficient (see docs/rules.md#r1): a request weighing it lowers the ratio most. */
function heaviestCoefficient(family: FamilyConfig): string {
  return family.ratio.weights.heaviest.toString();
}
