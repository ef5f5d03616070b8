/**
 * `traderatio/rules`: the exchanges' rules as pure functions of their inputs and of an instant
 * passed in, with their options: ratios and tiers, families and their day-by-day timeline, the
 * abuse and spot-fill throttles, the VIP exemption, the calendar they count on, instrument names
 * and weights, the margins to a tier's bounds and the rate-limit report. Each exchange's rules
 * are one rulebook value (`GATE`, `OKX`); the functions here are Gate's, the default, and
 * `rulesOf(rulebook)` (`okx`, `gate`) builds the same from another (see docs/rules.md,
 * docs/okx.md). What a planner or a replay calls; what keeps state (the limiter, `Tracker`,
 * `ExchangeClock`) is on the root entry.
 *
 * @packageDocumentation
 */
export {
  DAY_MS,
  HOUR_MS,
  utcDayStart,
  utcHourStart,
  addUtcDays,
  formatUtcDay,
  formatUtcInstant,
  parseUtcDay,
} from './calendar.js';

export { DEFAULT_COEFFICIENTS, DEFAULT_COEFFICIENT, normalizeContract } from './contracts.js';

export { tradeRatio, compareRatio } from './ratio.js';
export type { ContractActivity, RatioOptions, RatioResult } from './ratio.js';

export { DEFAULT_TIERS, createTierTable, tierFor, tierOfRatio } from './tiers.js';
export type { Tier, TierRow, TierTable } from './tiers.js';

export { TIERED_VIP_LEVEL, isTieredVip, parseVipLevel } from './vip.js';

export { rateFamily } from './family.js';
export type { AccountActivity, AccountRating, FamilyKind, FamilyOptions, FamilyRating, RatioBasis } from './family.js';

export { buildTimeline } from './timeline/timeline.js';
export type {
  ChangeReason,
  DailyActivity,
  TierChange,
  TierState,
  DailyRating,
  Timeline,
  TimelineAccount,
  TimelineInput,
  VipChange,
} from './timeline/timeline.js';

export { buildAbuseTimeline, checkAbuse, placementLimit } from './abuse.js';
export type { WindowSpec } from './window-spec.js';
export type {
  AbuseOptions,
  AbuseTimeline,
  AbuseWindow,
  HourlyActivity,
  PlacementLimits,
  Throttle,
  ThrottleChange,
  ThrottleReason,
  ThrottleState,
} from './abuse.js';
export { buildSpotFillTimeline, checkSpotFill, spotFillApplies, spotFillClearance } from './spot-fill.js';
export type { SpotFillClearance, SpotFillOptions, SpotOrderRequest } from './spot-fill.js';

export { WORKED_EXAMPLE } from './example.js';

export { readRateLimitReport, reconcileTier, reportFor } from './report.js';
export type {
  RateLimitReport,
  ReconcileInput,
  ReportedTier,
  ReportPolicy,
  TierDisagreement,
  TierReconciliation,
} from './report.js';
export { tierMargins } from './margins.js';
export type { TierMargins } from './margins.js';

export type { InstrumentBook, InstrumentWeights } from './instruments.js';
export type { RatingTiming, RatioRules, ReportRules, Rulebook } from './rulebook.js';
export { GATE } from './gate/rulebook.js';
export { OKX } from './okx/rulebook.js';
export { RULEBOOK_NAMES, gate, okx, rulebookNamed, rulesOf } from './exchange-rules.js';
export type { ExchangeRules } from './exchange-rules.js';
export { OKX_MULTIPLIERS, readInstrument } from './okx/instruments.js';
export type { Instrument, InstrumentKind, MultiplierRule, MultiplierTable } from './okx/instruments.js';
export { readAccountRateLimit } from './okx/report.js';
export type { OkxRateLimitReport } from './okx/report.js';
export { OKX_WORKED_EXAMPLE } from './okx/example.js';
