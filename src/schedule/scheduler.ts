import { InvalidInputError, RefusedError, type RefusalReason } from '../errors.js';
import { checkFields, isPositiveInteger } from '../internal/parse.js';
import { checkSameBuild, copyOf, markBuild } from './build.js';
import { type Clock, systemClock } from './clock.js';
import { type RateLimitFeedback, readFeedback } from './feedback.js';
import { type ErrorSource, Listeners } from './listeners.js';
import { type Resolve, type Slot, type Submission, TaskQueue, type Waiter, cancelSlot, isLive } from './queue.js';
import { type LimitStore, memoryStore } from './store.js';
import { WindowLimit, type WindowLimitOptions } from './window.js';
import type { Limit } from './limit.js';
import { LimitBook } from './limit-book.js';
import { heapOf, heapPop, heapPush, heapSiftDown } from './heap.js';

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

export type { Limit } from './limit.js';

// The longest a reset instant of the exchange's feedback holds a limit (R12): one hour, the
// longest any rule holds one back (the throttles of R9 and R14 last an hour). A reset further off
// (milliseconds read as seconds, 1e30, the year 3000) cannot be meant, and is bounded to it.
const MAX_FEEDBACK_PAUSE_MS = 3_600_000;

/**
 * What the scheduler tells its listeners. `error` reports a listener that threw (source
 * `listener`): the scheduler carries on, the task being dispatched or refused still runs or is
 * refused. An error thrown by a listener while it handles an `error` event, or an error with no
 * listener to take it, becomes a process warning (`process.emitWarning`, type
 * `TraderatioWarning`).
 *
 * @example
 * ```ts
 * import { Scheduler, type SchedulerEvent } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const scheduler = new Scheduler({ clock: new VirtualClock() })
 * const place = scheduler.limit({ name: 'futures.place', limit: 1, windowMs: 1000 })
 * const events: SchedulerEvent[] = []
 * scheduler.on((event) => events.push(event))
 * await scheduler.schedule(() => 1, { limits: place })
 * events // [{ type: 'dispatch', at: 0, weight: 1, priority: 0, limits: ['futures.place'] }]
 * ```
 */
export type SchedulerEvent =
  | { readonly type: 'dispatch'; readonly at: number; readonly weight: number; readonly priority: number; readonly limits: readonly string[] }
  | { readonly type: 'refuse'; readonly at: number; readonly reason: RefusalReason; readonly limits: readonly string[] }
  | { readonly type: 'limit'; readonly at: number; readonly limit: string; readonly from: { readonly limit: number; readonly windowMs: number }; readonly to: { readonly limit: number; readonly windowMs: number } }
  | { readonly type: 'pause'; readonly at: number; readonly limit: string; readonly until: number }
  /**
   * Feedback named a reset further off than an hour (milliseconds where
   * seconds are expected, 1e30, the year 3000): `header` says which (`Retry-After`, or the reset
   * timestamp of R12, which the WebSocket API writes `x_gat_ratelimit_reset_timestamp`),
   * `resetAt` the instant it gave (the limiter's clock), `until` the bound taken instead.
   */
  | { readonly type: 'reset-bounded'; readonly at: number; readonly limit: string; readonly header: 'X-Gate-RateLimit-Reset-Timestamp' | 'Retry-After'; readonly resetAt: number; readonly until: number }
  | { readonly type: 'error'; readonly at: number; readonly source: ErrorSource; readonly error: unknown };

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

interface Group {
  readonly priority: number;
  readonly limits: readonly Limit[];
  /** The scheduler's books of `limits`, in the same order. */
  readonly books: readonly LimitBook[];
  readonly queue: TaskQueue;
  live: number;
  /** Taken out of the scheduler's groups (it emptied): a route holding it makes a new one. */
  gone: boolean;
  /** The pass whose order of heads holds it, or 0. */
  inPass: number;
}

/**
 * @internal What a kind of task draws on, checked once for many `submit`s: its limits (each
 * made by the scheduler, each once), its weight and its priority.
 */
export interface SubmitRoute {
  readonly limits: readonly Limit[];
  readonly weight: number;
  readonly priority: number;
  /** @internal */
  readonly books: readonly LimitBook[];
  /** @internal The group its tasks wait in, kept while the scheduler keeps it. */
  group: Group | null;
  /** @internal The scheduler that checked it. */
  readonly owner: object;
}

/** A group in a pass's order, by the arrival number of its head when placed. */
interface Head {
  readonly group: Group;
  seq: number;
}

interface Deadline {
  readonly at: number;
  readonly slot: Slot;
  readonly group: Group;
}

let captured: Resolve | null = null;
function capture(resolve: Resolve): void {
  captured = resolve;
}

/**
 * Sends every request of an engine through its limits (R10, R13): never more than N weight in any
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
  readonly clock: Clock;
  private readonly maxQueue: number;
  private readonly store: LimitStore<L>;
  /** Limits whose permits come from another process's store. */
  private shared = 0;
  private readonly groups = new Map<string, Group>();
  /** Each limit of this scheduler, with what the scheduler keeps about it. */
  private readonly books = new Map<Limit, LimitBook>();
  /** The names of its limits, each once. */
  private readonly names = new Set<string>();
  private deadlines: Deadline[] = [];
  /** The order of queue heads of the pass running now, or null. */
  private heads: Head[] | null = null;
  private seq = 0;
  private passNo = 0;
  private live = 0;
  private dispatched = 0;
  private readonly refusedCounts: Record<RefusalReason, number> = { 'queue-full': 0, aborted: 0, deadline: 0, 'too-heavy': 0, closed: 0 };
  private draining = false;
  // Limits holding weight without an instant: the first `unstampedCount` of this array.
  private readonly unstamped: LimitBook[] = [];
  private unstampedCount = 0;
  private stampQueued = false;
  private dirty = false;
  private timer: unknown = null;
  private timerAt = Infinity;
  private closed = false;
  // A change of limits due at an instant (see setBoundary), applied before any decision past it.
  private boundaryAt = Infinity;
  private boundaryFn: (() => void) | null = null;
  private readonly listeners = new Listeners<SchedulerEvent>((source, error) => ({ type: 'error', at: this.clock.now(), source, error }));

  constructor(options: SchedulerOptions<L> = {}) {
    if (typeof options !== 'object' || options === null) throw new InvalidInputError('scheduler options', options, 'an object');
    checkFields(options, ['clock', 'maxQueue', 'store'], 'the scheduler options');
    this.clock = options.clock ?? systemClock;
    const maxQueue = options.maxQueue ?? DEFAULT_MAX_QUEUE;
    if (typeof maxQueue !== 'number' || !(maxQueue >= 0) || (!Number.isSafeInteger(maxQueue) && maxQueue !== Infinity)) {
      throw new InvalidInputError('`maxQueue`', options.maxQueue, 'a non-negative integer or Infinity');
    }
    this.maxQueue = maxQueue;
    // Without a store, L is its default, WindowLimit: the memory store's.
    const store = options.store ?? (memoryStore as LimitStore<Limit> as LimitStore<L>);
    if (typeof store !== 'object' || store === null || typeof store.limit !== 'function') {
      throw new InvalidInputError('`store`', store, 'a limit store (an object with a `limit` method)');
    }
    this.store = store;
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
      if (options.name !== undefined && this.names.has(options.name)) {
        throw new InvalidInputError('`name`', options.name, 'a name no other limit of this scheduler has');
      }
    }
    const l = this.store.limit(options, this);
    checkSameBuild('the limit the store made', l, 'the scheduler', WindowLimit.prototype);
    // A limit of this copy of the library (a WindowLimit, or a shared one), not owned yet.
    if (copyOf(l) !== copyOf(WindowLimit.prototype) || l.owner !== null) throw new InvalidInputError('the limit the store made', l, 'a new limit');
    l.owner = this;
    this.books.set(l, new LimitBook(l));
    this.names.add(l.name);
    if (l.isShared()) this.shared++;
    return l;
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
    if (typeof options !== 'object' || options === null) throw new InvalidInputError('the schedule options', options, 'an object { limits, weight, priority, signal, deadline }');
    const limits = this.readLimits(options.limits);
    const weight = readWeight(options.weight);
    const priority = readPriority(options.priority);
    const signal = readSignal(options.signal);
    const { deadline } = options;
    if (deadline !== undefined && (typeof deadline !== 'number' || Number.isNaN(deadline))) {
      throw new InvalidInputError('`deadline`', deadline, 'an instant on the scheduler clock (a number)');
    }
    if (this.closed) return this.refuse('closed', limits, 'the scheduler is closed');
    if (signal?.aborted === true) return this.refuse('aborted', limits, 'the signal was aborted before the task started');
    this.boundaryIfDue();
    for (const l of limits) {
      if (weight > l.capacity(priority)) return this.refuse('too-heavy', limits, tooHeavy(weight, l, priority));
    }
    // At once, if nobody waits on these limits and all of them allow it: without reading the
    // clock when they have room whatever the instant (the weight gets its instant at the end of
    // this turn), else at the instant read now.
    if (deadline === undefined && !this.draining && this.boundaryAt === Infinity && this.admitAnytime(limits, weight, priority)) return run(fn);
    const now = this.clock.now();
    if (now >= this.boundaryAt) this.reachBoundary();
    this.stampAll(now);
    if (deadline !== undefined && deadline < now) return this.refuse('deadline', limits, 'the deadline had passed when the task was given');
    if (!this.draining && this.admitNow(limits, weight, priority, now)) {
      this.countDispatch(limits, weight, priority, now);
      return run(fn);
    }

    if (this.live >= this.maxQueue) return this.refuse('queue-full', limits, `${this.live} tasks are waiting, the most \`maxQueue\` allows`);
    const group = this.groupFor(priority, limits);
    const promise = new Promise<Awaited<T>>(capture as (resolve: (value: Awaited<T>) => void) => void);
    const resolve = captured!;
    captured = null;
    let slot: Slot | null = null;
    if (signal !== undefined) {
      // Listened to before the task is queued: a signal that cannot be listened to queues nothing.
      const onAbort = (): void => {
        if (slot !== null) this.cancel(slot, group, weight, 'aborted', 'the signal was aborted before the task started');
      };
      signal.addEventListener('abort', onAbort, { once: true });
      void promise.then(() => signal.removeEventListener('abort', onAbort), () => signal.removeEventListener('abort', onAbort));
    }
    slot = this.enqueue(group, fn, resolve, weight);
    // A deadline that never comes needs no entry: it would only hold memory.
    if (deadline !== undefined && deadline !== Infinity) heapPush(this.deadlines, { at: deadline, slot, group }, deadlineBefore);
    this.pass();
    return promise;
  }

  /**
   * @internal Checks once what a kind of task draws on, for {@link Scheduler.submit}: the limits
   * (each made by this scheduler, each once), the weight and the priority, as `schedule` does.
   */
  route(options: { readonly limits: readonly Limit[]; readonly weight: number; readonly priority: number }): SubmitRoute {
    if (typeof options !== 'object' || options === null) throw new InvalidInputError('the route', options, 'an object { limits, weight, priority }');
    const limits = [...this.readLimits(options.limits)];
    return {
      limits, weight: readWeight(options.weight), priority: readPriority(options.priority), books: limits.map((l) => this.books.get(l)!), group: null, owner: this,
    };
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
    if (typeof fn !== 'function') throw new InvalidInputError('the task', fn, 'a function');
    if (route?.owner !== this) throw new InvalidInputError('the route', route, 'a route of this scheduler (scheduler.route(...))');
    const { limits, books, weight, priority } = route;
    if (this.closed) return this.rejectWith(submission, 'closed', limits, '');
    const now = this.clock.now();
    if (now >= this.boundaryAt) this.reachBoundary();
    if (this.unstampedCount > 0) this.stampAll(now);
    // What fits now is not too heavy: the check of every limit's capacity waits for a task that
    // does not go at once.
    if (!this.draining && this.admitBooks(books, weight, priority, now)) {
      this.countDispatch(limits, weight, priority, now);
      runSubmitted(fn, arg, submission);
      this.stampAll(this.clock.now());
      return;
    }
    for (let i = 0; i < limits.length; i++) {
      if (weight > limits[i]!.capacity(priority)) return this.rejectWith(submission, 'too-heavy', limits, '');
    }
    if (this.live >= this.maxQueue) return this.rejectWith(submission, 'queue-full', limits, '');
    let group = route.group;
    if (group === null || group.gone) group = route.group = this.groupFor(priority, limits);
    this.enqueue(group, fn, submission, weight, arg);
    // Behind a task of its group, with the timer set for the heads: a pass would find what the
    // last one found (no permits of a shared store to ask for).
    if (group.live > 1 && this.timer !== null && this.shared === 0) return;
    this.pass();
  }

  /** Takes `weight` from every book's limit if nobody waits on them and all allow it at `now`. */
  private admitBooks(books: readonly LimitBook[], weight: number, priority: number, now: number): boolean {
    for (let i = 0; i < books.length; i++) {
      const b = books[i]!;
      if (b.waiting > 0 || b.limit.waitFor(weight, now, priority) !== 0) return false;
    }
    for (let i = 0; i < books.length; i++) this.takeOne(books[i]!, weight);
    return true;
  }

  /** Puts a task at the back of its group's queue and counts it waiting on each of its limits. */
  private enqueue(group: Group, fn: (arg: number) => unknown, waiter: Waiter, weight: number, arg = 0): Slot {
    const slot = group.queue.push(fn, waiter, weight, this.seq++, arg);
    // Given by a task of the pass running now: it takes its place in the pass's order, so that it
    // goes before younger tasks of its priority, and after older ones, on any limit they share.
    if (this.heads !== null && group.inPass !== this.passNo) {
      group.inPass = this.passNo;
      heapPush(this.heads, { group, seq: group.queue.headSeq() }, headBefore);
    }
    group.live++;
    this.live++;
    for (const b of group.books) {
      b.waiting++;
      b.queuedWeight += weight;
    }
    return slot;
  }

  /**
   * Takes `weight` from every limit at once if all allow it now and nobody waits on them: returns
   * 0 when taken, otherwise milliseconds to wait (Infinity: never fits). For engines that send
   * synchronously. Tasks already waiting go first. `at`, when given, must be the current instant
   * on the scheduler's clock. A weight that is not a positive integer, a priority or instant that
   * is not a finite number, or a limit not made by this scheduler is an {@link InvalidInputError}
   * naming it, and nothing is taken.
   */
  tryAcquire(limits: Limit | readonly Limit[], weight = 1, priority = 0, at: number = this.clock.now()): number {
    // Checked first, without allocating; refusals are thrown by helpers out of the hot path.
    if (!isPositiveInteger(weight)) refuseInput('`weight`', weight, 'a positive integer');
    if (typeof priority !== 'number' || priority - priority !== 0) refuseInput('`priority`', priority, 'a finite number');
    if (typeof at !== 'number' || at - at !== 0) refuseInput('`at`', at, 'a finite instant on the scheduler clock');
    const one = !Array.isArray(limits);
    const book = one ? this.books.get(limits as Limit) : undefined;
    if (one ? book === undefined : !this.ownsAll(limits)) this.refuseLimits(limits);
    if (at >= this.boundaryAt) this.reachBoundary();
    // `at` is now, read after every earlier dispatch: the instant for what they took.
    if (this.unstampedCount > 0) this.stampAll(at);
    if (book !== undefined) {
      // One limit, the common case: no array.
      const l = book.limit;
      const w = l.waitFor(weight, at, priority);
      if (w > 0) {
        if (this.shared > 0 && l.lacks(weight, at)) l.request([l], weight, priority, at);
        return w;
      }
      if (book.waiting > 0) return l.windowMs / l.limit;
      this.takeOne(book, weight);
    } else {
      const list = limits as readonly Limit[];
      let wait = 0;
      for (let i = 0; i < list.length; i++) {
        const l = list[i]!;
        const w = l.waitFor(weight, at, priority);
        const behind = this.books.get(l)!.waiting > 0 && w === 0 ? l.windowMs / l.limit : w;
        if (behind > wait) wait = behind;
      }
      if (wait > 0) {
        if (this.shared > 0) this.askShared(list, weight, priority, at);
        return wait;
      }
      this.takeAll(list, weight);
    }
    this.dispatched++;
    return 0;
  }

  /**
   * Applies what the exchange said about a limit (R12): a 429 (TOO_MANY_REQUESTS, or TOO_FAST
   * for withdrawals) pauses it until the reset instant, or for one window when none is given;
   * headers saying fewer requests remain than counted here shrink it until the reset. A reset
   * (or `Retry-After`) further off than an hour (the longest any rule holds a limit) cannot be meant: the pause
   * or shrink ends at that bound, told as a `reset-bounded` event naming the header. A lower
   * `limit` than configured lowers it. Bad feedback (a field of the wrong type, a negative or NaN
   * `retryAfterMs`, a `limit` at or below the limit's reserve) is an {@link InvalidInputError}
   * naming the field, and nothing of it is applied.
   */
  feedback(limit: Limit, feedback: RateLimitFeedback): void {
    // Everything is checked before anything is applied: a refused call leaves the limit as it was.
    this.ownedLimit(limit, 'the limit given feedback');
    readFeedback(feedback);
    if (feedback.limit !== undefined && feedback.limit < limit.limit) {
      const reserved = limit.limit - limit.capacity(-Infinity);
      if (feedback.limit <= reserved) {
        throw new InvalidInputError('`feedback.limit`', feedback.limit, `more than the ${reserved} reserved on ${limit.name}`);
      }
    }
    const now = this.clock.now();
    this.stampAll(now);
    const bounded = (header: 'X-Gate-RateLimit-Reset-Timestamp' | 'Retry-After', at: number): number => {
      if (at - now <= MAX_FEEDBACK_PAUSE_MS) return at;
      const until = now + MAX_FEEDBACK_PAUSE_MS;
      this.emit({ type: 'reset-bounded', at: now, limit: limit.name, header, resetAt: at, until });
      return until;
    };
    const resetAt = feedback.resetAtMs === undefined ? undefined : bounded('X-Gate-RateLimit-Reset-Timestamp', now + Math.max(0, feedback.resetAtMs - this.clock.wall()));
    if (feedback.limited) {
      const until = resetAt !== undefined && resetAt > now ? resetAt : feedback.retryAfterMs === undefined ? now + limit.windowMs : bounded('Retry-After', now + feedback.retryAfterMs);
      limit.pause(until);
      this.emit({ type: 'pause', at: now, limit: limit.name, until });
    } else if (feedback.remaining !== undefined && resetAt !== undefined) {
      limit.shrink(feedback.remaining, resetAt, now);
    }
    if (feedback.limit !== undefined && feedback.limit < limit.limit) {
      limit.update({ limit: feedback.limit });
    }
    this.pass();
  }

  /** Counters and the state of every limit. */
  stats(): SchedulerStats {
    const now = this.clock.now();
    this.stampAll(now);
    return {
      queued: this.live,
      dispatched: this.dispatched,
      refused: { ...this.refusedCounts },
      limits: [...this.books.values()].map(({ limit: l, waiting, queuedWeight }) => {
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
    return this.listeners.add(listener);
  }

  /** Refuses every waiting task (`closed`) and every later one; clears the timer. */
  close(): void {
    this.closed = true;
    for (const group of this.groups.values()) {
      while (group.queue.skipCancelled()) {
        const weight = group.queue.headWeight();
        const { resolve } = group.queue.shift();
        this.release(group, weight);
        this.rejectWith(resolve, 'closed', group.limits, 'the scheduler was closed before the task started');
      }
    }
    this.deadlines = [];
    this.setTimer(Infinity);
  }

  /** @internal A shared limit's permits arrived: runs what can run. */
  wake(): void {
    if (!this.closed) this.pass();
  }

  /** @internal The weight of the tasks waiting on `limit` (what a shared store asks for). */
  queuedWeight(limit: Limit): number {
    return this.books.get(limit)?.queuedWeight ?? 0;
  }

  /**
   * @internal A limit changed: applies it to the waiting tasks at once. Those it can no longer
   * fit are refused (`too-heavy`), as a new `schedule()` of them would be, so that they hold
   * back nobody behind them.
   */
  changed(limit: Limit, from: { readonly limit: number; readonly windowMs: number }): void {
    this.emit({ type: 'limit', at: this.clock.now(), limit: limit.name, from, to: { limit: limit.limit, windowMs: limit.windowMs } });
    if ((this.books.get(limit)?.waiting ?? 0) > 0) this.refuseTooHeavy(limit);
    if (!this.closed) this.pass();
  }

  /** Refuses every waiting task on `limit` heavier than what the limit allows its priority now. */
  private refuseTooHeavy(limit: Limit): void {
    for (const g of this.groups.values()) {
      if (g.live === 0 || !g.limits.includes(limit)) continue;
      const cap = limit.capacity(g.priority);
      g.queue.forEachLive((slot, weight) => {
        if (weight <= cap) return;
        const resolve = cancelSlot(slot)!;
        this.release(g, weight);
        this.rejectWith(resolve, 'too-heavy', g.limits, tooHeavy(weight, limit, g.priority));
      });
    }
  }

  private admitAnytime(limits: readonly Limit[], weight: number, priority: number): boolean {
    for (let i = 0; i < limits.length; i++) {
      const l = limits[i]!;
      if (this.books.get(l)!.waiting > 0 || !l.fitsAnytime(weight, priority)) return false;
    }
    this.takeAll(limits, weight);
    this.countDispatch(limits, weight, priority, undefined);
    return true;
  }

  /**
   * Takes `weight` from every limit for a task about to start. The weight gets its instant from a
   * clock read after the task started (at the end of this pass or this turn, or at the next
   * decision), never the instant the decision was made on: a dispatch is never counted as earlier
   * than it was, so no window can hold more than N of them (R13).
   */
  private takeAll(limits: readonly Limit[], weight: number): void {
    for (let i = 0; i < limits.length; i++) this.takeOne(this.books.get(limits[i]!)!, weight);
  }

  private takeOne(b: LimitBook, weight: number): void {
    b.limit.takeUnstamped(weight);
    if (!b.queuedStamp) {
      b.queuedStamp = true;
      this.unstamped[this.unstampedCount++] = b;
    }
    if (!this.stampQueued) {
      this.stampQueued = true;
      queueMicrotask(this.stampLater);
    }
  }

  private readonly stampLater = (): void => {
    this.stampQueued = false;
    if (this.unstampedCount > 0) this.stampAll(this.clock.now());
  };

  /** Gives every weight taken without an instant the instant `now`, read after it was taken. */
  private stampAll(now: number): void {
    const list = this.unstamped;
    for (let i = 0; i < this.unstampedCount; i++) {
      const b = list[i]!;
      b.limit.stamp(now);
      b.queuedStamp = false;
    }
    this.unstampedCount = 0;
  }

  /**
   * A task waits: if what holds it back is only permits a shared store has not given yet, asks
   * for them, for all its shared limits in one request (all or none, R13). Permits for one limit
   * are never asked while another limit would hold the task anyway.
   */
  private askShared(limits: readonly Limit[], weight: number, priority: number, now: number): void {
    let ask: Limit[] | null = null;
    for (let i = 0; i < limits.length; i++) {
      const l = limits[i]!;
      if (l.lacks(weight, now)) (ask ??= []).push(l);
      else if (l.waitFor(weight, now, priority) > 0) return;
    }
    if (ask !== null) ask[0]!.request(ask, weight, priority, now);
  }

  private admitNow(limits: readonly Limit[], weight: number, priority: number, now: number): boolean {
    for (let i = 0; i < limits.length; i++) {
      const l = limits[i]!;
      if (this.books.get(l)!.waiting > 0 || l.waitFor(weight, now, priority) !== 0) return false;
    }
    this.takeAll(limits, weight);
    return true;
  }

  /**
   * @internal Calls `fn` before anything is decided at or after `at` (this scheduler's clock),
   * once: a change of limits due at an instant (a lower tier, a throttle) is applied before any
   * task is let through past it, even when the timer meant for it fires late (a busy process).
   * One at a time: a new one replaces the last; `null` removes it. Admission then reads the clock.
   */
  setBoundary(at: number, fn: (() => void) | null): void {
    this.boundaryAt = fn === null ? Infinity : at;
    this.boundaryFn = fn;
  }

  /** Applies a change of limits that is due now: a task's weight is checked against what is in force. */
  private boundaryIfDue(): void {
    if (this.boundaryAt !== Infinity && this.clock.now() >= this.boundaryAt) this.reachBoundary();
  }

  private reachBoundary(): void {
    const fn = this.boundaryFn;
    this.boundaryAt = Infinity;
    this.boundaryFn = null;
    fn?.();
  }

  /** Runs every task that can run now, in order, then sets the one timer for the next. */
  private pass(): void {
    if (this.draining) {
      this.dirty = true;
      return;
    }
    this.draining = true;
    let wake = Infinity;
    try {
      do {
        this.dirty = false;
        const now = this.clock.now();
        if (now >= this.boundaryAt) this.reachBoundary();
        this.stampAll(now);
        wake = this.drain(now);
      } while (this.dirty);
    } finally {
      this.draining = false;
    }
    this.stampAll(this.clock.now());
    // Closed by a task of this pass: no timer, whatever the pass found.
    this.setTimer(this.closed ? Infinity : Math.min(wake, this.nextDeadline()));
  }

  /**
   * The earliest deadline of a task still waiting. Entries of tasks that left the queue (run,
   * aborted, refused) are dropped from the top here, and all of them once they outnumber the
   * waiting tasks: they hold no timer and no memory for long.
   */
  private nextDeadline(): number {
    const heap = this.deadlines;
    if (heap.length > 2 * this.live + 64) {
      this.deadlines = heapOf(heap.filter((d) => isLive(d.slot)), deadlineBefore);
    }
    while (this.deadlines.length > 0 && !isLive(this.deadlines[0]!.slot)) heapPop(this.deadlines, deadlineBefore);
    return this.deadlines[0]?.at ?? Infinity;
  }

  /**
   * Runs what can run at `now`, one head at a time in the order of the queue as a whole: higher
   * priority first, then the oldest. A head that must wait holds every one of its limits for the
   * rest of the pass, and so does a head held by one of them: no younger task of its priority or
   * lower goes ahead of it on any limit it draws on. A task given by a task of the pass takes its
   * place in the order at once. Returns the instant to look again.
   */
  private drain(now: number): number {
    // A task may still start at its deadline: refuse those past it, run what can run, then refuse
    // those whose deadline is now and that could not.
    this.expireDeadlines(now, false);
    const pass = ++this.passNo;
    const heads: Head[] = [];
    for (const [key, g] of this.groups) {
      if (g.queue.skipCancelled()) {
        heads.push({ group: g, seq: g.queue.headSeq() });
        g.inPass = pass;
      } else if (g.live === 0) {
        g.gone = true;
        this.groups.delete(key);
      }
    }
    heapOf(heads, headBefore);
    this.heads = heads;
    let wake: number;
    try {
      wake = this.drainHeads(heads, pass, now);
    } finally {
      this.heads = null;
    }
    // A refused head may have held back lighter tasks behind it: look again.
    if (this.expireDeadlines(now, true) > 0) this.dirty = true;
    return wake;
  }

  private drainHeads(heads: Head[], pass: number, now: number): number {
    let wake = Infinity;
    while (heads.length > 0) {
      const top = heads[0]!;
      const g = top.group;
      const { queue, limits, books, priority } = g;
      if (!queue.skipCancelled()) {
        popHead(heads);
        continue;
      }
      // Its head was sent, refused or cancelled since it was placed: its next one is younger.
      const seq = queue.headSeq();
      if (seq !== top.seq) {
        top.seq = seq;
        heapSiftDown(heads, 0, headBefore);
        continue;
      }
      let blocked = false;
      for (const b of books) if (b.pass === pass) blocked = true;
      if (blocked) {
        for (const b of books) b.pass = pass;
        popHead(heads);
        continue;
      }
      const weight = queue.headWeight();
      // Permits of a shared store may be sent only until their lease ends, and the tasks run
      // before this one in the pass may have taken a while (a slow signer, a GC pause): look
      // at the clock again. A lease found over is given back and asked for anew. What those
      // tasks took gets this instant, read after they started (a shared limit has Redis count
      // again what may have started after its lease).
      let at = now;
      if (this.shared > 0) {
        at = this.clock.now();
        this.stampAll(at);
      }
      let wait = 0;
      for (const l of limits) wait = Math.max(wait, l.waitFor(weight, at, priority));
      if (wait === Infinity && this.refuseHeadIfTooHeavy(g, weight)) continue;
      if (wait > 0 && this.shared > 0) this.askShared(limits, weight, priority, at);
      if (wait > 0) {
        for (const b of books) b.pass = pass;
        if (wait !== Infinity) wake = Math.min(wake, at + wait);
        popHead(heads);
        continue;
      }
      for (const b of books) this.takeOne(b, weight);
      const arg = queue.headArg();
      const { fn, resolve } = queue.shift();
      this.release(g, weight);
      this.countDispatch(limits, weight, priority, at);
      if (typeof resolve !== 'function') {
        runSubmitted(fn, arg, resolve);
      } else {
        try {
          // A task of `schedule` takes no argument.
          resolve((fn as () => unknown)());
        } catch (e) {
          resolve(Promise.reject(e));
        }
      }
      // Its next head is younger: to its place in the order, or out of it (unless the task gave
      // the order a group of its own, which the top of the loop sorts out).
      if (heads[0] !== top) continue;
      if (!queue.skipCancelled()) {
        popHead(heads);
      } else {
        top.seq = queue.headSeq();
        if (heads.length > 1) heapSiftDown(heads, 0, headBefore);
      }
    }
    return wake;
  }

  /** Refuses the head of `g` if one of its limits can never fit it (a limit lowered elsewhere). */
  private refuseHeadIfTooHeavy(g: Group, weight: number): boolean {
    for (const l of g.limits) {
      if (weight <= l.capacity(g.priority)) continue;
      const { resolve } = g.queue.shift();
      this.release(g, weight);
      this.rejectWith(resolve, 'too-heavy', g.limits, tooHeavy(weight, l, g.priority));
      return true;
    }
    return false;
  }

  private expireDeadlines(now: number, includingNow: boolean): number {
    let expired = 0;
    while (this.deadlines.length > 0 && (this.deadlines[0]!.at < now || (includingNow && this.deadlines[0]!.at === now))) {
      const d = heapPop(this.deadlines, deadlineBefore)!;
      const resolve = cancelSlot(d.slot);
      if (resolve === null) continue;
      this.release(d.group, d.slot.chunk.weights[d.slot.index]!);
      this.rejectWith(resolve, 'deadline', d.group.limits, 'the deadline passed before the limits allowed the task');
      expired++;
    }
    return expired;
  }

  private cancel(slot: Slot, group: Group, weight: number, reason: RefusalReason, message: string): void {
    const resolve = cancelSlot(slot);
    if (resolve === null) return;
    this.release(group, weight);
    this.rejectWith(resolve, reason, group.limits, message);
    this.pass();
  }

  private release(group: Group, weight: number): void {
    group.live--;
    this.live--;
    for (const b of group.books) {
      b.waiting--;
      b.queuedWeight -= weight;
    }
  }

  private setTimer(at: number): void {
    if (at === this.timerAt) return;
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
    this.timerAt = at;
    if (at === Infinity) return;
    this.timer = this.clock.setTimer(() => {
      this.timer = null;
      this.timerAt = Infinity;
      this.pass();
    }, at - this.clock.now());
  }

  private groupFor(priority: number, limits: readonly Limit[]): Group {
    let key = String(priority);
    for (const l of limits) key += `|${limitId(l)}`;
    let g = this.groups.get(key);
    if (g === undefined) {
      g = { priority, limits, books: limits.map((l) => this.books.get(l)!), queue: new TaskQueue(), live: 0, gone: false, inPass: 0 };
      this.groups.set(key, g);
    }
    return g;
  }

  private readLimits(value: Limit | readonly Limit[] | undefined): readonly Limit[] {
    if (value === undefined) return [];
    const list = Array.isArray(value) ? (value as readonly Limit[]) : [value as Limit];
    for (const l of list) this.ownedLimit(l, 'each of `limits`');
    // Each limit once, checked without allocating (a task draws on a handful of limits).
    for (let i = 1; i < list.length; i++) {
      for (let j = 0; j < i; j++) if (list[j] === list[i]) throw new InvalidInputError('`limits`', list.map((l) => l.name), 'each limit once');
    }
    return list;
  }

  /** Whether `limits` is an array of limits of this scheduler, each once (without allocating). */
  private ownsAll(limits: unknown): boolean {
    if (!Array.isArray(limits)) return false;
    for (let i = 0; i < limits.length; i++) {
      const l: unknown = limits[i];
      if (!this.books.has(l as Limit)) return false;
      for (let j = 0; j < i; j++) if (limits[j] === l) return false;
    }
    return true;
  }

  /** Throws the error `readLimits` gives for limits `ownsAll` refused. */
  private refuseLimits(limits: unknown): never {
    if (limits !== undefined) this.readLimits(limits as Limit | readonly Limit[]);
    throw new InvalidInputError('`limits`', limits, 'a limit made by this scheduler, or an array of them');
  }

  private ownedLimit(l: unknown, field: string): void {
    if (this.books.has(l as Limit)) return;
    checkSameBuild(field, l, 'the scheduler', WindowLimit.prototype);
    throw new InvalidInputError(field, l, 'a limit made by this scheduler (scheduler.limit(...))');
  }

  private countDispatch(limits: readonly Limit[], weight: number, priority: number, at: number | undefined): void {
    this.dispatched++;
    if (this.listeners.size > 0) this.emit({ type: 'dispatch', at: at ?? this.clock.now(), weight, priority, limits: limits.map((l) => l.name) });
  }

  private refuse<T>(reason: RefusalReason, limits: readonly Limit[], message: string): Promise<T> {
    this.countRefusal(reason, limits);
    return Promise.reject(new RefusedError(reason, message));
  }

  private countRefusal(reason: RefusalReason, limits: readonly Limit[]): void {
    this.refusedCounts[reason]++;
    if (this.listeners.size > 0) this.emit({ type: 'refuse', at: this.clock.now(), reason, limits: limits.map((l) => l.name) });
  }

  /** Refuses a waiter: rejects its promise, or tells its submission (no error made, no message). */
  private rejectWith(waiter: Waiter, reason: RefusalReason, limits: readonly Limit[], message: string): void {
    if (typeof waiter === 'function') {
      waiter(this.refuse(reason, limits, message));
    } else {
      this.countRefusal(reason, limits);
      waiter.refused(reason);
    }
  }

  private emit(event: SchedulerEvent): void {
    this.listeners.emit(event);
  }
}

/** Runs a submitted task, telling its submission if it throws. */
function runSubmitted(fn: (arg: number) => unknown, arg: number, submission: Submission): void {
  try {
    fn(arg);
  } catch (e) {
    submission.failed(e);
  }
}

function run<T>(fn: () => T | PromiseLike<T>): Promise<Awaited<T>> {
  try {
    return Promise.resolve(fn()) as Promise<Awaited<T>>;
  } catch (e) {
    return Promise.reject(e);
  }
}

const ids = new WeakMap<Limit, number>();
let nextId = 0;
function limitId(l: Limit): number {
  let id = ids.get(l);
  if (id === undefined) ids.set(l, (id = nextId++));
  return id;
}

function tooHeavy(weight: number, l: Limit, priority: number): string {
  return `weight ${weight} can never fit ${l.name} (${l.capacity(priority)} per ${l.windowMs} ms at priority ${priority})`;
}

/** Throws the error for a refused input: kept out of the hot paths that check it. */
function refuseInput(field: string, value: unknown, expected: string): never {
  throw new InvalidInputError(field, value, expected);
}

function readWeight(value: unknown): number {
  if (value === undefined) return 1;
  if (!isPositiveInteger(value)) throw new InvalidInputError('`weight`', value, 'a positive integer');
  return value;
}

function readSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  const s = value as { aborted?: unknown; addEventListener?: unknown; removeEventListener?: unknown };
  if (typeof s !== 'object' || s === null || typeof s.aborted !== 'boolean' || typeof s.addEventListener !== 'function' || typeof s.removeEventListener !== 'function') {
    throw new InvalidInputError('`signal`', value, 'an AbortSignal');
  }
  return value as AbortSignal;
}

function readPriority(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new InvalidInputError('`priority`', value, 'a finite number');
  return value;
}

/** Higher priority first, then the older head. */
function headBefore(a: Head, b: Head): boolean {
  const pa = a.group.priority;
  const pb = b.group.priority;
  return pa > pb || (pa === pb && a.seq < b.seq);
}

/** Takes the first head out of the pass's order. */
function popHead(heads: Head[]): void {
  heads[0]!.group.inPass = 0;
  heapPop(heads, headBefore);
}

function deadlineBefore(a: Deadline, b: Deadline): boolean {
  return a.at < b.at;
}
