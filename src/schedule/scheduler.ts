import { InvalidInputError, type RefusalReason } from '../errors.js';
import { checkFields, isPositiveInteger } from '../internal/parse.js';
import { AbortWatch } from './abort-watch.js';
import { checkSameBuild, copyOf, markBuild } from './build.js';
import { type Clock, systemClock } from './clock.js';
import { Deadlines } from './deadlines.js';
import { Dispatcher } from './dispatcher.js';
import type { SchedulerEvent } from './events.js';
import { type RateLimitFeedback, readFeedback } from './feedback.js';
import { LimitBook } from './limit-book.js';
import { claim, type Limit, type StoreLimit, TAKEN, type TakeResult, takeResult } from './limit.js';
import { Listeners } from './listeners.js';
import type { Resolve, Slot, Submission } from './queue.js';
import { Refusals } from './refusals.js';
import { type LimitStore, memoryStore } from './store.js';
import { type SubmitRoute, makeRoute, submitTask } from './submit.js';
import {
  checkOwned,
  ownsAll,
  readLimits,
  readPriority,
  readSignal,
  readWeight,
  refuseLimits,
  tooHeavy,
} from './task-input.js';
import { WaitingTasks } from './waiting.js';
import { WindowLimit, type WindowLimitOptions } from './window.js';

// Limits say which copy of traderatio made them, for the message when two copies meet.
markBuild(WindowLimit.prototype);

/** Tasks a scheduler lets wait at once unless told otherwise (`maxQueue`). */
export const DEFAULT_MAX_QUEUE = 100_000;

const LIMIT_OPTION_FIELDS: readonly string[] = ['name', 'limit', 'windowMs', 'maxWindowMs', 'marginMs', 'reserve'];

/**
 * Options of a {@link Scheduler} whose store makes limits of type `L`.
 *
 * @example
 * ```ts
 * import { Scheduler, type SchedulerOptions } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const options: SchedulerOptions = { clock: new VirtualClock(), maxQueue: 1 }
 * const scheduler = new Scheduler(options)
 * const place = scheduler.limit({ limit: 1, windowMs: 1000 })
 * for (let i = 0; i < 3; i++) scheduler.schedule(() => i, { limits: place }).catch(() => {})
 * scheduler.stats().refused['queue-full'] // 1
 * ```
 */
export interface SchedulerOptions<L extends Limit = WindowLimit> {
  /** Where time is read and the timer set. @default systemClock */
  readonly clock?: Clock;
  /** Tasks that may wait at once; one more is refused at once (`queue-full`). @default 100000 */
  readonly maxQueue?: number;
  /**
   * Where the limits' state is kept: in this process, or shared by several (the Redis store of
   * `traderatio/redis`). @default memoryStore
   */
  readonly store?: LimitStore<L>;
}

/**
 * Options of one task.
 *
 * @example
 * ```ts
 * import { type ScheduleOptions, Scheduler } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const scheduler = new Scheduler({ clock: new VirtualClock() })
 * const place = scheduler.limit({ name: 'spot.place', limit: 10, windowMs: 1000 })
 * const options: ScheduleOptions = { limits: place, weight: 4, priority: 1 }
 * await scheduler.schedule(() => 'batch sent', options) // 'batch sent'
 * place.usedAt(0) // 4
 * ```
 */
export interface ScheduleOptions {
  /** The limits the task draws on, all at once or not at all. @default [] */
  readonly limits?: Limit | readonly Limit[];
  /** What the task counts for on each of its limits (a batch of k orders: k). @default 1 */
  readonly weight?: number;
  /** Higher goes first where tasks share a limit. Cancels should outrank placements. @default 0 */
  readonly priority?: number;
  /** Aborting it refuses the task if it has not started (`aborted`). */
  readonly signal?: AbortSignal;
  /** An instant on the scheduler's clock by which the task must have started, else refused (`deadline`). */
  readonly deadline?: number;
}

export type { Limit, TakeResult } from './limit.js';

// The longest a reset instant of the exchange's feedback holds a limit (see docs/rules.md#r12): one hour, the
// longest any rule holds one back (the throttles of see docs/rules.md#r9 and #r14 last an hour). A reset further off
// (milliseconds read as seconds, 1e30, the year 3000) cannot be meant, and is bounded to it.
const MAX_FEEDBACK_PAUSE_MS = 3_600_000;

export type { SchedulerEvent } from './events.js';

/**
 * Counters and the state of every limit.
 *
 * @example
 * ```ts
 * import { Scheduler, type SchedulerStats } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const scheduler = new Scheduler({ clock: new VirtualClock() })
 * const place = scheduler.limit({ name: 'futures.place', limit: 2, windowMs: 1000 })
 * for (let i = 0; i < 3; i++) void scheduler.schedule(() => i, { limits: place })
 * const stats: SchedulerStats = scheduler.stats()
 * stats.dispatched // 2
 * stats.queued // 1
 * stats.limits[0]?.used // 2
 * ```
 */
export interface SchedulerStats {
  /** Tasks waiting now. */
  readonly queued: number;
  /** Tasks started since the scheduler was made. */
  readonly dispatched: number;
  /** Tasks refused, by reason. */
  readonly refused: Readonly<Record<RefusalReason, number>>;
  readonly limits: readonly {
    readonly name: string;
    readonly limit: number;
    readonly windowMs: number;
    /** Weight counted in the trailing window now. */
    readonly used: number;
    /** Tasks waiting on it. */
    readonly waiting: number;
    /** Rough wait of a new task of weight 1 behind those already waiting, in milliseconds. */
    readonly expectedWaitMs: number;
  }[];
}

let captured: Resolve | null = null;
function capture(resolve: Resolve): void {
  captured = resolve;
}

/**
 * Sends every request of an engine through its limits (see docs/rules.md#r10, #r13): never more than N weight in any
 * window W of any limit, all of a task's limits taken at once or none, higher priority first and
 * first-in-first-out within a priority where tasks share a limit, one timer at most and none when
 * idle.
 *
 * A task whose limits allow it at once, with nobody waiting on them, runs inside `schedule()`
 * (synchronously); others wait in the queue and run from the scheduler's timer.
 *
 * @example
 * ```ts
 * import { Scheduler } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const clock = new VirtualClock()
 * const scheduler = new Scheduler({ clock })
 * const place = scheduler.limit({ name: 'futures.place', limit: 2, windowMs: 1000 })
 * const sent: number[] = []
 * const tasks = [1, 2, 3].map(() => scheduler.schedule(() => sent.push(clock.now()), { limits: place }))
 * await clock.advance(1000)
 * await Promise.all(tasks)
 * sent // [0, 0, 1000]
 * ```
 */
export class Scheduler<L extends Limit = WindowLimit> {
  /** Where time is read and the timer set. */
  readonly clock: Clock;
  readonly #store: LimitStore<L>;
  readonly #maxQueue: number;
  /** What a task refused for a full queue is told: made once, as every such refusal says the same. */
  readonly #queueFull: string;
  /** The names of its limits, each once. */
  readonly #names = new Set<string>();
  readonly #listeners: Listeners<SchedulerEvent>;
  /** The tasks waiting, in groups by priority and limits. */
  readonly #waiting = new WaitingTasks();
  /** The deadlines of the waiting tasks. */
  readonly #deadlines = new Deadlines();
  /** The refusals, counted by reason. */
  readonly #refusals: Refusals;
  /** What runs the queue: passes, the timer, the weight taken and its instants. */
  readonly #dispatcher: Dispatcher;
  /** The signals tasks wait on: one listener each, however many tasks share one. */
  readonly #aborts: AbortWatch;

  constructor(options: SchedulerOptions<L> = {}) {
    const [clock, maxQueue, store] = readSchedulerOptions<L>(options);
    this.clock = clock;
    this.#maxQueue = maxQueue;
    this.#queueFull = `${maxQueue} tasks are waiting, the most \`maxQueue\` allows`;
    this.#store = store;
    this.#listeners = new Listeners<SchedulerEvent>((source, error) => ({
      type: 'error',
      at: clock.now(),
      source,
      error,
    }));
    this.#refusals = new Refusals(clock, this.#listeners);
    this.#dispatcher = new Dispatcher({
      clock,
      waiting: this.#waiting,
      deadlines: this.#deadlines,
      refusals: this.#refusals,
      listeners: this.#listeners,
    });
    const dispatcher = this.#dispatcher;
    this.#aborts = new AbortWatch((run) => dispatcher.together(run));
  }

  /**
   * @internal While a task that waited in the queue starts: the limit that last held it (or its
   * group's head) back, else null. Read by the task as it starts (what a request waited on).
   */
  get heldBy(): StoreLimit | null {
    return this.#dispatcher.heldBy;
  }

  /**
   * @internal Calls `fn` before anything is decided at or after `at` (this scheduler's clock),
   * once: a change of limits due at an instant (a lower tier, a throttle) is applied before any
   * task is let through past it, even when the timer meant for it fires late (a busy process).
   * One at a time: a new one replaces the last; `null` removes it. Admission then reads the clock.
   */
  setBoundary(at: number, fn: (() => void) | null): void {
    this.#dispatcher.setBoundary(at, fn);
  }

  /** @internal Runs what can run now: a limit's answer changed without a call to it. */
  wake(): void {
    this.#dispatcher.wake();
  }

  /**
   * Makes a limit that tasks of this scheduler can draw on, its state kept by the scheduler's
   * store (in this process by default; shared with other processes by a Redis store). A `name`
   * that another limit of this scheduler has is refused: names key stats, events and shared state.
   */
  limit(options: WindowLimitOptions): L {
    if (typeof options === 'object' && options !== null) {
      checkFields(options, LIMIT_OPTION_FIELDS, 'the limit options');
      // A name keys stats, events and a store's shared state: two limits may not share one.
      if (options.name !== undefined && this.#names.has(options.name)) {
        throw new InvalidInputError('`name`', options.name, 'a name no other limit of this scheduler has');
      }
    }
    const d = this.#dispatcher;
    const made = this.#store.limit(options, d);
    checkSameBuild('the limit the store made', made, 'the scheduler', WindowLimit.prototype);
    // A limit of this copy of the library (a WindowLimit, or a shared one), not owned yet: what
    // the scheduler asks of it (StoreLimit) only this library's limits implement.
    const l = made as L & StoreLimit;
    if (copyOf(l) !== copyOf(WindowLimit.prototype) || !claim(l, d))
      throw new InvalidInputError('the limit the store made', made, 'a new limit');
    d.addBook(new LimitBook(l));
    this.#names.add(l.name);
    return made;
  }

  /**
   * Runs `fn` when every limit in `options.limits` allows `weight` at once, taking it from all of
   * them together. Resolves with what `fn` returns (or its promise settles to); rejects with
   * `fn`'s error, or with a {@link RefusedError} when the task was refused and never ran: among
   * others `too-heavy` when a limit is lowered below its weight while it waits. A bad option
   * throws an {@link InvalidInputError} naming it, before anything is queued or counted.
   */
  schedule<T>(fn: () => T | PromiseLike<T>, options: ScheduleOptions = {}): Promise<Awaited<T>> {
    // Every option is read before anything is queued or counted: a refused call leaves no trace.
    if (typeof fn !== 'function') throw new InvalidInputError('the task', fn, 'a function');
    if (typeof options !== 'object' || options === null)
      throw new InvalidInputError(
        'the schedule options',
        options,
        'an object { limits, weight, priority, signal, deadline }',
      );
    const d = this.#dispatcher;
    const refusals = this.#refusals;
    const limits = readLimits(d.books, options.limits);
    const weight = readWeight(options.weight);
    const priority = readPriority(options.priority);
    const signal = readSignal(options.signal);
    const { deadline } = options;
    if (deadline !== undefined && (typeof deadline !== 'number' || Number.isNaN(deadline))) {
      throw new InvalidInputError('`deadline`', deadline, 'an instant on the scheduler clock (a number)');
    }
    if (d.closed) return refusals.reject('closed', limits, 'the scheduler is closed');
    if (signal?.aborted === true)
      return refusals.reject('aborted', limits, 'the signal was aborted before the task started');
    d.boundaryIfDue();
    for (const l of limits) {
      if (weight > l.capacity(priority)) return refusals.reject('too-heavy', limits, tooHeavy(weight, l, priority));
    }
    // At once, if nobody waits on these limits and all of them allow it: without reading the
    // clock when they have room whatever the instant (the weight gets its instant at the end of
    // this turn), else at the instant read now.
    if (deadline === undefined && !d.draining && d.boundaryAt === Infinity && d.admitAnytime(limits, weight, priority))
      return run(fn);
    const now = this.clock.now();
    if (now >= d.boundaryAt) d.reachBoundary();
    d.stampAll(now);
    if (deadline !== undefined && deadline < now)
      return refusals.reject('deadline', limits, 'the deadline had passed when the task was given');
    if (!d.draining && d.admitNow(limits, weight, priority, now)) {
      d.countDispatch(limits, weight, priority, now);
      return run(fn);
    }

    // Never more than maxQueue wait: a refusal says that many.
    if (this.#waiting.live >= this.#maxQueue) return refusals.reject('queue-full', limits, this.#queueFull);
    const group = d.groupFor(priority, limits);
    const promise = new Promise<Awaited<T>>(capture as (resolve: (value: Awaited<T>) => void) => void);
    const resolve = captured!;
    captured = null;
    let slot: Slot | null = null;
    if (signal !== undefined) {
      // Listened to before the task is queued: a signal that cannot be listened to queues nothing.
      const onAbort = (): void => {
        if (slot !== null) d.cancel(slot, group, weight, 'aborted', 'the signal was aborted before the task started');
      };
      const unwatch = this.#aborts.watch(signal, onAbort);
      void promise.then(unwatch, unwatch);
    }
    slot = d.enqueue(group, fn, resolve, weight);
    if (deadline !== undefined) this.#deadlines.add(deadline, slot, group);
    d.pass();
    return promise;
  }

  /**
   * @internal Checks once what a kind of task draws on, for {@link Scheduler.submit}: the limits
   * (each made by this scheduler, each once), the weight and the priority, as `schedule` does.
   */
  route(options: {
    readonly limits: readonly StoreLimit[];
    readonly weight: number;
    readonly priority: number;
  }): SubmitRoute {
    return makeRoute(this.#dispatcher, options);
  }

  /**
   * @internal Runs `fn(arg)` when every limit of `route` allows its weight, as `schedule` does
   * (the same queue, order and limits), for callers that give many tasks in one synchronous run
   * on a clock that moves only when told: a replay on a `VirtualClock`. No promise and no object
   * per task: `fn` runs inside `submit` or inside the scheduler's timer, and what it took gets
   * the instant read right after it returns. A refusal calls `submission.refused(reason)`, an
   * error `fn` throws `submission.failed(error)`; one `fn` and one submission may serve every
   * task of a route, `arg` telling them apart (a replay's arrival instant).
   */
  submit(fn: (arg: number) => void, arg: number, route: SubmitRoute, submission: Submission): void {
    submitTask(this.#dispatcher, this.#maxQueue, fn, arg, route, submission);
  }

  /**
   * Takes `weight` from every limit at once if all allow it now and nobody waits on them: returns
   * `{ ok: true }` when taken, otherwise `{ ok: false, retryAfterMs }`, the milliseconds to wait
   * (Infinity: never fits). For engines that send
   * synchronously. Tasks already waiting go first. `at`, when given, must be the current instant
   * on the scheduler's clock. A weight that is not a positive integer, a priority or instant that
   * is not a finite number, or a limit not made by this scheduler is an {@link InvalidInputError}
   * naming it, and nothing is taken.
   */
  tryAcquire(limits: Limit | readonly Limit[], weight = 1, priority = 0, at: number = this.clock.now()): TakeResult {
    // Checked first, without allocating; refusals are thrown by helpers out of the hot path.
    if (!isPositiveInteger(weight)) refuseInput('`weight`', weight, 'a positive integer');
    if (typeof priority !== 'number' || priority - priority !== 0)
      refuseInput('`priority`', priority, 'a finite number');
    if (typeof at !== 'number' || at - at !== 0) refuseInput('`at`', at, 'a finite instant on the scheduler clock');
    const d = this.#dispatcher;
    const one = !Array.isArray(limits);
    const book = one ? d.books.get(limits as StoreLimit) : undefined;
    if (one ? book === undefined : !ownsAll(d.books, limits)) refuseLimits(d.books, limits);
    if (at >= d.boundaryAt) d.reachBoundary();
    // `at` is now, read after every earlier dispatch: the instant for what they took.
    d.stampAll(at);
    if (book !== undefined) {
      // One limit, the common case: no array.
      const l = book.limit;
      const w = l.waitFor(weight, at, priority);
      if (w > 0) {
        if (d.shares && l.lacks(weight, at)) l.request([l], weight, priority, at);
        return takeResult(w);
      }
      if (book.waiting > 0) return takeResult(l.windowMs / l.limit);
      d.takeOne(book, weight);
    } else {
      const list = limits as readonly StoreLimit[];
      let wait = 0;
      for (let i = 0; i < list.length; i++) {
        const l = list[i]!;
        const w = l.waitFor(weight, at, priority);
        const behind = d.books.get(l)!.waiting > 0 && w === 0 ? l.windowMs / l.limit : w;
        if (behind > wait) wait = behind;
      }
      if (wait > 0) {
        if (d.shares) d.askShared(list, weight, priority, at);
        return takeResult(wait);
      }
      d.takeAll(list, weight);
    }
    d.dispatched++;
    return TAKEN;
  }

  /**
   * Applies what the exchange said about a limit (see docs/rules.md#r12): a 429 (TOO_MANY_REQUESTS, or TOO_FAST
   * for withdrawals) pauses it until the reset instant, or for one window when none is given;
   * headers saying fewer requests remain than counted here shrink it until the reset. An answer
   * with both `…-Requests-Remain` and a `…-Limit` at or below this limit's N states the
   * exchange's count of the window (N less remain, see docs/rules.md#r17): more than counted here is held for one
   * window from now, told as a `recount` event; less changes nothing. A reset
   * (or `Retry-After`) further off than an hour (the longest any rule holds a limit) cannot be meant: the pause
   * or shrink ends at that bound, told as a `reset-bounded` event naming the header. A lower
   * `limit` than configured lowers it. `sentAt`, when the request answered was sent (an instant of
   * this scheduler's clock, at most now), says how old the exchange's count may be: a shared
   * store takes a count as made after it lost grants only when the request was sent after. Bad
   * feedback (a field of the wrong type, a negative or NaN `retryAfterMs`, a `limit` at or below
   * the limit's reserve, a `sentAt` later than now) is an {@link InvalidInputError} naming the
   * field, and nothing of it is applied.
   */
  feedback(given: Limit, feedback: RateLimitFeedback, sentAt?: number): void {
    // Everything is checked before anything is applied: a refused call leaves the limit as it was.
    checkOwned(this.#dispatcher.books, given, 'the limit given feedback');
    const limit = given as StoreLimit;
    readFeedback(feedback);
    if (feedback.limit !== undefined && feedback.limit < limit.limit) {
      const reserved = limit.limit - limit.capacity(-Infinity);
      if (feedback.limit <= reserved) {
        throw new InvalidInputError(
          '`feedback.limit`',
          feedback.limit,
          `more than the ${reserved} reserved on ${limit.name}`,
        );
      }
    }
    const now = this.clock.now();
    if (sentAt !== undefined && !(typeof sentAt === 'number' && sentAt <= now && sentAt - sentAt === 0))
      throw new InvalidInputError('`sentAt`', sentAt, `an instant of the scheduler's clock at or before now (${now})`);
    this.#dispatcher.stampAll(now);
    const bounded = (header: 'X-Gate-RateLimit-Reset-Timestamp' | 'Retry-After', at: number): number => {
      if (at - now <= MAX_FEEDBACK_PAUSE_MS) return at;
      const until = now + MAX_FEEDBACK_PAUSE_MS;
      this.#listeners.emit({ type: 'reset-bounded', at: now, limit: limit.name, header, resetAt: at, until });
      return until;
    };
    const resetAt =
      feedback.resetAtMs === undefined
        ? undefined
        : bounded('X-Gate-RateLimit-Reset-Timestamp', now + Math.max(0, feedback.resetAtMs - this.clock.wall()));
    if (feedback.limited) {
      const until =
        resetAt !== undefined && resetAt > now
          ? resetAt
          : feedback.retryAfterMs === undefined
            ? now + limit.windowMs
            : bounded('Retry-After', now + feedback.retryAfterMs);
      limit.pause(until);
      this.#listeners.emit({ type: 'pause', at: now, limit: limit.name, until });
    } else {
      if (feedback.remaining !== undefined && resetAt !== undefined) limit.shrink(feedback.remaining, resetAt, now);
      // The exchange's count of the window (see docs/rules.md#r17), when the answer speaks of this limit: its
      // `…-Limit` is this N (or a lower one it sets below). Taken in the stricter direction only.
      if (feedback.remaining !== undefined && feedback.limit !== undefined && feedback.limit <= limit.limit) {
        const exchange = feedback.limit - feedback.remaining;
        if (exchange >= 0) {
          const until = now + limit.windowMs;
          const counted = limit.recount(exchange, until, now, sentAt ?? now);
          if (exchange > counted)
            this.#listeners.emit({ type: 'recount', at: now, limit: limit.name, counted, exchange, until });
        }
      }
    }
    if (feedback.limit !== undefined && feedback.limit < limit.limit) {
      limit.update({ limit: feedback.limit });
    }
    this.#dispatcher.pass();
  }

  /** Counters and the state of every limit. */
  stats(): SchedulerStats {
    const d = this.#dispatcher;
    const now = this.clock.now();
    d.stampAll(now);
    return {
      queued: this.#waiting.live,
      dispatched: d.dispatched,
      refused: this.#refusals.counts(),
      limits: [...d.books.values()].map(({ limit: l, waiting, queuedWeight }) => {
        const used = l.usedAt(now);
        const free = Math.max(0, l.limit - used);
        const expectedWaitMs = queuedWeight + 1 <= free ? 0 : ((queuedWeight + 1 - free) / l.limit) * l.windowMs;
        return { name: l.name, limit: l.limit, windowMs: l.windowMs, used, waiting, expectedWaitMs };
      }),
    };
  }

  /**
   * Listens to dispatches, refusals, limit changes and pauses. Returns a function that stops it.
   * A listener that throws breaks nothing: its error is reported as an `error` event (source
   * `listener`) to the listeners, or as a process warning when it was handling one.
   */
  on(listener: (event: SchedulerEvent) => void): () => void {
    return this.#listeners.add(listener);
  }

  /** Refuses every waiting task (`closed`) and every later one; clears the timer. */
  close(): void {
    this.#dispatcher.close();
  }
}

function run<T>(fn: () => T | PromiseLike<T>): Promise<Awaited<T>> {
  try {
    return Promise.resolve(fn()) as Promise<Awaited<T>>;
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Throws the error for a refused input: kept out of the hot paths that check it. */
function refuseInput(field: string, value: unknown, expected: string): never {
  throw new InvalidInputError(field, value, expected);
}

function readSchedulerOptions<L extends Limit>(options: SchedulerOptions<L>): [Clock, number, LimitStore<L>] {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('scheduler options', options, 'an object');
  checkFields(options, ['clock', 'maxQueue', 'store'], 'the scheduler options');
  const clock = options.clock ?? systemClock;
  const maxQueue = options.maxQueue ?? DEFAULT_MAX_QUEUE;
  if (typeof maxQueue !== 'number' || !(maxQueue >= 0) || (!Number.isSafeInteger(maxQueue) && maxQueue !== Infinity)) {
    throw new InvalidInputError('`maxQueue`', options.maxQueue, 'a non-negative integer or Infinity');
  }
  // Without a store, L is its default, WindowLimit: the memory store's.
  const store = options.store ?? (memoryStore as LimitStore<Limit> as LimitStore<L>);
  if (typeof store !== 'object' || store === null || typeof store.limit !== 'function') {
    throw new InvalidInputError('`store`', store, 'a limit store (an object with a `limit` method)');
  }
  return [clock, maxQueue, store];
}
