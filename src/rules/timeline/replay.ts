// Replaying a timeline's events (see docs/rules.md#r4 to #r8, docs/okx.md#o7): the tier in force
// for each account, instant by instant, by the timing of the family's rulebook.
import { nextDayRaiseAt } from '../calendar.js';
import type { AccountRating, FamilyConfig } from '../family.js';
import type { RatingTiming } from '../rulebook.js';
import type { Tier, TierTable } from '../tiers.js';
import { isTieredVip, tierInForce } from '../vip.js';
import type { VipChange } from './input.js';
import type { SnapshotRecord } from './snapshots.js';

/**
 * Why a limit changed:
 * - `raised-at-0800`: a better snapshot tier takes effect at 08:00 UTC (see docs/rules.md#r5);
 * - `lowered-at-snapshot`: a worse snapshot tier takes effect at once, at 00:00 UTC (Gate);
 * - `lowered-after-grace`: a worse tier takes effect at 08:00 UTC a day after its snapshot, the
 *   day's snapshot being no better (OKX; see docs/okx.md#o7);
 * - `vip-below-14`: the VIP level fell below the tiered level, tier 1 at once (Gate's VIP 14; see docs/rules.md#r6);
 * - `vip-restored`: the VIP level rose to the tiered level, the latest snapshot's tier at once (Gate);
 * - `new-sub-account`: a sub-account was created, tier 1 (see docs/rules.md#r8);
 * - `new-sub-account-rules-begin`: 08:00 UTC of the day after its creation, the ratio rules apply.
 *
 * @example
 * ```ts
 * import { type ChangeReason, buildTimeline } from 'traderatio/rules'
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
  | 'lowered-after-grace'
  | 'vip-below-14'
  | 'vip-restored'
  | 'new-sub-account'
  | 'new-sub-account-rules-begin';

/**
 * One change of an account's limit.
 *
 * @example
 * ```ts
 * import { type TierChange, buildTimeline } from 'traderatio/rules'
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
  /** The tier's limit, requests per tier window. */
  readonly limit: number;
  /** The tier before, or `null` when the account is created. */
  readonly previousTier: Tier | null;
  readonly reason: ChangeReason;
  /** The latest snapshot's rating of the account, or `null` before the first snapshot. */
  readonly rating: AccountRating | null;
}

// Events at one instant are applied in this order, then each account's change is recorded once.
const enum Kind {
  Create = 0,
  Vip = 1,
  Snapshot = 2,
  Raise = 3,
  RulesBegin = 4,
}
interface Event {
  readonly at: number;
  readonly kind: Kind;
  readonly account?: string;
  readonly level?: number;
  readonly day?: number;
}

interface AccountState {
  created: boolean;
  newSubUntil: number;
  /** Tier by the snapshots' timing alone, before a VIP level below the tiered one and a new sub-account's tier 1. */
  ratioTier: Tier;
  /** The latest snapshot that rated the account, and the account's place in it. */
  snapshot: SnapshotRecord | null;
  snapshotIndex: number;
  /** The tier the latest snapshot gave it (below the tiered VIP level, tier 1 where the level counts at the snapshot). */
  snapshotTier: Tier;
  /** The tier the snapshot of the day before the latest gave it (tier 1 when it was not rated then). */
  previousSnapshotTier: Tier;
  inForce: Tier;
}

/** What replaying a timeline's events gives: every change, each account's, and the VIP level's. */
export interface Replayed {
  readonly changes: readonly TierChange[];
  /** Each account's changes (by its index in the sorted ids), in time order. */
  readonly perAccount: readonly (readonly TierChange[])[];
  /** The instants of the VIP changes and the levels they set. */
  readonly vipAt: readonly number[];
  readonly vipLevels: readonly number[];
}

/** The instant a new sub-account created at `at` leaves tier 1: the raise instant days after its creation day. */
export function rulesBeginAt(at: number, timing: RatingTiming): number {
  return nextDayRaiseAt(at, timing.newSubAccountDays, timing.raiseAfterMs);
}

/**
 * Replays the family's events in time order: creations, VIP changes, the 00:00 ratings and their
 * raises at 08:00, and the end of a new sub-account's tier 1, by the timing of the family's
 * rulebook (Gate lowers at the snapshot, OKX a day later); at each instant, each account's tier in
 * force is decided once and a change recorded where it moves.
 */
export function replay(
  ids: readonly string[],
  createdAt: readonly (number | undefined)[],
  initialVip: number,
  vipChanges: readonly VipChange[],
  snapshots: readonly SnapshotRecord[],
  config: FamilyConfig,
): Replayed {
  const timing = config.rulebook.timing;
  const events: Event[] = [];
  for (const v of vipChanges) events.push({ at: v.at, kind: Kind.Vip, level: v.level });
  for (const [k, id] of ids.entries()) {
    const created = createdAt[k];
    if (created === undefined) continue;
    events.push({ at: created, kind: Kind.Create, account: id });
    events.push({ at: rulesBeginAt(created, timing), kind: Kind.RulesBegin, account: id });
  }
  for (const [d, snap] of snapshots.entries()) {
    events.push({ at: snap.day, kind: Kind.Snapshot, day: d });
    events.push({ at: snap.day + timing.raiseAfterMs, kind: Kind.Raise, day: d });
  }
  events.sort((a, b) => a.at - b.at || a.kind - b.kind || ((a.account ?? '') < (b.account ?? '') ? -1 : 1));
  const family = new FamilyReplay(ids, createdAt, initialVip, config);
  for (let i = 0; i < events.length; ) {
    const at = events[i]!.at;
    family.begin();
    for (; i < events.length && events[i]!.at === at; i++) family.apply(events[i]!, at, snapshots);
    family.end(at);
  }
  return family.replayed();
}

/** A family's state while its events are replayed, with one handler per kind of event. */
class FamilyReplay {
  readonly #ids: readonly string[];
  readonly #index: ReadonlyMap<string, number>;
  readonly #tiers: TierTable;
  readonly #tieredFrom: number;
  readonly #timing: RatingTiming;
  readonly #state: AccountState[];
  #vip: number;
  readonly #vipAt: number[] = [];
  readonly #vipLevels: number[] = [];
  readonly #changes: TierChange[] = [];
  readonly #perAccount: TierChange[][];
  // Per instant: each account's tier before it (null: not created yet) and the last reason given.
  readonly #before: (Tier | null)[];
  readonly #reasons: (ChangeReason | undefined)[];

  constructor(ids: readonly string[], createdAt: readonly (number | undefined)[], vip: number, config: FamilyConfig) {
    this.#ids = ids;
    this.#index = new Map(ids.map((id, i) => [id, i]));
    this.#tiers = config.tiers;
    this.#tieredFrom = config.rulebook.tieredVipLevel;
    this.#timing = config.rulebook.timing;
    const tier1 = config.tiers[0]!;
    this.#state = ids.map((_, k) => ({
      created: createdAt[k] === undefined,
      newSubUntil: -Infinity,
      ratioTier: tier1,
      snapshot: null,
      snapshotIndex: -1,
      snapshotTier: tier1,
      previousSnapshotTier: tier1,
      inForce: tier1,
    }));
    this.#vip = vip;
    this.#perAccount = ids.map(() => []);
    this.#before = ids.map(() => null);
    this.#reasons = ids.map(() => undefined);
  }

  /** Before the events of an instant: each account's tier before it. */
  begin(): void {
    for (let k = 0; k < this.#ids.length; k++) {
      const s = this.#state[k]!;
      this.#before[k] = s.created ? s.inForce : null;
    }
    this.#reasons.fill(undefined);
  }

  apply(e: Event, at: number, snapshots: readonly SnapshotRecord[]): void {
    switch (e.kind) {
      case Kind.Create:
        return this.#create(this.#index.get(e.account!)!, at);
      case Kind.Vip:
        return this.#vipChange(e.level!, at);
      case Kind.Snapshot:
        return this.#snapshot(snapshots[e.day!]!);
      case Kind.Raise:
        return this.#raise(snapshots[e.day!]!);
      case Kind.RulesBegin:
        this.#reasons[this.#index.get(e.account!)!] = 'new-sub-account-rules-begin';
    }
  }

  #create(k: number, at: number): void {
    const s = this.#state[k]!;
    s.created = true;
    s.newSubUntil = rulesBeginAt(at, this.#timing);
    s.ratioTier = this.#tiers[0]!;
    this.#reasons[k] = 'new-sub-account';
  }

  /** A VIP change counts at once (Gate), or only as the level a later snapshot reads (OKX). */
  #vipChange(level: number, at: number): void {
    const wasTiered = isTieredVip(this.#vip, this.#tieredFrom);
    this.#vip = level;
    this.#vipAt.push(at);
    this.#vipLevels.push(level);
    if (this.#timing.vipChanges !== 'at-once') return;
    const isTiered = isTieredVip(level, this.#tieredFrom);
    if (wasTiered && !isTiered) this.#reasons.fill('vip-below-14');
    if (!wasTiered && isTiered) {
      for (const s of this.#state) s.ratioTier = s.snapshotTier;
      this.#reasons.fill('vip-restored');
    }
  }

  /** The 00:00 snapshot: each rated account's tier noted; a worse one in force at once where the rulebook lowers at the snapshot. */
  #snapshot(snap: SnapshotRecord): void {
    const atSnapshot = this.#timing.vipChanges === 'at-snapshot';
    this.#eachRated(snap, (k, s, rated, j) => {
      const tier = atSnapshot ? tierInForce(this.#vip, rated, this.#tiers, this.#tieredFrom) : rated;
      // Snapshots are taken on consecutive days: the one before is the previous day's, when it rated the account.
      s.previousSnapshotTier = s.snapshot === null ? this.#tiers[0]! : s.snapshotTier;
      s.snapshot = snap;
      s.snapshotIndex = j;
      s.snapshotTier = tier;
      if (this.#timing.lowering === 'at-snapshot' && tier.tier < s.ratioTier.tier) {
        s.ratioTier = tier;
        this.#reasons[k] = 'lowered-at-snapshot';
      }
    });
  }

  /**
   * 08:00: a better tier in force; after a day's grace, the higher of the tiers of this snapshot and
   * the one before, up or down.
   */
  #raise(snap: SnapshotRecord): void {
    const grace = this.#timing.lowering === 'after-grace';
    this.#eachRated(snap, (k, s) => {
      const tier = grace && s.previousSnapshotTier.tier > s.snapshotTier.tier ? s.previousSnapshotTier : s.snapshotTier;
      if (tier.tier > s.ratioTier.tier) this.#reasons[k] = 'raised-at-0800';
      else if (grace && tier.tier < s.ratioTier.tier) this.#reasons[k] = 'lowered-after-grace';
      else return;
      s.ratioTier = tier;
    });
  }

  /** Each account a snapshot rated: its index, its state, the tier the snapshot gave it and its place in the snapshot. */
  #eachRated(snap: SnapshotRecord, visit: (k: number, s: AccountState, tier: Tier, j: number) => void): void {
    for (let j = 0; j < snap.ids.length; j++) {
      const k = this.#index.get(snap.ids[j]!)!;
      visit(k, this.#state[k]!, snap.tiers[j]!, j);
    }
  }

  /** After the events of an instant: each account's tier in force, and a change where it moved. */
  end(at: number): void {
    const vipAtOnce = this.#timing.vipChanges === 'at-once';
    for (let k = 0; k < this.#ids.length; k++) {
      const s = this.#state[k]!;
      if (!s.created) continue;
      s.inForce =
        at < s.newSubUntil
          ? this.#tiers[0]!
          : vipAtOnce
            ? tierInForce(this.#vip, s.ratioTier, this.#tiers, this.#tieredFrom)
            : s.ratioTier;
      const previous = this.#before[k]!;
      const reason = this.#reasons[k];
      if ((previous !== null && previous.tier === s.inForce.tier) || reason === undefined) continue;
      const change = new Change(at, this.#ids[k]!, s.inForce, previous, reason, s.snapshot, s.snapshotIndex);
      this.#changes.push(change);
      this.#perAccount[k]!.push(change);
    }
  }

  replayed(): Replayed {
    return { changes: this.#changes, perAccount: this.#perAccount, vipAt: this.#vipAt, vipLevels: this.#vipLevels };
  }
}

/** A change, whose snapshot rating is read from the snapshot when asked for. */
export class Change implements TierChange {
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
