import { InvalidInputError } from '../errors.js';
import { GATE } from './gate/rulebook.js';
import {
  type AbuseTimeline,
  type AbuseWindow,
  type HourlyActivity,
  type Throttle,
  buildHourlyThrottleTimeline,
} from './abuse.js';
import { Dec, type DecimalInput } from '../internal/decimal.js';
import { type WindowSpec, readRateLimit } from './window-spec.js';
import { isFillRateBelow } from './fill-rate.js';
import { readThrottleWindow } from './throttle-window.js';
import { parseCount, parseNonNegativeDecimal, resolveOptions } from '../internal/parse.js';

/**
 * Options of the spot low-fill throttle (see docs/rules.md#r14).
 *
 * @example
 * ```ts
 * import { Dec } from 'traderatio'
 * import { type SpotFillOptions, checkSpotFill } from 'traderatio/rules'
 *
 * const options: SpotFillOptions = { fillRateThreshold: '0.2' }
 * checkSpotFill({ requests: 1000, traded: new Dec(150) }, options)?.reason // 'low-fill-rate'
 * ```
 */
export interface SpotFillOptions {
  /**
   * Fill ratio (USDT traded on spot per spot request) below which the throttle applies; exactly
   * the threshold is not "below". @default "0.1"
   */
  readonly fillRateThreshold?: DecimalInput;
  /**
   * Spot requests in 24 h that must be exceeded before the throttle can apply ("more than"). The
   * exchange states none: by default any request in the window counts. @default 0
   */
  readonly requestThreshold?: number;
  /** The limit on throttled requests, per account. @default { limit: 10, windowMs: 10000 } */
  readonly limit?: WindowSpec;
  /** Whether batch placement and batch amendment are throttled too (the rule does not name them). @default false */
  readonly includeBatches?: boolean;
}

/** {@link SpotFillOptions} resolved once. */
export interface SpotFillConfig {
  readonly kind: 'spot-fill-config';
  readonly fillRateThreshold: Dec;
  readonly requestThreshold: number;
  readonly limit: WindowSpec;
  readonly includeBatches: boolean;
}

/** Validates spot low-fill options into their complete form (left out: the defaults). */
export function resolveSpotFillOptions(options?: SpotFillOptions | SpotFillConfig): SpotFillConfig {
  return resolveOptions(
    options,
    'spot-fill-config',
    SPOT_FILL_OPTION_FIELDS,
    'the spot low-fill options',
    spotFillConfigOf,
  );
}

const SPOT_FILL_OPTION_FIELDS: readonly string[] = ['fillRateThreshold', 'requestThreshold', 'limit', 'includeBatches'];

function spotFillConfigOf(o: SpotFillOptions): SpotFillConfig {
  if (o.includeBatches !== undefined && typeof o.includeBatches !== 'boolean') {
    throw new InvalidInputError('`includeBatches`', o.includeBatches, 'true or false');
  }
  // Gate's figures (see docs/rules.md#r14), from its rulebook: the one exchange with this throttle.
  const d = GATE.throttles.spotFill!;
  return {
    kind: 'spot-fill-config',
    fillRateThreshold: parseNonNegativeDecimal(o.fillRateThreshold ?? d.fillRateThreshold, '`fillRateThreshold`'),
    requestThreshold: parseCount(o.requestThreshold ?? d.requestThreshold, '`requestThreshold`'),
    limit: readRateLimit(o.limit ?? d.limit, '`limit`'),
    includeBatches: o.includeBatches ?? d.includeBatches,
  };
}

/**
 * Decides the spot low-fill throttle from one 24-hour window of spot activity (see
 * docs/rules.md#r14): more requests than `requestThreshold` (by default any) and a fill ratio (USDT
 * traded / requests) below 0.1 gives 10 per 10 s on spot placement and amendment; otherwise none. A
 * fill ratio of exactly 0.1 is not below; no requests, no throttle. The reason says whether
 * anything was traded.
 *
 * @example
 * ```ts
 * import { Dec } from 'traderatio'
 * import { checkSpotFill } from 'traderatio/rules'
 *
 * checkSpotFill({ requests: 1000, traded: new Dec('99.99') })?.limit // 10
 * checkSpotFill({ requests: 1000, traded: new Dec(100) }) // null
 * ```
 */
export function checkSpotFill(window: AbuseWindow, options?: SpotFillOptions): Throttle | null;
/** @internal */
export function checkSpotFill(window: AbuseWindow, options?: SpotFillOptions | SpotFillConfig): Throttle | null;
export function checkSpotFill(window: AbuseWindow, options?: SpotFillOptions | SpotFillConfig): Throttle | null {
  const config = resolveSpotFillOptions(options);
  return decideSpotFill(readThrottleWindow(window), config);
}

/** {@link checkSpotFill} on a window already read and options already resolved. */
function decideSpotFill(window: AbuseWindow, config: SpotFillConfig): Throttle | null {
  if (window.requests === 0 || window.requests <= config.requestThreshold) return null;
  if (!isFillRateBelow(window.traded, window.requests, config.fillRateThreshold)) return null;
  return { ...config.limit, reason: window.traded.isZero() ? 'no-fills' : 'low-fill-rate' };
}

/**
 * How far one 24-hour window of spot activity stands from the spot low-fill throttle (see
 * docs/rules.md#r14).
 *
 * @example
 * ```ts
 * import { Dec } from 'traderatio'
 * import { type SpotFillClearance, spotFillClearance } from 'traderatio/rules'
 *
 * const clearance: SpotFillClearance = spotFillClearance({ requests: 900, traded: new Dec(100) })
 * clearance.remaining // 100
 * ```
 */
export interface SpotFillClearance {
  /**
   * Spot requests that may still be added before a check on the window throttles (Infinity: none
   * would; negative: it throttles already, by that many requests).
   */
  readonly remaining: number;
  /** USDT more traded in the window that keeps the check clear (0 when it is clear already). */
  readonly needed: Dec;
}

/**
 * The room a 24-hour window of spot activity leaves before {@link checkSpotFill} throttles (see
 * docs/rules.md#r14): the spot requests that still fit at its volume, and the USDT to trade to stay
 * clear. The check throttles when requests > requestThreshold and traded < threshold x requests,
 * that is when requests > max(requestThreshold, floor(traded / threshold)) (requests being whole).
 *
 * @example
 * ```ts
 * import { Dec } from 'traderatio'
 * import { spotFillClearance } from 'traderatio/rules'
 *
 * spotFillClearance({ requests: 1000, traded: new Dec('99.5') }).needed.toString() // '0.5'
 * spotFillClearance({ requests: 1000, traded: new Dec(100) }).remaining // 0
 * ```
 */
export function spotFillClearance(window: AbuseWindow, options?: SpotFillOptions): SpotFillClearance;
/** @internal */
export function spotFillClearance(window: AbuseWindow, options?: SpotFillOptions | SpotFillConfig): SpotFillClearance;
export function spotFillClearance(window: AbuseWindow, options?: SpotFillOptions | SpotFillConfig): SpotFillClearance {
  const config = resolveSpotFillOptions(options);
  const { requests, traded } = readThrottleWindow(window);
  const thr = config.fillRateThreshold;
  const remaining = thr.isZero()
    ? Infinity
    : Math.max(config.requestThreshold, traded.dividedBy(thr).floor().toNumber()) - requests;
  return { remaining, needed: remaining < 0 ? thr.times(requests).minus(traded) : new Dec(0) };
}

/**
 * The spot low-fill throttle of one account over time (see docs/rules.md#r14), from its hourly spot
 * activity (requests: every spot place, cancel and amend, failed ones included, each order of a
 * batch; traded: spot USDT, maker + taker). Each whole hour H decides on [H - 24 h, H) what holds
 * during [H, H + 1 h); the throttle lifts at the first check that no longer trips it.
 *
 * @example
 * ```ts
 * import { buildSpotFillTimeline } from 'traderatio/rules'
 *
 * const t = buildSpotFillTimeline([{ hour: Date.UTC(2026, 10, 1), requests: 500, traded: '10' }])
 * t.throttleAt(Date.UTC(2026, 10, 1, 1)).throttle?.limit // 10
 * ```
 */
export function buildSpotFillTimeline(hours: readonly HourlyActivity[], options?: SpotFillOptions): AbuseTimeline;
/** @internal */
export function buildSpotFillTimeline(
  hours: readonly HourlyActivity[],
  options?: SpotFillOptions | SpotFillConfig,
): AbuseTimeline;
export function buildSpotFillTimeline(
  hours: readonly HourlyActivity[],
  options: SpotFillOptions | SpotFillConfig = {},
): AbuseTimeline {
  const config = resolveSpotFillOptions(options);
  return buildHourlyThrottleTimeline(hours, (w) => decideSpotFill(w, config));
}

/** The pair a spot order request counts under (see docs/rules.md#r14) when it names none. */
export const UNNAMED_PAIR = 'UNNAMED_PAIR';

/**
 * Whether the spot low-fill throttle limits a spot request (see docs/rules.md#r14): placement and
 * amendment, a batch only with `includeBatches`. Which endpoints are batches is the catalogue's to
 * say.
 */
export function spotFillLimitsOrder(action: string, batch: boolean, config: SpotFillConfig): boolean {
  return (action === 'place' || action === 'amend') && (config.includeBatches || !batch);
}

/**
 * A spot order request, as far as the spot low-fill throttle tells them apart (see
 * docs/rules.md#r14).
 *
 * @example
 * ```ts
 * import { type SpotOrderRequest, spotFillApplies } from 'traderatio/rules'
 *
 * const batch: SpotOrderRequest = { action: 'place', batch: true }
 * spotFillApplies(batch) // false
 * ```
 */
export interface SpotOrderRequest {
  readonly action: 'place' | 'amend' | 'cancel';
  /** A batch (POST /spot/batch_orders, POST /spot/amend_batch_orders). @default false */
  readonly batch?: boolean;
}

/**
 * Whether the spot low-fill throttle applies to a request (see docs/rules.md#r14): single placement
 * and amendment (POST /spot/orders, PATCH /spot/orders/{order_id}); never cancels; batches only
 * with `includeBatches`.
 *
 * @example
 * ```ts
 * import { spotFillApplies } from 'traderatio/rules'
 *
 * spotFillApplies({ action: 'amend' }) // true
 * spotFillApplies({ action: 'cancel' }) // false
 * spotFillApplies({ action: 'place', batch: true }, { includeBatches: true }) // true
 * ```
 */
export function spotFillApplies(request: SpotOrderRequest, options?: SpotFillOptions): boolean;
/** @internal */
export function spotFillApplies(request: SpotOrderRequest, options?: SpotFillOptions | SpotFillConfig): boolean;
export function spotFillApplies(request: SpotOrderRequest, options?: SpotFillOptions | SpotFillConfig): boolean {
  const config = resolveSpotFillOptions(options);
  if (typeof request !== 'object' || request === null)
    throw new InvalidInputError('the request', request, 'an object { action, batch }');
  const { action, batch = false } = request;
  if (action !== 'place' && action !== 'amend' && action !== 'cancel')
    throw new InvalidInputError('`action`', action, '"place", "amend" or "cancel"');
  if (typeof batch !== 'boolean') throw new InvalidInputError('`batch`', batch, 'true or false');
  return spotFillLimitsOrder(action, batch, config);
}
