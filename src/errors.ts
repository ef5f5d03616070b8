/**
 * The `code` of every error the core throws: `INVALID_INPUT` (an {@link InvalidInputError}),
 * `REFUSED_*` (a {@link RefusedError}, one per {@link RefusalReason}), `NO_REPLY` (a
 * {@link NoReplyError}) and `TOO_MANY_TIMERS` (a {@link TooManyTimersError}). The command line and
 * the model exchange, which an engine never calls, have codes of their own.
 *
 * @example
 * ```ts
 * import { type ErrorCode, Scheduler, isTraderatioError } from 'traderatio'
 *
 * const scheduler = new Scheduler()
 * scheduler.close()
 * const code: ErrorCode | null = await scheduler.schedule(() => 1).catch((e) => (isTraderatioError(e) ? e.code : null))
 * code // 'REFUSED_CLOSED'
 * ```
 */
export type ErrorCode =
  | 'INVALID_INPUT'
  | 'REFUSED_QUEUE_FULL'
  | 'REFUSED_ABORTED'
  | 'REFUSED_DEADLINE'
  | 'REFUSED_TOO_HEAVY'
  | 'REFUSED_CLOSED'
  | 'NO_REPLY'
  | 'TOO_MANY_TIMERS';

/**
 * Every error traderatio throws is a {@link TraderatioError}: one base class, a subclass per
 * family and a stable machine-readable `code`. Where the exchange has a label for the same
 * situation (see docs/rules.md#r12), the error carries it as `label`. `Code` is the union its codes come from: the
 * core's {@link ErrorCode} unless a layer of its own (the command line, the model exchange) says
 * otherwise.
 *
 * @example
 * ```ts
 * import { Scheduler, TraderatioError } from 'traderatio'
 *
 * let caught: unknown
 * try { new Scheduler().limit({ limit: 0, windowMs: 1000 }) } catch (e) { caught = e }
 * caught instanceof TraderatioError // true
 * caught instanceof TraderatioError && [caught.name, caught.code] // ['InvalidInputError', 'INVALID_INPUT']
 * ```
 */
export class TraderatioError<Code extends string = ErrorCode> extends Error {
  /** The class's name, e.g. `InvalidInputError`. */
  override readonly name: string;
  /** Stable machine-readable code, e.g. `INVALID_INPUT`. */
  readonly code: Code;
  /** The exchange's label for the same situation, when it has one (e.g. `TOO_MANY_REQUESTS`). */
  readonly label: string | undefined;

  constructor(code: Code, message: string, label?: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.label = label;
  }
}

/**
 * Bad input: names the field, the value and what was expected. Thrown before any state is
 * touched, so the object that refused the input is unchanged.
 *
 * @example
 * ```ts
 * import { InvalidInputError, Scheduler } from 'traderatio'
 *
 * let caught: unknown
 * try { new Scheduler().limit({ name: 'futures.place', limit: 0, windowMs: 1000 }) } catch (e) { caught = e }
 * caught instanceof InvalidInputError && [caught.field, caught.value] // ['limit of futures.place', 0]
 * ```
 */
export class InvalidInputError extends TraderatioError {
  /**
   * The field, as a person would name it, in plain text (e.g. "makerVolume of BTC_USDT"); the
   * message quotes it in backticks.
   */
  readonly field: string;
  /** The value that was refused. */
  readonly value: unknown;

  constructor(field: string, value: unknown, expected: string, label?: string) {
    super('INVALID_INPUT', `Expected ${field} to be ${expected}, got ${show(value)}`, label);
    // Names come quoted for the message ("`makerVolume` of BTC_USDT"); the field is kept plain.
    this.field = field.replaceAll('`', '');
    this.value = value;
  }
}

/**
 * An input object has a field traderatio does not know: a typo, or the other spelling
 * (`maker_volume` where the library and JSON files write `makerVolume`). Refused rather than
 * ignored, since an ignored field silently reads as its default. `suggestion` is the known field it
 * most likely meant, when one is close.
 *
 * @example
 * ```ts
 * import { UnknownFieldError } from 'traderatio'
 * import { tradeRatio } from 'traderatio/rules'
 *
 * let caught: unknown
 * try { tradeRatio(JSON.parse('[{ "contract": "BTC_USDT", "maker_volume": "900", "place": 100 }]')) } catch (e) { caught = e }
 * caught instanceof UnknownFieldError && [caught.key, caught.suggestion] // ['maker_volume', 'makerVolume']
 * ```
 */
export class UnknownFieldError extends InvalidInputError {
  /** The unknown field's name, as given. */
  readonly key: string;
  /** The known field it most likely meant, if one is close. */
  readonly suggestion: string | undefined;
  /** Every field the object may have. */
  readonly known: readonly string[];

  constructor(key: string, owner: string, value: unknown, known: readonly string[], suggestion: string | undefined) {
    super(`${key} in ${owner}`, value, 'a known field');
    this.key = key;
    this.suggestion = suggestion;
    this.known = known;
    this.message = `Unknown field \`${key}\` in ${owner}${suggestion === undefined ? '.' : `: did you mean \`${suggestion}\`?`} The fields are ${known.join(', ')}`;
  }
}

/**
 * True when `e` is any error thrown by traderatio.
 *
 * @example
 * ```ts
 * import { Scheduler, isTraderatioError } from 'traderatio'
 *
 * let caught: unknown
 * try { new Scheduler({ maxQueue: -1 }) } catch (e) { caught = e }
 * isTraderatioError(caught) // true
 * isTraderatioError(new Error('other')) // false
 * ```
 */
export function isTraderatioError(e: unknown): e is TraderatioError {
  return e instanceof TraderatioError;
}

/**
 * True when `e` is an {@link InvalidInputError}.
 *
 * @example
 * ```ts
 * import { Scheduler, isInvalidInputError } from 'traderatio'
 *
 * let caught: unknown
 * try { new Scheduler().limit({ limit: 10, windowMs: -1 }) } catch (e) { caught = e }
 * isInvalidInputError(caught) && caught.field // 'windowMs of limit'
 * ```
 */
export function isInvalidInputError(e: unknown): e is InvalidInputError {
  return e instanceof InvalidInputError;
}

/** Renders a refused value for a message: strings quoted, objects as JSON where possible. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  // An array's own toString joins its items bare: [] would read as nothing, ['1', 2] as 1,2; and
  // JSON would write Infinity and NaN as null.
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  if (
    typeof value === 'object' &&
    typeof (value as { toString?: unknown }).toString === 'function' &&
    (value as object).toString !== Object.prototype.toString
  ) {
    return String(value);
  }
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Why the scheduler refused a task.
 *
 * @example
 * ```ts
 * import { type RefusalReason, Scheduler, isRefusedError } from 'traderatio'
 *
 * const scheduler = new Scheduler()
 * const place = scheduler.limit({ limit: 1, windowMs: 1000 })
 * const reason: RefusalReason | null = await scheduler.schedule(() => 1, { limits: place, weight: 2 }).catch((e) => (isRefusedError(e) ? e.reason : null))
 * reason // 'too-heavy'
 * ```
 */
export type RefusalReason = 'queue-full' | 'aborted' | 'deadline' | 'too-heavy' | 'closed';

const REFUSAL_CODES: { readonly [R in RefusalReason]: ErrorCode } = {
  'queue-full': 'REFUSED_QUEUE_FULL',
  aborted: 'REFUSED_ABORTED',
  deadline: 'REFUSED_DEADLINE',
  'too-heavy': 'REFUSED_TOO_HEAVY',
  closed: 'REFUSED_CLOSED',
};

/**
 * The scheduler refused a task: it never ran, and it holds nothing. `reason` says why:
 * the queue was full, its signal aborted, its deadline passed, its weight can never fit one of
 * its limits, or the scheduler was closed.
 *
 * A refusal is an outcome, not a fault of the calling code, and refusals come in floods (every
 * task given while the queue is full): one the scheduler makes carries no stack frames (its
 * `stack` is its name and message), which would cost more than the refusal itself. `reason`,
 * `code` and `message` say what happened.
 *
 * @example
 * ```ts
 * import { RefusedError, Scheduler } from 'traderatio'
 *
 * const scheduler = new Scheduler()
 * const signal = AbortSignal.abort()
 * const error = await scheduler.schedule(() => 1, { signal }).catch((e) => e)
 * error instanceof RefusedError // true
 * error.reason // 'aborted'
 * error.code // 'REFUSED_ABORTED'
 * ```
 */
export class RefusedError extends TraderatioError {
  readonly reason: RefusalReason;
  constructor(reason: RefusalReason, message: string) {
    super(REFUSAL_CODES[reason], message);
    this.reason = reason;
  }
}

/**
 * A {@link RefusedError} without the frames of the call that was refused (see there why), made
 * as any other: it is an `Error`, with the same name, message, code and reason.
 */
export function refusal(reason: RefusalReason, message: string): RefusedError {
  const limit = Error.stackTraceLimit;
  try {
    Error.stackTraceLimit = 0;
  } catch {
    // Frozen intrinsics: the error keeps its frames.
    return new RefusedError(reason, message);
  }
  try {
    return new RefusedError(reason, message);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * True when `e` is a {@link RefusedError}.
 *
 * @example
 * ```ts
 * import { Scheduler, isRefusedError } from 'traderatio'
 *
 * const scheduler = new Scheduler({ maxQueue: 1 })
 * const place = scheduler.limit({ limit: 1, windowMs: 60_000 })
 * const tasks = [1, 2, 3].map((i) => scheduler.schedule(() => i, { limits: place }).catch((e) => isRefusedError(e) && e.reason))
 * scheduler.close()
 * await Promise.all(tasks) // [1, 'closed', 'queue-full']
 * ```
 */
export function isRefusedError(e: unknown): e is RefusedError {
  return e instanceof RefusedError;
}

/**
 * A request was sent and no reply came: its WebSocket connection closed, or the reply took longer
 * than allowed. Unlike a {@link RefusedError} the request left: it counted, and the exchange may
 * have acted on it.
 *
 * @example
 * ```ts
 * import { Scheduler, NoReplyError } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 * import { RedisStore } from 'traderatio/redis'
 *
 * const silent = { evalsha: () => new Promise(() => {}), eval: () => new Promise(() => {}) } // a Redis that never answers
 * const clock = new VirtualClock()
 * const store = new RedisStore({ client: silent, clock, timeoutMs: 250 })
 * let error: unknown
 * store.on((event) => { if (event.type === 'unavailable') error = event.error })
 * const scheduler = new Scheduler({ clock, store })
 * scheduler.schedule(() => 1, { limits: scheduler.limit({ limit: 10, windowMs: 1000 }) }).catch(() => {})
 * await clock.advance(250)
 * error instanceof NoReplyError && error.code // 'NO_REPLY'
 * scheduler.close()
 * await Promise.all([store.close(), clock.advance(250)])
 * ```
 *
 * @example
 * ```ts
 * import { AccountLimiter, NoReplyError } from 'traderatio'
 * import { limitedWebSocket } from 'traderatio/websocket'
 *
 * // A connection that never answers.
 * const socket = { send() {}, addEventListener() {}, removeEventListener() {} }
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const api = limitedWebSocket(limiter, { account: 'main', socket, timeoutMs: 50 })
 * const error = await api.request('futures.order_place', { contract: 'BTC_USDT', size: 1, price: '60000' }, { reqId: 'p1' }).catch((e) => e)
 * error instanceof NoReplyError // true
 * error.code // 'NO_REPLY'
 * error.message // 'no reply to p1 (futures.order_place) within 50 ms'
 * // It was sent: it counts.
 * limiter.abuseHeadroom('main').requests // 1
 * limiter.close()
 * ```
 */
export class NoReplyError extends TraderatioError {
  /** The `req_id` of the request. */
  readonly requestId: string;
  constructor(requestId: string, message: string) {
    super('NO_REPLY', message);
    this.requestId = requestId;
  }
}

/**
 * A `VirtualClock` fired more timers in one `runAll` than its `limit` allows (`limit`, 1,000,000
 * unless given) and still had some left: something sets a new timer each time one fires, and the
 * run would never end. Thrown instead of looping for ever; the clock keeps the time it reached.
 *
 * @example
 * ```ts
 * import { TooManyTimersError, VirtualClock } from 'traderatio/testing'
 *
 * const clock = new VirtualClock()
 * const tick = () => clock.setTimer(tick, 1000)
 * tick()
 * await clock.runAll(100).catch((e) => e instanceof TooManyTimersError && e.limit) // 100
 * ```
 */
export class TooManyTimersError extends TraderatioError {
  /** How many timers the run was allowed to fire. */
  readonly limit: number;
  constructor(limit: number, message: string) {
    super('TOO_MANY_TIMERS', message);
    this.limit = limit;
  }
}
