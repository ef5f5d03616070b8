import type { UnansweredRequest } from './unanswered.js';
import type { WindowLimitState } from './window.js';

/**
 * A limit as its user reads it: at most `limit` weight in any `windowMs` (see docs/rules.md#r13), its use and its
 * state. The in-memory {@link WindowLimit} is one, and so is a `SharedLimit` of
 * `traderatio/redis`.
 *
 * @example
 * ```ts
 * import { type Limit, Scheduler } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const scheduler = new Scheduler({ clock: new VirtualClock() })
 * const place: Limit = scheduler.limit({ name: 'futures.place', limit: 100, windowMs: 1000 })
 * await scheduler.schedule(() => 'sent', { limits: place, weight: 3 }) // 'sent'
 * place.usedAt(0) // 3
 * ```
 */
export interface Limit {
  readonly name: string;
  /** N: the most weight in any window. */
  readonly limit: number;
  /** W: the window, in milliseconds. */
  readonly windowMs: number;
  /** The longest window this limit may be given. */
  readonly maxWindowMs: number;
  /** How much longer than W a dispatch counts, for the time a request takes to reach the exchange. */
  readonly marginMs: number;
  /** The most weight a task of this priority may ever take at once. */
  capacity(priority?: number): number;
  /** The weight counted in the window that ends at `at`. */
  usedAt(at: number): number;
  /** Whether its permits come from a store shared with other processes. */
  isShared(): boolean;
  /** Its state, to restore later (`WindowLimit.restore`). */
  snapshot(): WindowLimitState;
}

/**
 * What the scheduler asks of the limits a store makes, beside what a user reads ({@link Limit}):
 * the questions it asks before it admits a task, the weight it takes, and the changes the
 * exchange's answers make. This library's two limits implement it, `WindowLimit` (in this
 * process) and `traderatio/redis`'s `SharedLimit` (a budget in Redis), and the scheduler takes no
 * other: it is not part of the package's interface, and a store of one's own returns one of these
 * (see `LimitStore`). Each member is documented on `WindowLimit`.
 */
export interface StoreLimit extends Limit {
  /** Milliseconds from `at` until `weight` fits (0: now; Infinity: never). Takes nothing. */
  waitFor(weight: number, at: number, priority?: number): number;
  /** Whether `weight` waits only for permits a shared store has not given yet. */
  lacks(weight: number, at: number): boolean;
  /** Asks a shared store for `weight` on every limit of `linked` at once. */
  request(linked: readonly StoreLimit[], weight: number, priority: number, at: number): void;
  /** Counts `weight` as dispatched at `at`, without checking. */
  take(weight: number, at: number): void;
  /** Whether `weight` fits whatever the instant (far below the limit). */
  fitsAnytime(weight: number, priority?: number): boolean;
  /** Counts `weight` as dispatched, its instant given by the next {@link StoreLimit.stamp}. */
  takeUnstamped(weight: number): void;
  /** Gives the weight taken without an instant the instant `at`. */
  stamp(at: number): void;
  /** Changes N or W. */
  update(change: { readonly limit?: number; readonly windowMs?: number }): void;
  /** Lets nothing through until `until`. */
  pause(until: number): void;
  /** Lets nothing through until `until` in this process only; a later call replaces it. */
  holdHere(until: number): void;
  /** Counts the window full but for `remaining` until `until` (the exchange counted more). */
  shrink(remaining: number, until: number, at: number): void;
  /**
   * The exchange counted `count` in the window at `at` (see docs/rules.md#r17): counts the difference as held until
   * `until` when that is more than this limit counts. Returns what this limit counted (this
   * process's own dispatches, for a shared store's limit). `sentAt`: when the request whose answer
   * states the count was sent (at most `at`; `at` when unknown): the count is no older than that,
   * which a shared store needs to take it as a count made after it lost grants.
   */
  recount(count: number, until: number, at: number, sentAt?: number): number;
  /** Counts `weight` sent at `sentAt` until W after `arrivedAt`, when the request arrived late. */
  extend(weight: number, sentAt: number, arrivedAt: number): void;
  /**
   * Told of every answered request: `weight` sent at `sentAt` reached the exchange at `arrivedAt`
   * (at or after it); `again`: the same request, counted later than before (a shared store
   * counts its grants from these).
   */
  arrival?(weight: number, sentAt: number, arrivedAt: number, again: boolean): void;
  /**
   * `weight` dispatched at `at` waits for its answer: it counts, once its entry has left the
   * window, until {@link StoreLimit.answered} is told (see docs/rules.md#r13). A shared store's limits leave it out.
   */
  awaitAnswer?(weight: number, at: number): UnansweredRequest;
  /**
   * The requests sent on this limit will be followed to their answers ({@link StoreLimit.awaitAnswer}):
   * a shared store then holds what it grants until they come. The memory store leaves it out.
   */
  followAnswers?(): void;
  /**
   * The answer to a request {@link StoreLimit.awaitAnswer} gave came back; `at` is the latest
   * instant it can have reached the exchange. It counts until one window after `at`; with
   * `withinWindow` false only if `at` is past its window (the arrival estimate counts the rest).
   */
  answered?(request: UnansweredRequest, at: number, withinWindow?: boolean): void;
}

/**
 * What `tryTake` and `tryAcquire` answer: taken, or how long to wait before the weight could be
 * (`Infinity`: it never will, being heavier than the limit allows).
 *
 * @example
 * ```ts
 * import { type TakeResult, WindowLimit } from 'traderatio'
 *
 * const l = new WindowLimit({ limit: 1, windowMs: 1000 })
 * const first: TakeResult = l.tryTake(1, 0)
 * first // { ok: true }
 * l.tryTake(1, 200) // { ok: false, retryAfterMs: 800 }
 * ```
 */
export type TakeResult = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

/** The answer "taken", one object for every call. */
export const TAKEN: TakeResult = Object.freeze({ ok: true });

/** The result of a wait in milliseconds: 0 is taken. */
export function takeResult(wait: number): TakeResult {
  return wait === 0 ? TAKEN : { ok: false, retryAfterMs: wait };
}

/** @internal What a limit tells the scheduler that owns it. */
export interface LimitOwner {
  /** N or W of `limit` changed, from `from`. */
  changed(limit: StoreLimit, from: { limit: number; windowMs: number }): void;
  /** Weight of `limit` frees at an instant it did not before: the waiting tasks are looked at again. */
  wake(): void;
}

/** The scheduler that owns each limit it made (see {@link ownerOf}). */
const owners = new WeakMap<StoreLimit, LimitOwner>();

/**
 * The scheduler that owns `limit`, to tell of each change of its N or W and to wake when weight
 * frees at an instant it did not before; undefined until a scheduler made it its own.
 */
export function ownerOf(limit: StoreLimit): LimitOwner | undefined {
  return owners.get(limit);
}

/** Makes `owner` the owner of `limit`, unless another owns it already (then false). */
export function claim(limit: StoreLimit, owner: LimitOwner): boolean {
  if (owners.has(limit)) return false;
  owners.set(limit, owner);
  return true;
}
