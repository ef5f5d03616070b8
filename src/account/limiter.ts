import { InvalidInputError } from '../errors.js';
import type { Catalog, Classification } from '../catalog/catalog.js';
import type { WebSocketBudget } from '../catalog/channels.js';
import { type InstantInput, parseId, parseInstant } from '../internal/parse.js';
import type { ClockEstimate } from '../rules/exchange-clock.js';
import { type TierReconciliation, readRateLimitReport, reportFor } from '../rules/report.js';
import { okxTrackerName } from '../catalog/exchange-api.js';
import { readAccountRateLimit } from '../rules/okx/report.js';
import { parseVipLevel } from '../rules/vip.js';
import type { RateLimitFeedback } from '../schedule/feedback.js';
import type { Limit } from '../schedule/limit.js';
import type { Scheduler } from '../schedule/scheduler.js';
import { Listeners } from '../schedule/listeners.js';
import { type FillRole, Tracker } from './tracker.js';
import { checkRequestOptions, classifySent } from './requests.js';
import { ROUND_TRIP_OPTION_FIELDS, RoundTrip, type RoundTripOptions } from './round-trip.js';
import { AnswerFills } from './answer-fills.js';
import type { AccountStatus, LimiterEvent } from './limiter-events.js';
import {
  type AccountLimiterOptions,
  type LimiterClockSample,
  type LimiterConfig,
  type LimiterExchange,
  type RequestOptions,
  type SentRequest,
  type SentWebSocketRequest,
  type WebSocketRequestOptions,
  resolveLimiterOptions,
} from './limiter-options.js';
import { timelineOf } from './family-state.js';
import type { SampleOutcome } from './rules-clock.js';
import { LimiterContext } from './limiter-context.js';
import type { AccountLimits } from './request-limits.js';
import { pollReports, sourceOf } from './reports.js';
import { type LimiterHistory, readHistory } from './history.js';
import {
  type AbuseHeadroom,
  type SpotFillHeadroom,
  type TierAtNextRaise,
  type WhatIf,
  abuseHeadroom,
  spotFillHeadroom,
  tierAtNextRaise,
  whatIf,
} from './queries.js';
import { type LimiterSnapshot, readSnapshot, saveEvery, snapshotOf } from './persistence.js';
import type { Repeating } from './timers.js';

export type { AccountStatus, LimitForecast, LimiterEvent } from './limiter-events.js';
export type {
  AccountLimiterOptions,
  LimiterClockSample,
  LimiterExchange,
  RequestOptions,
  SentRequest,
  SentWebSocketRequest,
  WebSocketRequestOptions,
} from './limiter-options.js';
export type { LimiterSnapshot } from './persistence.js';
export type {
  ExchangeAnswer,
  RoundTrip,
  RoundTripOptions,
  RoundTripOutcome,
  RoundTripReport,
  SendFailure,
} from './round-trip.js';
export type { ContractSource } from './answer-fills.js';

/**
 * What a trading engine embeds for one exchange account or a family of a main account and its
 * sub-accounts: every request goes through it; it counts the engine's own requests and fills,
 * and keeps the futures placement limit on the tier (see docs/rules.md#r3 to #r8), the abuse throttle (see docs/rules.md#r9) and the spot
 * low-fill throttle (see docs/rules.md#r14) by itself,
 * at 00:00, at 08:00, every hour, on a VIP change and on a new sub-account. Cancels run on their own
 * limit, every other endpoint on its catalogue limit (see docs/rules.md#r10).
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const body = { contract: 'BTC_USDT', size: 1, price: '60000' }
 * await limiter.request('main', 'POST', '/futures/usdt/orders', () => ({ id: 1 }), { body }) // { id: 1 }
 * limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '1250.5' })
 * limiter.limitNow('main').limit // 100
 * limiter.close()
 * ```
 */
export class AccountLimiter {
  readonly scheduler: Scheduler<Limit>;
  /** The exchange whose rules and API it keeps (see {@link AccountLimiterOptions.exchange}). */
  readonly exchange: LimiterExchange;
  readonly catalog: Catalog;
  /** What a WebSocket order draws on (see docs/rules.md#r16), as resolved from the options. */
  readonly websocketBudget: WebSocketBudget;
  /** The collaborators, made once from the options. */
  readonly #ctx: LimiterContext;
  readonly #listeners = new Listeners<LimiterEvent>((source, error) => ({
    type: 'error',
    at: this.#wallNow(),
    source,
    error,
  }));
  /** Saving snapshots (`persist`) and polling the exchange's report (`reconcile`), as the options ask. */
  readonly #repeating: Repeating[] = [];

  constructor(options: AccountLimiterOptions) {
    // Every option is read before anything is made: a refused one leaves no timer behind.
    const config = resolveLimiterOptions(options);
    // The timeline validates the family (ids, roles, creation instants) once here.
    const timeline = timelineOf(
      { accounts: options.accounts, vipLevel: config.vipLevel, vipChanges: [], tracker: new Tracker() },
      config.family,
    );
    const ctx = new LimiterContext(options, config, {
      emit: (event) => this.#emit(event),
      report: (source, error) => this.#report(source, error),
      clockSample: (sample) => this.clockSample(sample),
      fills: new AnswerFills(this),
    });
    this.#ctx = ctx;
    this.scheduler = ctx.scheduler;
    this.exchange = config.exchange;
    this.catalog = config.catalog;
    this.websocketBudget = config.websocketBudget;
    for (const a of ctx.counts.accounts) this.#addLimits(a.id);
    this.#repeatAsAsked(config);
    ctx.refresher.read(timeline);
    ctx.counts.shared?.start(
      () => ctx.counts.accounts.map((a) => a.id),
      () => this.#wallNow(),
      (totals) => ctx.refresher.shared(totals),
    );
  }

  /** Saves snapshots (`persist`) and polls the exchange's report (`reconcile`) as the options ask. */
  #repeatAsAsked({ persist, reconcile, clock }: LimiterConfig): void {
    if (persist !== undefined)
      this.#repeating.push(
        saveEvery(
          clock,
          persist,
          () => this.snapshot(),
          (e) => this.#report('persist', e),
        ),
      );
    if (reconcile !== undefined)
      this.#repeating.push(
        pollReports(
          clock,
          reconcile,
          () => this.#ctx.counts.accounts.map((a) => a.id),
          (account, answer) => {
            if (!this.#ctx.closed) this.reportRateLimit(account, answer);
          },
          (error) => this.#report('reconcile', error),
        ),
      );
  }

  /**
   * Sends one request through the limits it draws on (see docs/rules.md#r10), and counts it (see docs/rules.md#r1, #r9) whatever its
   * outcome: a futures order request counts when it starts. Resolves or rejects as `fn` does, or
   * rejects with a `RefusedError` when it never started. `path` is the API path or the full URL
   * the HTTP client sends to (any host; of the query only a spot request's `currency_pair` is read). Bad input (an unknown account, path or
   * contract, a bad body or option) throws an {@link InvalidInputError} at once: nothing is
   * queued, taken or counted for it.
   */
  request<T>(
    account: string,
    method: string,
    path: string | URL,
    fn: () => T | PromiseLike<T>,
    options: RequestOptions = {},
  ): Promise<Awaited<T>> {
    const l = this.#limitsOf(account);
    checkRequestOptions(options, ['body', 'contract', 'signal', 'deadline', 'priority']);
    return this.#trip(account, l, this.catalog.classify(method, path, options.body), false, options).run(fn);
  }

  /**
   * Sends one order request over the WebSocket API through the limits the exchange sets for WebSocket orders (see docs/rules.md#r16), and counts it
   * as its REST twin (see docs/rules.md#r1, #r9, #r14): `channel` is the channel name (`futures.order_place`,
   * `futures.order_batch_place`, `futures.order_amend`, `futures.order_cancel`,
   * `futures.order_cancel_ids`, `futures.order_cancel_cp`, `spot.order_place`, `spot.order_amend`,
   * `spot.order_cancel`, ..., and the status and list channels) and `options.params` its
   * `req_param`. By default (`websocketBudget: 'shared'`) it draws on its WebSocket limit (see docs/rules.md#r10)
   * and on the REST limit of the same action for the account at once; with `separate`, on its
   * WebSocket limits only, futures placement and amendment on a budget of the tier. Resolves,
   * rejects and refuses as {@link AccountLimiter.request} does.
   *
   * @example
   * ```ts
   * import { AccountLimiter } from 'traderatio'
   *
   * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
   * const params = { contract: 'BTC_USDT', size: 1, price: '0', tif: 'ioc' }
   * await limiter.requestWebSocket('main', 'futures.order_place', () => ({ status: 'finished' }), { params }) // { status: 'finished' }
   * limiter.abuseHeadroom('main').requests // 1
   * limiter.close()
   * ```
   */
  requestWebSocket<T>(
    account: string,
    channel: string,
    fn: () => T | PromiseLike<T>,
    options: WebSocketRequestOptions = {},
  ): Promise<Awaited<T>> {
    const l = this.#limitsOf(account);
    checkRequestOptions(options, ['params', 'contract', 'settle', 'signal', 'deadline', 'priority']);
    const c = this.catalog.classifyChannel(channel, options.params, {
      budget: this.websocketBudget,
      ...(options.settle === undefined ? {} : { settle: options.settle }),
    });
    return this.#trip(account, l, c, true, options).run(fn);
  }

  /**
   * Starts the round trip of one request through the limits it draws on (see docs/rules.md#r10): a REST request
   * `{ method, path, body? }` or a WebSocket order `{ channel, params?, settle? }`, with the options
   * of {@link AccountLimiter.request}. Its `run(send)` sends it when the limits let it go and
   * counts it (see docs/rules.md#r1, #r9, #r14); the adapter tells it the exchange's answer (`answered`), which gives
   * the limits its rate-limit headers or fields and 429 or codes (see docs/rules.md#r12, #r16), and its gateway times
   * to the exchange's clock and the arrivals (see docs/rules.md#r13, #r15), and the limiter its fills. Every adapter
   * and the proxy send this way. Bad input throws an {@link InvalidInputError} at once: nothing is
   * queued, taken or counted for it.
   *
   * @example
   * ```ts
   * import { AccountLimiter } from 'traderatio'
   *
   * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
   * const trip = limiter.roundTrip('main', { method: 'GET', path: '/spot/my_trades' })
   * const rows = [{ id: 7, currency_pair: 'BTC_USDT', amount: '0.01', price: '60000', role: 'maker' }]
   * await trip.run((t) => t.answered({ status: 200, headers: {}, body: rows }))
   * trip.report().outcome // { kind: 'answered', status: 200 }
   * limiter.spotFillHeadroom('main').traded // '600'
   * limiter.close()
   * ```
   */
  roundTrip(account: string, request: (SentRequest | SentWebSocketRequest) & RoundTripOptions): RoundTrip {
    const l = this.#limitsOf(account);
    if (typeof request !== 'object' || request === null)
      throw new InvalidInputError(
        'the request',
        request,
        'a request { method, path, body? } or { channel, params?, settle? } with its options',
      );
    const websocket = 'channel' in request;
    checkRequestOptions(request, [
      ...(websocket ? ['channel', 'params', 'settle'] : ['method', 'path', 'body']),
      ...ROUND_TRIP_OPTION_FIELDS,
    ]);
    return this.#trip(account, l, classifySent(this.catalog, this.websocketBudget, request), websocket, request);
  }

  #trip(
    account: string,
    l: AccountLimits,
    c: Classification,
    websocket: boolean,
    options: RoundTripOptions,
  ): RoundTrip {
    return new RoundTrip(
      this.#ctx.sender,
      account,
      l,
      c,
      this.#ctx.requestLimits.for(account, l, c),
      websocket,
      options,
    );
  }

  /**
   * Applies the exchange's answer (see docs/rules.md#r12, `feedbackFrom`; #r16, `feedbackFromWebSocket`) to the limit
   * `request` (as sent over REST or the WebSocket API, or its classification) drew on whose N the
   * answer names (each, if several), else the endpoint's own (the tier limit for futures orders):
   * a 429 pauses it until the reset (see `Scheduler.feedback`).
   *
   * @example
   * ```ts
   * import { AccountLimiter, feedbackFrom } from 'traderatio'
   * import { VirtualClock } from 'traderatio/testing'
   *
   * const clock = new VirtualClock({ wallStart: Date.now() })
   * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }], clock })
   * const res = new Response('{"label":"TOO_MANY_REQUESTS"}', { status: 429, headers: { 'Retry-After': '2' } })
   * limiter.feedback('main', { method: 'GET', path: '/spot/accounts' }, feedbackFrom(res, await res.json()))
   * const next = limiter.request('main', 'GET', '/spot/accounts', () => clock.now())
   * await clock.advance(2_000)
   * await next // 2000
   * limiter.close()
   * ```
   */
  feedback(
    account: string,
    request: SentRequest | SentWebSocketRequest | Classification,
    feedback: RateLimitFeedback,
  ): void {
    const l = this.#limitsOf(account);
    this.#ctx.sender.feedback(account, l, classifySent(this.catalog, this.websocketBudget, request), feedback);
  }

  /**
   * Counts a fill: `volume` USDT on `contract`, as maker or taker, now or at `at`: a futures fill
   * (see docs/rules.md#r1, #r9), or with `market: 'spot'` a spot fill on the pair `contract` (see docs/rules.md#r14).
   * On OKX, `contract` is the instrument id (`BTC-USDT-SWAP`, `BTC-USDT`, ...) of any kind, and
   * `market` is not given: every kind's volume counts for the fill ratio (see docs/okx.md#o2).
   */
  recordFill(
    account: string,
    fill: {
      readonly contract: string;
      readonly role: FillRole;
      readonly volume: string | number;
      readonly at?: InstantInput;
      readonly market?: 'futures' | 'spot';
    },
  ): void {
    this.#limitsOf(account);
    if (typeof fill !== 'object' || fill === null)
      throw new InvalidInputError('the fill', fill, 'an object { contract, role, volume, at?, market? }');
    const market = fill.market ?? 'futures';
    if (market !== 'futures' && market !== 'spot')
      throw new InvalidInputError('`market`', fill.market, '"futures" or "spot"');
    const at = fill.at === undefined ? undefined : parseInstant(fill.at, '`at`');
    if (this.exchange === 'okx') {
      // Every kind's volume counts for OKX's ratio (see docs/okx.md#o2): one tracker, by instrument id.
      if (fill.market !== undefined)
        throw new InvalidInputError('`market`', fill.market, 'no value on OKX (the instrument id tells its kind)');
      const contract = okxTrackerName(fill.contract, '`contract`');
      this.#ctx.counts.fill('futures', account, { ...fill, contract }, at, this.#wallNow());
      return;
    }
    this.#ctx.counts.fill(market, account, fill, at, this.#wallNow());
    if (market === 'futures' && this.#ctx.config.live) this.#ctx.refresher.evaluateLive(account);
  }

  /** Reports a change of the family's VIP level (see docs/rules.md#r6), at once or at `at`. */
  setVipLevel(level: number, at: InstantInput = this.#wallNow()): void {
    const l = parseVipLevel(level, '`level`', this.#ctx.config.family.rulebook.highestVipLevel);
    this.#ctx.refresher.read(this.#ctx.counts.changeVip(l, parseInstant(at, '`at`')));
  }

  /** Reports a new sub-account (see docs/rules.md#r8), created now or at `at`. */
  addSubAccount(id: string, at: InstantInput = this.#wallNow()): void {
    const account = parseId(id, '`id`');
    if (this.#ctx.limits.has(account)) throw new InvalidInputError('`id`', id, 'an id not yet in the family');
    const timeline = this.#ctx.counts.addAccount(account, parseInstant(at, '`at`'));
    this.#addLimits(account);
    this.#ctx.refresher.read(timeline);
  }

  /**
   * Reconciles the exchange's own figure with the rules (see docs/rules.md#r16): `answer` is the answer of
   * GET /account/rate_limit (rows of string fields `tier`, `ratio`, `main_ratio`, `updated_at`,
   * maybe `type`; the futures row, else the row without a type, is read). Under `reportPolicy`
   * `adopt` (the default) a report made at or after the latest snapshot (00:00, or a later VIP
   * change) sets the tier in force, and holds until the next snapshot, a VIP change, a newer
   * report, a live downgrade, or a change of the limit the rules predict at a boundary after it
   * was asked (the 08:00 raise of a report asked before it); `report` keeps the rules' tier; `min` takes the lower. A
   * disagreement is told as a `report` event with both figures and the report's age. Returns the
   * reconciliation, or `null` when the answer has no futures row. A bad answer throws an
   * {@link InvalidInputError} and changes nothing.
   *
   * @example
   * ```ts
   * import { AccountLimiter } from 'traderatio'
   *
   * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
   * const updated_at = String(Math.floor(Date.now() / 1000))
   * const answer = [{ type: 'futures', tier: '4', ratio: '8.19', main_ratio: '8.19', updated_at }]
   * limiter.reportRateLimit('main', answer)?.source // 'report'
   * limiter.limitNow('main').limit // 250
   * limiter.close()
   * ```
   */
  reportRateLimit(account: string, answer: unknown): TierReconciliation | null {
    const l = this.#limitsOf(account);
    if (this.exchange === 'okx') {
      const okx = readAccountRateLimit(answer, this.#ctx.config.family.tiers);
      l.reportEndpoint = 'open';
      return this.#ctx.reports.takeOkx(account, l, okx);
    }
    const report = reportFor(readRateLimitReport(answer));
    l.reportEndpoint = 'open';
    if (report === undefined) return null;
    return this.#ctx.reports.take(account, l, report);
  }

  /**
   * GET /account/rate_limit did not answer a report for `account` (see docs/rules.md#r16): a 404, a refusal, an
   * error, or an answer that is not one; `reason` says which. The endpoint is marked not open
   * (`limitNow(account).reportEndpoint`) and a `report-unavailable` event tells it; it is not an
   * error: the `X-Gate-RateLimit-Limit` of placements' answers takes over. The adapters call it
   * when the ask they make as they attach fails.
   *
   * @example
   * ```ts
   * import { AccountLimiter } from 'traderatio'
   *
   * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
   * limiter.rateLimitUnavailable('main', 'HTTP 404')
   * limiter.limitNow('main').reportEndpoint // 'not-open'
   * limiter.close()
   * ```
   */
  rateLimitUnavailable(account: string, reason: string): void {
    const l = this.#limitsOf(account);
    if (typeof reason !== 'string') throw new InvalidInputError('`reason`', reason, 'a string');
    l.reportEndpoint = 'not-open';
    this.#emit({ type: 'report-unavailable', account, at: this.#wallNow(), reason });
  }

  /**
   * Takes a timed request for the estimate of the exchange's clock (see docs/rules.md#r15). Returns whether the
   * sample was taken, and why not: a response without gateway times (`no-gateway-times`), a
   * negative round trip, reversed gateway times, or a lone sample that disagrees with the set (a
   * gateway time far off) change nothing. A taken sample moves every boundary the limiter waits
   * for, and tells a `clock` event when the local clock may now be more than 60 s off the
   * exchange's (or is no longer). Bad input (a field that is not a number) throws an
   * {@link InvalidInputError} and changes nothing. With `exchangeClock: 'local'` the estimate is
   * kept and reported, and boundaries stay on the local clock.
   *
   * @example
   * ```ts
   * import { AccountLimiter } from 'traderatio'
   *
   * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
   * const sentAt = Date.now(), inTime = (sentAt - 4_990) * 1_000 // the exchange 5 s behind, in µs
   * const headers = new Headers({ 'X-In-Time': `${inTime}`, 'X-Out-Time': `${inTime + 1_000}` })
   * limiter.clockSample({ sentAt, receivedAt: sentAt + 20, headers }) // { accepted: true }
   * limiter.clockEstimate()?.offsetMs // -4999.5
   * limiter.clockSample({ sentAt, receivedAt: sentAt + 20, headers: {} }) // { accepted: false, reason: 'no-gateway-times' }
   * limiter.close()
   * ```
   */
  clockSample(sample: LimiterClockSample): SampleOutcome {
    const outcome = this.#ctx.time.add(sample);
    if (!outcome.accepted) return outcome;
    this.#checkClock();
    // The boundaries moved with the estimate. Every boundary is a whole hour: when an edge of the
    // estimate is now in another hour than when the rules were last read, one was crossed and the
    // rules are read again; otherwise the timer is set again for the next one.
    if (this.#ctx.time.estimating && !this.#ctx.closed) {
      if (this.#ctx.boundaries.crossed()) this.refresh();
      else this.#ctx.boundaries.arm(this.#wallNow());
    }
    return { accepted: true };
  }

  /**
   * The exchange answered `request` (as sent, or its classification): the answer's gateway times
   * feed the clock's estimate, as {@link clockSample} does, and tell when the exchange began to
   * count the request (see docs/rules.md#r13: it counts arrivals). By default (arrivals bounded by answers) the
   * limits the request drew on count it until one window after the latest instant it can have
   * reached the exchange: the answer's receive instant, less the gateway's own time. For a request
   * sent through {@link AccountLimiter.roundTrip} (every adapter's way), the round trip has done so
   * already; this is for requests sent otherwise. With `arrivals: 'estimate'` they count it until
   * one window after its arrival as estimated: the way there is measured against the quickest
   * answer of the last 60 s, so the offset of the exchange's clock drops out; an arrival is never
   * put after the answer came back. A sample the clock's estimate refuses (a gateway time far off)
   * counts nothing.
   *
   * @example
   * ```ts
   * import { AccountLimiter } from 'traderatio'
   *
   * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
   * const path = '/futures/usdt/orders', body = { contract: 'BTC_USDT', size: 1, price: '60000' }
   * const sentAt = Date.now()
   * await limiter.request('main', 'POST', path, () => 'placed', { body }) // 'placed'
   * const headers = { 'x-in-time': `${(sentAt + 8) * 1_000}`, 'x-out-time': `${(sentAt + 9) * 1_000}` }
   * limiter.arrived('main', { method: 'POST', path, body }, { sentAt, receivedAt: sentAt + 16, headers }) // { accepted: true }
   * limiter.close()
   * ```
   */
  arrived(
    account: string,
    request: SentRequest | SentWebSocketRequest | Classification,
    sample: LimiterClockSample,
  ): ReturnType<AccountLimiter['clockSample']> {
    const l = this.#limitsOf(account);
    const c = classifySent(this.catalog, this.websocketBudget, request);
    const outcome = this.clockSample(sample);
    if (outcome.accepted)
      this.#ctx.arrivals.answered(this.#ctx.requestLimits.for(account, l, c), c.weight, sample, this.#ctx.clock, false);
    return outcome;
  }

  /**
   * The exchange's clock as estimated now (see docs/rules.md#r15): `offsetMs` (exchange = local + offset) within
   * `errorMs`, or `null` before the first sample. A signed request's `Timestamp` is the local
   * clock plus `offsetMs`.
   */
  clockEstimate(): ClockEstimate | null {
    return this.#ctx.time.estimate();
  }

  /** The limit in force for `account` now. */
  limitNow(account: string): AccountStatus {
    // The state holds from the last refresh until the next (every hour, and at every change).
    const l = this.#limitsOf(account);
    const status = { ...l.state, at: this.#wallNow(), source: sourceOf(l), reportEndpoint: l.reportEndpoint };
    return this.exchange === 'okx' ? { ...status, forecast: l.forecast } : status;
  }

  /**
   * The tier at the next 08:00 UTC given the activity so far: the snapshot of the coming 00:00
   * over the last six days and today until now (see docs/rules.md#r5, #r7).
   */
  limitAtNext0800(account: string): TierAtNextRaise {
    this.#limitsOf(account);
    return tierAtNextRaise(this.#ctx.counts, this.#ctx.config.family, account, this.#wallNow());
  }

  /**
   * What reaches the next tier, and the spare before the one below, at the next snapshot, over
   * every path of the family rules (see docs/rules.md#r7) at once (the account's own ratio, the family's aggregated ratio, the volume
   * that takes it over the own-volume threshold): the least maker volume or the fewest requests
   * on `contract` up, the most volume that may be lost or requests that may be added with the
   * tier kept down (see docs/rules.md#r1, #r3, #r7). `up` names the path each least change takes: `makerPath`
   * (`aggregated`, the family's ratio; `own`, the account's; `threshold`, the volume that takes it
   * over the own-volume threshold, its own ratio already there) and `requestPath`; `steps` holds
   * every tier above, nearest first, the same way. `basis` names the ratio that sets the tier now.
   * Below VIP 14 (see docs/rules.md#r4) the tier is 1 whatever the ratio: `up` and `down` are null, `steps` empty.
   * On OKX, `contract` is an instrument id (default `BTC-USDT-SWAP`) and the tiered levels start at VIP 5.
   */
  whatIf(account: string, contract?: string): WhatIf {
    this.#limitsOf(account);
    // On OKX, an instrument id, weighed by its multiplier (see docs/okx.md#o3).
    const named = contract ?? (this.exchange === 'okx' ? 'BTC-USDT-SWAP' : 'BTC_USDT');
    return whatIf(this.#ctx.counts, this.#ctx.config.family, account, named, this.#wallNow());
  }

  /**
   * The rolling 24 hours of the abuse rule (see docs/rules.md#r9): requests, USDT traded, fill rate, and how many more
   * requests fit before the throttle trips at the current fill rate (Infinity: it never does).
   */
  abuseHeadroom(account: string): AbuseHeadroom {
    this.#limitsOf(account);
    return abuseHeadroom(this.#ctx.counts.tracker, this.#ctx.config.abuse, account, this.#wallNow());
  }

  /**
   * The spot low-fill rule's window for the next hourly check (see docs/rules.md#r14): spot requests and USDT traded
   * in the 23 whole hours before this one and this one so far, the fill ratio, how many more spot
   * requests fit before that check would throttle (Infinity: none would; -1 or less: it would
   * already), and the spot USDT still to trade before the check to avoid it ("0" if none).
   */
  spotFillHeadroom(account: string): SpotFillHeadroom {
    this.#limitsOf(account);
    return spotFillHeadroom(this.#ctx.counts.spotTracker, this.#ctx.config.spotFill, account, this.#wallNow());
  }

  /**
   * Adds history fetched from the exchange, for days and hours before anything counted here and
   * not after now: daily activity per account and contract (see docs/rules.md#r1), and hourly requests and USDT
   * traded (see docs/rules.md#r9). The whole history is validated before any of it is added.
   */
  seed(history: LimiterHistory): void {
    const read = readHistory(
      history,
      this.#ctx.counts.accounts,
      (id) => this.#ctx.limits.has(id),
      this.#ctx.config.family,
      this.#wallNow(),
    );
    // With shared counts, the history alone goes to them, written once whoever seeds it; the
    // limits follow when the totals come back with it.
    const timeline = this.#ctx.counts.seed(read);
    if (timeline !== null) this.#ctx.refresher.read(timeline);
  }

  /** The state as plain, versioned JSON (counts, family, VIP), for `restore` after a restart. */
  snapshot(): LimiterSnapshot {
    return snapshotOf(this.#ctx.counts, this.#wallNow());
  }

  /**
   * Carries on from a snapshot: the same counts, family and VIP history. A snapshot that is not
   * one, is corrupt, or comes from a later version is refused with an error and changes nothing:
   * all of it is read and checked before any of it is applied.
   */
  restore(snapshot: unknown): void {
    // The timeline checks the family, the VIP history and the counts against each other, as
    // every refresh after this one will.
    const { state, checked: timeline } = readSnapshot(snapshot, (s) => this.#ctx.counts.timeline(s));
    // With shared counts, its counts are written where they hold nothing for a day or an hour.
    this.#ctx.counts.restore(state);
    for (const a of this.#ctx.counts.accounts) if (!this.#ctx.limits.has(a.id)) this.#addLimits(a.id);
    this.#ctx.refresher.read(timeline);
  }

  /**
   * Listens to limit changes, throttles, early warnings and errors. Returns a function that stops
   * it. A listener that throws is reported as an `error` event; the limiter carries on.
   */
  on(listener: (event: LimiterEvent) => void): () => void {
    return this.#listeners.add(listener);
  }

  /** Stops the limiter's timers and refuses waiting requests. */
  close(): void {
    this.#ctx.closed = true;
    this.#ctx.boundaries.stop();
    for (const r of this.#repeating.splice(0)) r.stop();
    this.scheduler.setBoundary(Infinity, null);
    this.scheduler.close();
    void this.#ctx.counts.shared?.close();
  }

  /** Recomputes every account's limits now, and sets the timer for the next whole hour. */
  refresh(): void {
    if (this.#ctx.closed) return;
    this.#ctx.refresher.read(this.#ctx.counts.timeline());
  }

  #limitsOf(account: string): AccountLimits {
    const l = this.#ctx.limits.get(account);
    if (l === undefined)
      throw new InvalidInputError(
        '`account`',
        account,
        `an account of the limiter (${[...this.#ctx.limits.keys()].join(', ')})`,
      );
    return l;
  }

  #addLimits(account: string): void {
    this.#ctx.limits.set(account, this.#ctx.requestLimits.create(account, this.#wallNow()));
  }

  #wallNow(): number {
    return this.#ctx.time.now();
  }

  /** Tells a `clock` event when the local clock's check against the exchange's changes (see docs/rules.md#r15, #r11). */
  #checkClock(): void {
    const change = this.#ctx.time.checkChange();
    if (change !== null) this.#emit({ type: 'clock', at: this.#wallNow(), ...change });
  }

  #emit(event: LimiterEvent): void {
    this.#listeners.emit(event);
  }

  #report(source: 'listener' | 'persist' | 'refresh' | 'reconcile' | 'fills', error: unknown): void {
    this.#listeners.report(source, error);
  }

  /**
   * Reports an error of an adapter's own work, which it carries on with, as an `error` event.
   *
   * @internal
   */
  reportError(source: 'fills', error: unknown): void {
    this.#report(source, error);
  }
}
