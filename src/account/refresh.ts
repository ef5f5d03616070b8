import { utcHourStart } from '../rules/calendar.js';
import type { Timeline } from '../rules/timeline.js';
import { isTieredVip } from '../rules/vip.js';
import type { BoundaryTimer } from './boundary-timer.js';
import type { FamilyCounts } from './family-counts.js';
import { type LimitsState, limitsAt, stricterLimits } from './in-force.js';
import { reconciled } from './reconcile.js';
import type { ExchangeReports } from './reports.js';
import type { SharedTotals } from './shared-counts.js';
import type { AccountLimits, RequestLimits } from './request-limits.js';

/** What the limits are read into, and with. */
export interface LimitsRefreshConfig {
  /** The family and its counts the rules are read from. */
  readonly counts: FamilyCounts;
  /** Every account's limits, by account. */
  readonly limits: ReadonlyMap<string, AccountLimits>;
  readonly requestLimits: RequestLimits;
  readonly reports: ExchangeReports;
  readonly boundaries: BoundaryTimer;
  /** The live downgrade is on (R5 `live`). */
  readonly live: boolean;
  /** The limiter's instant (the rules' clock, R15). */
  readonly now: () => number;
  /** The limiter is closed: nothing is read any more. */
  readonly closed: () => boolean;
  /** Reports an error of a refresh at a boundary, which the hourly refreshes carry on after. */
  readonly onError: (error: unknown) => void;
}

/**
 * Reads the rules into an account limiter's limits: every account's tier, limit and throttles
 * (R3-R9, R14) at the instants the exchange's clock may read (R15), reconciled with the exchange's
 * report held (R16); again at every boundary, with the counts other processes may not have shared
 * yet; and at once on a live downgrade (R5 `live`).
 */
export class LimitsRefresh {
  constructor(private readonly config: LimitsRefreshConfig) {}

  /**
   * Applies the timeline of the state now in force, and sets the timer for the next whole hour.
   * With `unread`, each account's limits are the stricter of those the counts give and of those
   * they give with the requests other processes may have counted and not yet shared.
   */
  read(timeline: Timeline, unread?: (account: string) => LimitsState): void {
    const { counts, limits, boundaries } = this.config;
    if (this.config.closed()) return;
    const now = this.config.now();
    // The instants the rules are read at (R15): the latest the exchange's clock may read, where a
    // lowering is already due, and the earliest, where a raise is certain. A boundary the timer
    // was set for is due on its side when it fires, whatever the rounding.
    const { early, late } = boundaries.edges();
    // The next refresh is set first: whatever happens below, the hourly refreshes go on.
    boundaries.arm(now);
    const rules = counts.rules(timeline);
    for (const a of counts.accounts) {
      const l = limits.get(a.id)!;
      if (a.createdAt !== undefined && now < a.createdAt) continue;
      const known = limitsAt(rules, a, { early, late });
      const state = unread === undefined ? known : stricterLimits(known, limitsAt(unread(a.id), a, { early, late }));
      l.known =
        !isTieredVip(state.vipLevel) ||
        state.rating?.effective.ratio != null ||
        state.reason === 'new-sub-account' ||
        state.reason === 'new-sub-account-rules-begin';
      // A report (asked, or a figure a placement's answer stated) holds until the rules change
      // the limit at a boundary after it was taken (R16: a raise or lowering the rules predict
      // still applies at its boundary).
      const since = timeline.limitAt(a.id, late).since;
      if (l.report !== null && since !== null && since.at > l.takenAt) {
        l.report = null;
        l.stated = false;
      }
      const capped = l.live.capped(now, state.tier);
      l.local = { tier: capped.tier, reason: capped.capped ? 'live-downgrade' : state.reason };
      const inForce = reconciled(l, this.config.reports.context(now));
      this.config.requestLimits.apply(a.id, l, {
        account: a.id,
        at: now,
        tier: inForce.tier,
        limit: inForce.tier.limit,
        throttle: state.throttle,
        spotThrottle: state.spotThrottle,
        reason: inForce.reason,
      });
      l.warnings.reset(counts.tracker, counts.spotTracker, now);
      if (this.config.live) this.evaluateLive(a.id);
    }
  }

  /**
   * At a boundary of the exchange's clock the rules are read again, and what they decide is in
   * force before anything is sent past it (R15). With shared counts, other processes' counts of
   * the last moments may not be read yet: the limits are decided at once on the totals read, each
   * the stricter of what they give and what they give with as many more requests as the limits
   * let through since (a lowering is never late), then again once every process's counts up to
   * the boundary are read (a raise may be late).
   */
  atBoundary(): void {
    const { counts } = this.config;
    const refresh = (unread?: (account: string) => LimitsState): void => {
      try {
        if (!this.config.closed()) this.read(counts.timeline(), unread);
      } catch (error) {
        this.config.onError(error);
      }
    };
    const shared = counts.shared;
    if (shared === null) {
      refresh();
      return;
    }
    const now = this.config.now();
    const unreadMs = shared.unreadMs(now);
    // Just before the boundary the timer was set for (or now, past it): the last instant whose
    // requests the boundary's rules count.
    const at = Math.max(
      counts.tracker.lastInstant,
      counts.spotTracker.lastInstant,
      Math.min(now, utcHourStart(this.config.boundaries.edges().late + 1) - 1),
    );
    if (Number.isFinite(unreadMs))
      refresh((account) =>
        counts.unread(account, this.config.requestLimits.mostCounted(this.config.limits.get(account)!, unreadMs), at),
      );
    void shared.settle().then(() => refresh());
  }

  /** New totals of every process: the counts are theirs; the limits follow at once the first time. */
  shared(totals: SharedTotals): void {
    const { counts, limits, live } = this.config;
    if (this.config.closed()) return;
    counts.tracker = totals.futures;
    counts.spotTracker = totals.spot;
    if (totals.history) {
      this.read(counts.timeline());
      return;
    }
    const now = this.config.now();
    for (const [account, l] of limits) {
      l.warnings.recheck(counts.tracker, counts.spotTracker, now);
      if (live) this.evaluateLive(account);
    }
  }

  /** Live downgrade (R5 `live`): rates the next snapshot's window so far, lowers at once if it fell. */
  evaluateLive(account: string): void {
    const l = this.config.limits.get(account)!;
    const now = this.config.now();
    const r = l.live.rate(this.config.counts, account, now, l.local.tier);
    if (r === null) return;
    if (r.fell) {
      const tier = r.rating.tier;
      l.local = { tier, reason: 'live-downgrade' };
      // A fall seen after the exchange's report is newer than it: the report no longer holds.
      l.report = null;
      this.config.requestLimits.apply(account, l, {
        ...l.state,
        at: now,
        tier,
        limit: tier.limit,
        reason: 'live-downgrade',
      });
    }
    l.live.rearm(r.rating);
  }
}
