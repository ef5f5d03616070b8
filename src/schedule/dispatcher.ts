import { InvalidInputError, RefusedError, type RefusalReason } from '../errors.js';
import { checkSameBuild } from './build.js';
import type { Clock } from './clock.js';
import type { SchedulerEvent } from './events.js';
import type { LimitBook } from './limit-book.js';
import type { Limit, StoreLimit } from './limit.js';
import { Listeners } from './listeners.js';
import { type Slot, type Submission, TaskQueue, type Waiter, cancelSlot, isLive } from './queue.js';
import type { LimitStore } from './store.js';
import { WindowLimit } from './window.js';
import { heapOf, heapPop, heapPush, heapSiftDown } from './heap.js';
import { isPositiveInteger } from '../internal/parse.js';

/** The tasks of one priority that draw on the same limits, in the order they came. */
export interface Group {
  readonly priority: number;
  readonly limits: readonly StoreLimit[];
  /** The scheduler's books of `limits`, in the same order. */
  readonly books: readonly LimitBook[];
  readonly queue: TaskQueue;
  live: number;
  /** Taken out of the scheduler's groups (it emptied): a route holding it makes a new one. */
  gone: boolean;
  /** The pass whose order of heads holds it, or 0. */
  inPass: number;
  /** The limit that last held its head back, or null since it emptied. */
  heldBy: StoreLimit | null;
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

/**
 * The queue of a {@link Scheduler}: its limits' books, the groups of waiting tasks, the passes that
 * run them in order, the one timer, and the counts of what was sent and refused. The public calls
 * are the Scheduler's; the replay's `route`/`submit` are in submit.ts.
 */
export abstract class Dispatcher<L extends StoreLimit> {
  readonly clock: Clock;
  protected readonly maxQueue: number;
  protected readonly store: LimitStore<L>;
  /** Limits whose permits come from another process's store. */
  protected shared = 0;
  protected readonly groups = new Map<string, Group>();
  /** Each limit of this scheduler, with what the scheduler keeps about it. */
  protected readonly books = new Map<StoreLimit, LimitBook>();
  /** The names of its limits, each once. */
  protected readonly names = new Set<string>();
  protected deadlines: Deadline[] = [];
  /** The order of queue heads of the pass running now, or null. */
  private heads: Head[] | null = null;
  /**
   * @internal While a task that waited in the queue starts: the limit that last held it (or its
   * group's head) back, else null. Read by the task as it starts (what a request waited on).
   */
  heldBy: StoreLimit | null = null;
  private seq = 0;
  private passNo = 0;
  protected live = 0;
  protected dispatched = 0;
  protected readonly refusedCounts: Record<RefusalReason, number> = {
    'queue-full': 0,
    aborted: 0,
    deadline: 0,
    'too-heavy': 0,
    closed: 0,
  };
  protected draining = false;
  // Limits holding weight without an instant: the first `unstampedCount` of this array.
  private readonly unstamped: LimitBook[] = [];
  protected unstampedCount = 0;
  private stampQueued = false;
  private dirty = false;
  protected timer: unknown = null;
  private timerAt = Infinity;
  protected closed = false;
  // A change of limits due at an instant (see setBoundary), applied before any decision past it.
  protected boundaryAt = Infinity;
  private boundaryFn: (() => void) | null = null;
  protected readonly listeners = new Listeners<SchedulerEvent>((source, error) => ({
    type: 'error',
    at: this.clock.now(),
    source,
    error,
  }));

  protected constructor(clock: Clock, maxQueue: number, store: LimitStore<L>) {
    this.clock = clock;
    this.maxQueue = maxQueue;
    this.store = store;
  }

  /** Takes `weight` from every book's limit if nobody waits on them and all allow it at `now`. */
  protected admitBooks(books: readonly LimitBook[], weight: number, priority: number, now: number): boolean {
    for (let i = 0; i < books.length; i++) {
      const b = books[i]!;
      if (b.waiting > 0 || b.limit.waitFor(weight, now, priority) !== 0) return false;
    }
    for (let i = 0; i < books.length; i++) this.takeOne(books[i]!, weight);
    return true;
  }

  /** Puts a task at the back of its group's queue and counts it waiting on each of its limits. */
  protected enqueue(group: Group, fn: (arg: number) => unknown, waiter: Waiter, weight: number, arg = 0): Slot {
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

  /** @internal A shared limit's permits arrived: runs what can run. */
  wake(): void {
    if (!this.closed) this.pass();
  }

  /** @internal The weight of the tasks waiting on `limit` (what a shared store asks for). */
  queuedWeight(limit: StoreLimit): number {
    return this.books.get(limit)?.queuedWeight ?? 0;
  }

  /**
   * @internal A limit changed: applies it to the waiting tasks at once. Those it can no longer
   * fit are refused (`too-heavy`), as a new `schedule()` of them would be, so that they hold
   * back nobody behind them.
   */
  changed(limit: StoreLimit, from: { readonly limit: number; readonly windowMs: number }): void {
    this.emit({
      type: 'limit',
      at: this.clock.now(),
      limit: limit.name,
      from,
      to: { limit: limit.limit, windowMs: limit.windowMs },
    });
    if ((this.books.get(limit)?.waiting ?? 0) > 0) this.refuseTooHeavy(limit);
    if (!this.closed) this.pass();
  }

  /** Refuses every waiting task on `limit` heavier than what the limit allows its priority now. */
  private refuseTooHeavy(limit: StoreLimit): void {
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

  protected admitAnytime(limits: readonly StoreLimit[], weight: number, priority: number): boolean {
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
  protected takeAll(limits: readonly StoreLimit[], weight: number): void {
    for (let i = 0; i < limits.length; i++) this.takeOne(this.books.get(limits[i]!)!, weight);
  }

  protected takeOne(b: LimitBook, weight: number): void {
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
  protected stampAll(now: number): void {
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
  protected askShared(limits: readonly StoreLimit[], weight: number, priority: number, now: number): void {
    let ask: StoreLimit[] | null = null;
    for (let i = 0; i < limits.length; i++) {
      const l = limits[i]!;
      if (l.lacks(weight, now)) (ask ??= []).push(l);
      else if (l.waitFor(weight, now, priority) > 0) return;
    }
    if (ask !== null) ask[0]!.request(ask, weight, priority, now);
  }

  protected admitNow(limits: readonly StoreLimit[], weight: number, priority: number, now: number): boolean {
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
  protected boundaryIfDue(): void {
    if (this.boundaryAt !== Infinity && this.clock.now() >= this.boundaryAt) this.reachBoundary();
  }

  protected reachBoundary(): void {
    const fn = this.boundaryFn;
    this.boundaryAt = Infinity;
    this.boundaryFn = null;
    fn?.();
  }

  /**
   * Runs `fn` with the passes it would make held back, then makes one: tasks refused together (one
   * signal aborted) never let one of them start on the room another left.
   */
  protected together(fn: () => void): void {
    if (this.draining) {
      fn();
      return;
    }
    this.draining = true;
    try {
      fn();
    } finally {
      this.draining = false;
    }
    if (!this.closed) this.pass();
  }

  /** Runs every task that can run now, in order, then sets the one timer for the next. */
  protected pass(): void {
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
      this.deadlines = heapOf(
        heap.filter((d) => isLive(d.slot)),
        deadlineBefore,
      );
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
      if (this.shared > 0) {
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
      if (wait === Infinity && this.refuseHeadIfTooHeavy(g, weight)) continue;
      if (wait > 0 && this.shared > 0) this.askShared(limits, weight, priority, at);
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
      this.release(g, weight);
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
    while (
      this.deadlines.length > 0 &&
      (this.deadlines[0]!.at < now || (includingNow && this.deadlines[0]!.at === now))
    ) {
      const d = heapPop(this.deadlines, deadlineBefore)!;
      const resolve = cancelSlot(d.slot);
      if (resolve === null) continue;
      this.release(d.group, d.slot.chunk.weights[d.slot.index]!);
      this.rejectWith(resolve, 'deadline', d.group.limits, 'the deadline passed before the limits allowed the task');
      expired++;
    }
    return expired;
  }

  protected cancel(slot: Slot, group: Group, weight: number, reason: RefusalReason, message: string): void {
    const resolve = cancelSlot(slot);
    if (resolve === null) return;
    this.release(group, weight);
    this.rejectWith(resolve, reason, group.limits, message);
    this.pass();
  }

  protected release(group: Group, weight: number): void {
    group.live--;
    this.live--;
    for (const b of group.books) {
      b.waiting--;
      b.queuedWeight -= weight;
    }
  }

  protected setTimer(at: number): void {
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

  protected groupFor(priority: number, limits: readonly StoreLimit[]): Group {
    let key = String(priority);
    for (const l of limits) key += `|${limitId(l)}`;
    let g = this.groups.get(key);
    if (g === undefined) {
      g = {
        priority,
        limits,
        books: limits.map((l) => this.books.get(l)!),
        queue: new TaskQueue(),
        live: 0,
        gone: false,
        inPass: 0,
        heldBy: null,
      };
      this.groups.set(key, g);
    }
    return g;
  }

  protected readLimits(value: Limit | readonly Limit[] | undefined): readonly StoreLimit[] {
    if (value === undefined) return [];
    const list = Array.isArray(value) ? (value as readonly StoreLimit[]) : [value as StoreLimit];
    for (const l of list) this.ownedLimit(l, 'each of `limits`');
    // Each limit once, checked without allocating (a task draws on a handful of limits).
    for (let i = 1; i < list.length; i++) {
      for (let j = 0; j < i; j++)
        if (list[j] === list[i])
          throw new InvalidInputError(
            '`limits`',
            list.map((l) => l.name),
            'each limit once',
          );
    }
    return list;
  }

  /** Whether `limits` is an array of limits of this scheduler, each once (without allocating). */
  protected ownsAll(limits: unknown): boolean {
    if (!Array.isArray(limits)) return false;
    for (let i = 0; i < limits.length; i++) {
      const l: unknown = limits[i];
      if (!this.books.has(l as StoreLimit)) return false;
      for (let j = 0; j < i; j++) if (limits[j] === l) return false;
    }
    return true;
  }

  /** Throws the error `readLimits` gives for limits `ownsAll` refused. */
  protected refuseLimits(limits: unknown): never {
    if (limits !== undefined) this.readLimits(limits as StoreLimit | readonly StoreLimit[]);
    throw new InvalidInputError('`limits`', limits, 'a limit made by this scheduler, or an array of them');
  }

  protected ownedLimit(l: unknown, field: string): void {
    if (this.books.has(l as StoreLimit)) return;
    checkSameBuild(field, l, 'the scheduler', WindowLimit.prototype);
    throw new InvalidInputError(field, l, 'a limit made by this scheduler (scheduler.limit(...))');
  }

  protected countDispatch(
    limits: readonly StoreLimit[],
    weight: number,
    priority: number,
    at: number | undefined,
  ): void {
    this.dispatched++;
    if (this.listeners.size > 0)
      this.emit({ type: 'dispatch', at: at ?? this.clock.now(), weight, priority, limits: limits.map((l) => l.name) });
  }

  protected refuse<T>(reason: RefusalReason, limits: readonly StoreLimit[], message: string): Promise<T> {
    this.countRefusal(reason, limits);
    return Promise.reject(new RefusedError(reason, message));
  }

  private countRefusal(reason: RefusalReason, limits: readonly StoreLimit[]): void {
    this.refusedCounts[reason]++;
    if (this.listeners.size > 0)
      this.emit({ type: 'refuse', at: this.clock.now(), reason, limits: limits.map((l) => l.name) });
  }

  /** Refuses a waiter: rejects its promise, or tells its submission (no error made, no message). */
  protected rejectWith(waiter: Waiter, reason: RefusalReason, limits: readonly StoreLimit[], message: string): void {
    if (typeof waiter === 'function') {
      waiter(this.refuse(reason, limits, message));
    } else {
      this.countRefusal(reason, limits);
      waiter.refused(reason);
    }
  }

  protected emit(event: SchedulerEvent): void {
    this.listeners.emit(event);
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

const ids = new WeakMap<StoreLimit, number>();
let nextId = 0;
function limitId(l: StoreLimit): number {
  let id = ids.get(l);
  if (id === undefined) ids.set(l, (id = nextId++));
  return id;
}

export function tooHeavy(weight: number, l: StoreLimit, priority: number): string {
  return `weight ${weight} can never fit ${l.name} (${l.capacity(priority)} per ${l.windowMs} ms at priority ${priority})`;
}

export function readWeight(value: unknown): number {
  if (value === undefined) return 1;
  if (!isPositiveInteger(value)) throw new InvalidInputError('`weight`', value, 'a positive integer');
  return value;
}

export function readPriority(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new InvalidInputError('`priority`', value, 'a finite number');
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

export function deadlineBefore(a: Deadline, b: Deadline): boolean {
  return a.at < b.at;
}
