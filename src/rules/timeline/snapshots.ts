// The 00:00 UTC ratings of a timeline (see docs/rules.md#r5): taking them, and what each keeps.
import { DAY_MS } from '../calendar.js';
import { type AccountRating, type FamilyConfig, approxTotals, rateAccount, windowRater } from '../family.js';
import { type ActivityTotals, EMPTY_TOTALS, type RatioResult, addTotals, ratioOfTotals } from '../ratio.js';
import { RATIO_WINDOW_DAYS, ratioWindow, sumRatioWindow } from '../ratio-window.js';
import { partitionPoint } from '../../internal/search.js';
import { type Tier, tierOfRatio } from '../tiers.js';
import type { ReadActivity } from './input.js';

/**
 * A family's snapshot at 00:00 UTC of a day (see docs/rules.md#r5).
 *
 * @example
 * ```ts
 * import { type DailyRating, buildTimeline } from 'traderatio/rules'
 *
 * const timeline = buildTimeline({
 *   accounts: [{ id: 'main', role: 'main' }],
 *   activity: [{ account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }],
 * })
 * const first: DailyRating = timeline.snapshots[0]!
 * new Date(first.day).toISOString() // '2026-11-02T00:00:00.000Z'
 * first.aggregated.ratio.toString() // '6'
 * ```
 */
export interface DailyRating {
  /** 00:00 UTC of the day, epoch ms. The window is [day - 7 days, day). */
  readonly day: number;
  readonly aggregated: RatioResult;
  readonly accounts: readonly AccountRating[];
}

/**
 * The family's 00:00 UTC ratings (see docs/rules.md#r5), one a day from the day after the first
 * activity to the day the last activity leaves the 7-day window. An account is rated from the day
 * it exists (see docs/rules.md#r8). `ids` are sorted; `createdAt[k]` is the creation of `ids[k]`
 * (undefined: always).
 */
export function takeSnapshots(
  ids: readonly string[],
  createdAt: readonly (number | undefined)[],
  days: ReadActivity,
  config: FamilyConfig,
): SnapshotRecord[] {
  const allAccounts = ids.map((_, k) => k);
  const snapshots: SnapshotRecord[] = [];
  if (days.first !== undefined && days.last !== undefined) {
    const first = days.first;
    const span = (days.last - first) / DAY_MS + 1;
    // Each account's daily totals as doubles by day index, for screening; exact totals are summed
    // only for the few decisions the doubles cannot make (see windowRater).
    const approxDays = days.byAccount.map((own) => {
      const maker = new Float64Array(span);
      const taker = new Float64Array(span);
      const weighted = new Float64Array(span);
      for (const [day, t] of own) {
        const a = approxTotals(t);
        const j = (day - first) / DAY_MS;
        maker[j] = a.maker;
        taker[j] = a.taker;
        weighted[j] = a.weighted;
      }
      return { maker, taker, weighted };
    });
    const rate = windowRater(config);
    // Until the day the last activity has left the window, and one more where a lowering waits a day.
    const grace = config.rulebook.timing.lowering === 'after-grace' ? 1 : 0;
    for (let day = first + DAY_MS; day <= days.last + (RATIO_WINDOW_DAYS + 1 + grace) * DAY_MS; day += DAY_MS) {
      const present = createdAt.some((c) => c !== undefined && c > day)
        ? ids.flatMap((_, k) => (createdAt[k] === undefined || createdAt[k]! <= day ? [k] : []))
        : allAccounts;
      // The window's day indices, cut to the days with activity.
      const window = ratioWindow(day);
      const from = Math.max(0, (window.from - first) / DAY_MS);
      const to = Math.min((window.to - first) / DAY_MS, span);
      const approx = present.map((k) => {
        const a = approxDays[k]!;
        let maker = 0;
        let taker = 0;
        let weighted = 0;
        for (let j = from; j < to; j++) {
          maker += a.maker[j]!;
          taker += a.taker[j]!;
          weighted += a.weighted[j]!;
        }
        return { maker, taker, weighted };
      });
      const presentIds = present.map((k) => ids[k]!);
      const presentDays = present.map((k) => days.byAccount[k]!);
      const tiers = rate(approx, () => presentDays.map((own) => windowOf(own, day)));
      snapshots.push(new SnapshotRecord(day, presentIds, presentDays, tiers, config));
    }
  }
  return snapshots;
}

/**
 * A snapshot as the timeline keeps it: each account's window totals and tier. The ratings with
 * their exact ratios are rebuilt from the totals when first read: a year of a large family holds
 * tens of thousands of them, and keeping them all alive costs more than computing the few read.
 */
export class SnapshotRecord implements DailyRating {
  private family: { totals: ActivityTotals; aggregated: RatioResult; tier: Tier } | undefined;
  private memo: (AccountRating | undefined)[] = [];

  private totals: readonly ActivityTotals[] | undefined;

  constructor(
    readonly day: number,
    readonly ids: readonly string[],
    /** Each account's daily totals: the window is summed again when a rating is read. */
    private readonly days: readonly ReadonlyMap<number, ActivityTotals>[],
    readonly tiers: readonly Tier[],
    private readonly config: FamilyConfig,
  ) {}

  /** Each account's totals over [day - 7 days, day). */
  private windowTotals(): readonly ActivityTotals[] {
    return (this.totals ??= this.days.map((own) => windowOf(own, this.day)));
  }

  get aggregated(): RatioResult {
    return this.familyRating().aggregated;
  }
  get accounts(): readonly AccountRating[] {
    return this.ids.map((_, i) => this.ratingAt(i));
  }
  /** An account's rating (ids are sorted), or null when it did not exist yet. */
  ratingOf(account: string): AccountRating | null {
    const i = partitionPoint(this.ids.length, (k) => this.ids[k]! < account);
    return this.ids[i] === account ? this.ratingAt(i) : null;
  }
  /** The rating of the account at `i`, made once. */
  ratingAt(i: number): AccountRating {
    const f = this.familyRating();
    return (this.memo[i] ??= rateAccount(
      this.ids[i]!,
      this.windowTotals()[i]!,
      f.totals,
      f.aggregated,
      f.tier,
      this.config,
    ));
  }
  private familyRating() {
    if (this.family === undefined) {
      let totals = EMPTY_TOTALS;
      for (const t of this.windowTotals()) totals = addTotals(totals, t);
      const aggregated = ratioOfTotals(totals, this.config.ratio);
      this.family = { totals, aggregated, tier: tierOfRatio(aggregated, this.config.tiers) };
    }
    return this.family;
  }
}

/** An account's exact totals over [day - 7 days, day). */
function windowOf(days: ReadonlyMap<number, ActivityTotals>, day: number): ActivityTotals {
  return sumRatioWindow(day, (d) => days.get(d), addTotals, EMPTY_TOTALS);
}
