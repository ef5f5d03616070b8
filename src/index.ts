/**
 * traderatio: an exchange's API v4 rate limits as exact rules (R1-R16), and a scheduler that keeps
 * a trading engine inside them.
 *
 * The root entry is what an engine and a planner use: the account limiter, the scheduler and its
 * limit, the clock and stores they run on, the feedback readers, the errors, the catalogue and the
 * rule functions an engine calls. The whole set of pure rules is `traderatio/rules`; the virtual
 * clock is `traderatio/testing`; the shared store `traderatio/redis`; the integrations
 * `traderatio/fetch`, `traderatio/websocket`, `traderatio/ccxt`, `traderatio/gate-api`; the model
 * exchange `traderatio/exchange`.
 *
 * @packageDocumentation
 */
export {
  TraderatioError, InvalidInputError, UnknownFieldError, RefusedError, isTraderatioError, isInvalidInputError, isRefusedError,
} from './errors.js';
export type { ErrorCode, RefusalReason } from './errors.js';

export { Dec } from './internal/decimal.js';
export type { DecimalInput } from './internal/decimal.js';
export type { InstantInput } from './internal/parse.js';

export { AccountLimiter } from './account/limiter.js';
export type {
  AccountStatus, AccountLimiterOptions, LimiterClockSample, LimiterEvent, LimiterSnapshot, RequestOptions, SentRequest, SentWebSocketRequest, WebSocketRequestOptions,
} from './account/limiter.js';
export { recordTrades } from './account/trades.js';
export type { FuturesTradeRow, RecordTradesOptions, SpotTradeRow, UserTradesMessage } from './account/trades.js';
export type { CountedAction, FillRole, TrackerState } from './account/tracker.js';

export { Scheduler } from './schedule/scheduler.js';
export type { Limit, ScheduleOptions, SchedulerEvent, SchedulerOptions, SchedulerStats, StoreLimit, TakeResult } from './schedule/scheduler.js';
export { WindowLimit } from './schedule/window.js';
export type { WindowLimitOptions, WindowLimitState } from './schedule/window.js';
export { memoryStore } from './schedule/store.js';
export type { LimitHost, LimitStore } from './schedule/store.js';
export { systemClock } from './schedule/clock.js';
export type { Clock } from './schedule/clock.js';

export { feedbackFrom, readRateLimitHeaders } from './schedule/feedback.js';
export type { HeadersLike, RateLimitFeedback, RateLimitHeaders } from './schedule/feedback.js';
export { feedbackFromWebSocket } from './schedule/websocket-feedback.js';
export type { GatewayTimes } from './schedule/gateway-time.js';

export { createCatalog, DEFAULT_LIMITS } from './catalog/catalog.js';
export type { Action, Catalog, CatalogOptions, Classification, EndpointLimit, Market } from './catalog/catalog.js';
export type { WebSocketBudget } from './catalog/channels.js';
export type { Check } from './catalog/validators.js';

export { tradeRatio } from './rules/ratio.js';
export type { ContractActivity, RatioOptions, RatioResult } from './rules/ratio.js';
export { DEFAULT_TIERS, tierFor } from './rules/tiers.js';
export type { Tier, TierRow, TierTable } from './rules/tiers.js';
export { rateFamily } from './rules/family.js';
export type { AccountActivity, AccountRating, FamilyKind, FamilyOptions, FamilyRating, RatioBasis } from './rules/family.js';
export { buildTimeline } from './rules/timeline.js';
export type {
  ChangeReason, DailyActivity, TierChange, TierState, DailyRating, Timeline, TimelineAccount, TimelineInput, VipChange,
} from './rules/timeline.js';
export { checkAbuse } from './rules/abuse.js';
export type { WindowSpec } from './rules/window-spec.js';
export type {
  AbuseOptions, AbuseTimeline, AbuseWindow, HourlyActivity, PlacementLimits, Throttle, ThrottleChange, ThrottleReason, ThrottleState,
} from './rules/abuse.js';
export { checkSpotFill } from './rules/spot-fill.js';
export type { SpotFillClearance, SpotFillOptions, SpotOrderRequest } from './rules/spot-fill.js';
export { tierMargins } from './rules/margins.js';
export type { TierMargins } from './rules/margins.js';
export { ExchangeClock } from './rules/exchange-clock.js';
export type {
  BoundaryDirection, ClockEstimate, ClockSample, ExchangeClockOptions, LocalInstant, SampleOutcome, SampleRejection,
} from './rules/exchange-clock.js';
export type { RateLimitReport, ReconcileInput, ReportPolicy, TierDisagreement, TierReconciliation } from './rules/report.js';

export { advise } from './advise/advise.js';
export type { AccountOutcome, Advice, AdviceInput, AdviseOptions, Finding, FindingCost, FindingKind, Outcome } from './advise/advise.js';
export type { PairCount } from './advise/edits.js';
export type { ThrottleNearMiss } from './advise/throttles.js';
