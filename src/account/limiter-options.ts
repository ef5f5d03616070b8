import { InvalidInputError } from '../errors.js';
import { type Catalog, type CatalogOptions, createCatalog } from '../catalog/catalog.js';
import { type ExchangeApi, GATE_API, OKX_API, okxTrackerName } from '../catalog/exchange-api.js';
import { createOkxCatalog } from '../catalog/okx.js';
import type { WebSocketBudget } from '../catalog/channels.js';
import { type AbuseConfig, type AbuseOptions, resolveAbuseOptions } from '../rules/abuse.js';
import { normalizeContract } from '../rules/contracts.js';
import type { ClockSample } from '../rules/exchange-clock.js';
import { type FamilyConfig, type FamilyOptions, FAMILY_OPTION_FIELDS, readFamilyOptions } from '../rules/family.js';
import { isPositiveInteger, parseInstant } from '../internal/parse.js';
import type { ReportPolicy } from '../rules/report.js';
import { type SpotFillConfig, type SpotFillOptions, resolveSpotFillOptions } from '../rules/spot-fill.js';
import type { TimelineAccount } from '../rules/timeline/timeline.js';
import { parseVipLevel } from '../rules/vip.js';
import { type Clock, systemClock } from '../schedule/clock.js';
import type { HeadersLike, RateLimitSignals } from '../schedule/feedback.js';
import { GATE_RATE_LIMIT_SIGNALS } from '../schedule/gate-feedback.js';
import { OKX_RATE_LIMIT_SIGNALS } from '../schedule/okx-feedback.js';
import type { LimitStore } from '../schedule/store.js';
import type { LimiterSnapshot } from './persistence.js';
import type { SharedCounts } from './shared-counts.js';

/**
 * Options of an account limiter.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type AccountLimiterOptions } from 'traderatio'
 *
 * const options: AccountLimiterOptions = { accounts: [{ id: 'main', role: 'main' }], vipLevel: 2 }
 * const limiter = new AccountLimiter(options)
 * limiter.limitNow('main').reason // 'vip-below-14'
 * limiter.close()
 * ```
 */
export interface AccountLimiterOptions extends FamilyOptions {
  /**
   * The exchange whose rules and API the limiter keeps: `gate` (API v4, docs/rules.md) or `okx`
   * (API v5, the fill-ratio sub-account limit, docs/okx.md). On OKX, order requests draw on the
   * sub-account limit of the tier (new and amend orders, per 2 s) and on their endpoint's limit
   * per instrument, answers are read for OKX's codes 50061 and 50011, the exchange's clock is read
   * from GET /api/v5/public/time, and the options that are Gate's alone (`catalog`, `abuse`,
   * `spotFill`, `downgrade: 'live'`, `pacing`, `arrivals: 'estimate'`, `websocketBudget`) are refused.
   * @default "gate"
   */
  readonly exchange?: LimiterExchange;
  /** The family: a main account and its sub-accounts (or a single account). */
  readonly accounts: readonly TimelineAccount[];
  /** The family's VIP level now (see docs/rules.md#r4). @default the exchange's first tiered level: Gate 14, OKX 5 */
  readonly vipLevel?: number;
  /** Where time is read. @default systemClock */
  readonly clock?: Clock;
  /** Per-endpoint limits (see docs/rules.md#r10). */
  readonly catalog?: CatalogOptions;
  /** Abuse throttle thresholds (see docs/rules.md#r9). */
  readonly abuse?: AbuseOptions;
  /** Spot low-fill throttle thresholds and scope (see docs/rules.md#r14). */
  readonly spotFill?: SpotFillOptions;
  /**
   * `snapshot`: limits change at the snapshot instants (see docs/rules.md#r5). `live`: besides, a fall of the rolling
   * ratio into a lower tier lowers the limit at that instant; raises still wait for 08:00.
   * @default "snapshot"
   */
  readonly downgrade?: 'snapshot' | 'live';
  /** Share of the abuse request threshold at which `abuse-warning` fires. @default 0.9 */
  readonly warnAt?: number;
  /** Tasks that may wait at once. @default 100000 */
  readonly maxQueue?: number;
  /**
   * Calls `save` with a snapshot every `everyMs` milliseconds. A `save` that throws or rejects
   * is reported as an `error` event (source `persist`) and the next save runs as planned.
   */
  readonly persist?: { readonly everyMs: number; readonly save: (snapshot: LimiterSnapshot) => unknown };
  /**
   * The contract an order request counts under when neither the caller nor the body names one
   * (a cancel by order id). The heaviest coefficient is the safe choice: it lowers the ratio most.
   * On OKX every order names its instrument, and this is the instrument requests other processes
   * may not have shared yet are counted under at a boundary.
   * @default "BTC_USDT" (OKX: "BTC-USDT-SWAP")
   */
  readonly unknownContract?: string;
  /**
   * Safety margin on the arrival window (see docs/rules.md#r13), milliseconds: every limit counts each request for its window plus this,
   * so that network jitter bringing two requests closer on arrival at the exchange (which counts
   * arrivals) cannot put N + 1 in one of its windows. @default 0
   */
  readonly marginMs?: number;
  /**
   * When the exchange may have counted a request (see docs/rules.md#r13: it counts arrivals). `answers`: between its
   * send and its answer, the only thing known whatever the network does; each request counts from
   * its send until one window after its answer came back (less the gateway's own time, from
   * `X-In-Time` and `X-Out-Time`, when the answer carries them), and one not answered counts until
   * it is (a minute past its window at most). Each limit then gives up about one round trip per
   * window. `estimate`: from its send until one window after an arrival estimated from the gateway
   * times, measured against the quickest way there of the last minute; it gives up less, but a
   * way there quicker than any seen (a connection already open, a queue that empties) can put N + 1
   * in one of the exchange's windows. @default "answers"
   */
  readonly arrivals?: 'answers' | 'estimate';
  /**
   * Spreads futures placements across the placement limit's window under saturation (see docs/rules.md#r13): with
   * `k` above 1, placements also draw on a limit of ceil(N / k) per W / k, so that a saturated
   * limit sends about N / k every W / k instead of replaying one burst of N each window (the
   * engine's cancels then do not queue behind the burst in the HTTP client and the network).
   * 1 leaves placements unpaced. @default 1
   */
  readonly pacing?: number;
  /**
   * What {@link AccountLimiter.reportRateLimit} does with the exchange's report (see docs/rules.md#r16) when it
   * disagrees with the tier the rules give: `adopt` a report made at or after the latest snapshot
   * (00:00) as the tier in force; `report` only (keep the local tier); `min`, the lower of the two.
   * On OKX, the report of GET /api/v5/trade/account-rate-limit (see docs/okx.md#o9), taken the same way.
   * Every disagreement is reported as a `report` event whatever the policy.
   * @default "adopt"
   */
  readonly reportPolicy?: ReportPolicy;
  /**
   * Polls the exchange's own figure (GET /account/rate_limit, see docs/rules.md#r16) every `everyMs` milliseconds for
   * every account of the family: `fetch(account)` resolves to the answer's JSON (sent the way the
   * engine sends, e.g. through `traderatio/fetch` with the account's key), which
   * {@link AccountLimiter.reportRateLimit} applies under `reportPolicy`. Off by default: the
   * exchange marks the endpoint not yet open. A `fetch` that throws or rejects, or an answer that
   * is refused, is reported as an `error` event (source `reconcile`) and polling goes on.
   */
  readonly reconcile?: { readonly everyMs: number; readonly fetch: (account: string) => unknown };
  /**
   * What a WebSocket order ({@link AccountLimiter.requestWebSocket}) draws on (see docs/rules.md#r16). `shared`: its
   * WebSocket limit (see docs/rules.md#r10) and the REST limit of the same action for the same account, all at once
   * (futures placement and amendment: the tier; cancels: the cancel limit). `separate`: its
   * WebSocket limits only, the tier (see docs/rules.md#r3) replacing the WebSocket futures 100 per second.
   * @default "shared"
   */
  readonly websocketBudget?: WebSocketBudget;
  /**
   * The clock the rules' instants are taken on (see docs/rules.md#r15). `estimate`: the exchange's, as estimated from
   * the gateway times of responses given to {@link AccountLimiter.clockSample}; every boundary
   * (00:00 snapshot, 08:00 raise, hourly throttle checks, a new sub-account's T+1 08:00) is applied
   * on it, a lowering `error` early and a raise `error` late; before the first sample it is the
   * local clock. The limiter's instants (events' `at`, `limitNow`, snapshots, the default `at` of
   * `setVipLevel`, `addSubAccount` and `recordFill`, the hours requests are counted in) are then
   * the exchange's, as estimated. `local`: the local wall clock as is.
   * @default "estimate"
   */
  readonly exchangeClock?: 'estimate' | 'local';
  /**
   * Where the limits are kept (see `Scheduler`): a Redis store of `traderatio/redis` shares them
   * with the other processes on the account (see docs/rules.md#r10), and keeps the counts there too: requests and
   * fills are then the account's totals over every process, and so are the tiers, throttles,
   * warnings and headroom read from them (see docs/rules.md#r1, #r5, #r9, #r14). @default memoryStore
   */
  readonly store?: LimitStore & { counts?(): SharedCounts };
}

/**
 * One timed request for the exchange clock's estimate (see docs/rules.md#r15): the local wall-clock instants it was
 * sent and answered (the limiter's `clock.wall()`, `Date.now()` by default), and either the
 * response's headers (REST) or the WebSocket answer's `header`, where `X-In-Time` and `X-Out-Time`
 * are read, or those two in microseconds. `sentMono` and `receivedMono` (the limiter's
 * `clock.now()`) let the estimate follow a step of the local wall clock at once.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type LimiterClockSample } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * const sentAt = Date.now(), inTime = (sentAt + 1_010) * 1_000 // the exchange 1 s ahead, in µs
 * const sample: LimiterClockSample = { sentAt, receivedAt: sentAt + 20, headers: { 'x-in-time': `${inTime}`, 'x-out-time': `${inTime + 1_000}` } }
 * limiter.clockSample(sample) // { accepted: true }
 * limiter.clockEstimate()?.offsetMs // 1000.5
 * limiter.close()
 * ```
 */
export type LimiterClockSample =
  | ClockSample
  | (Omit<ClockSample, 'inTime' | 'outTime'> & { readonly headers: HeadersLike });

/**
 * Options of one request.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type RequestOptions } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * // A cancel by order id: the contract it counts under, and the cancels' priority.
 * const options: RequestOptions = { contract: 'ETH_USDT', priority: 10 }
 * await limiter.request('main', 'DELETE', '/futures/usdt/orders/123', () => 'cancelled', options) // 'cancelled'
 * limiter.close()
 * ```
 */
export interface RequestOptions {
  /** The request body: a batch's orders count one by one (see docs/rules.md#r1). */
  readonly body?: unknown;
  /** The futures contract, when neither path nor body names it (a cancel by order id). */
  readonly contract?: string;
  readonly signal?: AbortSignal;
  /** An instant on the limiter's clock by which the request must have started. */
  readonly deadline?: number;
  /** Overrides the default priority (cancels 10, everything else 0). */
  readonly priority?: number;
}

/**
 * The priority a cancel gets unless told otherwise, above everything else's 0: a cancel never
 * waits behind placements on a limit they share.
 */
export const CANCEL_PRIORITY = 10;

/**
 * Options of one WebSocket order request.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type WebSocketRequestOptions } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * const options: WebSocketRequestOptions = { params: { contract: 'BTC_USDT', size: 1, price: '60000' } }
 * await limiter.requestWebSocket('main', 'futures.order_place', () => 'placed', options) // 'placed'
 * limiter.close()
 * ```
 */
export interface WebSocketRequestOptions extends Omit<RequestOptions, 'body'> {
  /** The `req_param` of the request: an order, a batch, an amendment, the ids to cancel. */
  readonly params?: unknown;
  /** The futures connection's settlement currency. @default "usdt" */
  readonly settle?: string;
}

/**
 * A request as given to {@link AccountLimiter.request}.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type SentRequest } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const clock = new VirtualClock({ wallStart: Date.now() })
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }], clock })
 * const sent: SentRequest = { method: 'GET', path: '/futures/usdt/accounts' }
 * limiter.feedback('main', sent, { limited: true, retryAfterMs: 1_000 }) // a 429: wait a second
 * const started = limiter.request('main', sent.method, sent.path, () => clock.now())
 * await clock.advance(1_000)
 * await started // 1000
 * limiter.close()
 * ```
 */
export interface SentRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

/**
 * A WebSocket order request as given to {@link AccountLimiter.requestWebSocket}.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type SentWebSocketRequest } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const clock = new VirtualClock({ wallStart: Date.now() })
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }], clock })
 * const sent: SentWebSocketRequest = { channel: 'futures.order_place', params: { contract: 'BTC_USDT', size: 1, price: '60000' } }
 * limiter.feedback('main', sent, { limited: true, retryAfterMs: 1_000 }) // refused for its rate
 * const started = limiter.requestWebSocket('main', sent.channel, () => clock.now(), { params: sent.params })
 * await clock.advance(1_000)
 * await started // 1000
 * limiter.close()
 * ```
 */
export interface SentWebSocketRequest {
  readonly channel: string;
  readonly params?: unknown;
  /** @default "usdt" */
  readonly settle?: string;
}

/**
 * The exchanges an account limiter keeps (see {@link AccountLimiterOptions.exchange}).
 *
 * @example
 * ```ts
 * import { AccountLimiter, type LimiterExchange } from 'traderatio'
 *
 * const exchange: LimiterExchange = 'okx'
 * const limiter = new AccountLimiter({ exchange, accounts: [{ id: 'main', role: 'main' }] })
 * limiter.limitNow('main').limit // 1000
 * limiter.close()
 * ```
 */
export type LimiterExchange = 'gate' | 'okx';

/** The options an account limiter on OKX refuses: Gate's alone. */
const GATE_ONLY_OPTIONS: readonly { readonly field: keyof AccountLimiterOptions; readonly why: string }[] = [
  { field: 'catalog', why: "Gate's endpoint limits" },
  { field: 'abuse', why: "Gate's abuse throttle; OKX has none" },
  { field: 'spotFill', why: "Gate's spot low-fill throttle; OKX has none" },
  { field: 'pacing', why: "spreads Gate's futures placements" },
  { field: 'websocketBudget', why: "Gate's WebSocket limits; OKX's WebSocket orders draw on their REST limits" },
];

/** Every field of {@link AccountLimiterOptions}, for the check that refuses an unknown one. */
const LIMITER_OPTION_FIELDS: readonly string[] = [
  ...FAMILY_OPTION_FIELDS,
  'exchange',
  'accounts',
  'vipLevel',
  'clock',
  'catalog',
  'abuse',
  'spotFill',
  'downgrade',
  'warnAt',
  'maxQueue',
  'persist',
  'unknownContract',
  'reportPolicy',
  'websocketBudget',
  'exchangeClock',
  'marginMs',
  'arrivals',
  'pacing',
  'reconcile',
  'store',
];

/** The limiter's options, read and checked: every field present. */
export interface LimiterConfig {
  /** The exchange, and its API as the limiter reads it: its rulebook, how requests are counted for the ratio. */
  readonly exchange: LimiterExchange;
  readonly api: ExchangeApi;
  /** The key of the limit whose N is the tier in force (Gate's `futures.place`, OKX's `sub-account`). */
  readonly tierKey: string;
  /** Whether the exchange throttles on top of the tier (Gate's abuse and spot low-fill throttles; not OKX). */
  readonly throttled: boolean;
  readonly clock: Clock;
  readonly family: FamilyConfig;
  readonly abuse: AbuseConfig;
  readonly spotFill: SpotFillConfig;
  readonly marginMs: number;
  /** `arrivals: 'estimate'`: arrivals estimated from gateway times, not bounded by answers (see docs/rules.md#r13). */
  readonly estimateArrivals: boolean;
  /** Parts of the window placements are spread over (1: unpaced). */
  readonly pacing: number;
  readonly catalog: Catalog;
  /** `downgrade: 'live'`. */
  readonly live: boolean;
  readonly warnAt: number;
  readonly unknownContract: string;
  readonly vipLevel: number;
  readonly reportPolicy: ReportPolicy;
  readonly websocketBudget: WebSocketBudget;
  /** `exchangeClock: 'estimate'`. */
  readonly estimateClock: boolean;
  readonly persist: AccountLimiterOptions['persist'];
  readonly reconcile: AccountLimiterOptions['reconcile'];
  /** How the exchange says a request was refused for its rate, and what its answers say of a limit. */
  readonly signals: RateLimitSignals;
}

/**
 * Reads and checks the limiter's options (all but the family's accounts, which its timeline
 * checks), the defaults filled in. A refused option throws an {@link InvalidInputError} naming it.
 */
export function resolveLimiterOptions(options: AccountLimiterOptions): LimiterConfig {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('limiter options', options, 'an object { accounts, ... }');
  const clock = options.clock ?? systemClock;
  if (
    typeof clock !== 'object' ||
    clock === null ||
    typeof clock.wall !== 'function' ||
    typeof clock.setTimer !== 'function'
  ) {
    throw new InvalidInputError('`clock`', clock, 'a Clock { now, wall, setTimer, clearTimer }');
  }
  parseInstant(Math.floor(clock.wall()), 'the wall time of `clock`');
  const exchange = options.exchange ?? 'gate';
  if (exchange !== 'gate' && exchange !== 'okx')
    throw new InvalidInputError('`exchange`', options.exchange, '"gate" or "okx"');
  const api = exchange === 'okx' ? OKX_API : GATE_API;
  if (exchange === 'okx') refuseGateOnly(options);
  const family = readFamilyOptions(options, LIMITER_OPTION_FIELDS, 'the limiter options', api.rulebook);
  const abuse = resolveAbuseOptions(options.abuse);
  const spotFill = resolveSpotFillOptions(options.spotFill);
  const marginMs = options.marginMs ?? 0;
  if (typeof marginMs !== 'number' || !Number.isFinite(marginMs) || marginMs < 0)
    throw new InvalidInputError('`marginMs`', options.marginMs, 'a non-negative number of milliseconds');
  const arrivals = options.arrivals ?? 'answers';
  if (arrivals !== 'answers' && arrivals !== 'estimate')
    throw new InvalidInputError('`arrivals`', options.arrivals, '"answers" or "estimate"');
  const pacing = options.pacing ?? 1;
  if (!isPositiveInteger(pacing) || pacing > 100)
    throw new InvalidInputError('`pacing`', options.pacing, 'a whole number from 1 to 100');
  const catalog = exchange === 'okx' ? createOkxCatalog() : createCatalog(options.catalog);
  if (options.downgrade !== undefined && options.downgrade !== 'snapshot' && options.downgrade !== 'live') {
    throw new InvalidInputError('`downgrade`', options.downgrade, '"snapshot" or "live"');
  }
  const live = options.downgrade === 'live';
  const warnAt = options.warnAt ?? 0.9;
  if (typeof warnAt !== 'number' || !(warnAt > 0 && warnAt <= 1))
    throw new InvalidInputError('`warnAt`', options.warnAt, 'a share above 0 and at most 1');
  const unknownContract =
    exchange === 'okx'
      ? okxTrackerName(options.unknownContract ?? 'BTC-USDT-SWAP', '`unknownContract`')
      : normalizeContract(options.unknownContract ?? 'BTC_USDT', '`unknownContract`');
  const vipLevel = parseVipLevel(
    options.vipLevel ?? api.rulebook.tieredVipLevel,
    '`vipLevel`',
    api.rulebook.highestVipLevel,
  );
  const reportPolicy = options.reportPolicy ?? 'adopt';
  if (reportPolicy !== 'adopt' && reportPolicy !== 'report' && reportPolicy !== 'min') {
    throw new InvalidInputError('`reportPolicy`', options.reportPolicy, '"adopt", "report" or "min"');
  }
  const websocketBudget = options.websocketBudget ?? 'shared';
  if (websocketBudget !== 'shared' && websocketBudget !== 'separate') {
    throw new InvalidInputError('`websocketBudget`', options.websocketBudget, '"shared" or "separate"');
  }
  const exchangeClock = options.exchangeClock ?? 'estimate';
  if (exchangeClock !== 'estimate' && exchangeClock !== 'local')
    throw new InvalidInputError('`exchangeClock`', options.exchangeClock, '"estimate" or "local"');
  const estimateClock = exchangeClock === 'estimate';
  const persist = options.persist;
  if (
    persist !== undefined &&
    (typeof persist !== 'object' ||
      persist === null ||
      typeof persist.everyMs !== 'number' ||
      !(persist.everyMs > 0) ||
      !Number.isFinite(persist.everyMs) ||
      typeof persist.save !== 'function')
  ) {
    throw new InvalidInputError('`persist`', persist, 'an object { everyMs: a positive number, save: a function }');
  }
  const reconcile = options.reconcile;
  if (
    reconcile !== undefined &&
    (typeof reconcile !== 'object' ||
      reconcile === null ||
      typeof reconcile.everyMs !== 'number' ||
      !(reconcile.everyMs > 0) ||
      !Number.isFinite(reconcile.everyMs) ||
      typeof reconcile.fetch !== 'function')
  ) {
    throw new InvalidInputError(
      '`reconcile`',
      reconcile,
      'an object { everyMs: a positive number, fetch: a function of the account }',
    );
  }
  return {
    exchange,
    api,
    tierKey: api.tierKey,
    throttled: api.rulebook.throttles.abuse !== null,
    clock,
    family,
    abuse,
    spotFill,
    marginMs,
    estimateArrivals: arrivals === 'estimate',
    pacing,
    catalog,
    live,
    warnAt,
    unknownContract,
    vipLevel,
    reportPolicy,
    websocketBudget,
    estimateClock,
    persist,
    reconcile,
    signals: exchange === 'okx' ? OKX_RATE_LIMIT_SIGNALS : GATE_RATE_LIMIT_SIGNALS,
  };
}

/** Refuses, naming it, an option of Gate's alone given to a limiter on OKX. */
function refuseGateOnly(options: AccountLimiterOptions): void {
  for (const { field, why } of GATE_ONLY_OPTIONS)
    if (options[field] !== undefined)
      throw new InvalidInputError(`\`${field}\``, options[field], `no value with \`exchange: 'okx'\` (${why})`);
  if (options.downgrade === 'live')
    throw new InvalidInputError(
      '`downgrade`',
      options.downgrade,
      `"snapshot" with \`exchange: 'okx'\` (OKX lowers a day later)`,
    );
  if (options.arrivals === 'estimate')
    throw new InvalidInputError(
      '`arrivals`',
      options.arrivals,
      `"answers" with \`exchange: 'okx'\` (OKX's answers carry no gateway times to estimate from)`,
    );
}
