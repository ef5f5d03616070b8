import { type AbuseConfig, abuseLowFill } from '../rules/abuse.js';
import { HOUR_MS, utcHourStart } from '../rules/calendar.js';
import type { SpotFillConfig } from '../rules/spot-fill.js';
import type { HourlyCounts } from './in-force.js';
import type { LimiterEvent } from './limiter-events.js';
import { rollingDay, spotWindow } from './rolling-window.js';

/** What the early warnings are read against. */
export interface WarningConfig {
  readonly abuse: AbuseConfig;
  readonly spotFill: SpotFillConfig;
  /** Share of the abuse request threshold at which `abuse-warning` fires. */
  readonly warnAt: number;
}

/**
 * The early warnings of one account: `abuse-warning` once the rolling 24 hours reach `warnAt` of
 * the abuse request threshold at a fill rate that would trip it (see docs/rules.md#r9), and `spot-fill-warning` once
 * an hour when the next hourly check of the spot low-fill throttle (see docs/rules.md#r14) would throttle on what is counted so far. Requests are
 * counted down against a budget, so the window is read again only when a warning may be due.
 * The counts are passed in at every call: the limiter's trackers may be replaced (shared counts).
 */
export class AccountWarnings {
  private warned = false;
  /** Requests that can be counted in the rolling 24 hours before the early warning. */
  private budget = 0;
  /** Whether the spot low-fill warning was given since the last whole hour (see docs/rules.md#r14). */
  private spotWarned = false;
  /** Spot requests that can be counted before the window of the next check would trip the spot low-fill throttle (see docs/rules.md#r14). */
  private spotBudget = 0;

  constructor(
    readonly account: string,
    private readonly config: WarningConfig,
    private readonly emit: (event: LimiterEvent) => void,
  ) {}

  /** `orders` futures order requests were counted (see docs/rules.md#r9). */
  countFutures(orders: number, futures: HourlyCounts, now: number): void {
    this.budget -= orders;
    if (this.budget <= 0 && !this.warned) this.checkAbuse(futures, now);
  }

  /** `orders` spot order requests were counted (see docs/rules.md#r14). */
  countSpot(orders: number, spot: HourlyCounts, now: number): void {
    this.spotBudget -= orders;
    if (this.spotBudget < 0 && !this.spotWarned) this.checkSpot(spot, now);
  }

  /** At a refresh (every whole hour and every change): both warnings may be given again. */
  reset(futures: HourlyCounts, spot: HourlyCounts, now: number): void {
    const w = rollingDay(futures, this.account, now);
    this.warned = false;
    this.budget = Math.max(0, Math.ceil(this.config.warnAt * this.config.abuse.requestThreshold) - w.requests);
    if (this.budget === 0) this.checkAbuse(futures, now);
    this.spotWarned = false;
    this.checkSpot(spot, now);
  }

  /** The counts changed other than by counting here (another process's): a warning not yet given is looked at again. */
  recheck(futures: HourlyCounts, spot: HourlyCounts, now: number): void {
    if (!this.warned) this.checkAbuse(futures, now);
    if (!this.spotWarned) this.checkSpot(spot, now);
  }

  private checkAbuse(futures: HourlyCounts, now: number): void {
    const w = rollingDay(futures, this.account, now);
    const threshold = this.config.abuse.requestThreshold;
    if (w.requests >= this.config.warnAt * threshold && abuseLowFill(w, this.config.abuse)) {
      this.warned = true;
      this.emit({ type: 'abuse-warning', account: this.account, at: now, requests: w.requests, threshold });
    } else {
      this.budget = Math.max(1, Math.ceil(this.config.warnAt * threshold) - w.requests);
    }
  }

  /** The early warning of the spot low-fill throttle (see docs/rules.md#r14): once an hour, when the next hourly check would throttle on what is counted so far. */
  private checkSpot(spot: HourlyCounts, now: number): void {
    const w = spotWindow(spot, this.account, now, this.config.spotFill);
    this.spotBudget = w.remaining;
    if (w.remaining >= 0 || this.spotWarned) return;
    this.spotWarned = true;
    this.emit({
      type: 'spot-fill-warning',
      account: this.account,
      at: now,
      trips: utcHourStart(now) + HOUR_MS,
      requests: w.requests,
      traded: w.traded.toFixed(),
      needed: w.needed.toFixed(),
    });
  }
}
