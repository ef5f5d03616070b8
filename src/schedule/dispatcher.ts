import type { RefusalReason } from '../errors.js';
import type { Clock } from './clock.js';
import type { Deadlines } from './deadlines.js';
import type { SchedulerEvent } from './events.js';
import { heapOf, heapPop, heapPush, heapSiftDown } from './heap.js';
import type { LimitBook } from './limit-book.js';
import type { LimitOwner, StoreLimit } from './limit.js';
import type { Listeners } from './listeners.js';
import { type Slot, type Submission, type Waiter, cancelSlot } from './queue.js';
import type { Refusals } from './refusals.js';
import type { LimitHost } from './store.js';
import { tooHeavy } from './task-input.js';
import type { Group, WaitingTasks } from './waiting.js';

/** A group in a pass's order, by the arrival number of its head when placed. */
interface Head {
  readonly group: Group;
  seq: number;
}

/** The parts a dispatcher runs the queue with, made and held by its scheduler. */
export interface DispatcherParts {
  readonly clock: Clock;
  readonly waiting: WaitingTasks;
  readonly deadlines: Deadlines;
  readonly refusals: Refusals;
  readonly listeners: Listeners<SchedulerEvent>;
}

/**
 * What runs a {@link Scheduler}'s queue: its limits' books, the passes that run waiting tasks in
 * order, the one timer, the weight taken without an instant until it gets one, and a change of
 * limits due at an instant. The waiting tasks, their deadlines and the refusals are parts the
 * scheduler makes and gives it. It is the host and owner of the scheduler's limits: a store's
 * limit wakes it and tells it of a change of N or W.
 */
export class Dispatcher implements LimitHost, LimitOwner {
  readonly clock: Clock;
  readonly waiting: WaitingTasks;
  readonly deadlines: Deadlines;
  readonly refusals: Refusals;
  readonly listeners: Listeners<SchedulerEvent>;
  /** Each limit of the scheduler, with what the scheduler keeps about it. */
  readonly books = new Map<StoreLimit, LimitBook>();
  /**
   * While a task that waited in the queue starts: the limit that last held it (or its group's
   * head) back, else null. Read by the task as it starts (what a request waited on).
   */
  heldBy: StoreLimit | null = null;
  /** Tasks started. */
  dispatched = 0;
  /** Limits whose permits come from another process's store. */
  #shared = 0;
  /** The order of queue heads of the pass running now, or null. */
  #heads: Head[] | null = null;
  #passNo = 0;
  #draining = false;
  // Limits holding weight without an instant: the first `unstampedCount` of this array.
  readonly #unstamped: LimitBook[] = [];
  #unstampedCount = 0;
  #stampQueued = false;
  #dirty = false;
  #timer: unknown = null;
  #timerAt = Infinity;
  #closed = false;
  // A change of limits due at an instant (see setBoundary), applied before any decision past it.
  #boundaryAt = Infinity;
  #boundaryFn: (() => void) | null = null;

  constructor(parts: DispatcherParts) {
    this.clock = parts.clock;
    this.waiting = parts.waiting;
    this.deadlines = parts.deadlines;
    this.refusals = parts.refusals;
    this.listeners = parts.listeners;
  }

  /** Whether a pass runs now (tasks admitted now would go ahead of those it has yet to look at). */
  get draining(): boolean {
    return this.#draining;
  }

  /** Whether the scheduler is closed: every task is refused. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The instant of the change of limits due next, or Infinity. */
  get boundaryAt(): number {
    return this.#boundaryAt;
  }

  /** Whether a limit takes its permits from another process's store. */
  get shares(): boolean {
    return this.#shared > 0;
  }

  /** Whether the timer is set (the heads of the queue wait for it). */
  get timerSet(): boolean {
    return this.#timer !== null;
  }

  /** Keeps `book`, the book of a new limit of the scheduler. */
  addBook(book: LimitBook): void {
    this.books.set(book.limit, book);
    if (book.limit.isShared()) this.#shared++;
  }

  /** Takes `weight` from every book's limit if nobody waits on them and all allow it at `now`. */
  admitBooks(books: readonly LimitBook[], weight: number, priority: number, now: number): boolean {
    for (let i = 0; i < books.length; i++) {
      const b = books[i]!;
      if (b.waiting > 0 || b.limit.waitFor(weight, now, priority) !== 0) return false;
    }
    for (let i = 0; i < books.length; i++) this.takeOne(books[i]!, weight);
    return true;
  }

  /** Takes `weight` from every limit, whatever the instant, if nobody waits on them and all have room. */
  admitAnytime(limits: readonly StoreLimit[], weight: number, priority: number): boolean {
    for (let i = 0; i < limits.length; i++) {
      const l = limits[i]!;
      if (this.books.get(l)!.waiting > 0 || !l.fitsAnytime(weight, priority)) return false;
    }
    this.takeAll(limits, weight);
    this.countDispatch(limits, weight, priority, undefined);
    return true;
  }

  /** Takes `weight` from every limit if nobody waits on them and all allow it at `now`. */
  admitNow(limits: readonly StoreLimit[], weight: number, priority: number, now: number): boolean {
    for (let i = 0; i < limits.length; i++) {
      const l = limits[i]!;
      if (this.books.get(l)!.waiting > 0 || l.waitFor(weight, now, priority) !== 0) return false;
    }
    this.takeAll(limits, weight);
    return true;
  }

  /** The group of `priority` and `limits`, made if there is none. */
  groupFor(priority: number, limits: readonly StoreLimit[]): Group {
    return this.waiting.groupFor(
      priority,
      limits,
      limits.map((l) => this.books.get(l)!),
    );
  }

  /** Puts a task at the back of its group's queue and counts it waiting on each of its limits. */
  enqueue(group: Group, fn: (arg: number) => unknown, waiter: Waiter, weight: number, arg = 0): Slot {
    const slot = this.waiting.push(group, fn, waiter, weight, arg);
    // Given by a task of the pass running now: it takes its place in the pass's order, so that it
    // goes before younger tasks of its priority, and after older ones, on any limit they share.
    if (this.#heads !== null && group.inPass !== this.#passNo) {
      group.inPass = this.#passNo;
      heapPush(this.#heads, { group, seq: group.queue.headSeq() }, headBefore);
    }
    return slot;
  }

  /** A shared limit's permits arrived: runs what can run. */
  wake(): void {
    if (!this.#closed) this.pass();
  }

  /** The weight of the tasks waiting on `limit` (what a shared store asks for). */
  queuedWeight(limit: StoreLimit): number {
    return this.books.get(limit)?.queuedWeight ?? 0;
  }

  /**
   * A limit changed: applies it to the waiting tasks at once. Those it can no longer fit are
   * refused (`too-heavy`), as a new `schedule()` of them would be, so that they hold back nobody
   * behind them.
   */
  changed(limit: StoreLimit, from: { readonly limit: number; readonly windowMs: number }): void {
    this.listeners.emit({
      type: 'limit',
      at: this.clock.now(),
      limit: limit.name,
      from,
      to: { limit: limit.limit, windowMs: limit.windowMs },
    });
    if ((this.books.get(limit)?.waiting ?? 0) > 0) this.#refuseTooHeavy(limit);
    if (!this.#closed) this.pass();
  }

  /** Refuses every waiting task on `limit` heavier than what the limit allows its priority now. */
  #refuseTooHeavy(limit: StoreLimit): void {
    this.waiting.forEach((g) => {
      if (g.live === 0 || !g.limits.includes(limit)) return;
      const cap = limit.capacity(g.priority);
      g.queue.forEachLive((slot, weight) => {
        if (weight <= cap) return;
        const resolve = cancelSlot(slot)!;
        this.waiting.release(g, weight);
        this.refusals.tell(resolve, 'too-heavy', g.limits, tooHeavy(weight, limit, g.priority));
      });
    });
  }

  /**
   * Takes `weight` from every limit for a task about to start. The weight gets its instant from a
   * clock read after the task started (at the end of this pass or this turn, or at the next
   * decision), never the instant the decision was made on: a dispatch is never counted as earlier
   * than it was, so no window can hold more than N of them (see docs/rules.md#r13).
   */
  takeAll(limits: readonly StoreLimit[], weight: number): void {
    for (let i = 0; i < limits.length; i++) this.takeOne(this.books.get(limits[i]!)!, weight);
  }

  takeOne(b: LimitBook, weight: number): void {
    b.limit.takeUnstamped(weight);
    if (!b.queuedStamp) {
      b.queuedStamp = true;
      this.#unstamped[this.#unstampedCount++] = b;
    }
    if (!this.#stampQueued) {
      this.#stampQueued = true;
      queueMicrotask(this.#stampLater);
    }
  }

  readonly #stampLater = (): void => {
    this.#stampQueued = false;
    if (this.#unstampedCount > 0) this.stampAll(this.clock.now());
  };

  /** Gives every weight taken without an instant the instant `now`, read after it was taken. */
  stampAll(now: number): void {
    if (this.#unstampedCount === 0) return;
    const list = this.#unstamped;
    for (let i = 0; i < this.#unstampedCount; i++) {
      const b = list[i]!;
      b.limit.stamp(now);
      b.queuedStamp = false;
    }
    this.#unstampedCount = 0;
  }

  /**
   * A task waits: if what holds it back is only permits a shared store has not given yet, asks
   * for them, for all its shared limits in one request (all or none, see docs/rules.md#r13). Permits for one limit
   * are never asked while another limit would hold the task anyway.
   */
  askShared(limits: readonly StoreLimit[], weight: number, priority: number, now: number): void {
    let ask: StoreLimit[] | null = null;
    for (let i = 0; i < limits.length; i++) {
      const l = limits[i]!;
      if (l.lacks(weight, now)) (ask ??= []).push(l);
      else if (l.waitFor(weight, now, priority) > 0) return;
    }
    if (ask !== null) ask[0]!.request(ask, weight, priority, now);
  }

  /**
   * Calls `fn` before anything is decided at or after `at` (this scheduler's clock), once: a
   * change of limits due at an instant (a lower tier, a throttle) is applied before any task is
   * let through past it, even when the timer meant for it fires late (a busy process). One at a
   * time: a new one replaces the last; `null` removes it. Admission then reads the clock.
   */
  setBoundary(at: number, fn: (() => void) | null): void {
    this.#boundaryAt = fn === null ? Infinity : at;
    this.#boundaryFn = fn;
  }

  /** Applies a change of limits that is due now: a task's weight is checked against what is in force. */
  boundaryIfDue(): void {
    if (this.#boundaryAt !== Infinity && this.clock.now() >= this.#boundaryAt) this.reachBoundary();
  }

  /** Applies the change of limits due at the boundary (its instant has come). */
  reachBoundary(): void {
    const fn = this.#boundaryFn;
    this.#boundaryAt = Infinity;
    this.#boundaryFn = null;
    fn?.();
  }

  /**
   * Runs `fn` with the passes it would make held back, then makes one: tasks refused together (one
   * signal aborted) never let one of them start on the room another left.
   */
  together(fn: () => void): void {
    if (this.#draining) {
      fn();
      return;
    }
    this.#draining = true;
    try {
      fn();
    } finally {
      this.#draining = false;
    }
    if (!this.#closed) this.pass();
  }

  /** Runs every task that can run now, in order, then sets the one timer for the next. */
  pass(): void {
    if (this.#draining) {
      this.#dirty = true;
      return;
    }
    this.#draining = true;
    let wake = Infinity;
    try {
      do {
        this.#dirty = false;
        const now = this.clock.now();
        if (now >= this.#boundaryAt) this.reachBoundary();
        this.stampAll(now);
        wake = this.#drain(now);
      } while (this.#dirty);
    } finally {
      this.#draining = false;
    }
    this.stampAll(this.clock.now());
    // Closed by a task of this pass: no timer, whatever the pass found.
    this.#setTimer(this.#closed ? Infinity : Math.min(wake, this.deadlines.next(this.waiting.live)));
  }

  /**
   * Runs what can run at `now`, one head at a time in the order of the queue as a whole: higher
   * priority first, then the oldest. A head that must wait holds every one of its limits for the
   * rest of the pass, and so does a head held by one of them: no younger task of its priority or
   * lower goes ahead of it on any limit it draws on. A task given by a task of the pass takes its
   * place in the order at once. Returns the instant to look again.
   */
  #drain(now: number): number {
    // A task may still start at its deadline: refuse those past it, run what can run, then refuse
    // those whose deadline is now and that could not.
    this.#expireDeadlines(now, false);
    const pass = ++this.#passNo;
    const heads: Head[] = [];
    this.waiting.sweep((g) => {
      heads.push({ group: g, seq: g.queue.headSeq() });
      g.inPass = pass;
    });
    heapOf(heads, headBefore);
    this.#heads = heads;
    let wake: number;
    try {
      wake = this.#drainHeads(heads, pass, now);
    } finally {
      this.#heads = null;
    }
    // A refused head may have held back lighter tasks behind it: look again.
    if (this.#expireDeadlines(now, true) > 0) this.#dirty = true;
    return wake;
  }

  #drainHeads(heads: Head[], pass: number, now: number): number {
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
      let blocked: LimitBook | null = null;
      for (const b of books) if (b.pass === pass) blocked = b;
      if (blocked !== null) {
        g.heldBy = blocked.limit;
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
      if (this.#shared > 0) {
        at = this.clock.now();
        this.stampAll(at);
      }
      let wait = 0;
      let holding: StoreLimit | null = null;
      for (const l of limits) {
        const w = l.waitFor(weight, at, priority);
        if (w > wait) {
          wait = w;
          holding = l;
        }
      }
      if (wait === Infinity && this.#refuseHeadIfTooHeavy(g, weight)) continue;
      if (wait > 0 && this.#shared > 0) this.askShared(limits, weight, priority, at);
      if (wait > 0) {
        g.heldBy = holding;
        for (const b of books) b.pass = pass;
        if (wait !== Infinity) wake = Math.min(wake, at + wait);
        popHead(heads);
        continue;
      }
      for (const b of books) this.takeOne(b, weight);
      const arg = queue.headArg();
      const { fn, resolve } = queue.shift();
      this.waiting.release(g, weight);
      this.countDispatch(limits, weight, priority, at);
      this.heldBy = g.heldBy;
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
      this.heldBy = null;
      // Its next head is younger: to its place in the order, or out of it (unless the task gave
      // the order a group of its own, which the top of the loop sorts out).
      if (heads[0] !== top) continue;
      if (!queue.skipCancelled()) {
        g.heldBy = null;
        popHead(heads);
      } else {
        top.seq = queue.headSeq();
        if (heads.length > 1) heapSiftDown(heads, 0, headBefore);
      }
    }
    return wake;
  }

  /** Refuses the head of `g` if one of its limits can never fit it (a limit lowered elsewhere). */
  #refuseHeadIfTooHeavy(g: Group, weight: number): boolean {
    for (const l of g.limits) {
      if (weight <= l.capacity(g.priority)) continue;
      const { resolve } = g.queue.shift();
      this.waiting.release(g, weight);
      this.refusals.tell(resolve, 'too-heavy', g.limits, tooHeavy(weight, l, g.priority));
      return true;
    }
    return false;
  }

  #expireDeadlines(now: number, includingNow: boolean): number {
    let expired = 0;
    for (let d = this.deadlines.due(now, includingNow); d !== null; d = this.deadlines.due(now, includingNow)) {
      const resolve = cancelSlot(d.slot);
      if (resolve === null) continue;
      this.waiting.release(d.group, d.slot.chunk.weights[d.slot.index]!);
      this.refusals.tell(resolve, 'deadline', d.group.limits, 'the deadline passed before the limits allowed the task');
      expired++;
    }
    return expired;
  }

  /** Refuses the waiting task in `slot` of `group` (if it still waits), then runs what can run. */
  cancel(slot: Slot, group: Group, weight: number, reason: RefusalReason, message: string): void {
    const resolve = cancelSlot(slot);
    if (resolve === null) return;
    this.waiting.release(group, weight);
    this.refusals.tell(resolve, reason, group.limits, message);
    this.pass();
  }

  /** Refuses every waiting task (`closed`) and every later one; clears the timer. */
  close(): void {
    this.#closed = true;
    this.waiting.forEach((group) => {
      while (group.queue.skipCancelled()) {
        const weight = group.queue.headWeight();
        const { resolve } = group.queue.shift();
        this.waiting.release(group, weight);
        this.refusals.tell(resolve, 'closed', group.limits, 'the scheduler was closed before the task started');
      }
    });
    this.deadlines.clear();
    this.#setTimer(Infinity);
  }

  #setTimer(at: number): void {
    if (at === this.#timerAt) return;
    if (this.#timer !== null) this.clock.clearTimer(this.#timer);
    this.#timer = null;
    this.#timerAt = at;
    if (at === Infinity) return;
    this.#timer = this.clock.setTimer(() => {
      this.#timer = null;
      this.#timerAt = Infinity;
      this.pass();
    }, at - this.clock.now());
  }

  /** Counts a task started and tells the listeners. */
  countDispatch(limits: readonly StoreLimit[], weight: number, priority: number, at: number | undefined): void {
    this.dispatched++;
    if (this.listeners.size > 0)
      this.listeners.emit({
        type: 'dispatch',
        at: at ?? this.clock.now(),
        weight,
        priority,
        limits: limits.map((l) => l.name),
      });
  }
}

/** Runs a submitted task, telling its submission if it throws. */
export function runSubmitted(fn: (arg: number) => unknown, arg: number, submission: Submission): void {
  try {
    fn(arg);
  } catch (e) {
    submission.failed(e);
  }
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
