import type { LimitBook } from './limit-book.js';
import type { StoreLimit } from './limit.js';
import { type Slot, TaskQueue, type Waiter } from './queue.js';

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

/**
 * The tasks waiting in a scheduler, in groups of one priority and one set of limits, each group
 * first-in-first-out; every task numbered as it arrives, so that heads of groups compare by age.
 * Keeps the count of waiting tasks, in all and on each limit's book.
 */
export class WaitingTasks {
  readonly #groups = new Map<string, Group>();
  #seq = 0;
  #live = 0;

  /** Tasks waiting now. */
  get live(): number {
    return this.#live;
  }

  /** The group of `priority` and `limits` (whose books are `books`), made if there is none. */
  groupFor(priority: number, limits: readonly StoreLimit[], books: readonly LimitBook[]): Group {
    let key = String(priority);
    for (const l of limits) key += `|${limitId(l)}`;
    let g = this.#groups.get(key);
    if (g === undefined) {
      g = { priority, limits, books, queue: new TaskQueue(), live: 0, gone: false, inPass: 0, heldBy: null };
      this.#groups.set(key, g);
    }
    return g;
  }

  /** Puts a task at the back of its group and counts it waiting on each of its limits. */
  push(group: Group, fn: (arg: number) => unknown, waiter: Waiter, weight: number, arg: number): Slot {
    const slot = group.queue.push(fn, waiter, weight, this.#seq++, arg);
    group.live++;
    this.#live++;
    for (const b of group.books) {
      b.waiting++;
      b.queuedWeight += weight;
    }
    return slot;
  }

  /** A task of `weight` left `group` (it started or was refused). */
  release(group: Group, weight: number): void {
    group.live--;
    this.#live--;
    for (const b of group.books) {
      b.waiting--;
      b.queuedWeight -= weight;
    }
  }

  /** Calls `visit` with every group that holds a task; the others are let go (marked `gone`). */
  sweep(visit: (group: Group) => void): void {
    for (const [key, g] of this.#groups) {
      if (g.queue.skipCancelled()) visit(g);
      else if (g.live === 0) {
        g.gone = true;
        this.#groups.delete(key);
      }
    }
  }

  /** Calls `visit` with every group, empty ones too. */
  forEach(visit: (group: Group) => void): void {
    for (const g of this.#groups.values()) visit(g);
  }
}

const ids = new WeakMap<StoreLimit, number>();
let nextId = 0;
function limitId(l: StoreLimit): number {
  let id = ids.get(l);
  if (id === undefined) ids.set(l, (id = nextId++));
  return id;
}
