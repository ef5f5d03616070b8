/**
 * traderatio: an exchange's API v4 rate limits as exact rules (R1-R16), and a scheduler that keeps
 * a trading engine inside them.
 *
 * @packageDocumentation
 */
export {
  TraderatioError, InvalidInputError, UnknownFieldError, RefusedError, TooManyTimersError, isTraderatioError, isInvalidInputError, isRefusedError,
} from './errors.js';
export type { ErrorCode, RefusalReason } from './errors.js';

export { Dec } from './rules/decimal.js';
export type { DecimalInput } from './rules/decimal.js';
export type { InstantInput } from './rules/parse.js';
export {
  DAY_MS, HOUR_MS, utcDayStart, utcHourStart, addUtcDays, formatUtcDay, formatUtcInstant, parseUtcDay,
} from './rules/calendar.js';

export { DEFAULT_COEFFICIENTS, DEFAULT_COEFFICIENT, normalizeContract } from './rules/contracts.js';

export { tradeRatio, compareRatio } from './rules/ratio.js';
export type { ContractActivity, RatioOptions, RatioResult } from './rules/ratio.js';

export { DEFAULT_TIERS, createTierTable, tierFor, tierOfRatio } from './rules/tiers.js';
export type { Tier, TierRow, TierTable } from './rules/tiers.js';

export { TIERED_VIP_LEVEL, isTieredVip, parseVipLevel } from './rules/vip.js';

export { rateFamily } from './rules/family.js';
export type { AccountActivity, AccountRating, FamilyKind, FamilyOptions, FamilyRating, RatioBasis } from './rules/family.js';

export { buildTimeline } from './rules/timeline.js';
export type {
  ChangeReason, DailyActivity, LimitChange, LimitState, Snapshot, Timeline, TimelineAccount, TimelineInput, VipChange,
} from './rules/timeline.js';

export { buildAbuseTimeline, checkAbuse, placementLimit } from './rules/abuse.js';
export { buildSpotFillTimeline, checkSpotFill, spotFillApplies, spotFillClearance } from './rules/spot-fill.js';
export type { SpotFillClearance, SpotFillOptions, SpotOrderRequest } from './rules/spot-fill.js';
export type {
  AbuseOptions, AbuseTimeline, AbuseWindow, HourlyActivity, PlacementLimit, RateLimit, Throttle, ThrottleChange,
  ThrottleReason, ThrottleState,
} from './rules/abuse.js';

export { WORKED_EXAMPLE } from './rules/example.js';

export { ExchangeClock } from './rules/exchange-clock.js';
export type {
  BoundaryDirection, ClockEstimate, ClockSample, ExchangeClockOptions, LocalInstant, SampleOutcome,
  SampleRejection,
} from './rules/exchange-clock.js';
export { readRateLimitReport, reconcileTier, reportFor } from './rules/report.js';
export type { RateLimitReport, ReconcileInput, ReportPolicy, TierDisagreement, TierReconciliation } from './rules/report.js';

export { WindowLimit } from './schedule/window.js';
export type { WindowLimitOptions, WindowLimitState } from './schedule/window.js';
export { Scheduler } from './schedule/scheduler.js';
export { memoryStore } from './schedule/store.js';
export type { LimitHost, LimitStore } from './schedule/store.js';
export type { Limit, ScheduleOptions, SchedulerEvent, SchedulerOptions, SchedulerStats } from './schedule/scheduler.js';
export { VirtualClock, systemClock } from './schedule/clock.js';
export type { Clock } from './schedule/clock.js';
export { feedbackFrom, readRateLimitHeaders } from './schedule/feedback.js';
export type { HeadersLike, RateLimitFeedback, RateLimitHeaders } from './schedule/feedback.js';
export { readGatewayTimes } from './schedule/gateway-time.js';
export type { GatewayTimes } from './schedule/gateway-time.js';
export { WEBSOCKET_RATE_LIMIT_CODES, feedbackFromWebSocket, readWebSocketRateLimit } from './schedule/websocket-feedback.js';

export { createCatalog, DEFAULT_LIMITS } from './catalog/catalog.js';
export type { Action, Catalog, CatalogOptions, Classification, LimitSpec, Market } from './catalog/catalog.js';
export { WEBSOCKET_ORDER_CHANNELS } from './catalog/channels.js';
export type { WebSocketBudget } from './catalog/channels.js';
export {
  checkApiKeyCount, checkClockOffset, checkCustomIdUsable, checkFuturesBatch, checkIpWhitelist, checkListLimit,
  checkOpenCrossExchangeOrders, checkOrderText, checkSpotBatch, checkTimestamp, checkWebSocketConnections,
} from './catalog/validators.js';
export type { Check } from './catalog/validators.js';
export { tierMargins } from './rules/margins.js';
export type { TierMargins } from './rules/margins.js';
export { advise } from './advise/advise.js';
export type { AccountOutcome, Advice, AdviceInput, AdviseOptions, Finding, FindingKind, Outcome } from './advise/advise.js';
export type { PairCount } from './advise/edits.js';
export type { ThrottleNearMiss } from './advise/throttles.js';
export { Tracker } from './account/tracker.js';
export type { CountedAction, FillRole, TrackerState } from './account/tracker.js';
export { AccountLimiter } from './account/limiter.js';
export type {
  AccountLimit, AccountLimiterOptions, LimiterClockSample, LimiterEvent, LimiterSnapshot, RequestOptions, SentRequest, SentWebSocketRequest, WebSocketRequestOptions,
} from './account/limiter.js';
export { recordTrades } from './account/trades.js';
export type { FuturesTradeRow, RecordTradesOptions, SpotTradeRow, UserTradesMessage } from './account/trades.js';

