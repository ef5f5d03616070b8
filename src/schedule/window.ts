import { InvalidInputError } from '../errors.js';
import { isPositiveInteger } from '../internal/parse.js';
import { Holds } from './holds.js';
import { ownerOf, type StoreLimit, type TakeResult, takeResult } from './limit.js';
import { SlidingLog } from './sliding-log.js';
import { Unanswered, type UnansweredRequest } from './unanswered.js';
import {
  badInstant,
  badWeight,
  checkTake,
  readLimit,
  readMargin,
  readName,
  readReserve,
  readWindow,
} from './window-input.js';
import { type WindowLimitState, readStateCounts } from './window-state.js';

export type { WindowLimitState } from './window-state.js';

/**
 * Options of a limit: "at most `limit` weight in any interval of `windowMs`" (see docs/rules.md#r13).
 *
 * @example
 * ```ts
 * import { WindowLimit, type WindowLimitOptions } from 'traderatio'
 *
 * const options: WindowLimitOptions = { name: 'ws', limit: 10, windowMs: 1000, reserve: { priority: 10, weight: 2 } }
 * const l = new WindowLimit(options)
 * l.capacity() // 8
 * l.capacity(10) // 10
 * ```
 */
export interface WindowLimitOptions {
  /** A name for stats, events and errors. @default "limit" */
  readonly name?: string;
  /** N: the most weight in any interval of length `windowMs`. A positive integer. */
  readonly limit: number;
  /** W, in milliseconds. */
  readonly windowMs: number;
  /**
   * The longest window this limit may be given later by `update` (history is kept that long).
   * @default windowMs
   */
  readonly maxWindowMs?: number;
  /**
   * Safety margin: each dispatch counts for `windowMs + marginMs`, so that network jitter which
   * brings two requests closer on arrival than on dispatch still keeps the exchange's count at N
   * or below (see docs/rules.md#r13). @default 0
   */
  readonly marginMs?: number;
  /**
   * Headroom kept for a priority class: tasks of priority below `priority` may use only
   * `limit - weight`, so that `weight` is always free for the class (e.g. cancels on a shared
   * WebSocket limit). @default none
   */
  readonly reserve?: { readonly priority: number; readonly weight: number };
}

/**
 * One rate limit with exact window accounting (see docs/rules.md#r13): the sum of weights dispatched in any interval
 * of length W never exceeds N. It is a sliding log, not a token bucket: a plain bucket of
 * capacity N refilled at N/W lets 2N through inside one W.
 *
 * The core is pure with respect to time: every method takes the instant (`at`, milliseconds on
 * a monotonic clock) and nothing here reads a clock. Instants passed must not go back; an earlier
 * one is read as the latest seen, which only counts weight later (safely).
 *
 * @example
 * ```ts
 * import { WindowLimit } from 'traderatio'
 *
 * const l = new WindowLimit({ limit: 2, windowMs: 1000 })
 * l.tryTake(1, 0) // { ok: true }
 * l.tryTake(1, 10) // { ok: true }
 * l.tryTake(1, 20) // { ok: false, retryAfterMs: 980 }
 * ```
 */
export class WindowLimit implements StoreLimit {
  readonly name: string;
  #n: number;
  #w: number;
  readonly #maxW: number;
  readonly #margin: number;
  readonly #reserve: { readonly priority: number; readonly weight: number } | null;
  /** What was dispatched, as a sliding log. */
  readonly #log: SlidingLog;
  /** Weight taken but not yet given an instant (see takeUnstamped); it counts until it is. */
  #unstamped = 0;
  /** Weight counted besides the log: the exchange's feedback, late arrivals. */
  readonly #holds = new Holds();
  #pausedUntil = -Infinity;
  /** Nothing goes before it: `pausedUntil`, or later while held (see `holdHere`). */
  #blockedUntil = -Infinity;
  /** Requests sent and not answered yet: each counts once its entry has left the window (see docs/rules.md#r13). */
  readonly #unanswered = new Unanswered();
  /** A wait was reckoned with requests not answered yet: their answers may shorten it. */
  #waitedOnAnswers = false;

  constructor(options: WindowLimitOptions) {
    if (typeof options !== 'object' || options === null)
      throw new InvalidInputError('limit options', options, 'an object { limit, windowMs }');
    this.name = options.name === undefined ? 'limit' : readName(options.name);
    this.#n = readLimit(options.limit, this.name);
    this.#w = readWindow(options.windowMs, `\`windowMs\` of ${this.name}`);
    this.#maxW =
      options.maxWindowMs === undefined ? this.#w : readWindow(options.maxWindowMs, `\`maxWindowMs\` of ${this.name}`);
    if (this.#maxW < this.#w)
      throw new InvalidInputError(
        `\`maxWindowMs\` of ${this.name}`,
        options.maxWindowMs,
        `at least \`windowMs\` (${this.#w})`,
      );
    this.#margin = options.marginMs === undefined ? 0 : readMargin(options.marginMs, this.name);
    this.#reserve = options.reserve === undefined ? null : readReserve(options.reserve, this.#n, this.name);
    this.#log = new SlidingLog(this.#w + this.#margin, this.#maxW + this.#margin);
  }

  /** N. */
  get limit(): number {
    return this.#n;
  }

  /** W, in milliseconds. */
  get windowMs(): number {
    return this.#w;
  }

  /** The longest W `update` may set, in milliseconds. */
  get maxWindowMs(): number {
    return this.#maxW;
  }

  /** How much longer than W each dispatch counts, in milliseconds. */
  get marginMs(): number {
    return this.#margin;
  }

  /** The most weight a task of this priority may ever take at once. */
  capacity(priority = 0): number {
    return this.#reserve !== null && priority < this.#reserve.priority ? this.#n - this.#reserve.weight : this.#n;
  }

  /**
   * Takes `weight` at `at` if the limit allows it: `{ ok: true }` when taken, otherwise
   * `{ ok: false, retryAfterMs }`, how many milliseconds to wait before it could be (Infinity when
   * the weight can never fit). A weight that
   * is not a positive integer, or an instant or priority that is not a finite number, is an
   * {@link InvalidInputError} naming it, and nothing is taken.
   */
  tryTake(weight: number, at: number, priority = 0): TakeResult {
    checkTake(weight, at, priority, this.name);
    const wait = this.waitFor(weight, at, priority);
    if (wait === 0) this.#log.add(weight, at);
    return takeResult(wait);
  }

  /**
   * Milliseconds from `at` until `weight` fits (0: it fits now; Infinity: it never will, being
   * heavier than the capacity). Takes nothing, and checks nothing: a query for schedulers, which
   * check at their boundary, as {@link tryTake} does.
   */
  waitFor(weight: number, at: number, priority = 0): number {
    const log = this.#log;
    const t = at > log.latest ? at : log.latest;
    if (log.inWindow > 0 && log.times[log.start]! + log.span <= t) log.expire(t);
    if (this.#holds.end <= t) this.#holds.drop(t);
    if (this.#unanswered.changesAt <= t) this.#unanswered.advance(t);
    const cap = this.#reserve !== null && priority < this.#reserve.priority ? this.#n - this.#reserve.weight : this.#n;
    if (weight > cap) return Infinity;
    const counted = log.used + this.#unstamped + this.#unanswered.counted + weight;
    if (this.#blockedUntil <= t && counted <= cap && (this.#holds.isEmpty || counted + this.#holds.at(t) <= cap)) {
      return 0;
    }
    // Apart, so that the common case above stays small enough to be inlined where it is called.
    return this.#waitFrom(weight, at, t, cap);
  }

  /** {@link waitFor} when `weight` does not fit at `t` (the later of `at` and the latest instant). */
  #waitFrom(weight: number, at: number, t: number, cap: number): number {
    // Walk forward through the instants at which weight frees (log entries leaving the window,
    // holds ending) until enough has. Weight without an instant yet is taken as sent at `t`: its
    // instant will be later, so this may wake a caller a little early, never let one through early.
    const log = this.#log;
    const { times, weights, span } = log;
    const size = times.length;
    let from = this.#blockedUntil > t ? this.#blockedUntil : t;
    if (from === Infinity) return Infinity;
    let i = log.start;
    let left = log.inWindow;
    let counted = log.used + this.#unstamped;
    let unstamped = this.#unstamped;
    for (;;) {
      while (left > 0 && times[i]! + span <= from) {
        counted -= weights[i]!;
        if (++i === size) i = 0;
        left--;
      }
      if (left === 0 && unstamped > 0 && t + span <= from) {
        counted -= unstamped;
        unstamped = 0;
      }
      const base = counted + this.#holds.at(from) + weight;
      const unanswered = this.#unanswered.any ? this.#unanswered.at(from) : 0;
      if (base + unanswered <= cap) return from - at;
      // Held back by requests not answered yet: an answer may shorten the wait.
      if (unanswered > 0 && base <= cap) this.#waitedOnAnswers = true;
      let next = left > 0 ? times[i]! + span : unstamped > 0 ? t + span : Infinity;
      if (unanswered > 0) {
        const end = this.#unanswered.endAfter(from);
        if (end < next) next = end;
      }
      next = this.#holds.nextChange(from, next);
      if (next === Infinity) return Infinity;
      from = next;
    }
  }

  /**
   * Whether this limit waits for permits held elsewhere (a shared store) rather than for time:
   * true makes a scheduler call {@link request} when nothing else holds a task back. A limit
   * kept in this process never does.
   */
  lacks(_weight: number, _at: number): boolean {
    return false;
  }

  /**
   * Asks the store for permits for a task of `weight` drawing on `linked` (this limit among
   * them, all from the same store), all or none. The answer arrives later and wakes the
   * scheduler. A limit kept in this process has nothing to ask.
   */
  request(_linked: readonly StoreLimit[], _weight: number, _priority: number, _at: number): void {}

  /** Whether the budget is shared with other processes (made by a shared store). */
  isShared(): boolean {
    return false;
  }

  /** Counts `weight` as dispatched at `at`, without checking (the caller checked `waitFor`). */
  take(weight: number, at: number): void {
    if (!isPositiveInteger(weight)) badWeight(weight, this.name);
    if (typeof at !== 'number' || at - at !== 0) badInstant(at, this.name);
    this.#log.add(weight, at);
  }

  /**
   * Whether `weight` fits whatever the instant, without reading one: nothing paused or held, and
   * room even if nothing left the window. A scheduler uses it to admit without a clock read, then
   * gives the weight its instant later ({@link takeUnstamped}, {@link stamp}).
   */
  fitsAnytime(weight: number, priority = 0): boolean {
    const cap = this.#reserve !== null && priority < this.#reserve.priority ? this.#n - this.#reserve.weight : this.#n;
    const log = this.#log;
    return (
      this.#holds.isEmpty &&
      this.#blockedUntil <= log.latest &&
      this.#unanswered.changesAt > log.latest &&
      log.used + this.#unstamped + this.#unanswered.counted + weight <= cap
    );
  }

  /**
   * Takes `weight` now without an instant. It counts, and never leaves the window, until
   * {@link stamp} gives it one: any instant read after the dispatch, which can only be later.
   */
  takeUnstamped(weight: number): void {
    this.#unstamped += weight;
  }

  /** Gives the weight taken without an instant the instant `at` (read after it was taken). */
  stamp(at: number): void {
    if (this.#unstamped === 0) return;
    const weight = this.#unstamped;
    this.#unstamped = 0;
    this.#log.add(weight, at);
  }

  /** Weight counted in the window ending at `at` (feedback holds included). */
  usedAt(at: number): number {
    const t = this.#advance(at);
    return (
      this.#log.used +
      this.#unstamped +
      this.#unanswered.counted +
      this.#holds.at(t) +
      (this.#pausedUntil > t ? this.#n : 0)
    );
  }

  /** Moves the log and the unanswered requests to `at` (or the latest instant seen); returns that instant. */
  #advance(at: number): number {
    const log = this.#log;
    const t = at > log.latest ? at : log.latest;
    if (log.inWindow > 0) log.expire(t);
    if (this.#unanswered.changesAt <= t) this.#unanswered.advance(t);
    return t;
  }

  /**
   * Changes N and W from now on (see docs/rules.md#r13): what was dispatched in the trailing window counts against
   * the new limit at once. W may not exceed `maxWindowMs`. A scheduler owning the limit applies
   * the change to its waiting tasks at once.
   */
  update(change: { readonly limit?: number; readonly windowMs?: number }): void {
    if (typeof change !== 'object' || change === null)
      throw new InvalidInputError(`update of ${this.name}`, change, 'an object { limit?, windowMs? }');
    const n = change.limit === undefined ? this.#n : readLimit(change.limit, this.name);
    const w = change.windowMs === undefined ? this.#w : readWindow(change.windowMs, `\`windowMs\` of ${this.name}`);
    if (w > this.#maxW) {
      throw new InvalidInputError(
        `\`windowMs\` of ${this.name}`,
        change.windowMs,
        `at most \`maxWindowMs\` (${this.#maxW}); history is kept only that long`,
      );
    }
    if (this.#reserve !== null && this.#reserve.weight >= n) {
      throw new InvalidInputError(
        `\`limit\` of ${this.name}`,
        change.limit,
        `more than the reserved ${this.#reserve.weight}`,
      );
    }
    const from = { limit: this.#n, windowMs: this.#w };
    this.#n = n;
    this.#w = w;
    this.#log.respan(w + this.#margin);
    this.#unanswered.rebase(this.#log.span, this.#log.latest);
    ownerOf(this)?.changed(this, from);
  }

  /** Lets nothing through until `until` (a 429 from the exchange, see docs/rules.md#r12). */
  pause(until: number): void {
    if (until > this.#pausedUntil) this.#pausedUntil = until;
    if (until > this.#blockedUntil) this.#blockedUntil = until;
  }

  /** Lets nothing through until `until` (a pause stays); a later call replaces it, and the owner looks again. */
  holdHere(until: number): void {
    this.#blockedUntil = Math.max(this.#pausedUntil, until);
    ownerOf(this)?.wake();
  }

  /** The exchange says only `remaining` are left until `until` (see docs/rules.md#r12 headers): see {@link WindowLimit.recount}. */
  shrink(remaining: number, until: number, at: number): number {
    return this.recount(this.#n - remaining, until, at);
  }

  /**
   * The exchange counted `count` in the window at `at` (see docs/rules.md#r12, #r17): more than this limit counts is
   * held until `until`, less changes nothing. Returns what this limit counted before.
   */
  recount(count: number, until: number, at: number): number {
    const t = this.#advance(at);
    const counted = this.#log.used + this.#unstamped + this.#unanswered.counted + this.#holds.at(t);
    if (count > counted && until > t) this.#holds.add(count - counted, -Infinity, until);
    return counted;
  }

  /**
   * The exchange counted `weight` sent at `sentAt` from `arrivedAt` (see docs/rules.md#r13: it counts arrivals, and
   * the way there takes longer for some requests than others): it counts here until `arrivedAt`
   * plus the window too, not only until `sentAt` plus the window. An earlier `arrivedAt` changes
   * nothing. Requests sent together and arriving together share one hold, as log entries do.
   *
   * @example
   * ```ts
   * import { WindowLimit } from 'traderatio'
   *
   * const l = new WindowLimit({ limit: 1, windowMs: 1000 })
   * l.tryTake(1, 0)
   * l.extend(1, 0, 30) // it reached the exchange 30 ms after it was sent
   * // The exchange still counts it until 1030:
   * l.tryTake(1, 1000) // { ok: false, retryAfterMs: 30 }
   * ```
   */
  extend(weight: number, sentAt: number, arrivedAt: number): void {
    if (!isPositiveInteger(weight)) badWeight(weight, this.name);
    if (typeof sentAt !== 'number' || sentAt - sentAt !== 0) badInstant(sentAt, this.name);
    if (typeof arrivedAt !== 'number' || arrivedAt - arrivedAt !== 0) badInstant(arrivedAt, this.name);
    if (arrivedAt <= sentAt) return;
    const { span, granularity, latest } = this.#log;
    // Those ended by the latest instant seen go first: a shared limit is never asked how long to
    // wait (Redis says it), and would keep every hold it made.
    if (this.#holds.end <= latest) this.#holds.drop(latest);
    this.#holds.join(weight, sentAt + span, arrivedAt + span, granularity);
  }

  /**
   * `weight` dispatched at `at` waits for its answer: until {@link answered} is told, it counts once
   * its entry has left the window, for a request not answered may not have reached the exchange
   * yet (see docs/rules.md#r13). What `answered` takes.
   */
  awaitAnswer(weight: number, at: number): UnansweredRequest {
    if (!isPositiveInteger(weight)) badWeight(weight, this.name);
    if (typeof at !== 'number' || at - at !== 0) badInstant(at, this.name);
    return this.#unanswered.add(weight, at, this.#log.span);
  }

  /**
   * The answer to `request` came back: `at` is the latest instant it can have reached the exchange
   * (the answer's receive instant, less the gateway's own time when known). It counts until one
   * window after `at` (see docs/rules.md#r13: arrivals bounded by answers). With `withinWindow: false` (the arrival
   * estimate, an option of the account limiter) an answer within the window extends nothing: only
   * one that came after the window is counted until one window after it, the estimate counting the
   * others. The waiting tasks are looked at again when their wait was reckoned with it unanswered.
   *
   * @example
   * ```ts
   * import { WindowLimit } from 'traderatio'
   *
   * const l = new WindowLimit({ limit: 1, windowMs: 1000 })
   * l.tryTake(1, 0)
   * const request = l.awaitAnswer(1, 0)
   * l.answered(request, 40) // answered at 40: it may have reached the exchange as late as that
   * l.tryTake(1, 1000) // { ok: false, retryAfterMs: 40 }
   * ```
   */
  answered(request: UnansweredRequest, at: number, withinWindow = true): void {
    if (!this.#unanswered.holds(request)) {
      throw new InvalidInputError(`\`request\` of ${this.name}`, request, "a request this limit's awaitAnswer gave");
    }
    if (typeof at !== 'number' || at - at !== 0) badInstant(at, this.name);
    const late = this.#unanswered.answer(request, at);
    if (late || (withinWindow && at > request.sentAt)) this.extend(request.weight, request.sentAt, at);
    if (!late && !this.#waitedOnAnswers) return;
    this.#waitedOnAnswers = false;
    ownerOf(this)?.wake();
  }

  /** The state as plain data. Weight taken without an instant is given the latest one seen. */
  snapshot(): WindowLimitState {
    const entries = this.#log.entries();
    if (this.#unstamped > 0) entries.push([this.#log.latest, this.#unstamped]);
    return {
      name: this.name,
      limit: this.#n,
      windowMs: this.#w,
      maxWindowMs: this.#maxW,
      marginMs: this.#margin,
      reserve: this.#reserve,
      entries,
      holds: this.#holds.pairs(),
      pausedUntil:
        this.#pausedUntil === -Infinity ? null : this.#pausedUntil === Infinity ? 'forever' : this.#pausedUntil,
    };
  }

  /**
   * A limit in the state `snapshot()` gave. The whole state is checked before anything is built:
   * a bad field is an {@link InvalidInputError} naming it.
   */
  static restore(state: WindowLimitState): WindowLimit {
    const { entries, holds, pausedUntil } = readStateCounts(state);
    const l = new WindowLimit({
      name: state.name,
      limit: state.limit,
      windowMs: state.windowMs,
      maxWindowMs: state.maxWindowMs,
      marginMs: state.marginMs,
      ...(state.reserve === null ? {} : { reserve: state.reserve }),
    });
    // Each entry as it was, never merged with the one before: which dispatches share an entry was
    // decided when they were sent; and a later dispatch starts an entry of its own.
    for (const [at, weight] of entries) l.#log.addApart(weight, at);
    for (const [weight, until] of holds) l.#holds.add(weight, -Infinity, until);
    if (pausedUntil !== null) l.pause(pausedUntil);
    return l;
  }
}
