/**
 * `traderatio/rules`: the exchange's rules as pure functions of their inputs and of an instant
 * passed in (R1-R16), with their options: ratios and tiers, families and their day-by-day timeline,
 * the abuse and spot-fill throttles, the VIP exemption, the calendar they count on, the rate-limit
 * report and the gateway's times, the WebSocket codes, the catalogue's request checks, and the
 * `Tracker` that keeps an account's counts for them. The rule functions an engine calls most are
 * also on the root entry; this entry is the whole set, for a planner or a replay.
 *
 * This file only gathers the entry: it imports from the layers above the rules (the scheduler's
 * header readers, the catalogue, the account) for the package's users, and no module imports it.
 *
 * @packageDocumentation
 */
export { Dec } from '../internal/decimal.js';
export type { DecimalInput } from '../internal/decimal.js';
export type { InstantInput } from '../internal/parse.js';
export {
  DAY_MS, HOUR_MS, utcDayStart, utcHourStart, addUtcDays, formatUtcDay, formatUtcInstant, parseUtcDay,
} from './calendar.js';

export { DEFAULT_COEFFICIENTS, DEFAULT_COEFFICIENT, normalizeContract } from './contracts.js';

export { tradeRatio, compareRatio } from './ratio.js';
export type { ContractActivity, RatioOptions, RatioResult } from './ratio.js';

export { DEFAULT_TIERS, createTierTable, tierFor, tierOfRatio } from './tiers.js';
export type { Tier, TierRow, TierTable } from './tiers.js';

export { TIERED_VIP_LEVEL, isTieredVip, parseVipLevel } from './vip.js';

export { rateFamily } from './family.js';
export type { AccountActivity, AccountRating, FamilyKind, FamilyOptions, FamilyRating, RatioBasis } from './family.js';

export { buildTimeline } from './timeline.js';
export type {
  ChangeReason, DailyActivity, TierChange, TierState, DailyRating, Timeline, TimelineAccount, TimelineInput, VipChange,
} from './timeline.js';

export { buildAbuseTimeline, checkAbuse, placementLimit } from './abuse.js';
export type { WindowSpec } from './window-spec.js';
export type {
  AbuseOptions, AbuseTimeline, AbuseWindow, HourlyActivity, PlacementLimits, Throttle, ThrottleChange, ThrottleReason,
  ThrottleState,
} from './abuse.js';
export { buildSpotFillTimeline, checkSpotFill, spotFillApplies, spotFillClearance } from './spot-fill.js';
export type { SpotFillClearance, SpotFillOptions, SpotOrderRequest } from './spot-fill.js';

export { WORKED_EXAMPLE } from './example.js';

export { ExchangeClock } from './exchange-clock.js';
export type {
  BoundaryDirection, ClockEstimate, ClockSample, ExchangeClockOptions, LocalInstant, SampleOutcome, SampleRejection,
} from './exchange-clock.js';
export { readRateLimitReport, reconcileTier, reportFor } from './report.js';
export type { RateLimitReport, ReconcileInput, ReportPolicy, TierDisagreement, TierReconciliation } from './report.js';
export { tierMargins } from './margins.js';
export type { TierMargins } from './margins.js';

export { readGatewayTimes } from '../schedule/gateway-time.js';
export type { GatewayTimes } from '../schedule/gateway-time.js';
export { WEBSOCKET_RATE_LIMIT_CODES, readWebSocketRateLimit } from '../schedule/websocket-feedback.js';
export type { HeadersLike, RateLimitHeaders } from '../schedule/feedback.js';

export { WEBSOCKET_ORDER_CHANNELS } from '../catalog/channels.js';
export type { WebSocketBudget } from '../catalog/channels.js';
export {
  checkApiKeyCount, checkClockOffset, checkCustomIdUsable, checkFuturesBatch, checkIpWhitelist, checkListLimit,
  checkOpenCrossExchangeOrders, checkOrderText, checkSpotBatch, checkTimestamp, checkWebSocketConnections,
} from '../catalog/validators.js';
export type { Check } from '../catalog/validators.js';

export { Tracker } from '../account/tracker.js';
export type { CountedAction, FillRole, TrackerState } from '../account/tracker.js';
