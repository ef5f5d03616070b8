import { RAISE_OFFSET_MS } from '../rules/calendar.js';
import type { Clock } from '../schedule/clock.js';
import type { StoreLimit } from '../schedule/limit.js';
import { Scheduler } from '../schedule/scheduler.js';
import type { LimitStore } from '../schedule/store.js';
import type { AnswerFills } from './answer-fills.js';
import { Arrivals } from './arrivals.js';
import { BoundaryTimer } from './boundary-timer.js';
import { RulesClock, type SampleOutcome } from './rules-clock.js';
import { latestChange } from './family-state.js';
import { FamilyCounts } from './family-counts.js';
import type { LimiterEvent } from './limiter-events.js';
import type { AccountLimiterOptions, LimiterClockSample, LimiterConfig } from './limiter-options.js';
import { LimitsRefresh } from './refresh.js';
import { ExchangeReports } from './reports.js';
import { type AccountLimits, RequestLimits } from './request-limits.js';
import { RequestSender } from './requests.js';

/** Where an account limiter's parts reach the limiter itself. */
export interface LimiterHost {
  /** Tells the limiter's listeners. */
  readonly emit: (event: LimiterEvent) => void;
  /** Reports an error a part carries on after, as an `error` event. */
  readonly report: (source: 'refresh', error: unknown) => void;
  /** Feeds an answer's gateway times to the estimate of the exchange's clock (see docs/rules.md#r15). */
  readonly clockSample: (sample: LimiterClockSample) => SampleOutcome;
  /** Records the fills of the answers. */
  readonly fills: AnswerFills;
}

/**
 * An account limiter's collaborators, made once, in order, from its options read and checked:
 * each part takes this one object and reads the others from it when it needs them.
 */
export class LimiterContext {
  readonly clock: Clock;
  /** The answered requests, counted where they reached the exchange (see docs/rules.md#r13). */
  readonly arrivals: Arrivals;
  /** The clock the rules are read on (see docs/rules.md#r15). */
  readonly time: RulesClock;
  readonly scheduler: Scheduler<StoreLimit>;
  /** The family, its VIP history and its counts (the account's over every process, when the store keeps them). */
  readonly counts: FamilyCounts;
  /** Every account's limits, by account. */
  readonly limits = new Map<string, AccountLimits>();
  /** The scheduler limits requests draw on. */
  readonly requestLimits: RequestLimits;
  /** The exchange's reports of the tier, applied to the limits (see docs/rules.md#r16). */
  readonly reports: ExchangeReports;
  /** The timer of the hourly boundaries of the exchange's clock (see docs/rules.md#r15). */
  readonly boundaries: BoundaryTimer;
  /** Reads the rules into the limits. */
  readonly refresher: LimitsRefresh;
  /** Sends requests through their limits, counts them, and applies the exchange's answers. */
  readonly sender: RequestSender;
  /** Set when the limiter closes: nothing is read or sent any more. */
  closed = false;

  constructor(
    options: AccountLimiterOptions,
    readonly config: LimiterConfig,
    readonly host: LimiterHost,
  ) {
    this.clock = config.clock;
    this.arrivals = new Arrivals(config.estimateArrivals);
    this.time = new RulesClock(this.clock, config.estimateClock, this.arrivals, lowerLeadMs(config));
    // A store's limits are this library's (the scheduler checks): what the limiter asks of them,
    // beyond what a user reads, is StoreLimit.
    const store = options.store;
    this.scheduler = new Scheduler<StoreLimit>({
      clock: this.clock,
      ...(options.maxQueue === undefined ? {} : { maxQueue: options.maxQueue }),
      ...(store === undefined ? {} : { store: store as LimitStore<StoreLimit> }),
    });
    this.counts = new FamilyCounts(
      options.accounts,
      config.vipLevel,
      config,
      typeof store?.counts === 'function' ? store.counts() : null,
    );
    this.requestLimits = new RequestLimits(this.scheduler, config, host.emit);
    this.reports = new ExchangeReports(
      this.requestLimits,
      {
        policy: config.reportPolicy,
        tiers: config.family.tiers,
        now: () => this.now(),
        // OKX's report speaks of the period from 08:00 UTC to the next (see docs/okx.md#o9).
        snapshotAt: (now) => latestChange(this.counts, now, config.exchange === 'okx' ? RAISE_OFFSET_MS : 0),
      },
      host.emit,
    );
    this.boundaries = new BoundaryTimer(this.clock, this.time, this.scheduler, () => this.refresher.atBoundary());
    this.refresher = new LimitsRefresh(this);
    this.sender = new RequestSender(this);
  }

  /** The limiter's instant: the rules' clock (see docs/rules.md#r15). */
  now(): number {
    return this.time.now();
  }
}

/**
 * How much earlier than its instant a boundary's lowering applies (see docs/rules.md#r15): the longest window of
 * the limits a boundary lowers, the tier's and, where the exchange has them, the throttles'. A
 * request sent under the old limits then reaches the exchange under the new ones only if it is
 * still unanswered one window before the lowering.
 */
export function lowerLeadMs(config: LimiterConfig): number {
  const windows = [config.family.rulebook.tiers.windowMs];
  if (config.throttled)
    windows.push(config.abuse.noFillLimit.windowMs, config.abuse.lowFillLimit.windowMs, config.spotFill.limit.windowMs);
  return Math.min(Math.max(...windows), MAX_LEAD_MS);
}

/** The longest lead a lowering is given (see docs/rules.md#r15): a window longer than a minute is led by a minute. */
export const MAX_LEAD_MS = 60_000;
