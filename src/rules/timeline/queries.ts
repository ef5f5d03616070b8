// Reading a timeline at an instant (see docs/rules.md#r5 to #r8): the tier in force for an account,
// the VIP level.
import { InvalidInputError } from '../../errors.js';
import { formatUtcInstant } from '../calendar.js';
import type { AccountRating } from '../family.js';
import { type InstantInput, parseInstant } from '../../internal/parse.js';
import { partitionPoint } from '../../internal/search.js';
import type { Tier } from '../tiers.js';
import type { ReadAccount } from './input.js';
import type { Replayed, TierChange } from './replay.js';
import type { DailyRating, SnapshotRecord } from './snapshots.js';

/**
 * The limit in force for an account at an instant.
 *
 * @example
 * ```ts
 * import { type TierState, buildTimeline } from 'traderatio/rules'
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
 * A computed limit timeline: answers any instant by binary search, without replaying history.
 *
 * @example
 * ```ts
 * import { type Timeline, buildTimeline } from 'traderatio/rules'
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

/**
 * The queries of a timeline (the timing of the tiers read at an instant; see docs/rules.md#r5 to
 * #r8): the tier in force for an account, by a binary search over its changes, and the VIP level,
 * over the VIP changes.
 */
export function timelineQueries(
  start: number,
  accounts: ReadonlyMap<string, ReadAccount>,
  ids: readonly string[],
  replayed: Replayed,
  snapshots: readonly SnapshotRecord[],
  initialVip: number,
  tier1: Tier,
): Timeline {
  const index = new Map(ids.map((id, i) => [id, i]));
  const { changes, perAccount, vipAt, vipLevels } = replayed;
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
      if (k === undefined)
        throw new InvalidInputError('`account`', account, `an account of the timeline (${ids.join(', ')})`);
      const list = perAccount[k]!;
      const created = accounts.get(account)!.createdAt;
      if (created !== undefined && instant < created) {
        throw new InvalidInputError(
          '`at`',
          instant,
          `an instant at or after ${account} was created (${formatUtcInstant(created)})`,
        );
      }
      const c = lastAtOrBefore(perAccountAt[k]!, instant);
      const since = c < 0 ? null : list[c]!;
      const tier = since?.tier ?? tier1;
      const d = lastAtOrBefore(snapshotDays, instant);
      return new State(account, instant, tier, since, vipLevelAt(instant), d < 0 ? null : snapshots[d]!);
    },
  };
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

/** Index of the last element <= `at` in an ascending array, or -1. */
function lastAtOrBefore(sorted: readonly number[], at: number): number {
  return partitionPoint(sorted.length, (i) => sorted[i]! <= at) - 1;
}
