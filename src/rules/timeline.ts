import { InvalidInputError } from '../errors.js';
import { DAY_MS, RAISE_OFFSET_MS, formatUtcInstant, nextDayRaiseAt, parseUtcDay, utcDayStart } from './calendar.js';
import { type AccountRating, type FamilyConfig, type FamilyOptions, approxTotals, rateAccount, resolveFamilyOptions, windowRater } from './family.js';
import { type InstantInput, checkFields, parseId, parseInstant } from './parse.js';
import { type ActivityTotals, type ContractActivity, EMPTY_TOTALS, type RatioResult, addTotals, ratioOfTotals, totalsOf } from './ratio.js';
import { RATIO_WINDOW_DAYS, ratioWindow, sumRatioWindow } from './ratio-window.js';
import { partitionPoint } from './search.js';
import { tierOfRatio } from './tiers.js';
import type { Tier } from './tiers.js';
import { TIERED_VIP_LEVEL, isTieredVip, parseVipLevel, tierInForce } from './vip.js';

/**
 * An account of the family.
 *
 * @example
 * ```ts
 * import { type TimelineAccount, buildTimeline } from 'traderatio'
 *
 * const bot: TimelineAccount = { id: 'bot', createdAt: Date.parse('2026-11-05T10:00:00Z') }
 * const timeline = buildTimeline({ accounts: [{ id: 'main', role: 'main' }, bot], activity: [] })
 * timeline.limitAt('bot', '2026-11-05T12:00:00Z').since?.reason // 'new-sub-account'
 * ```
 */
export interface TimelineAccount {
  /** The account's id. */
  readonly id: string;
  /** `main` for the main account (at most one). @default "sub" */
  readonly role?: 'main' | 'sub';
  /**
   * When a sub-account was created (epoch ms; {@link buildTimeline} also reads a Date or ISO text,
   * see {@link InstantInput}). It is at tier 1 from then until 08:00 UTC of the next day (R8). Omit
   * for accounts that existed before the timeline starts.
   */
  readonly createdAt?: number;
}

/**
 * One account's activity on one UTC day.
 *
 * @example
 * ```ts
 * import { type DailyActivity, buildTimeline } from 'traderatio'
 *
 * const day: DailyActivity = { account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }
 * const timeline = buildTimeline({ accounts: [{ id: 'main', role: 'main' }], activity: [day] })
 * timeline.limitAt('main', '2026-11-02T08:00:00Z').limit // 250
 * ```
 */
export interface DailyActivity {
  readonly account: string;
  /** The UTC day: `YYYY-MM-DD` or epoch ms at 00:00 UTC. */
  readonly day: string | number;
  readonly contracts: readonly ContractActivity[];
}

/**
 * A change of the family's VIP level (the main account's; sub-accounts share it, R4).
 *
 * @example
 * ```ts
 * import { type VipChange, buildTimeline } from 'traderatio'
 *
 * const drop: VipChange = { at: Date.parse('2026-11-06T00:00:00Z'), level: 13 }
 * const timeline = buildTimeline({ accounts: [{ id: 'main', role: 'main' }], activity: [], vipChanges: [drop] })
 * timeline.vipLevelAt('2026-11-05T23:59:59Z') // 14
 * timeline.vipLevelAt('2026-11-06T00:00:00Z') // 13
 * ```
 */
export interface VipChange {
  /** Epoch ms ({@link buildTimeline} also reads a Date or ISO text, see {@link InstantInput}). */
  readonly at: number;
  readonly level: number;
}

/**
 * Everything the timeline is computed from. Arrays may come in any order.
 *
 * @example
 * ```ts
 * import { type TimelineInput, buildTimeline } from 'traderatio'
 *
 * const input: TimelineInput = {
 *   accounts: [{ id: 'main', role: 'main' }],
 *   activity: [{ account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }],
 *   vipLevel: 13,
 * }
 * buildTimeline(input).limitAt('main', '2026-11-02T08:00:00Z').limit // 100
 * ```
 */
export interface TimelineInput {
  readonly accounts: readonly TimelineAccount[];
  /** Daily activity. One entry per account and day; a repeat is refused. */
  readonly activity: readonly DailyActivity[];
  /** The VIP level before the first change. @default 14 */
  readonly vipLevel?: number;
  /** VIP changes; two at the same instant are refused. @default [] */
  readonly vipChanges?: readonly VipChange[];
}

/**
 * Why a limit changed:
 * - `raised-at-0800`: a better snapshot tier takes effect at 08:00 UTC (R5);
 * - `lowered-at-snapshot`: a worse snapshot tier takes effect at once, at 00:00 UTC (R5);
 * - `vip-below-14`: the VIP level fell below 14, tier 1 at once (R6);
 * - `vip-restored`: the VIP level rose to 14 or more, the latest snapshot's tier at once (R6);
 * - `new-sub-account`: a sub-account was created, tier 1 (R8);
 * - `new-sub-account-rules-begin`: 08:00 UTC of the day after its creation, R5-R7 apply (R8).
 *
 * @example
 * ```ts
 * import { type ChangeReason, buildTimeline } from 'traderatio'
 *
 * const timeline = buildTimeline({
 *   accounts: [{ id: 'main', role: 'main' }],
 *   activity: [{ account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }],
 * })
 * const reasons: ChangeReason[] = timeline.changes.map((c) => c.reason)
 * reasons // ['raised-at-0800', 'lowered-at-snapshot']
 * ```
 */
export type ChangeReason =
  | 'raised-at-0800'
  | 'lowered-at-snapshot'
  | 'vip-below-14'
  | 'vip-restored'
  | 'new-sub-account'
  | 'new-sub-account-rules-begin';

/**
 * One change of an account's limit.
 *
 * @example
 * ```ts
 * import { type TierChange, buildTimeline } from 'traderatio'
 *
 * const timeline = buildTimeline({
 *   accounts: [{ id: 'main', role: 'main' }],
 *   activity: [{ account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }],
 * })
 * const raise: TierChange = timeline.changes[0]!
 * new Date(raise.at).toISOString() // '2026-11-02T08:00:00.000Z'
 * raise.previousTier?.tier // 1
 * raise.tier.tier // 4
 * ```
 */
export interface TierChange {
  /** Epoch ms from which the new limit is in force. */
  readonly at: number;
  readonly account: string;
  readonly tier: Tier;
  /** Requests per second (the tier's limit). */
  readonly limit: number;
  /** The tier before, or `null` when the account is created. */
  readonly previousTier: Tier | null;
  readonly reason: ChangeReason;
  /** The latest snapshot's rating of the account, or `null` before the first snapshot. */
  readonly rating: AccountRating | null;
}

/**
 * The limit in force for an account at an instant.
 *
 * @example
 * ```ts
 * import { type TierState, buildTimeline } from 'traderatio'
 *
 * const timeline = buildTimeline({
 *   accounts: [{ id: 'main', role: 'main' }],
 *   activity: [{ account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }],
 * })
 * const state: TierState = timeline.limitAt('main', '2026-11-02T09:00:00Z')
 * state.limit // 250
 * state.rating?.effective.ratio.toString() // '6'
 * ```
 */
export interface TierState {
  readonly account: string;
  /** The instant asked about. */
  readonly at: number;
  readonly tier: Tier;
  /** Requests per second. */
  readonly limit: number;
  /** The change that set it, or `null` while nothing has changed since the start (tier 1, no history). */
  readonly since: TierChange | null;
  /** The VIP level at `at`. */
  readonly vipLevel: number;
  /** The latest snapshot's rating of the account at `at`, or `null` before the first one. */
  readonly rating: AccountRating | null;
}

/**
 * A family's snapshot at 00:00 UTC of a day (R5).
 *
 * @example
 * ```ts
 * import { type DailyRating, buildTimeline } from 'traderatio'
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
 * A computed limit timeline: answers any instant by binary search, without replaying history.
 *
 * @example
 * ```ts
 * import { type Timeline, buildTimeline } from 'traderatio'
 *
 * const timeline: Timeline = buildTimeline({
 *   accounts: [{ id: 'main', role: 'main' }],
 *   activity: [{ account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }],
 * })
 * timeline.snapshots.length // 8
 * timeline.limitAt('main', '2026-11-09T00:00:00Z').limit // 100
 * ```
 */
export interface Timeline {
  /** 00:00 UTC of the first day the input mentions. Before it every account is at tier 1. */
  readonly start: number;
  /** Every change, in time order (ties by account id). */
  readonly changes: readonly TierChange[];
  /** Every snapshot taken, in day order. */
  readonly snapshots: readonly DailyRating[];
  /** The limit in force for `account` at `at` (epoch ms, a Date or ISO text: {@link InstantInput}). */
  limitAt(account: string, at: InstantInput): TierState;
  /** The VIP level in force at `at` (epoch ms, a Date or ISO text). */
  vipLevelAt(at: InstantInput): number;
}

// Events at one instant are applied in this order, then each account's change is recorded once.
const enum Kind { Create = 0, Vip = 1, Snapshot = 2, Raise = 3, RulesBegin = 4 }
interface Event { readonly at: number; readonly kind: Kind; readonly account?: string; readonly level?: number; readonly day?: number }

interface AccountState {
  created: boolean;
  newSubUntil: number;
  /** Tier by R5 alone (lowered at the snapshot, raised at 08:00), before the R6/R8 overrides. */
  ratioTier: Tier;
  /** The latest snapshot that rated the account, and the account's place in it. */
  snapshot: SnapshotRecord | null;
  snapshotIndex: number;
  snapshotTier: Tier;
  inForce: Tier;
}

/**
 * Computes the limit timeline of a family (R5, R6, R8 over R1-R4, R7): every snapshot at 00:00
 * UTC over the 7 days before it, raises at 08:00, lowerings at once, VIP changes and new
 * sub-accounts. Queries then cost a binary search.
 *
 * @example
 * ```ts
 * import { buildTimeline } from 'traderatio'
 *
 * const timeline = buildTimeline({
 *   accounts: [{ id: 'main', role: 'main' }],
 *   activity: [{ account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }],
 * })
 * timeline.limitAt('main', Date.parse('2026-11-02T07:59:59.999Z')).limit // 100
 * timeline.limitAt('main', Date.parse('2026-11-02T08:00:00.000Z')).limit // 250
 * ```
 */
export function buildTimeline(input: TimelineInput, options?: FamilyOptions): Timeline;
/** @internal */
export function buildTimeline(input: TimelineInput, options?: FamilyOptions | FamilyConfig): Timeline;
export function buildTimeline(input: TimelineInput, options: FamilyOptions | FamilyConfig = {}): Timeline {
  const config = resolveFamilyOptions(options);
  if (typeof input !== 'object' || input === null) throw new InvalidInputError('`input`', input, 'an object');
  checkFields(input, TIMELINE_INPUT_FIELDS, 'the timeline input');
  const accounts = readAccounts(input.accounts);
  const initialVip = parseVipLevel(input.vipLevel ?? TIERED_VIP_LEVEL, '`vipLevel`');
  const vipChanges = readVipChanges(input.vipChanges ?? []);
  const ids = [...accounts.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = new Map(ids.map((id, i) => [id, i]));
  const days = readActivity(input.activity, accounts, index, config);

  const mentioned = [
    ...(days.first === undefined ? [] : [days.first]),
    ...vipChanges.map((v) => utcDayStart(v.at)),
    ...[...accounts.values()].flatMap((a) => (a.createdAt === undefined ? [] : [utcDayStart(a.createdAt)])),
  ];
  const start = mentioned.length === 0 ? 0 : Math.min(...mentioned);

  const events: Event[] = [];
  for (const v of vipChanges) events.push({ at: v.at, kind: Kind.Vip, level: v.level });
  for (const id of ids) {
    const created = accounts.get(id)!.createdAt;
    if (created === undefined) continue;
    events.push({ at: created, kind: Kind.Create, account: id });
    events.push({ at: nextDayRaiseAt(created), kind: Kind.RulesBegin, account: id });
  }

  // Rolling 7-day windows of every account, one snapshot per day from the day after the first
  // activity to the day the last activity leaves the window.
  const allAccounts = ids.map((_, k) => k);
  const createdAt = ids.map((id) => accounts.get(id)!.createdAt);
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
    for (let day = first + DAY_MS; day <= days.last + (RATIO_WINDOW_DAYS + 1) * DAY_MS; day += DAY_MS) {
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
      events.push({ at: day, kind: Kind.Snapshot, day: snapshots.length - 1 });
      events.push({ at: day + RAISE_OFFSET_MS, kind: Kind.Raise, day: snapshots.length - 1 });
    }
  }
  events.sort((a, b) => a.at - b.at || a.kind - b.kind || ((a.account ?? '') < (b.account ?? '') ? -1 : 1));

  const tier1 = config.tiers[0]!;
  const state: AccountState[] = ids.map((id) => ({
    created: accounts.get(id)!.createdAt === undefined,
    newSubUntil: -Infinity,
    ratioTier: tier1,
    snapshot: null,
    snapshotIndex: -1,
    snapshotTier: tier1,
    inForce: tier1,
  }));
  let vip = initialVip;
  const vipAt: number[] = [];
  const vipLevels: number[] = [];
  const changes: TierChange[] = [];
  const perAccount: TierChange[][] = ids.map(() => []);
  // Per instant: each account's tier before it (null: not created yet) and the last reason given.
  const before: (Tier | null)[] = ids.map(() => null);
  const reasons: (ChangeReason | undefined)[] = ids.map(() => undefined);
  const all = (reason: ChangeReason) => reasons.fill(reason);
  // Each account a snapshot rated: its index, its state, the tier the snapshot gave it and its place in the snapshot.
  const eachRated = (snap: SnapshotRecord, visit: (k: number, s: AccountState, tier: Tier, j: number) => void): void => {
    for (let j = 0; j < snap.ids.length; j++) {
      const k = index.get(snap.ids[j]!)!;
      visit(k, state[k]!, snap.tiers[j]!, j);
    }
  };

  for (let i = 0; i < events.length;) {
    const at = events[i]!.at;
    for (let k = 0; k < ids.length; k++) before[k] = state[k]!.created ? state[k]!.inForce : null;
    reasons.fill(undefined);
    for (; i < events.length && events[i]!.at === at; i++) {
      const e = events[i]!;
      switch (e.kind) {
        case Kind.Create: {
          const k = index.get(e.account!)!;
          const s = state[k]!;
          s.created = true;
          s.newSubUntil = nextDayRaiseAt(at);
          s.ratioTier = tier1;
          reasons[k] = 'new-sub-account';
          break;
        }
        case Kind.Vip: {
          const wasTiered = isTieredVip(vip);
          vip = e.level!;
          vipAt.push(at);
          vipLevels.push(vip);
          const isTiered = isTieredVip(vip);
          if (wasTiered && !isTiered) all('vip-below-14');
          if (!wasTiered && isTiered) {
            for (const s of state) s.ratioTier = s.snapshotTier;
            all('vip-restored');
          }
          break;
        }
        case Kind.Snapshot: {
          const snap = snapshots[e.day!]!;
          eachRated(snap, (k, s, tier, j) => {
            s.snapshot = snap;
            s.snapshotIndex = j;
            s.snapshotTier = tier;
            if (tier.tier < s.ratioTier.tier) {
              s.ratioTier = tier;
              reasons[k] = 'lowered-at-snapshot';
            }
          });
          break;
        }
        case Kind.Raise:
          eachRated(snapshots[e.day!]!, (k, s, tier) => {
            if (tier.tier > s.ratioTier.tier) {
              s.ratioTier = tier;
              reasons[k] = 'raised-at-0800';
            }
          });
          break;
        case Kind.RulesBegin:
          reasons[index.get(e.account!)!] = 'new-sub-account-rules-begin';
          break;
      }
    }
    for (let k = 0; k < ids.length; k++) {
      const s = state[k]!;
      if (!s.created) continue;
      s.inForce = at < s.newSubUntil ? tier1 : tierInForce(vip, s.ratioTier, config.tiers);
      const previous = before[k]!;
      const reason = reasons[k];
      if ((previous !== null && previous.tier === s.inForce.tier) || reason === undefined) continue;
      const change = new Change(at, ids[k]!, s.inForce, previous, reason, s.snapshot, s.snapshotIndex);
      changes.push(change);
      perAccount[k]!.push(change);
    }
  }

  const snapshotDays = snapshots.map((s) => s.day);
  const vipLevelAt = (at: number): number => {
    const k = lastAtOrBefore(vipAt, at);
    return k < 0 ? initialVip : vipLevels[k]!;
  };
  const perAccountAt = perAccount.map((list) => list.map((c) => c.at));

  return {
    start,
    changes,
    snapshots,
    vipLevelAt(at: InstantInput): number {
      return vipLevelAt(parseInstant(at, '`at`'));
    },
    limitAt(account: string, at: InstantInput): TierState {
      const instant = parseInstant(at, '`at`');
      const k = index.get(account);
      if (k === undefined) throw new InvalidInputError('`account`', account, `an account of the timeline (${ids.join(', ')})`);
      const list = perAccount[k]!;
      const created = accounts.get(account)!.createdAt;
      if (created !== undefined && instant < created) {
        throw new InvalidInputError('`at`', instant, `an instant at or after ${account} was created (${formatUtcInstant(created)})`);
      }
      const c = lastAtOrBefore(perAccountAt[k]!, instant);
      const since = c < 0 ? null : list[c]!;
      const tier = since?.tier ?? tier1;
      const d = lastAtOrBefore(snapshotDays, instant);
      return new State(account, instant, tier, since, vipLevelAt(instant), d < 0 ? null : snapshots[d]!);
    },
  };
}

/**
 * A snapshot as the timeline keeps it: each account's window totals and tier. The ratings with
 * their exact ratios are rebuilt from the totals when first read: a year of a large family holds
 * tens of thousands of them, and keeping them all alive costs more than computing the few read.
 */
class SnapshotRecord implements DailyRating {
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
    return (this.memo[i] ??= rateAccount(this.ids[i]!, this.windowTotals()[i]!, f.totals, f.aggregated, f.tier, this.config));
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

/** A limit state, whose snapshot rating is read from the snapshot when asked for. */
class State implements TierState {
  readonly limit: number;
  constructor(
    readonly account: string,
    readonly at: number,
    readonly tier: Tier,
    readonly since: TierChange | null,
    readonly vipLevel: number,
    private readonly snapshot: SnapshotRecord | null,
  ) {
    this.limit = tier.limit;
  }
  get rating(): AccountRating | null {
    return this.snapshot === null ? null : this.snapshot.ratingOf(this.account);
  }
}

/** A change, whose snapshot rating is read from the snapshot when asked for. */
class Change implements TierChange {
  readonly limit: number;
  constructor(
    readonly at: number,
    readonly account: string,
    readonly tier: Tier,
    readonly previousTier: Tier | null,
    readonly reason: ChangeReason,
    private readonly snapshot: SnapshotRecord | null,
    private readonly index: number,
  ) {
    this.limit = tier.limit;
  }
  get rating(): AccountRating | null {
    return this.snapshot === null ? null : this.snapshot.ratingAt(this.index);
  }
}

/** Index of the last element <= `at` in an ascending array, or -1. */
function lastAtOrBefore(sorted: readonly number[], at: number): number {
  return partitionPoint(sorted.length, (i) => sorted[i]! <= at) - 1;
}

const TIMELINE_INPUT_FIELDS: readonly string[] = ['accounts', 'activity', 'vipLevel', 'vipChanges'];
const DAILY_ACTIVITY_FIELDS: readonly string[] = ['account', 'day', 'contracts'];

interface ReadAccount { readonly id: string; readonly createdAt: number | undefined }

function readAccounts(list: unknown): Map<string, ReadAccount> {
  if (!Array.isArray(list) || list.length === 0) throw new InvalidInputError('`accounts`', list, 'a non-empty array');
  const out = new Map<string, ReadAccount>();
  let main: string | undefined;
  for (const [i, a] of (list as TimelineAccount[]).entries()) {
    if (typeof a !== 'object' || a === null) throw new InvalidInputError(`\`accounts[${i}]\``, a, 'an object { id, role?, createdAt? }');
    checkFields(a, ['id', 'role', 'createdAt'], `\`accounts[${i}]\``);
    const id = parseId(a.id, `\`accounts[${i}].id\``);
    if (out.has(id)) throw new InvalidInputError(`\`accounts[${i}].id\``, id, 'an id listed once');
    const role = a.role ?? 'sub';
    if (role !== 'main' && role !== 'sub') throw new InvalidInputError(`\`accounts[${i}].role\``, a.role, '"main" or "sub"');
    if (role === 'main') {
      if (main !== undefined) throw new InvalidInputError(`\`accounts[${i}].role\``, role, `"sub" (${main} is the main account)`);
      main = id;
    }
    let createdAt: number | undefined;
    if (a.createdAt !== undefined) {
      if (role === 'main') throw new InvalidInputError(`\`accounts[${i}].createdAt\``, a.createdAt, 'absent for the main account (R8 is about sub-accounts)');
      createdAt = parseInstant(a.createdAt, `\`accounts[${i}].createdAt\``);
    }
    out.set(id, { id, createdAt });
  }
  return out;
}

function readVipChanges(list: unknown): VipChange[] {
  if (!Array.isArray(list)) throw new InvalidInputError('`vipChanges`', list, 'an array');
  const out = (list as VipChange[]).map((v, i) => {
    if (typeof v !== 'object' || v === null) throw new InvalidInputError(`\`vipChanges[${i}]\``, v, 'an object { at, level }');
    checkFields(v, ['at', 'level'], `\`vipChanges[${i}]\``);
    return { at: parseInstant(v.at, `\`vipChanges[${i}].at\``), level: parseVipLevel(v.level, `\`vipChanges[${i}].level\``) };
  });
  out.sort((a, b) => a.at - b.at);
  for (let i = 1; i < out.length; i++) {
    if (out[i]!.at === out[i - 1]!.at) {
      throw new InvalidInputError('`vipChanges[].at`', out[i]!.at, `one VIP change per instant (two at ${formatUtcInstant(out[i]!.at)})`);
    }
  }
  return out;
}

/** Each account's daily totals (by index), and the first and last day with any. */
interface ReadActivity {
  readonly byAccount: readonly Map<number, ActivityTotals>[];
  readonly first: number | undefined;
  readonly last: number | undefined;
}

function readActivity(
  list: unknown,
  accounts: ReadonlyMap<string, ReadAccount>,
  index: ReadonlyMap<string, number>,
  config: FamilyConfig,
): ReadActivity {
  if (!Array.isArray(list)) throw new InvalidInputError('`activity`', list, 'an array');
  const byAccount = [...index.keys()].map(() => new Map<number, ActivityTotals>());
  let first: number | undefined;
  let last: number | undefined;
  // Many entries name the same day: read each day's text once.
  const dayTexts = new Map<string, number>();
  const entries = list as DailyActivity[];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (typeof entry !== 'object' || entry === null) throw new InvalidInputError(`\`activity[${i}]\``, entry, 'an object { account, day, contracts }');
    checkFields(entry, DAILY_ACTIVITY_FIELDS, () => `\`activity[${i}]\``);
    const account = accounts.get(entry.account);
    if (account === undefined) {
      throw new InvalidInputError(`\`activity[${i}].account\``, entry.account, `an account listed in \`accounts\` (${[...accounts.keys()].join(', ')})`);
    }
    const raw = entry.day;
    let day: number;
    if (typeof raw === 'string' && dayTexts.has(raw)) day = dayTexts.get(raw)!;
    else {
      day = parseUtcDay(raw, `\`activity[${i}].day\``);
      if (typeof raw === 'string') dayTexts.set(raw, day);
    }
    if (account.createdAt !== undefined && day < utcDayStart(account.createdAt)) {
      throw new InvalidInputError(`\`activity[${i}].day\``, entry.day, `a day on or after ${account.id} was created (${formatUtcInstant(account.createdAt)})`);
    }
    const own = byAccount[index.get(account.id)!]!;
    if (own.has(day)) {
      throw new InvalidInputError(`\`activity[${i}]\``, `${account.id} on ${String(entry.day)}`, 'one entry per account and day (this one repeats)');
    }
    own.set(day, totalsOf(entry.contracts, config.ratio, () => ` in \`activity[${i}]\` (${account.id}, ${String(entry.day)})`));
    if (first === undefined || day < first) first = day;
    if (last === undefined || day > last) last = day;
  }
  return { byAccount, first, last };
}
