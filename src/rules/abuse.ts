import { InvalidInputError } from '../errors.js';
import { GATE } from './gate/rulebook.js';
import { HOUR_MS, formatUtcInstant, parseUtcHour, utcHourStart } from './calendar.js';
import { Dec, type DecimalInput, ZERO } from '../internal/decimal.js';
import { fillRateOf, isFillRateBelow } from './fill-rate.js';
import {
  parseCount,
  parseInstant,
  parseNonNegativeDecimal,
  parsePositiveInteger,
  resolveOptions,
} from '../internal/parse.js';
import { type AbuseWindow, THROTTLE_WINDOW_HOURS, readThrottleWindow, throttleWindowSums } from './throttle-window.js';
import { type WindowSpec, readRateLimit } from './window-spec.js';

/**
 * Options of the abuse throttle (see docs/rules.md#r9).
 *
 * @example
 * ```ts
 * import { Dec } from 'traderatio'
 * import { type AbuseOptions, checkAbuse } from 'traderatio/rules'
 *
 * const options: AbuseOptions = { requestThreshold: 1000 }
 * checkAbuse({ requests: 1001, traded: new Dec(0) }, options)?.reason // 'no-fills'
 * ```
 */
export interface AbuseOptions {
  /** Requests in 24 h that must be exceeded to trip it ("more than"). @default 86400 */
  readonly requestThreshold?: number;
  /** Fill rate (USDT traded per request) below which the low-fill throttle applies. @default "0.01" */
  readonly fillRateThreshold?: DecimalInput;
  /** Placement limit when nothing was traded. @default { limit: 10, windowMs: 10000 } */
  readonly noFillLimit?: WindowSpec;
  /** Placement limit when the fill rate is below the threshold. @default { limit: 20, windowMs: 10000 } */
  readonly lowFillLimit?: WindowSpec;
}

/** {@link AbuseOptions} resolved once. */
export interface AbuseConfig {
  readonly kind: 'abuse-config';
  readonly requestThreshold: number;
  readonly fillRateThreshold: Dec;
  readonly noFillLimit: WindowSpec;
  readonly lowFillLimit: WindowSpec;
}

/** Validates abuse options into their complete form (left out: the defaults; `null` is refused). */
export function resolveAbuseOptions(options?: AbuseOptions | AbuseConfig): AbuseConfig {
  return resolveOptions(options, 'abuse-config', ABUSE_OPTION_FIELDS, 'the abuse options', abuseConfigOf);
}

const ABUSE_OPTION_FIELDS: readonly string[] = ['requestThreshold', 'fillRateThreshold', 'noFillLimit', 'lowFillLimit'];

function abuseConfigOf(o: AbuseOptions): AbuseConfig {
  // Gate's figures (see docs/rules.md#r9), from its rulebook: the one exchange with this throttle.
  const d = GATE.throttles.abuse!;
  return {
    kind: 'abuse-config',
    requestThreshold: parseCount(o.requestThreshold ?? d.requestThreshold, '`requestThreshold`'),
    fillRateThreshold: parseNonNegativeDecimal(o.fillRateThreshold ?? d.fillRateThreshold, '`fillRateThreshold`'),
    noFillLimit: readRateLimit(o.noFillLimit ?? d.noFillLimit, '`noFillLimit`'),
    lowFillLimit: readRateLimit(o.lowFillLimit ?? d.lowFillLimit, '`lowFillLimit`'),
  };
}

/**
 * Why the throttle is on: nothing traded, or a fill rate below the threshold.
 *
 * @example
 * ```ts
 * import { Dec } from 'traderatio'
 * import { type ThrottleReason, checkAbuse } from 'traderatio/rules'
 *
 * const reason: ThrottleReason | undefined = checkAbuse({ requests: 86_401, traded: new Dec(864) })?.reason
 * reason // 'low-fill-rate'
 * ```
 */
export type ThrottleReason = 'no-fills' | 'low-fill-rate';

/**
 * A throttle in force.
 *
 * @example
 * ```ts
 * import { Dec } from 'traderatio'
 * import { type Throttle, checkAbuse } from 'traderatio/rules'
 *
 * const throttle: Throttle | null = checkAbuse({ requests: 86_401, traded: new Dec(0) })
 * throttle // { limit: 10, windowMs: 10000, reason: 'no-fills' }
 * ```
 */
export interface Throttle extends WindowSpec {
  readonly reason: ThrottleReason;
}

/**
 * The limit a throttle's window holds while no throttle (see docs/rules.md#r9, #r14) is in force:
 * more requests than any window can hold, so it never delays one. A live throttle window is kept
 * through the hours when none is in force, so that one turning on counts the dispatches already in
 * its window (see docs/rules.md#r13); a finite count, because a scheduler's limit is a positive
 * integer.
 */
export const UNTHROTTLED = 1_000_000_000;

export type { AbuseWindow } from './throttle-window.js';

/**
 * Decides the throttle from one 24-hour window (see docs/rules.md#r9): more than 86,400 requests
 * and nothing traded gives 10 per 10 s; more than 86,400 and a fill rate (traded / requests) below
 * 0.01 gives 20 per 10 s; otherwise none. Exactly 86,400 requests never trips it.
 *
 * @example
 * ```ts
 * import { Dec } from 'traderatio'
 * import { checkAbuse } from 'traderatio/rules'
 *
 * checkAbuse({ requests: 86_401, traded: new Dec(864) })?.limit // 20
 * checkAbuse({ requests: 86_400, traded: new Dec(0) }) // null
 * ```
 */
export function checkAbuse(window: AbuseWindow, options?: AbuseOptions): Throttle | null;
/** @internal */
export function checkAbuse(window: AbuseWindow, options?: AbuseOptions | AbuseConfig): Throttle | null;
export function checkAbuse(window: AbuseWindow, options?: AbuseOptions | AbuseConfig): Throttle | null {
  const config = resolveAbuseOptions(options);
  return decideThrottle(readThrottleWindow(window), config);
}

/** {@link checkAbuse} on a window already read and options already resolved. */
function decideThrottle(window: AbuseWindow, config: AbuseConfig): Throttle | null {
  if (window.requests <= config.requestThreshold || !abuseLowFill(window, config)) return null;
  return window.traded.isZero()
    ? { ...config.noFillLimit, reason: 'no-fills' }
    : { ...config.lowFillLimit, reason: 'low-fill-rate' };
}

/**
 * @internal Whether a window's fills are low enough for the abuse throttle (see docs/rules.md#r9), whatever its
 * request count: nothing traded, or a fill rate below the threshold (a window with no request is
 * read as one request). The throttle applies when this holds and the requests are over the
 * threshold; the account limiter's warning and headroom ask it of the window so far.
 */
export function abuseLowFill(window: AbuseWindow, config: AbuseConfig): boolean {
  return (
    window.traded.isZero() || isFillRateBelow(window.traded, Math.max(1, window.requests), config.fillRateThreshold)
  );
}

/**
 * One hour of an account's activity.
 *
 * @example
 * ```ts
 * import { type HourlyActivity, buildAbuseTimeline } from 'traderatio/rules'
 *
 * const hour: HourlyActivity = { hour: '2026-11-01T00:00:00Z', requests: 86_401, traded: '864' }
 * buildAbuseTimeline([hour]).throttleAt(Date.UTC(2026, 10, 1, 1)).throttle?.reason // 'low-fill-rate'
 * ```
 */
export interface HourlyActivity {
  /** The whole UTC hour (epoch ms, or ISO text ending in Z) the counts belong to. */
  readonly hour: number | string;
  /** Place, cancel and amend requests in the hour, failed ones included. */
  readonly requests: number;
  /** USDT traded in the hour, maker + taker. @default "0" */
  readonly traded?: DecimalInput;
}

/**
 * The throttle decision in force at an instant.
 *
 * @example
 * ```ts
 * import { type ThrottleState, buildAbuseTimeline } from 'traderatio/rules'
 *
 * const state: ThrottleState = buildAbuseTimeline([{ hour: Date.UTC(2026, 10, 1), requests: 86_401 }]).throttleAt(Date.UTC(2026, 10, 1, 1, 30))
 * new Date(state.checkedAt).toISOString() // '2026-11-01T01:00:00.000Z'
 * state.until - state.checkedAt // 3600000
 * state.fillRate?.toString() // '0'
 * ```
 */
export interface ThrottleState {
  /** The instant asked about. */
  readonly at: number;
  /** The hourly check that decided it: [checkedAt - 24 h, checkedAt) was looked at. */
  readonly checkedAt: number;
  /** When the decision ends: the next hourly check. */
  readonly until: number;
  /** The throttle in force, or `null`. */
  readonly throttle: Throttle | null;
  readonly requests: number;
  readonly traded: Dec;
  /** traded / requests, or `null` with no request. */
  readonly fillRate: Dec | null;
}

/**
 * A change of the throttle at an hourly check.
 *
 * @example
 * ```ts
 * import { type ThrottleChange, buildAbuseTimeline } from 'traderatio/rules'
 *
 * const [on, off]: readonly ThrottleChange[] = buildAbuseTimeline([{ hour: Date.UTC(2026, 10, 1), requests: 86_401 }]).changes
 * on!.throttle?.reason // 'no-fills'
 * new Date(off!.at).toISOString() // '2026-11-02T01:00:00.000Z'
 * ```
 */
export interface ThrottleChange {
  readonly at: number;
  readonly throttle: Throttle | null;
  readonly previous: Throttle | null;
  readonly requests: number;
  readonly traded: Dec;
}

/**
 * An account's abuse throttle over time.
 *
 * @example
 * ```ts
 * import { type AbuseTimeline, buildAbuseTimeline } from 'traderatio/rules'
 *
 * const timeline: AbuseTimeline = buildAbuseTimeline([{ hour: Date.UTC(2026, 10, 1), requests: 86_401 }])
 * timeline.changes.map((c) => c.throttle?.reason ?? null) // ['no-fills', null]
 * ```
 */
export interface AbuseTimeline {
  /** Every change, in time order: the throttle starting, changing kind or lifting. */
  readonly changes: readonly ThrottleChange[];
  /** The decision in force at `at`. */
  throttleAt(at: number): ThrottleState;
}

/**
 * The abuse throttle of one account over time (see docs/rules.md#r9), from its hourly activity.
 * Each whole hour H decides on [H - 24 h, H) what holds during [H, H + 1 h); the throttle lifts at
 * the first check that no longer trips it. Hours may come in any order; an hour given twice is
 * refused.
 *
 * @example
 * ```ts
 * import { buildAbuseTimeline } from 'traderatio/rules'
 *
 * const t = buildAbuseTimeline([{ hour: Date.UTC(2026, 10, 1), requests: 86_401 }])
 * t.throttleAt(Date.UTC(2026, 10, 1, 1))?.throttle?.limit // 10
 * ```
 */
export function buildAbuseTimeline(hours: readonly HourlyActivity[], options?: AbuseOptions): AbuseTimeline;
/** @internal */
export function buildAbuseTimeline(
  hours: readonly HourlyActivity[],
  options?: AbuseOptions | AbuseConfig,
): AbuseTimeline;
export function buildAbuseTimeline(
  hours: readonly HourlyActivity[],
  options: AbuseOptions | AbuseConfig = {},
): AbuseTimeline {
  const config = resolveAbuseOptions(options);
  return buildHourlyThrottleTimeline(hours, (w) => decideThrottle(w, config));
}

/**
 * An hourly throttle over time, from hourly activity: each whole hour H decides, with `decide`, on
 * the totals of [H - 24 h, H) what holds during [H, H + 1 h). The abuse throttle and the spot
 * low-fill throttle (see docs/rules.md#r9, #r14) are both this, with their own decision. Hours may
 * come in any order; an hour given twice is refused.
 */
export function buildHourlyThrottleTimeline(
  hours: readonly HourlyActivity[],
  decide: (window: AbuseWindow) => Throttle | null,
): AbuseTimeline {
  if (!Array.isArray(hours)) throw new InvalidInputError('`hours`', hours, 'an array');
  const rows = hours.map((h, i) => {
    if (typeof h !== 'object' || h === null)
      throw new InvalidInputError(`\`hours[${i}]\``, h, 'an object { hour, requests, traded }');
    return {
      hour: parseUtcHour(h.hour, `\`hours[${i}].hour\``),
      requests: parseCount(h.requests, `\`hours[${i}].requests\``),
      traded: h.traded === undefined ? ZERO : parseNonNegativeDecimal(h.traded, `\`hours[${i}].traded\``),
    };
  });
  rows.sort((a, b) => a.hour - b.hour);
  for (let i = 1; i < rows.length; i++) {
    if (rows[i]!.hour === rows[i - 1]!.hour) {
      throw new InvalidInputError('`hours[].hour`', formatUtcInstant(rows[i]!.hour), 'each hour once');
    }
  }
  const windowAt = throttleWindowSums(rows);

  const changes: ThrottleChange[] = [];
  if (rows.length > 0) {
    let previous = null as Throttle | null;
    // From the first check that reads an hour to the first after the last hour has left the window.
    for (
      let check = rows[0]!.hour + HOUR_MS;
      check <= rows.at(-1)!.hour + (THROTTLE_WINDOW_HOURS + 1) * HOUR_MS;
      check += HOUR_MS
    ) {
      const w = windowAt(check);
      const throttle = decide(w);
      if (throttle?.reason !== previous?.reason) {
        changes.push({ at: check, throttle, previous, requests: w.requests, traded: w.traded });
        previous = throttle;
      }
    }
  }

  return {
    changes,
    throttleAt(t: number): ThrottleState {
      const instant = parseInstant(t, '`at`');
      const checkedAt = utcHourStart(instant);
      const w = windowAt(checkedAt);
      return new State(instant, checkedAt, decide(w), w);
    },
  };
}

/** A throttle state whose fill rate is divided out when first read. */
class State implements ThrottleState {
  readonly until: number;
  readonly requests: number;
  readonly traded: Dec;
  private rate: Dec | null | undefined;
  constructor(
    readonly at: number,
    readonly checkedAt: number,
    readonly throttle: Throttle | null,
    window: AbuseWindow,
  ) {
    this.until = checkedAt + HOUR_MS;
    this.requests = window.requests;
    this.traded = window.traded;
  }
  get fillRate(): Dec | null {
    if (this.rate === undefined) this.rate = fillRateOf(this.traded, this.requests);
    return this.rate;
  }
}

/**
 * The limits on futures order placement and amendment at one instant.
 *
 * @example
 * ```ts
 * import { type PlacementLimits, placementLimit } from 'traderatio/rules'
 *
 * const limits: PlacementLimits = placementLimit(300, { limit: 10, windowMs: 10_000, reason: 'no-fills' })
 * limits.limits // [{ limit: 300, windowMs: 1000 }, { limit: 10, windowMs: 10000 }]
 * ```
 */
export interface PlacementLimits {
  /** The tier's limit, requests per tier window (Gate: per second; see docs/rules.md#r3). */
  readonly tierLimit: number;
  /** The abuse throttle, if one is in force (see docs/rules.md#r9). */
  readonly throttle: Throttle | null;
  /** Every limit that applies at once, as "N per W ms": the scheduler draws on all of them. */
  readonly limits: readonly WindowSpec[];
  /** min(tier limit, throttle) as requests per second. */
  readonly perSecond: Dec;
}

/**
 * Futures placement limit: min(tier limit, throttle) (see docs/rules.md#r9), the tier's limit
 * counted per `tierWindowMs` (Gate's second unless given). Cancels are never throttled.
 *
 * @example
 * ```ts
 * import { placementLimit } from 'traderatio/rules'
 *
 * placementLimit(300, null).perSecond.toString() // '300'
 * placementLimit(300, { limit: 10, windowMs: 10_000, reason: 'no-fills' }).perSecond.toString() // '1'
 * ```
 */
export function placementLimit(
  tierLimit: number,
  throttle: Throttle | null,
  tierWindowMs: number = GATE.tiers.windowMs,
): PlacementLimits {
  const perTier = parsePositiveInteger(tierLimit, '`tierLimit`');
  const windowMs = parsePositiveInteger(tierWindowMs, '`tierWindowMs`');
  const tier: WindowSpec = { limit: perTier, windowMs };
  const tierPerSecond = new Dec(perTier).times(1000).dividedBy(windowMs);
  if (throttle === null) return { tierLimit: perTier, throttle, limits: [tier], perSecond: tierPerSecond };
  const throttled = new Dec(throttle.limit).times(1000).dividedBy(throttle.windowMs);
  return {
    tierLimit: perTier,
    throttle,
    limits: [tier, { limit: throttle.limit, windowMs: throttle.windowMs }],
    perSecond: Dec.min(throttled, tierPerSecond),
  };
}
