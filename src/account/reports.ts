import type { Classification } from '../catalog/catalog.js';
import type { RateLimitFeedback } from '../schedule/feedback.js';
import { Dec } from '../internal/decimal.js';
import type { FamilyConfig } from '../rules/family.js';
import { DAY_MS } from '../rules/calendar.js';
import type { OkxRateLimitReport } from '../rules/okx/report.js';
import type { RateLimitReport, ReportPolicy, TierReconciliation } from '../rules/report.js';
import type { Tier } from '../rules/tiers.js';
import type { Clock } from '../schedule/clock.js';
import type { AccountStatus, LimiterEvent } from './limiter-events.js';
import type { AccountLimiterOptions } from './limiter-options.js';
import { type ReconcileContext, reconciled, reportEvent, takeReport } from './reconcile.js';
import type { AccountLimits, RequestLimits } from './request-limits.js';
import { type Repeating, every } from './timers.js';

/** What the exchange's reports are read with. */
export interface ExchangeReportsConfig {
  readonly policy: ReportPolicy;
  readonly tiers: FamilyConfig['tiers'];
  /** The limiter's instant (the rules' clock, see docs/rules.md#r15). */
  readonly now: () => number;
  /** The instant after which a report made by `now` is news: the latest snapshot or VIP change (see `latestChange`). */
  readonly snapshotAt: (now: number) => number;
}

/**
 * The exchange's word on an account's tier, applied to its limits under `reportPolicy` (see docs/rules.md#r16): the
 * answer of GET /account/rate_limit, and the figure a placement's answer states
 * (`X-Gate-RateLimit-Limit`). Each changes the limits in force at once and is told as an event.
 */
export class ExchangeReports {
  constructor(
    private readonly requestLimits: RequestLimits,
    private readonly config: ExchangeReportsConfig,
    private readonly emit: (event: LimiterEvent) => void,
  ) {}

  /** What a report of the exchange is reconciled against now (see docs/rules.md#r16). */
  context(now: number): ReconcileContext {
    return { at: now, snapshotAt: this.config.snapshotAt(now), policy: this.config.policy, tiers: this.config.tiers };
  }

  /**
   * Reads an answer's feedback (see docs/rules.md#r12, #r16) for the limits `c` drew on: a tier limit the answer states
   * is adopted under the policy, and then taken out of the feedback (under `report` it stays, to
   * lower the limit as any limit an answer states lower). Returns the feedback left to apply.
   */
  answer(account: string, l: AccountLimits, c: Classification, f: RateLimitFeedback): RateLimitFeedback {
    const stated = f.limit === undefined ? undefined : this.statedTier(l, c, f.limit);
    if (stated === undefined) return f;
    this.adoptStated(account, l, stated);
    if (this.config.policy === 'report') return f;
    const { limit: _, ...rest } = f;
    return rest;
  }

  /**
   * Takes a report of GET /account/rate_limit for `account` (see docs/rules.md#r16): held when it is news, the tier in
   * force after it applied, and a disagreement with the rules told as a `report` event.
   */
  take(account: string, l: AccountLimits, report: RateLimitReport): TierReconciliation {
    const now = this.config.now();
    const context = this.context(now);
    const r = takeReport(l, report, context);
    const inForce = this.applyInForce(account, l, context, now);
    if (r.disagreement !== null) this.emit(reportEvent(account, now, report, r.disagreement, inForce));
    return r;
  }

  /**
   * Takes a report of OKX's GET /api/v5/trade/account-rate-limit for `account` (see docs/okx.md#o9) as
   * {@link ExchangeReports.take} takes Gate's, and holds its forecast (`nextAccRateLimit`, the limit
   * of the next period after a pending lowering) for `limitNow`.
   */
  takeOkx(account: string, l: AccountLimits, report: OkxRateLimitReport): TierReconciliation {
    l.forecast =
      report.nextLimit === null || report.nextTier === null
        ? null
        : { limit: report.nextLimit, tier: report.nextTier, reportedAt: report.updatedAt };
    return this.take(account, l, {
      type: 'futures',
      tier: report.tier,
      ratio: report.ratio ?? UNKNOWN_RATIO,
      mainRatio: report.mainRatio ?? UNKNOWN_RATIO,
      updatedAt: report.updatedAt,
    });
  }

  /**
   * OKX's forecast taken as its report once its period has begun (see docs/okx.md#o9): the
   * `nextAccRateLimit` of a report made at 08:00 UTC is the least limit OKX puts in force from
   * 08:00 of the next day (the higher one if that day's snapshot gives it back), so from then it is
   * held as a report made at that instant, until the rules or a newer report say otherwise.
   * `late`: the latest the exchange's clock may read now. Returns whether it was taken.
   */
  forecastBegun(l: AccountLimits, late: number): boolean {
    const f = l.forecast;
    if (f === null || late < f.reportedAt + DAY_MS) return false;
    l.forecast = null;
    // A raise is the next snapshot's to decide, not the forecast's: only a lowering is taken.
    if (l.report !== null && f.tier > l.report.tier) return false;
    takeReport(
      l,
      {
        type: 'futures',
        tier: f.tier,
        ratio: UNKNOWN_RATIO,
        mainRatio: UNKNOWN_RATIO,
        updatedAt: f.reportedAt + DAY_MS,
      },
      this.context(Math.max(this.config.now(), f.reportedAt + DAY_MS)),
    );
    return true;
  }

  /**
   * The tier whose limit a placement's answer states (see docs/rules.md#r16), or undefined when the figure is not
   * the tier's to read: the request does not draw on the tier limit, the figure is the limit in
   * force already, no tier has it, it may be a throttle's (see docs/rules.md#r9, at or below its N while in force),
   * or another limit the request draws on has that N (the WebSocket 100 per second, see docs/rules.md#r10).
   */
  statedTier(l: AccountLimits, c: Classification, figure: number): Tier | undefined {
    if (c.market !== 'futures' || (c.action !== 'place' && c.action !== 'amend') || figure === l.state.limit)
      return undefined;
    // The figure taken already, still held (under `report` or `min` it may not be the one in force): told once.
    if (l.stated && l.report !== null && l.statedLimit === figure) return undefined;
    if (
      !c.limits.some((x) => TIER_KEYS.has(x.key)) ||
      c.limits.some((x) => !TIER_KEYS.has(x.key) && x.limit === figure)
    )
      return undefined;
    if (l.state.throttle !== null && figure <= l.state.throttle.limit) return undefined;
    return this.config.tiers.find((t) => t.limit === figure);
  }

  /**
   * Takes the tier a placement's answer states as a report of the exchange made now (see docs/rules.md#r16), under
   * `reportPolicy`: held until the rules change at a boundary after it, a newer report or the
   * next snapshot; told as an `exchange-limit` event with both figures.
   */
  adoptStated(account: string, l: AccountLimits, tier: Tier): void {
    const now = this.config.now();
    const from = l.state.limit;
    const context = this.context(now);
    takeReport(
      l,
      { type: 'futures', tier: tier.tier, ratio: UNKNOWN_RATIO, mainRatio: UNKNOWN_RATIO, updatedAt: now },
      context,
    );
    l.stated = true;
    l.statedLimit = tier.limit;
    this.applyInForce(account, l, context, now);
    this.emit({
      type: 'exchange-limit',
      account,
      at: now,
      header: 'X-Gate-RateLimit-Limit',
      from,
      stated: tier.limit,
      tier: tier.tier,
      policy: this.config.policy,
      to: l.state.limit,
    });
  }

  /** Applies the tier a report just taken puts in force to the account's limits, and returns it. */
  private applyInForce(account: string, l: AccountLimits, context: ReconcileContext, now: number) {
    const inForce = reconciled(l, context);
    this.requestLimits.apply(account, l, {
      ...l.state,
      at: now,
      tier: inForce.tier,
      limit: inForce.tier.limit,
      reason: inForce.reason,
    });
    return inForce;
  }

  /**
   * Tells an `assumed-tier` event, once per account, when a futures placement or amendment is sent
   * on an assumed tier (`source` `assumed`: neither the rules nor the exchange has told it, see docs/rules.md#r16).
   */
  tellAssumed(account: string, l: AccountLimits, c: Classification): void {
    if (
      !l.toldAssumed &&
      c.market === 'futures' &&
      (c.action === 'place' || c.action === 'amend') &&
      sourceOf(l) === 'assumed'
    ) {
      l.toldAssumed = true;
      const { tier } = l.state;
      this.emit({
        type: 'assumed-tier',
        account,
        at: this.config.now(),
        tier: tier.tier,
        limit: l.state.limit,
        learnFrom: LEARN_FROM,
      });
    }
  }
}

/** Where the account's limit comes from (see docs/rules.md#r16). */
export function sourceOf(l: AccountLimits): AccountStatus['source'] {
  if (l.report !== null && (l.state.reason === 'report' || l.report.tier === l.state.tier.tier)) return 'exchange';
  return l.known ? 'rules' : 'assumed';
}

// What tells the limiter an account's tier (see docs/rules.md#r16), as the `assumed-tier` event names it.
const LEARN_FROM: readonly string[] = Object.freeze(['GET /account/rate_limit', 'X-Gate-RateLimit-Limit', 'seed()']);
// The limits whose N is the tier (see docs/rules.md#r3): futures placement and amendment, over REST and, with a
// budget of its own (see docs/rules.md#r16 `separate`), over the WebSocket API.
const TIER_KEYS = new Set(['futures.place', 'ws.futures.place']);
// A figure stated in a header carries no ratio.
const UNKNOWN_RATIO = new Dec(0);

/**
 * Asks GET /account/rate_limit for every account every `everyMs` (the `reconcile` option): each
 * answer goes to `take` as it comes, each failure to `onError`.
 */
export function pollReports(
  clock: Clock,
  reconcile: NonNullable<AccountLimiterOptions['reconcile']>,
  accounts: () => readonly string[],
  take: (account: string, answer: unknown) => void,
  onError: (error: unknown) => void,
): Repeating {
  const { fetch } = reconcile;
  return every(clock, reconcile.everyMs, () => {
    for (const account of accounts()) {
      void Promise.resolve()
        .then(() => fetch(account))
        .then((answer) => take(account, answer))
        .catch(onError);
    }
  });
}
