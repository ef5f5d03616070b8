import { utcHourStart } from '../rules/calendar.js';
import type { Timeline } from '../rules/timeline/timeline.js';
import { isTieredVip } from '../rules/vip.js';
import { type LimitsState, limitsAt, sameLimits, stricterLimits } from './in-force.js';
import { reconciled } from './reconcile.js';
import type { LimiterContext } from './limiter-context.js';
import type { SharedTotals } from './shared-counts.js';
import type { AccountLimits } from './request-limits.js';

/**
 * A second reading of the limits at a boundary: the counts with the requests other processes may
 * have counted and not yet shared (`state`), and what to do where it differs from the first.
 */
export interface UnreadReading {
  /**
   * The state with the requests not read yet, and as many more as the limits let through in
   * `aheadMs`, the tier limit taken as `tierLimit` where that is higher than the one in force.
   */
  readonly state: (account: string, aheadMs: number, tierLimit: number) => LimitsState;
  readonly disagreeing: 'stricter' | 'hold';
}

/**
 * Reads the rules into an account limiter's limits: every account's tier, limit and throttles
 * (see docs/rules.md#r3 to #r9, #r14) at the instants the exchange's clock may read (see docs/rules.md#r15), reconciled with the exchange's
 * report held (see docs/rules.md#r16); again at every boundary, with the counts other processes may not have shared
 * yet; and at once on a live downgrade (see docs/rules.md#r5 `live`).
 */
export class LimitsRefresh {
  /** The accounts whose placements wait for a boundary's decision, and how many boundaries hold each. */
  private readonly holding = new Map<AccountLimits, number>();

  constructor(private readonly ctx: LimiterContext) {}

  /**
   * Applies the timeline of the state now in force, and sets the timer for the next whole hour.
   * With `unread`, each account's limits are read twice: on the counts, and on them with the
   * requests other processes may have counted and not yet shared. Where the two agree, that is
   * what is in force. Where they differ, `unread.disagreeing` decides: `stricter` applies the
   * stricter of the two; `hold` leaves the account's limits as they were, holds its placements
   * in this process, and returns it, for the caller to decide once the counts are whole.
   */
  read(timeline: Timeline, unread?: UnreadReading): AccountLimits[] {
    const { counts, limits, boundaries } = this.ctx;
    const held: AccountLimits[] = [];
    if (this.ctx.closed) return held;
    const now = this.ctx.now();
    // The instants the rules are read at (see docs/rules.md#r15): the latest the exchange's clock may read, where a
    // lowering is already due, and the earliest, where a raise is certain. A boundary the timer
    // was set for is due on its side when it fires, whatever the rounding.
    const { early, late, ahead } = boundaries.edges();
    // The next refresh is set first: whatever happens below, the hourly refreshes go on.
    boundaries.arm(now);
    const rules = counts.rules(timeline);
    const { throttled } = this.ctx.config;
    for (const a of counts.accounts) {
      const l = limits.get(a.id)!;
      if (a.createdAt !== undefined && now < a.createdAt) continue;
      const read = limitsAt(rules, a, { early, late });
      let known = read;
      // A lowering read one window early (see docs/rules.md#r15): the requests of the time still to run until its
      // hour count too, as many as the limits let through (more requests only lower a ratio or a
      // fill rate, and may start a throttle). Counted at the limit before any lowering read in the
      // lead, so that a second reading in it does not undo the first.
      if (ahead !== null && l.leadFrom?.at !== ahead.at) l.leadFrom = { at: ahead.at, limit: l.place.limit };
      const tierLimit = ahead === null ? 0 : Math.max(read.limit, l.leadFrom!.limit);
      if (ahead !== null) {
        const most = this.ctx.requestLimits.mostCounted(l, ahead.ms, tierLimit);
        known = stricterLimits(known, limitsAt(counts.unread(a.id, most, ahead.at - 1), a, { early, late }));
      }
      let state = known;
      if (unread !== undefined) {
        const more = limitsAt(unread.state(a.id, ahead?.ms ?? 0, tierLimit), a, { early, late });
        if (!sameLimits(known, more)) {
          if (unread.disagreeing === 'hold') {
            this.hold(l);
            held.push(l);
            continue;
          }
          state = stricterLimits(known, more);
        }
      }
      l.known =
        !isTieredVip(state.vipLevel, this.ctx.config.family.rulebook.tieredVipLevel) ||
        state.rating?.effective.ratio != null ||
        state.reason === 'new-sub-account' ||
        state.reason === 'new-sub-account-rules-begin';
      // A report (asked, or a figure a placement's answer stated) holds until the rules change
      // the limit at a boundary after it was taken (see docs/rules.md#r16: a raise or lowering the rules predict
      // still applies at its boundary), once the exchange's clock is past it for certain. A
      // lowering read one window early is in force over the report until then (see docs/rules.md#r15).
      // (An account created within the bounds has no state before its creation.)
      const certain = Math.max(early, a.createdAt ?? early);
      const since = timeline.limitAt(a.id, certain).since;
      if (l.report !== null && since !== null && since.at > l.takenAt) {
        l.report = null;
        l.stated = false;
      }
      const before = ahead === null ? null : limitsAt(rules, a, certain);
      // OKX's forecast of the period beginning now (see docs/okx.md#o9).
      this.ctx.reports.forecastBegun(l, late);
      const capped = l.live.capped(now, state.tier);
      l.local = { tier: capped.tier, reason: capped.capped ? 'live-downgrade' : state.reason };
      l.lowering = before !== null && state.tier.tier < before.tier.tier ? l.local : null;
      const inForce = reconciled(l, this.ctx.reports.context(now));
      this.ctx.requestLimits.apply(a.id, l, {
        account: a.id,
        at: now,
        tier: inForce.tier,
        limit: inForce.tier.limit,
        // OKX throttles nothing on top of the tier.
        throttle: throttled ? state.throttle : null,
        spotThrottle: throttled ? state.spotThrottle : null,
        reason: inForce.reason,
      });
      if (throttled) l.warnings.reset(counts.tracker, counts.spotTracker, now);
      if (this.ctx.config.live) this.evaluateLive(a.id);
    }
    return held;
  }

  /**
   * At a boundary of the exchange's clock the rules are read again, and what they decide is in
   * force before anything is sent past it (see docs/rules.md#r15). With shared counts, other processes' counts of
   * the last moments may not be read yet. Each account's limits are decided at once where the
   * totals read decide them whatever those counts hold: the same with as many more requests as
   * the limits let through since. Where those requests could change them (a count near a
   * throttle's threshold, a ratio near a tier's bound), the account's placements wait in this
   * process, its limits unchanged, until every process's counts up to the boundary are read; the
   * limits are then decided on the account's exact count, and nothing was placed under the limits
   * before (see docs/rules.md#r9). Should the counts not be read whole (Redis not answering), the
   * stricter of the two readings applies.
   */
  atBoundary(): void {
    const { counts } = this.ctx;
    const refresh = (unread?: UnreadReading): AccountLimits[] => {
      try {
        if (!this.ctx.closed) return this.read(counts.timeline(), unread);
      } catch (error) {
        this.ctx.host.report('refresh', error);
      }
      return [];
    };
    const shared = counts.shared;
    if (shared === null) {
      refresh();
      return;
    }
    // Just before the boundary the timer was set for (or now, past it): the last instant whose
    // requests the boundary's rules count.
    const at = Math.max(
      counts.tracker.lastInstant,
      counts.spotTracker.lastInstant,
      Math.min(this.ctx.now(), utcHourStart(this.ctx.boundaries.edges().late + 1) - 1),
    );
    const unread = (disagreeing: UnreadReading['disagreeing']): UnreadReading | undefined => {
      const unreadMs = shared.unreadMs(this.ctx.now());
      if (!Number.isFinite(unreadMs)) return undefined;
      return {
        disagreeing,
        state: (account, aheadMs, tierLimit) =>
          counts.unread(
            account,
            this.ctx.requestLimits.mostCounted(this.ctx.limits.get(account)!, unreadMs + aheadMs, tierLimit),
            at,
          ),
      };
    };
    const first = unread('hold');
    const held = first === undefined ? [] : refresh(first);
    void shared.settle().then((whole) => {
      try {
        refresh(whole ? undefined : unread('stricter'));
      } finally {
        for (const l of held) this.release(l);
      }
    });
  }

  /** New totals of every process: the counts are theirs; the limits follow at once the first time. */
  shared(totals: SharedTotals): void {
    const { counts, limits } = this.ctx;
    const { live } = this.ctx.config;
    if (this.ctx.closed) return;
    counts.tracker = totals.futures;
    counts.spotTracker = totals.spot;
    if (totals.history) {
      this.read(counts.timeline());
      return;
    }
    const now = this.ctx.now();
    for (const [account, l] of limits) {
      l.warnings.recheck(counts.tracker, counts.spotTracker, now);
      if (live) this.evaluateLive(account);
    }
  }

  /** Holds the placements of an account in this process: nothing goes on its throttles' limits. */
  private hold(l: AccountLimits): void {
    this.holding.set(l, (this.holding.get(l) ?? 0) + 1);
    l.throttle.holdHere(Infinity);
    l.spotThrottle.holdHere(Infinity);
  }

  /** Ends one hold of `l`; the last one lets its placements go. */
  private release(l: AccountLimits): void {
    const n = (this.holding.get(l) ?? 1) - 1;
    if (n > 0) {
      this.holding.set(l, n);
      return;
    }
    this.holding.delete(l);
    l.throttle.holdHere(-Infinity);
    l.spotThrottle.holdHere(-Infinity);
  }

  /** Live downgrade (see docs/rules.md#r5 `live`): rates the next snapshot's window so far, lowers at once if it fell. */
  evaluateLive(account: string): void {
    const l = this.ctx.limits.get(account)!;
    const now = this.ctx.now();
    const r = l.live.rate(this.ctx.counts, account, now, l.local.tier);
    if (r === null) return;
    if (r.fell) {
      const tier = r.rating.tier;
      l.local = { tier, reason: 'live-downgrade' };
      // A fall seen after the exchange's report is newer than it: the report no longer holds.
      l.report = null;
      this.ctx.requestLimits.apply(account, l, {
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
