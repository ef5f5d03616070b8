import type { Classification } from '../catalog/catalog.js';
import { InvalidInputError } from '../errors.js';
import { type HeadersLike, restFeedback, toNumber } from '../schedule/feedback.js';
import type { StoreLimit } from '../schedule/limit.js';
import type { UnansweredRequest } from '../schedule/unanswered.js';
import { readGatewayTimes } from '../schedule/gateway-time.js';
import { webSocketFeedback } from '../schedule/websocket-feedback.js';
import { okxRefusals } from '../schedule/okx-feedback.js';
import { latestArrival } from './arrivals.js';
import type { ContractSource } from './answer-fills.js';
import { CANCEL_PRIORITY } from './limiter-options.js';
import { type CountedAs, type RequestSender, countedAs } from './requests.js';
import type { AccountLimits } from './request-limits.js';

/**
 * What the exchange answered to one request, as an adapter reads it from its client: for REST the
 * HTTP status, the headers and the JSON body; for the WebSocket API the reply's `header.status`,
 * its `header` object (where its gateway times and rate-limit fields are) and the whole reply.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type ExchangeAnswer } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * const trip = limiter.roundTrip('main', { method: 'GET', path: '/spot/accounts' })
 * const refused: ExchangeAnswer = { status: 429, headers: { 'Retry-After': '1' }, body: { label: 'TOO_MANY_REQUESTS' } }
 * await trip.run((t) => t.answered(refused))
 * trip.report().outcome // { kind: 'answered', status: 429 }
 * limiter.close()
 * ```
 */
export interface ExchangeAnswer {
  /** REST: the HTTP status. WebSocket: the reply's `header.status` as a number (0 when it has none). */
  readonly status: number;
  /** REST: the answer's headers. WebSocket: the reply's `header` object. */
  readonly headers: HeadersLike;
  /** The parsed body (REST: its JSON; WebSocket: the whole reply), when the adapter has it at hand. */
  readonly body?: unknown;
  /**
   * Reads the parsed body, when it is not given as `body`: called only when the round trip needs
   * it (the label of an answer that is not a success, the fills of a `my_trades` answer, the
   * multipliers of a contracts answer); what it throws or rejects with reads as no body.
   */
  readonly readBody?: () => unknown;
}

/**
 * How a send failed without an answer: no whole answer in time (`timeout`), no connection to the
 * exchange (`unreachable`), or given up by its caller (`aborted`).
 *
 * @example
 * ```ts
 * import { AccountLimiter, type SendFailure } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * const trip = limiter.roundTrip('main', { method: 'GET', path: '/spot/accounts' })
 * const failure: SendFailure = 'timeout'
 * await trip.run((t) => t.failed(failure))
 * trip.report().outcome // { kind: 'failed', failure: 'timeout' }
 * limiter.close()
 * ```
 */
export type SendFailure = 'timeout' | 'unreachable' | 'aborted';

/**
 * What came of a round trip so far: `waiting` on its limits (a refusal, never sent, rejects its
 * `run`), `sent` and not answered yet, `answered` by the exchange with its status, `failed` to be
 * sent or answered, or `done` (its send settled without saying which: `AccountLimiter.request`).
 *
 * @example
 * ```ts
 * import { AccountLimiter, type RoundTripOutcome } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * const trip = limiter.roundTrip('main', { method: 'GET', path: '/spot/accounts' })
 * const before: RoundTripOutcome = trip.report().outcome
 * before // { kind: 'waiting' }
 * await trip.run(() => 'sent')
 * trip.report().outcome // { kind: 'done' }
 * limiter.close()
 * ```
 */
export type RoundTripOutcome =
  | { readonly kind: 'waiting' }
  | { readonly kind: 'sent' }
  | { readonly kind: 'answered'; readonly status: number }
  | { readonly kind: 'failed'; readonly failure: SendFailure }
  | { readonly kind: 'done' };

/**
 * A round trip as it stands: what the request is, how long it waited on its limits and on which,
 * and what came of it. What a proxy logs and measures of each request.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type RoundTripReport } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * // Withdrawals: 1 per 3 s. The second waits for the first to leave the window.
 * const clock = new VirtualClock({ wallStart: Date.now() })
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }], clock })
 * const withdraw = { method: 'POST', path: '/withdrawals', body: { currency: 'USDT', amount: '10' } }
 * const [first, second] = [limiter.roundTrip('main', withdraw), limiter.roundTrip('main', withdraw)]
 * await first!.run((t) => t.answered({ status: 200, headers: {} }))
 * const sent = second!.run((t) => t.answered({ status: 200, headers: {} }))
 * await clock.advance(3_000)
 * await sent
 * const report: RoundTripReport = second!.report()
 * report.waitedMs // 3000
 * report.waitedOn // 'main:withdrawals'
 * report.outcome // { kind: 'answered', status: 200 }
 * limiter.close()
 * ```
 */
export interface RoundTripReport {
  readonly account: string;
  /** The endpoint (or the REST twin of a WebSocket channel), its action and the limits it draws on. */
  readonly classification: Classification;
  /** How long it waited on its limits before it was sent, ms; null while it has not been sent. */
  readonly waitedMs: number | null;
  /** The name of the limit that held it back last, or null when none did. */
  readonly waitedOn: string | null;
  readonly outcome: RoundTripOutcome;
}

/**
 * The options of a round trip besides the request itself.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type RoundTripOptions } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * // A cancel by order id: the contract it counts under, and a deadline to be sent by.
 * const options: RoundTripOptions = { contract: 'ETH_USDT', deadline: limiter.scheduler.clock.now() + 1_000 }
 * const trip = limiter.roundTrip('main', { method: 'DELETE', path: '/futures/usdt/orders/123', ...options })
 * await trip.run(() => 'cancelled') // 'cancelled'
 * limiter.close()
 * ```
 */
export interface RoundTripOptions {
  /** The futures contract, when neither path nor body names it (a cancel by order id). */
  readonly contract?: string | undefined;
  /** Overrides the default priority (cancels 10, everything else 0). */
  readonly priority?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** An instant on the limiter's clock by which the request must have been sent. */
  readonly deadline?: number | undefined;
  /** How the adapter's client learns a futures contract's multiplier, for the fills of its answers. */
  readonly contracts?: ContractSource | undefined;
}

/** The fields of {@link RoundTripOptions}, for the check that refuses others. */
export const ROUND_TRIP_OPTION_FIELDS: readonly string[] = ['contract', 'priority', 'signal', 'deadline', 'contracts'];

// The futures limits whose N is the tier (see docs/rules.md#r3): a reply code of the tier speaks of them, another of the others.
const TIER_KEYS = new Set(['futures.place', 'ws.futures.place']);

const WAITING: RoundTripOutcome = Object.freeze({ kind: 'waiting' });
const SENT: RoundTripOutcome = Object.freeze({ kind: 'sent' });
const DONE: RoundTripOutcome = Object.freeze({ kind: 'done' });

/**
 * One request of an account limiter from its admission to its answer: every adapter and the proxy
 * send through one. `run(send)` waits on the request's limits (see docs/rules.md#r10; cancels first), counts an order
 * request when it starts (see docs/rules.md#r1, #r9, #r14) and calls `send` with the round trip; the adapter tells it
 * what the exchange answered (`answered`) or how the send failed (`failed`). The round trip then
 * takes the answer's gateway times for the exchange's clock (see docs/rules.md#r15) and for when the exchange counted
 * the request (see docs/rules.md#r13), its rate-limit headers or fields, 429 or codes for the limits it drew on (see docs/rules.md#r12,
 * #r16), and the fills of a `my_trades` answer (see docs/rules.md#r1, #r9, #r14), before `run` settles. Made by
 * `AccountLimiter.roundTrip`.
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const body = { contract: 'BTC_USDT', size: 1, price: '60000' }
 * const trip = limiter.roundTrip('main', { method: 'POST', path: '/futures/usdt/orders', body })
 * const answer = await trip.run(async (t) => {
 *   // The client sends here; its answer states the limit in force.
 *   t.answered({ status: 201, headers: { 'X-Gate-RateLimit-Limit': '250', 'X-Gate-RateLimit-Requests-Remain': '249' } })
 *   return 'placed'
 * })
 * answer // 'placed'
 * limiter.limitNow('main').limit // 250
 * limiter.abuseHeadroom('main').requests // 1
 * limiter.close()
 * ```
 */
export class RoundTrip {
  /** The local wall-clock instant it was sent (epoch milliseconds), 0 before. */
  sentAt = 0;
  /** The scheduler's instant it was sent, NaN before. */
  sentMono = Number.NaN;
  readonly #askedMono: number;
  readonly #counted: CountedAs | null;
  #heldBy: StoreLimit | null = null;
  #outcome: RoundTripOutcome = WAITING;
  /** The requests awaiting their answer on the limits that follow answers, by index in `limits`. */
  #awaiting: (UnansweredRequest | undefined)[] | null = null;
  /** Whether the limits were told the answer (or that none will come). */
  #ended = false;
  /** The parts of the answer read later (its body), which `run` waits for. */
  #later: Promise<void> | null = null;
  #laterError: { readonly error: unknown } | null = null;

  readonly #host: RequestSender;
  readonly #l: AccountLimits;
  readonly #limits: readonly StoreLimit[];
  readonly #websocket: boolean;
  readonly #options: RoundTripOptions;

  /** @internal Made by the account limiter: `c` checked, its limits and options read. */
  constructor(
    host: RequestSender,
    readonly account: string,
    l: AccountLimits,
    readonly classification: Classification,
    limits: readonly StoreLimit[],
    websocket: boolean,
    options: RoundTripOptions,
  ) {
    this.#host = host;
    this.#l = l;
    this.#limits = limits;
    this.#websocket = websocket;
    this.#options = options;
    this.#askedMono = host.ctx.scheduler.clock.now();
    this.#counted = countedAs(classification, options.contract, host.ctx.config);
  }

  /**
   * Sends the request through its limits: `send` is called with this round trip when they let it
   * go, and `run` resolves or rejects as it does, once the answer it reported has been taken. A
   * request refused before it was sent rejects with a `RefusedError` and `send` is never called.
   * A round trip runs once.
   */
  run<T>(send: (trip: RoundTrip) => T | PromiseLike<T>): Promise<Awaited<T>> {
    if (typeof send !== 'function') throw new InvalidInputError('the send', send, 'a function');
    if (this.#outcome !== WAITING || this.#awaiting !== null)
      throw new InvalidInputError('the round trip', 'run already', 'a round trip not run yet');
    this.#awaiting = [];
    const c = this.classification;
    const options = this.#options;
    this.#host.ctx.reports.tellAssumed(this.account, this.#l, c);
    return this.#host.ctx.scheduler.schedule(() => this.#start(send), {
      limits: this.#limits,
      weight: c.weight,
      priority: options.priority ?? (c.action === 'cancel' ? CANCEL_PRIORITY : 0),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
    });
  }

  /**
   * The exchange answered: its gateway times, rate-limit headers (or WebSocket fields), refusal for
   * its rate and fills are taken; what needs the body waits for `readBody`, and `run` for that.
   * An answer the limiter cannot take (a field out of range) throws an `InvalidInputError`.
   */
  answered(answer: ExchangeAnswer): void {
    if (typeof answer !== 'object' || answer === null || typeof answer.status !== 'number')
      throw new InvalidInputError('the answer', answer, 'an object { status, headers, body?, readBody? }');
    if (typeof answer.headers !== 'object' || answer.headers === null)
      throw new InvalidInputError('`headers` of the answer', answer.headers, "the headers, or a reply's `header`");
    if (Number.isNaN(this.sentMono))
      throw new InvalidInputError('the round trip', 'not sent', 'a round trip whose send has started');
    const clock = this.#host.ctx.scheduler.clock;
    const receivedMono = clock.now();
    const receivedAt = clock.wall();
    this.#outcome = { kind: 'answered', status: answer.status };
    // The latest it can have reached the exchange: the answer, less the gateway's own time (see docs/rules.md#r13).
    this.#end(receivedMono, latestArrival(this.sentMono, receivedMono, readGatewayTimes(answer.headers)));
    const c = this.classification;
    // When the exchange counted it (see docs/rules.md#r13) and the exchange's clock (see docs/rules.md#r15).
    this.#host.arrived(this.#limits, c.weight, {
      sentAt: this.sentAt,
      sentMono: this.sentMono,
      receivedAt,
      receivedMono,
      headers: answer.headers,
    });
    const { signals, exchange } = this.#host.ctx.config;
    if (exchange === 'okx') {
      this.#withBody(answer, (body) => this.#okxAnswer(answer.status, body, receivedAt, receivedMono));
      return;
    }
    if (this.#websocket) {
      this.#host.feedback(
        this.account,
        this.#l,
        this.#speaksOf(answer.status),
        webSocketFeedback(signals, answer.body),
        this.sentMono,
      );
      return;
    }
    const success = answer.status >= 200 && answer.status < 300;
    // The label of an answer that is not a success is in its body (see docs/rules.md#r12).
    if (success) this.#host.feedback(this.account, this.#l, c, restFeedback(signals, answer), this.sentMono);
    else
      this.#withBody(answer, (body) =>
        this.#host.feedback(this.account, this.#l, c, restFeedback(signals, answer, body), this.sentMono),
      );
    // Fills in the answer are counted before the caller has it (see docs/rules.md#r1, #r9, #r14).
    const { fills } = this.#host.ctx.host;
    if (success && fills.reads(c))
      this.#withBody(answer, (body) => fills.take(this.account, c, body, this.#options.contracts));
  }

  /**
   * An OKX answer's body (see docs/okx.md#o8): the refusals it codes, of the sub-account limit
   * (50061) and of the request's others (50011), pause those limits (an HTTP 429 without a code,
   * the request's first); a success tells the limits so. The answer to GET /api/v5/public/time
   * is a sample of the exchange's clock (see docs/okx.md#o7): its `ts`, the instant the exchange
   * read between the send and the answer.
   */
  #okxAnswer(status: number, body: unknown, receivedAt: number, receivedMono: number): void {
    const c = this.classification;
    const { tierKey } = this.#host.ctx.config;
    if (c.endpoint === OKX_TIME_PATH) {
      const ts = okxServerTime(body);
      if (ts !== undefined)
        this.#host.ctx.host.clockSample({
          sentAt: this.sentAt,
          receivedAt,
          sentMono: this.sentMono,
          receivedMono,
          inTime: ts * 1000,
          outTime: ts * 1000,
        });
    }
    const refused = okxRefusals(body);
    const on = (tier: boolean): Classification => ({
      ...c,
      limits: c.limits.filter((l) => (l.key === tierKey) === tier),
    });
    const limited = { limited: true } as const;
    if (refused.tier > 0 && c.limits.some((l) => l.key === tierKey))
      this.#host.feedback(this.account, this.#l, on(true), limited, this.sentMono);
    if (refused.other > 0 && c.limits.some((l) => l.key !== tierKey))
      this.#host.feedback(this.account, this.#l, on(false), limited, this.sentMono);
    if (refused.tier + refused.other === 0)
      this.#host.feedback(this.account, this.#l, c, { limited: status === 429 }, this.sentMono);
  }

  /** The send failed without an answer, as `failure` says. */
  failed(failure: SendFailure): void {
    if (failure !== 'timeout' && failure !== 'unreachable' && failure !== 'aborted')
      throw new InvalidInputError('the failure', failure, '"timeout", "unreachable" or "aborted"');
    if (Number.isNaN(this.sentMono))
      throw new InvalidInputError('the round trip', 'not sent', 'a round trip whose send has started');
    this.#outcome = { kind: 'failed', failure };
    const now = this.#host.ctx.scheduler.clock.now();
    // Sent and given up on, it may still reach the exchange: unless the arrival estimate is in
    // use, it counts as one not answered (see docs/rules.md#r13). One that found no connection never left.
    if (failure === 'unreachable' || this.#host.ctx.config.estimateArrivals) this.#end(now, now);
    else this.#ended = true;
  }

  /** What the round trip is and what came of it so far. */
  report(): RoundTripReport {
    const sent = !Number.isNaN(this.sentMono);
    return {
      account: this.account,
      classification: this.classification,
      waitedMs: sent ? this.sentMono - this.#askedMono : null,
      waitedOn: this.#heldBy?.name ?? null,
      outcome: this.#outcome,
    };
  }

  /** The limits let the request go: it is sent (`send`), counted, and awaits its answer. */
  #start<T>(send: (trip: RoundTrip) => T | PromiseLike<T>): T | PromiseLike<T> {
    const { ctx } = this.#host;
    const clock = ctx.scheduler.clock;
    this.sentMono = clock.now();
    this.sentAt = clock.wall();
    this.#heldBy = ctx.scheduler.heldBy;
    this.#outcome = SENT;
    if (this.#counted !== null) this.#host.count(this.#counted, this.account, this.#l, this.classification);
    // Until its answer comes, the request may not have reached the exchange: it counts there
    // however long it takes (see docs/rules.md#r13).
    const awaiting = this.#awaiting!;
    const limits = this.#limits;
    // A shared limit follows answers only when they bound arrivals: the estimate tells it of them.
    const shared = !ctx.config.estimateArrivals;
    for (let i = 0; i < limits.length; i++) {
      const limit = limits[i]!;
      if (limit.awaitAnswer !== undefined && (shared || !limit.isShared()))
        awaiting[i] = limit.awaitAnswer(this.classification.weight, this.sentMono);
    }
    let result: T | PromiseLike<T>;
    try {
      result = send(this);
    } catch (e) {
      this.#settle();
      throw e;
    }
    if (!isThenable(result)) {
      this.#settle();
      if (this.#later === null) return result;
      return this.#later.then(() => this.#after(result));
    }
    // Read once: a thenable that sends on each `then` is sent once.
    return Promise.resolve(result).then(
      (value) => {
        this.#settle();
        return this.#later === null ? value : this.#later.then(() => this.#after(value));
      },
      (error: unknown) => {
        this.#settle();
        if (this.#later === null) throw error;
        return this.#later.then(() => {
          throw error;
        });
      },
    );
  }

  /** The send settled: without an answer told, that is taken as its answer (or its failure). */
  #settle(): void {
    if (this.#ended) return;
    if (this.#outcome === SENT) this.#outcome = DONE;
    const now = this.#host.ctx.scheduler.clock.now();
    this.#end(now, now);
  }

  /**
   * Tells the limits that await the answer that it came at `at` (or that none will), and that the
   * request reached the exchange at `latest` at the latest (see docs/rules.md#r13). With arrivals bounded by
   * answers, every limit counts it until one window after that; with the arrival estimate, only
   * one that awaited the answer past its window.
   */
  #end(at: number, latest: number): void {
    if (this.#ended) return;
    this.#ended = true;
    const awaiting = this.#awaiting!;
    const within = !this.#host.ctx.config.estimateArrivals;
    const limits = this.#limits;
    const weight = this.classification.weight;
    for (let i = 0; i < limits.length; i++) {
      const request = awaiting[i];
      if (request !== undefined) limits[i]!.answered!(request, within ? latest : at, within);
      else if (within) limits[i]!.extend(weight, this.sentMono, latest);
    }
  }

  /**
   * Calls `use` with the answer's body: at once when it is given or read at once, else when it has
   * been read (and `run` waits for it). What reading throws or rejects with reads as no body.
   */
  #withBody(answer: ExchangeAnswer, use: (body: unknown) => void | Promise<void>): void {
    let read: unknown;
    if ('body' in answer) read = answer.body;
    else {
      try {
        read = answer.readBody?.();
      } catch {
        read = undefined;
      }
    }
    if (isThenable(read)) {
      this.#wait(Promise.resolve(read).then(use, () => use(undefined)));
      return;
    }
    const used = use(read);
    if (used !== undefined) this.#wait(used);
  }

  /** Has `run` wait for `work`; its error, the first, is `run`'s. */
  #wait(work: Promise<void>): void {
    const caught = work.catch((error: unknown) => {
      this.#laterError ??= { error };
    });
    this.#later = this.#later === null ? caught : Promise.all([this.#later, caught]).then(() => undefined);
  }

  #after<T>(value: T): T {
    if (this.#laterError !== null) throw this.#laterError.error;
    return value;
  }

  /**
   * What a WebSocket reply of `status` speaks of: a code of the tier (a fill-ratio limit) the
   * limits whose N is the tier, another code of the limits' others; an N in the reply could name
   * both at tier 1, where both are 100 per second.
   */
  #speaksOf(status: number): Classification {
    const c = this.classification;
    const codes = this.#host.ctx.config.signals.websocket;
    const tier = codes.tierCodes.includes(status);
    if (c.market !== 'futures' || (!tier && !codes.otherCodes.includes(status))) return c;
    const limits = c.limits.filter((l) => TIER_KEYS.has(l.key) === tier);
    return limits.length === 0 ? c : { ...c, limits };
  }
}

/** OKX's clock (see docs/okx.md#o7). */
const OKX_TIME_PATH = '/api/v5/public/time';

/** The `ts` (epoch milliseconds) of an answer of GET /api/v5/public/time, or undefined when it has none. */
function okxServerTime(body: unknown): number | undefined {
  const data = (body as { data?: unknown } | null)?.data;
  const ts = Array.isArray(data) ? (data[0] as { ts?: unknown } | undefined)?.ts : undefined;
  const n = typeof ts === 'string' && /^\d+$/.test(ts) ? Number(ts) : typeof ts === 'number' ? ts : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** The status a WebSocket reply carries in its `header`, as a number (0 when none). */
export function replyStatus(header: unknown): number {
  return toNumber((header as { status?: unknown } | null)?.status) ?? 0;
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
