/**
 * traderatio: an exchange's API v4 rate limits as exact rules (see docs/rules.md#r1 to #r16), and a scheduler that keeps
 * a trading engine inside them.
 *
 * The root entry is what an engine embeds: the account limiter and its counts, the scheduler and
 * its limits, the clocks and the stores' interface, the readers of the exchange's feedback, the
 * errors and `Dec`. Each name is on one entry: the pure rules a planner calls are
 * `traderatio/rules`; the catalogue of endpoints and its request checks `traderatio/catalog`; the
 * advisor `traderatio/advise`; the virtual clock `traderatio/testing`; the shared store
 * `traderatio/redis`; the integrations `traderatio/fetch`, `traderatio/websocket`,
 * `traderatio/ccxt`, `traderatio/gate-api`; the model exchange `traderatio/model-exchange`.
 *
 * @packageDocumentation
 */
export {
  TraderatioError,
  InvalidInputError,
  UnknownFieldError,
  RefusedError,
  NoReplyError,
  isTraderatioError,
  isInvalidInputError,
  isRefusedError,
} from './errors.js';
export type { ErrorCode, RefusalReason } from './errors.js';

export { Dec } from './internal/decimal.js';
export type { DecimalInput } from './internal/decimal.js';
export type { InstantInput } from './internal/parse.js';

export { AccountLimiter } from './account/limiter.js';
export type {
  AccountStatus,
  AccountLimiterOptions,
  LimitForecast,
  LimiterClockSample,
  LimiterEvent,
  LimiterExchange,
  LimiterSnapshot,
  RequestOptions,
  SentRequest,
  SentWebSocketRequest,
  WebSocketRequestOptions,
  ExchangeAnswer,
  RoundTrip,
  RoundTripOptions,
  RoundTripOutcome,
  RoundTripReport,
  SendFailure,
  ContractSource,
} from './account/limiter.js';
export type { AbuseHeadroom, SpotFillHeadroom, TierAtNextRaise, WhatIf } from './account/queries.js';
export type { AccountMargins, MarginPath, TierStep } from './rules/margins.js';
export { recordTrades } from './account/trades.js';
export type { FuturesTradeRow, RecordTradesOptions, SpotTradeRow, UserTradesMessage } from './account/trades.js';
export { Tracker } from './account/tracker.js';
export type { CountedAction, FillRole, TrackerState } from './account/tracker.js';

export { Scheduler } from './schedule/scheduler.js';
export type {
  Limit,
  ScheduleOptions,
  SchedulerEvent,
  SchedulerOptions,
  SchedulerStats,
  TakeResult,
} from './schedule/scheduler.js';
export { WindowLimit } from './schedule/window.js';
export type { WindowLimitOptions, WindowLimitState } from './schedule/window.js';
export { memoryStore } from './schedule/store.js';
export type { LimitHost, LimitStore } from './schedule/store.js';
export { systemClock } from './schedule/clock.js';
export type { Clock } from './schedule/clock.js';
export { ExchangeClock } from './rules/exchange-clock.js';
export type {
  BoundaryDirection,
  ClockEstimate,
  ClockSample,
  ExchangeClockOptions,
  LocalInstant,
  SampleOutcome,
  SampleRejection,
} from './rules/exchange-clock.js';

export {
  WEBSOCKET_RATE_LIMIT_CODES,
  feedbackFrom,
  feedbackFromWebSocket,
  readRateLimitHeaders,
  readWebSocketRateLimit,
} from './schedule/gate-feedback.js';
export type { HeadersLike, RateLimitFeedback, RateLimitHeaders } from './schedule/feedback.js';
export { okxRefusals } from './schedule/okx-feedback.js';
export { readGatewayTimes } from './schedule/gateway-time.js';
export type { GatewayTimes } from './schedule/gateway-time.js';
