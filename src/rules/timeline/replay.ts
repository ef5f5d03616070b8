// Replaying a timeline's events (R4-R8): the tier in force for each account, instant by instant.
import type { AccountRating, FamilyConfig } from '../family.js';
import { RAISE_OFFSET_MS, nextDayRaiseAt } from '../calendar.js';
import type { Tier } from '../tiers.js';
import { isTieredVip, tierInForce } from '../vip.js';
import type { VipChange } from './input.js';
import type { SnapshotRecord } from './snapshots.js';

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
  /** Requests per second (the tier's limit). */
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
  /** Tier by R5 alone (lowered at the snapshot, raised at 08:00), before the R6/R8 overrides. */
  ratioTier: Tier;
  /** The latest snapshot that rated the account, and the account's place in it. */
  snapshot: SnapshotRecord | null;
  snapshotIndex: number;
  snapshotTier: Tier;
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

/**
 * Replays the family's events in time order (R4-R8): creations, VIP changes, the 00:00 ratings
 * (lowering at once) and their 08:00 raises, and the end of a new sub-account's tier 1; at each
 * instant, each account's tier in force is decided once and a change recorded where it moves.
 */
export function replay(
  ids: readonly string[],
  createdAt: readonly (number | undefined)[],
  initialVip: number,
  vipChanges: readonly VipChange[],
  snapshots: readonly SnapshotRecord[],
  config: FamilyConfig,
): Replayed {
  const index = new Map(ids.map((id, i) => [id, i]));
  const events: Event[] = [];
  for (const v of vipChanges) events.push({ at: v.at, kind: Kind.Vip, level: v.level });
  for (const [k, id] of ids.entries()) {
    const created = createdAt[k];
    if (created === undefined) continue;
    events.push({ at: created, kind: Kind.Create, account: id });
    events.push({ at: nextDayRaiseAt(created), kind: Kind.RulesBegin, account: id });
  }
  for (const [d, snap] of snapshots.entries()) {
    events.push({ at: snap.day, kind: Kind.Snapshot, day: d });
    events.push({ at: snap.day + RAISE_OFFSET_MS, kind: Kind.Raise, day: d });
  }
  events.sort((a, b) => a.at - b.at || a.kind - b.kind || ((a.account ?? '') < (b.account ?? '') ? -1 : 1));

  const tier1 = config.tiers[0]!;
  const state: AccountState[] = ids.map((_, k) => ({
    created: createdAt[k] === undefined,
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
  const eachRated = (
    snap: SnapshotRecord,
    visit: (k: number, s: AccountState, tier: Tier, j: number) => void,
  ): void => {
    for (let j = 0; j < snap.ids.length; j++) {
      const k = index.get(snap.ids[j]!)!;
      visit(k, state[k]!, snap.tiers[j]!, j);
    }
  };

  for (let i = 0; i < events.length; ) {
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
  return { changes, perAccount, vipAt, vipLevels };
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
