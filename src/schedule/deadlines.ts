import { heapOf, heapPop, heapPush } from './heap.js';
import { type Slot, isLive } from './queue.js';
import type { Group } from './waiting.js';

/** A waiting task's deadline: the instant by which it must have started. */
export interface Deadline {
  readonly at: number;
  readonly slot: Slot;
  readonly group: Group;
}

/**
 * The deadlines of the tasks waiting in a scheduler, earliest first. Entries of tasks that left
 * the queue (run, aborted, refused) stay until they reach the top or outnumber the waiting tasks:
 * leaving the queue costs nothing here, and they hold no timer and no memory for long.
 */
export class Deadlines {
  #heap: Deadline[] = [];

  /** Entries kept, of tasks still waiting or not. */
  get size(): number {
    return this.#heap.length;
  }

  /** Adds the deadline `at` of the task in `slot` of `group`; one that never comes holds no entry. */
  add(at: number, slot: Slot, group: Group): void {
    if (at === Infinity) return;
    heapPush(this.#heap, { at, slot, group }, deadlineBefore);
  }

  /** The earliest deadline of a task still waiting (`live` of them wait in all), or Infinity. */
  next(live: number): number {
    if (this.#heap.length > 2 * live + 64) {
      this.#heap = heapOf(
        this.#heap.filter((d) => isLive(d.slot)),
        deadlineBefore,
      );
    }
    while (this.#heap.length > 0 && !isLive(this.#heap[0]!.slot)) heapPop(this.#heap, deadlineBefore);
    return this.#heap[0]?.at ?? Infinity;
  }

  /**
   * Takes out the earliest deadline before `now` (or at `now` too, `includingNow`), whether its
   * task still waits or not; null when there is none.
   */
  due(now: number, includingNow: boolean): Deadline | null {
    const top = this.#heap[0];
    if (top === undefined || top.at > now || (top.at === now && !includingNow)) return null;
    return heapPop(this.#heap, deadlineBefore)!;
  }

  /** Forgets every deadline (the scheduler closed). */
  clear(): void {
    this.#heap = [];
  }
}

function deadlineBefore(a: Deadline, b: Deadline): boolean {
  return a.at < b.at;
}
