import type { Catalog, Classification } from '../catalog/catalog.js';
import { type AbuseConfig, UNTHROTTLED } from '../rules/abuse.js';
import type { FamilyConfig } from '../rules/family.js';
import type { SpotFillConfig } from '../rules/spot-fill.js';
import { spotFillLimits } from '../catalog/spot-fill.js';
import type { StoreLimit } from '../schedule/limit.js';
import type { Scheduler } from '../schedule/scheduler.js';
import type { AccountStatus, LimitForecast, LimitState, LimiterEvent } from './limiter-events.js';
import { LiveDowngrade } from './live-downgrade.js';
import type { HeldReport } from './reconcile.js';
import { AccountWarnings } from './warnings.js';

/** An account's scheduler limits, and the state they are set from. */
export interface AccountLimits extends HeldReport {
  /**
   * The boundary whose lowering was last read one window early (see docs/rules.md#r15), and the tier limit in force
   * before it: the requests still to come are counted at no less.
   */
  leadFrom: { at: number; limit: number } | null;
  readonly place: StoreLimit;
  readonly throttle: StoreLimit;
  readonly spotThrottle: StoreLimit;
  /** Futures cancels (Gate); null where cancels draw on limits per instrument only (OKX). */
  readonly cancel: StoreLimit | null;
  /** Placements spread across the window (`pacing`): ceil(N / k) per W / k, or null unpaced. */
  readonly pace: StoreLimit | null;
  readonly other: Map<string, StoreLimit>;
  /** WebSocket futures placement and amendment on a budget of their own (see docs/rules.md#r16 `separate`): the tier. */
  wsPlace: StoreLimit | null;
  state: LimitState;
  /** The rules' tier rests on activity (counted or seeded) or on the VIP level (see docs/rules.md#r4): not an assumption. */
  known: boolean;
  /** What asking GET /account/rate_limit came to (see docs/rules.md#r16). */
  reportEndpoint: AccountStatus['reportEndpoint'];
  /** OKX's forecast of the next period's limit, from its latest report (see docs/okx.md#o9), or null. */
  forecast: LimitForecast | null;
  /** The `assumed-tier` event was told. */
  toldAssumed: boolean;
  /** The live downgrade (see docs/rules.md#r5 `live`). */
  readonly live: LiveDowngrade;
  /** The early warnings of the abuse throttle and the spot low-fill throttle (see docs/rules.md#r9, #r14). */
  readonly warnings: AccountWarnings;
}

/** What the limits are made from. */
export interface RequestLimitsConfig {
  /** Safety margin on the arrival window (see docs/rules.md#r13), milliseconds. */
  readonly marginMs: number;
  /** Parts of the placement window placements are spread over (1: unpaced). */
  readonly pacing: number;
  /** Arrivals estimated rather than bounded by answers (see docs/rules.md#r13). */
  readonly estimateArrivals: boolean;
  readonly catalog: Catalog;
  /** The key of the limit whose N is the tier in force (Gate's `futures.place`, OKX's `sub-account`). */
  readonly tierKey: string;
  /** Whether the exchange throttles on top of the tier (Gate's abuse and spot low-fill throttles; not OKX). */
  readonly throttled: boolean;
  readonly family: FamilyConfig;
  readonly abuse: AbuseConfig;
  readonly spotFill: SpotFillConfig;
  readonly warnAt: number;
}

/**
 * The scheduler limits an account limiter's requests draw on: per account the tier's futures
 * placement limit, the abuse and spot low-fill throttles, the cancel limit and the catalogue's
 * others (see docs/rules.md#r10), made when first drawn on; per IP the catalogue's IP limits. Each limit counts with
 * the safety margin on the arrival window (see docs/rules.md#r13) when one is set.
 */
export class RequestLimits {
  private readonly ipLimits = new Map<string, StoreLimit>();

  constructor(
    private readonly scheduler: Scheduler<StoreLimit>,
    private readonly config: RequestLimitsConfig,
    private readonly emit: (event: LimiterEvent) => void,
  ) {}

  /** New limits for `account`, at tier 1 until the rules are read, at `now`. */
  create(account: string, now: number): AccountLimits {
    const spec = this.config.catalog.limits;
    const tier1 = this.config.family.tiers[0]!;
    const { tierKey } = this.config;
    const cancel = spec['futures.cancel'];
    return {
      place: this.limit({ name: `${account}:${tierKey}`, limit: tier1.limit, windowMs: spec[tierKey]!.windowMs }),
      throttle: this.limit({
        name: `${account}:abuse-throttle`,
        limit: UNTHROTTLED,
        windowMs: Math.max(this.config.abuse.noFillLimit.windowMs, this.config.abuse.lowFillLimit.windowMs),
      }),
      spotThrottle: this.limit({
        name: `${account}:spot-fill-throttle`,
        limit: UNTHROTTLED,
        windowMs: this.config.spotFill.limit.windowMs,
      }),
      cancel: cancel === undefined ? null : this.limit({ name: `${account}:futures.cancel`, ...cancel }),
      pace:
        this.config.pacing > 1
          ? // Not what the exchange counts, so no margin: the placement limit itself keeps to N per W.
            this.scheduler.limit({
              name: `${account}:futures.place.pace`,
              limit: this.paced(tier1.limit),
              windowMs: spec[tierKey]!.windowMs / this.config.pacing,
            })
          : null,
      other: new Map(),
      wsPlace: null,
      state: {
        account,
        at: now,
        tier: tier1,
        limit: tier1.limit,
        throttle: null,
        spotThrottle: null,
        reason: 'initial',
      },
      known: false,
      reportEndpoint: 'unasked',
      forecast: null,
      toldAssumed: false,
      live: new LiveDowngrade(this.config.family),
      warnings: new AccountWarnings(
        account,
        { abuse: this.config.abuse, spotFill: this.config.spotFill, warnAt: this.config.warnAt },
        (event) => this.emit(event),
      ),
      local: { tier: tier1, reason: 'initial' },
      lowering: null,
      leadFrom: null,
      report: null,
      takenAt: -Infinity,
      stated: false,
      statedLimit: null,
    };
  }

  /** The limits a classified request of `account` draws on (see docs/rules.md#r10, #r16; the throttles of #r9, #r14). */
  for(account: string, l: AccountLimits, c: Classification): StoreLimit[] {
    const { tierKey, throttled } = this.config;
    return c.limits
      .flatMap((spec) => {
        // OKX's sub-account limit: the tier, no throttle.
        if (!throttled && spec.key === tierKey) return [l.place];
        if (c.market === 'futures' && spec.key === 'futures.place') {
          // A batch heavier than a part of the window goes unpaced rather than never.
          return l.pace === null || c.weight > l.pace.limit ? [l.place, l.throttle] : [l.place, l.throttle, l.pace];
        }
        if (c.market === 'futures' && spec.key === 'futures.cancel' && l.cancel !== null) return [l.cancel];
        // `separate` (see docs/rules.md#r16): WebSocket futures placement on a budget of its own, of the tier in force.
        if (spec.key === 'ws.futures.place')
          return [
            (l.wsPlace ??= this.limit({
              name: `${account}:ws.futures.place`,
              limit: l.state.limit,
              windowMs: spec.windowMs,
            })),
            l.throttle,
          ];
        const map = spec.scope === 'ip' ? this.ipLimits : l.other;
        let limit = map.get(spec.key);
        if (limit === undefined)
          map.set(
            spec.key,
            (limit = this.limit({
              name: `${spec.scope === 'ip' ? 'ip' : account}:${spec.key}`,
              limit: spec.limit,
              windowMs: spec.windowMs,
            })),
          );
        return [limit];
      })
      .concat(throttled && spotFillLimits(c, this.config.spotFill) ? [l.spotThrottle] : []);
  }

  /**
   * The most order requests (see docs/rules.md#r9, #r14) `l`'s limits let through in any `ms`: each counting limit's
   * N for every window the interval touches. Spot counts those of the pairs drawn on so far. The
   * tier's limits count at `tierLimit` where that is higher than the one in force.
   */
  mostCounted(l: AccountLimits, ms: number, tierLimit = 0): { readonly futures: number; readonly spot: number } {
    const most = (limit: StoreLimit, n = limit.limit): number =>
      n >= UNTHROTTLED ? 0 : n * (1 + Math.ceil(ms / limit.windowMs));
    const tier = (limit: StoreLimit): number => most(limit, Math.max(limit.limit, tierLimit));
    let futures = tier(l.place) + (l.cancel === null ? 0 : most(l.cancel)) + (l.wsPlace === null ? 0 : tier(l.wsPlace));
    let spot = 0;
    for (const [key, limit] of l.other) {
      // OKX's order limits per instrument: every place, amend and cancel counts for the ratio.
      if (key === 'ws.futures.orders' || (!this.config.throttled && key.startsWith('/api/v5/trade/')))
        futures += most(limit);
      else if (key.startsWith('spot.place') || key === 'spot.cancel' || key === 'ws.spot.place') spot += most(limit);
    }
    return { futures, spot };
  }

  /** Sets `l` to `next`: its limits follow, and each change is told (`limit`, `throttle`, `spot-throttle`). */
  apply(account: string, l: AccountLimits, next: LimitState): void {
    const before = l.state;
    l.state = next;
    if (before.limit !== next.limit) {
      l.place.update({ limit: next.limit });
      l.pace?.update({ limit: this.paced(next.limit) });
      l.wsPlace?.update({ limit: next.limit });
      this.emit({ type: 'limit', account, at: next.at, from: before.limit, to: next.limit, reason: next.reason });
    }
    if (
      (before.throttle?.reason ?? null) !== (next.throttle?.reason ?? null) ||
      before.throttle?.limit !== next.throttle?.limit
    ) {
      l.throttle.update(
        next.throttle === null
          ? { limit: UNTHROTTLED }
          : { limit: next.throttle.limit, windowMs: next.throttle.windowMs },
      );
      this.emit({ type: 'throttle', account, at: next.at, throttle: next.throttle });
    }
    if (
      (before.spotThrottle?.reason ?? null) !== (next.spotThrottle?.reason ?? null) ||
      before.spotThrottle?.limit !== next.spotThrottle?.limit
    ) {
      l.spotThrottle.update(
        next.spotThrottle === null
          ? { limit: UNTHROTTLED }
          : { limit: next.spotThrottle.limit, windowMs: next.spotThrottle.windowMs },
      );
      this.emit({ type: 'spot-throttle', account, at: next.at, throttle: next.spotThrottle });
    }
  }

  /** The pace of a placement limit of `n`: its share of one part of the window. */
  private paced(n: number): number {
    return Math.ceil(n / this.config.pacing);
  }

  /** A limit of the limiter's scheduler, with the safety margin on the arrival window (see docs/rules.md#r13) when one is set. */
  private limit(options: { readonly name: string; readonly limit: number; readonly windowMs: number }): StoreLimit {
    const l = this.scheduler.limit(this.config.marginMs > 0 ? { ...options, marginMs: this.config.marginMs } : options);
    // Bounded by answers, a shared store holds each grant until their answers confirm it (see docs/rules.md#r13).
    if (!this.config.estimateArrivals) l.followAnswers?.();
    return l;
  }
}
