// A slow reference model of the limit timeline, written from docs/rules.md (see docs/rules.md#r1 to #r8) and not from
// src/rules/timeline.ts: every query is answered from the rules alone, by exact integer arithmetic
// on the input as given. It reads the default ratio options (weights 1 and 0.9, coefficients 1 for
// BTC_USDT and ETH_USDT and 0.4 otherwise, the tier table, see docs/rules.md#r3), contract names already written as the
// API writes them, and the family's own-volume threshold (see docs/rules.md#r7) (whole USDT) and broker families.

export const DAY = 86_400_000;
export const HOUR = 3_600_000;

/** One contract's activity on one day, amounts as decimal text of at most 8 decimals. */
export interface ModelContract {
  readonly contract: string;
  readonly makerVolume?: string;
  readonly takerVolume?: string;
  readonly place?: number;
  readonly amend?: number;
  readonly cancel?: number;
}

/** R7's options: the own-volume threshold in whole USDT (default 1,000,000), broker families. */
export interface ModelOptions {
  readonly ownVolumeThreshold?: number;
  readonly kind?: 'standard' | 'broker';
}

export interface ModelInput {
  readonly accounts: readonly { readonly id: string; readonly role?: 'main' | 'sub'; readonly createdAt?: number }[];
  readonly activity: readonly {
    readonly account: string;
    readonly day: number;
    readonly contracts: readonly ModelContract[];
  }[];
  readonly vipLevel?: number;
  readonly vipChanges?: readonly { readonly at: number; readonly level: number }[];
}

/** R3: lower bounds of tiers 1..7 and their limits. */
const BOUNDS = [0n, 1n, 3n, 5n, 10n, 20n, 50n];
export const LIMITS = [100, 150, 200, 250, 300, 350, 400];

/** Decimal text to an integer count of 1e-8 USDT. */
function units(text: string | undefined): bigint {
  if (text === undefined) return 0n;
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole!) * 10n ** 8n + BigInt(fraction.padEnd(8, '0'));
}

/** Window sums, scaled to integers: numerator x 10 (1e-8 USDT), denominator x 5, volume (1e-8 USDT). */
interface Sums {
  num10: bigint;
  den5: bigint;
  volume: bigint;
}

function add(s: Sums, contracts: readonly ModelContract[]): void {
  for (const c of contracts) {
    const maker = units(c.makerVolume);
    const taker = units(c.takerVolume);
    // The trade ratio (see docs/rules.md#r1): makerWeight 1, takerWeight 0.9; place + amend + cancel counted, weighted by the contract's coefficient (#r2).
    s.num10 += 10n * maker + 9n * taker;
    const requests = BigInt((c.place ?? 0) + (c.amend ?? 0) + (c.cancel ?? 0));
    s.den5 += (c.contract === 'BTC_USDT' || c.contract === 'ETH_USDT' ? 5n : 2n) * requests;
    s.volume += maker + taker;
  }
}

/** The trade ratio, the tiers (see docs/rules.md#r1, #r3): the tier (1..7) of the ratio (num10 / 10) / (den5 / 5) in 1e-8 USDT, or 1 when undefined. */
function tierOf(s: Sums): number {
  if (s.den5 === 0n) return 1;
  // ratio >= b  <=>  num10 / 10 >= b x 1e8 x den5 / 5  <=>  num10 >= 2 x b x 1e8 x den5
  let tier = 1;
  for (let i = 0; i < BOUNDS.length; i++) if (s.num10 >= 2n * BOUNDS[i]! * 10n ** 8n * s.den5) tier = i + 1;
  return tier;
}

const dayOf = (t: number) => t - (((t % DAY) + DAY) % DAY);

export class TimelineModel {
  private readonly memo = new Map<string, number>();
  private readonly vipChanges: readonly { at: number; level: number }[];

  constructor(
    private readonly input: ModelInput,
    private readonly options: ModelOptions = {},
  ) {
    this.vipChanges = [...(input.vipChanges ?? [])].sort((a, b) => a.at - b.at);
  }

  /** R4 / R6 input: the VIP level at `t` (a change is in force from its instant). */
  vipLevelAt(t: number): number {
    let level = this.input.vipLevel ?? 14;
    for (const v of this.vipChanges) if (v.at <= t) level = v.level;
    return level;
  }

  /** The latest instant <= t at which the VIP level went from below 14 to 14 or more, or -Infinity. */
  private lastRise(t: number): number {
    let level = this.input.vipLevel ?? 14;
    let rise = -Infinity;
    for (const v of this.vipChanges) {
      if (v.at > t) break;
      if (level < 14 && v.level >= 14) rise = v.at;
      level = v.level;
    }
    return rise;
  }

  /**
   * When a new ratio takes effect, the family rules (see docs/rules.md#r5, #r7): the tier the 00:00 UTC snapshot of `day` gives `account`, over [day - 7 d, day).
   * Accounts not created yet have no activity, so the aggregate is over every account.
   */
  snapshotTier(account: string, day: number): number {
    const key = `${account} ${day}`;
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    const own: Sums = { num10: 0n, den5: 0n, volume: 0n };
    const family: Sums = { num10: 0n, den5: 0n, volume: 0n };
    for (const a of this.input.activity) {
      if (a.day < day - 7 * DAY || a.day >= day) continue;
      add(family, a.contracts);
      if (a.account === account) add(own, a.contracts);
    }
    // The family rules (see docs/rules.md#r7): below the threshold (1,000,000 USDT) of own volume the aggregated ratio; otherwise
    // max(own, aggregated), which is the higher of the two tiers (an undefined ratio is the
    // lowest). Broker families: the own ratio only.
    const threshold = BigInt(this.options.ownVolumeThreshold ?? 1_000_000) * 10n ** 8n;
    const tier =
      this.options.kind === 'broker'
        ? tierOf(own)
        : own.volume < threshold
          ? tierOf(family)
          : Math.max(tierOf(own), tierOf(family));
    this.memo.set(key, tier);
    return tier;
  }

  /** The tier (1..7) in force for `account` at `t`. */
  tierAt(account: string, t: number): number {
    // Who is tiered, vip changes (see docs/rules.md#r4, #r6): below VIP 14, tier 1 (from the instant the level drops).
    if (this.vipLevelAt(t) < 14) return 1;
    // New sub-accounts (see docs/rules.md#r8): a sub-account created on day D is at tier 1 until 08:00 UTC of D + 1.
    const created = this.input.accounts.find((a) => a.id === account)?.createdAt;
    if (created !== undefined && t < dayOf(created) + DAY + 8 * HOUR) return 1;
    const day = dayOf(t);
    const today = this.snapshotTier(account, day);
    // When a new ratio takes effect (see docs/rules.md#r5): from 08:00 the snapshot of the day is in force (a raise waits until then, a lowering
    // has been in force since 00:00).
    if (t >= day + 8 * HOUR) return today;
    // VIP changes (see docs/rules.md#r6): a VIP rise since 00:00 put the latest snapshot's tier in force at once.
    // The code's reading, kept here: a rise at 00:00:00.000 itself is applied before that instant's
    // snapshot, so it restores yesterday's snapshot tier and today's better tier waits for 08:00
    // (as without a rise). Read from the raise timing and the VIP changes alone (see docs/rules.md#r5, #r6), today's snapshot is the latest one at
    // 00:00:00.000 (it lowers from that very instant, and `limitAt(...).rating` is already today's)
    // and would be in force at once: `>= day` below.
    if (this.lastRise(t) > day) return today;
    // When a new ratio takes effect (see docs/rules.md#r5):before 08:00: the tier in force at the end of yesterday (yesterday's snapshot: its raise
    // came at 08:00, and neither a VIP rise nor a new sub-account (see docs/rules.md#r8) could leave anything else at 24:00), lowered
    // at once to today's if today's is worse, kept if today's is better.
    return Math.min(today, this.snapshotTier(account, day - DAY));
  }

  limitAt(account: string, t: number): number {
    return LIMITS[this.tierAt(account, t) - 1]!;
  }
}
