import { InvalidInputError } from '../errors.js';
import type { AbuseConfig } from '../rules/abuse.js';
import { formatUtcInstant } from '../rules/calendar.js';
import { normalizeContract } from '../rules/contracts.js';
import type { FamilyConfig } from '../rules/family.js';
import { type SpotFillConfig, UNNAMED_PAIR } from '../rules/spot-fill.js';
import type { Timeline, TimelineAccount } from '../rules/timeline/timeline.js';
import { type FamilyState, timelineOf } from './family-state.js';
import { type ReadHistory, addHistory } from './history.js';
import type { LimitsState } from './in-force.js';
import { copyAccount } from './persistence.js';
import type { CountedMarket, SharedCounts } from './shared-counts.js';
import { type CountedAction, type FillRole, Tracker } from './tracker.js';
import { withUnread } from './unread.js';

/** What the family's counts are read with. */
export interface FamilyCountsConfig {
  readonly family: FamilyConfig;
  readonly abuse: AbuseConfig;
  readonly spotFill: SpotFillConfig;
  /** The contract a futures order request that names none counts under. */
  readonly unknownContract: string;
}

/**
 * An account limiter's family as it changes: its accounts, its VIP history, and the futures and
 * spot order requests and fills it counts (see docs/rules.md#r1, #r9, #r14), kept here or, when the store keeps
 * counts, summed over every process (each reading of the totals replaces the trackers). The
 * fields are the state itself, not copies; a change is made once a timeline built with it has
 * accepted it.
 */
export class FamilyCounts implements FamilyState {
  accounts: TimelineAccount[];
  /** The VIP level before the first change (see docs/rules.md#r4). */
  vipLevel: number;
  /** VIP changes in order (see docs/rules.md#r6). */
  vipChanges: { at: number; level: number }[] = [];
  /** Futures order requests and fills (see docs/rules.md#r1, #r9). */
  tracker = new Tracker();
  /** Spot order requests and fills (see docs/rules.md#r14). */
  spotTracker = new Tracker();

  /** `shared`: the counts of every process, when the store keeps them (else null). */
  constructor(
    accounts: readonly TimelineAccount[],
    vipLevel: number,
    private readonly config: FamilyCountsConfig,
    readonly shared: SharedCounts | null,
  ) {
    this.accounts = accounts.map(copyAccount);
    this.vipLevel = vipLevel;
  }

  /** The limit timeline of the family as it is, or with `changes` (see docs/rules.md#r3 to #r8); it throws on a state that is not valid, and then nothing has changed. */
  timeline(changes: Partial<Pick<FamilyState, 'accounts' | 'vipLevel' | 'vipChanges' | 'tracker'>> = {}): Timeline {
    const {
      accounts = this.accounts,
      vipLevel = this.vipLevel,
      vipChanges = this.vipChanges,
      tracker = this.tracker,
    } = changes;
    return timelineOf({ accounts, vipLevel, vipChanges, tracker }, this.config.family);
  }

  /** What the limits in force are read from now, with the family's `timeline` (see docs/rules.md#r3 to #r9, #r14). */
  rules(timeline: Timeline): LimitsState {
    return {
      timeline,
      futures: this.tracker,
      spot: this.spotTracker,
      abuse: this.config.abuse,
      spotFill: this.config.spotFill,
      tieredFrom: this.config.family.rulebook.tieredVipLevel,
    };
  }

  /**
   * The rules' state with, for `account`, `most` more order requests (futures and spot) put at `at`:
   * as many as its limits let other processes count and not yet share, just before a boundary.
   * The limits read from it are never looser than those the shared counts will show once every
   * process's counts up to the boundary are read.
   */
  unread(account: string, most: { readonly futures: number; readonly spot: number }, at: number): LimitsState {
    const futures = Tracker.restore(
      withUnread(this.tracker.snapshot(), account, this.config.unknownContract, at, most.futures),
    );
    const spot = Tracker.restore(withUnread(this.spotTracker.snapshot(), account, UNNAMED_PAIR, at, most.spot));
    return {
      timeline: this.timeline({ tracker: futures }),
      futures,
      spot,
      abuse: this.config.abuse,
      spotFill: this.config.spotFill,
      tieredFrom: this.config.family.rulebook.tieredVipLevel,
    };
  }

  /**
   * Adds a change of the VIP level to `level` at `at` (see docs/rules.md#r6), after the last one, and returns the
   * timeline with it. A change refused (out of order, or a timeline that rejects it) changes nothing.
   */
  changeVip(level: number, at: number): Timeline {
    const last = this.vipChanges.at(-1)?.at ?? -Infinity;
    if (at <= last)
      throw new InvalidInputError('`at`', at, `an instant after the last VIP change (${formatUtcInstant(last)})`);
    const vipChanges = [...this.vipChanges, { at, level }];
    const timeline = this.timeline({ vipChanges });
    this.vipChanges = vipChanges;
    return timeline;
  }

  /**
   * Adds the sub-account `id`, created at `createdAt` (see docs/rules.md#r8), and returns the timeline with it. One
   * the timeline refuses changes nothing.
   */
  addAccount(id: string, createdAt: number): Timeline {
    const accounts = [...this.accounts, { id, createdAt }];
    const timeline = this.timeline({ accounts });
    this.accounts = accounts;
    return timeline;
  }

  /**
   * Counts `orders` order requests of `action` on `contract` (a spot pair for `spot`) as they start
   * at `now`, never before what is counted already (the wall clock may step back): futures ones
   * for the ratio and the abuse throttle, spot ones for the spot low-fill throttle (see docs/rules.md#r1, #r9, #r14); in the shared counts too.
   */
  request(
    market: CountedMarket,
    account: string,
    contract: string,
    action: CountedAction,
    orders: number,
    now: number,
  ): void {
    const tracker = market === 'spot' ? this.spotTracker : this.tracker;
    const at = Math.max(now, tracker.lastInstant);
    tracker.recordRequest(account, contract, action, at, orders);
    this.shared?.request(market, account, contract, action, orders, at);
  }

  /**
   * Counts a fill (see docs/rules.md#r1, #r9; #r14 for `spot`) at `at`, or without it at `now` but never before what is
   * counted already (the wall clock may step back); in the shared counts too. The tracker checks
   * the contract, role and volume before anything is counted.
   */
  fill(
    market: CountedMarket,
    account: string,
    fill: { readonly contract: string; readonly role: FillRole; readonly volume: string | number },
    at: number | undefined,
    now: number,
  ): void {
    const tracker = market === 'spot' ? this.spotTracker : this.tracker;
    const instant = at ?? Math.max(now, tracker.lastInstant);
    tracker.recordFill(account, fill.contract, fill.role, fill.volume, instant);
    this.shared?.fill(market, account, normalizeContract(fill.contract), fill.role, fill.volume, instant);
  }

  /**
   * Adds history read from the exchange. With shared counts the history alone goes to them,
   * written once whoever seeds it, and null is returned: the limits follow when the totals come
   * back with it. Otherwise the counts take it and the timeline with it is returned, for the
   * limits to follow at once.
   */
  seed(read: ReadHistory): Timeline | null {
    const next = this.shared === null ? Tracker.restore(this.tracker.snapshot()) : new Tracker();
    const nextSpot = this.shared === null ? Tracker.restore(this.spotTracker.snapshot()) : new Tracker();
    addHistory(read, next, nextSpot);
    if (this.shared !== null) {
      this.shared.seed(next.snapshot(), nextSpot.snapshot(), 'merge');
      return null;
    }
    const timeline = this.timeline({ tracker: next });
    this.tracker = next;
    this.spotTracker = nextSpot;
    return timeline;
  }

  /**
   * Carries on from a snapshot's state, checked (see `readSnapshot`). With shared counts, its counts
   * are written where they hold nothing for a day or an hour (a lost Redis).
   */
  restore(state: FamilyState): void {
    this.accounts = [...state.accounts];
    this.vipLevel = state.vipLevel;
    this.vipChanges = [...state.vipChanges];
    this.tracker = state.tracker;
    this.spotTracker = state.spotTracker;
    this.shared?.seed(state.tracker.snapshot(), state.spotTracker.snapshot(), 'absent');
  }
}
