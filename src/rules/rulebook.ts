import type { AbuseOptions } from './abuse.js';
import type { InstrumentBook } from './instruments.js';
import type { ReportedTier } from './report.js';
import type { SpotFillOptions } from './spot-fill.js';
import type { TierRow, TierTable } from './tiers.js';

/**
 * An exchange's rules as one value: everything in which two exchanges that tie an account's order
 * rate to its trading differ, as data. The pure rules are built from it (`rulesOf`) and never ask
 * which exchange they serve. Gate's ({@link GATE}) is the default of every function of
 * `traderatio/rules`; OKX's ({@link OKX}) is reachable by name (`rulebookNamed('okx')`, `okx`).
 * A variant is a copy with a field replaced: `{ ...OKX, timing: { ...OKX.timing, lowering: 'at-snapshot' } }`.
 *
 * @example
 * ```ts
 * import { GATE, OKX, type Rulebook } from 'traderatio/rules'
 *
 * const books: Rulebook[] = [GATE, OKX]
 * books.map((b) => b.tiers.windowMs) // [1000, 2000]
 * books.map((b) => b.tieredVipLevel) // [14, 5]
 * ```
 */
export interface Rulebook {
  /** The exchange's name, as the command line's `--exchange` takes it: `gate`, `okx`. */
  readonly name: string;
  /** The exchange and the limit, for people. */
  readonly title: string;
  /** What the tiered limit holds, for people (charts, reports): `futures placement`, `new and amend orders`. */
  readonly limited: string;
  /** The trade ratio: the weights of volume, what counts, the instruments and their weights. */
  readonly ratio: RatioRules;
  /** The tier table and the window its limits are counted in. */
  readonly tiers: {
    /** The rows, lowest ratio first (validated as `createTierTable` validates them). */
    readonly rows: readonly TierRow[];
    /** The window of a tier's limit, milliseconds: Gate 1 s, OKX 2 s. */
    readonly windowMs: number;
  };
  /** The VIP level from which an account is tiered by its ratio; below it, the lowest tier. */
  readonly tieredVipLevel: number;
  /** The exchange's highest VIP level: a level above it is refused as input. */
  readonly highestVipLevel: number;
  /**
   * The ids of the decisions the rulebook follows, as findings cite them: Gate's in docs/rules.md
   * (`see docs/rules.md#r1` the ratio, `#r2` the weights, `#r3` the tiers, `#r7` the family), OKX's in docs/okx.md
   * (`O2`, `O3`, `O4`, `O6`).
   */
  readonly ruleIds: {
    readonly ratio: string;
    readonly weights: string;
    readonly tiers: string;
    readonly family: string;
  };
  /** The family rule: own volume below the threshold takes the main account's aggregated ratio. */
  readonly family: {
    /** USDT of own 7-day volume (maker + taker) from which max(own, aggregated) rates an account. */
    readonly ownVolumeThreshold: string;
  };
  /** When a snapshot's tier takes effect. */
  readonly timing: RatingTiming;
  /** The throttles on top of the tier, each `null` where the exchange has none. */
  readonly throttles: {
    /** The abuse throttle's defaults (see docs/rules.md#r9). */
    readonly abuse: Required<AbuseOptions> | null;
    /** The spot low-fill throttle's defaults (see docs/rules.md#r14). */
    readonly spotFill: Required<SpotFillOptions> | null;
  };
  /** The exchange's own report of the account's limit. */
  readonly report: ReportRules;
}

/**
 * How a rulebook's ratio is made.
 *
 * @example
 * ```ts
 * import { OKX, type RatioRules } from 'traderatio/rules'
 *
 * const ratio: RatioRules = OKX.ratio
 * ratio.takerWeight // '1'
 * ratio.countCancels // false
 * ```
 */
export interface RatioRules {
  /** The default weight of maker volume in the numerator. */
  readonly makerWeight: string;
  /** The default weight of taker volume in the numerator. */
  readonly takerWeight: string;
  /** Whether cancels count in the denominator by default (place and amend always do). */
  readonly countCancels: boolean;
  /**
   * Whether refused requests count in the denominator: Gate counts failed requests, OKX only
   * successful ones. Activity given to the rules holds what counts; this says what that is.
   */
  readonly countsRefused: boolean;
  /**
   * The ratio of activity with no counted request: `null`, undefined (the lowest tier; see
   * docs/rules.md#r1), or the figures the exchange reports (OKX: 9999 with volume, 0 without).
   */
  readonly withoutRequests: { readonly withVolume: string; readonly withoutVolume: string } | null;
  /** How instruments are named and weighed. */
  readonly instruments: InstrumentBook;
}

/**
 * When the tier of a day's 00:00 UTC snapshot takes effect.
 *
 * @example
 * ```ts
 * import { GATE, OKX, type RatingTiming } from 'traderatio/rules'
 *
 * const gate: RatingTiming = GATE.timing
 * gate.lowering // 'at-snapshot'
 * OKX.timing.lowering // 'after-grace'
 * ```
 */
export interface RatingTiming {
  /** How long after the 00:00 UTC snapshot a better tier takes effect: 8 hours, 08:00 UTC. */
  readonly raiseAfterMs: number;
  /**
   * When a worse tier takes effect: `at-snapshot`, at once at 00:00 (Gate); `after-grace`, at the
   * raise instant of the next day, unless that day's snapshot gives a better tier (OKX: from 08:00
   * of day D until 08:00 of D+1, the higher of the tiers of the snapshots of D and D-1).
   */
  readonly lowering: 'at-snapshot' | 'after-grace';
  /**
   * When a change of VIP level counts: `at-once`, at its instant (Gate); `at-snapshot`, as the
   * level at each snapshot, with that snapshot's timing (OKX: a demotion keeps the grace).
   */
  readonly vipChanges: 'at-once' | 'at-snapshot';
  /** Days a new sub-account stays at the lowest tier: until the raise instant this many days after its creation day. */
  readonly newSubAccountDays: number;
}

/**
 * The exchange's own report of an account's limit: the endpoint and the reader of its answer.
 *
 * @example
 * ```ts
 * import { OKX, type ReportRules, createTierTable } from 'traderatio/rules'
 *
 * const report: ReportRules = OKX.report
 * report.endpoint // 'GET /api/v5/trade/account-rate-limit'
 * const answer = { code: '0', data: [{ accRateLimit: '2000', fillRatio: '5.5', mainFillRatio: '5.5', nextAccRateLimit: '2000', ts: '1795248000000' }] }
 * report.read(answer, createTierTable(OKX.tiers.rows))[0]?.tier // 5
 * ```
 */
export interface ReportRules {
  /** The endpoint, method and path. */
  readonly endpoint: string;
  /** Reads the endpoint's answer into reports, refusing a bad field by name; `tiers` finds a tier from a limit. */
  readonly read: (answer: unknown, tiers: TierTable) => readonly ReportedTier[];
}
