/**
 * A first-in-first-out queue of waiting tasks kept as columns in chunks: a waiter costs its
 * function, its promise's resolver (or a shared submission), its weight, its arrival number and
 * the number a submitted task is called with, with no object of its own. A queue's first chunk
 * holds a few waiters and each next one twice as many as the one before, up to a bound: a queue
 * that seldom holds more than one waiter (a group of one account among many) costs a small chunk,
 * not a large one, each time it fills again. A chunk is dropped as soon as its last waiter leaves,
 * so a drained queue gives its memory back.
 */
/** The waiters a queue's first chunk holds. */
export const FIRST_CHUNK = 8;
/** The most waiters a chunk holds. */
export const MAX_CHUNK = 1024;

import type { RefusalReason } from '../errors.js';

/** Settles a waiter's promise: with the task's result, or with a rejected promise. */
export type Resolve = (value: unknown) => void;

/**
 * What a task given without a promise reports to (`Scheduler.submit`): one object may serve
 * many tasks, so that a waiter costs no promise and no closure of its own for its outcome.
 */
export interface Submission {
  /** The task was refused and never ran. */
  refused(reason: RefusalReason): void;
  /** The task ran and threw `error`. */
  failed(error: unknown): void;
}

/** Who learns what became of a waiter: its promise's resolver, or a submission. */
export type Waiter = Resolve | Submission;

export class Chunk {
  readonly fns: ((arg: number) => unknown)[];
  readonly resolves: (Waiter | null)[];
  readonly weights: Float64Array;
  readonly seqs: Float64Array;
  /** The number a submitted task is called with (a replay's arrival instant). */
  readonly args: Float64Array;
  next: Chunk | null = null;

  /** `size`: the waiters it holds. */
  constructor(readonly size: number) {
    this.fns = new Array(size);
    this.resolves = new Array(size);
    this.weights = new Float64Array(size);
    this.seqs = new Float64Array(size);
    this.args = new Float64Array(size);
  }
}

/** Where a waiter sits, for cancelling it later. */
export interface Slot {
  readonly chunk: Chunk;
  readonly index: number;
}

export class TaskQueue {
  private first: Chunk | null = null;
  private last: Chunk | null = null;
  private readAt = 0;
  private writeAt = 0;
  /** Waiters in the queue, cancelled ones not yet skipped included. */
  private slots = 0;

  get isEmpty(): boolean {
    return this.slots === 0;
  }

  push(fn: (arg: number) => unknown, resolve: Waiter, weight: number, seq: number, arg = 0): Slot {
    if (this.last === null || this.writeAt === this.last.size) {
      const chunk = new Chunk(this.last === null ? FIRST_CHUNK : Math.min(2 * this.last.size, MAX_CHUNK));
      if (this.last === null) {
        this.first = chunk;
        this.readAt = 0;
      } else {
        this.last.next = chunk;
      }
      this.last = chunk;
      this.writeAt = 0;
    }
    const chunk = this.last;
    const index = this.writeAt++;
    chunk.fns[index] = fn;
    chunk.resolves[index] = resolve;
    chunk.weights[index] = weight;
    chunk.seqs[index] = seq;
    chunk.args[index] = arg;
    this.slots++;
    return { chunk, index };
  }

  /** Drops cancelled waiters at the head; true when a live one is there. */
  skipCancelled(): boolean {
    while (this.slots > 0 && this.first!.resolves[this.readAt] === null) this.advance();
    return this.slots > 0;
  }

  /** The head's weight (call after skipCancelled returned true). */
  headWeight(): number {
    return this.first!.weights[this.readAt]!;
  }

  /** The head's arrival number (call after skipCancelled returned true). */
  headSeq(): number {
    return this.first!.seqs[this.readAt]!;
  }

  /** The number the head is called with (call after skipCancelled returned true). */
  headArg(): number {
    return this.first!.args[this.readAt]!;
  }

  /** Removes the head and returns its function and resolver. */
  shift(): { fn: (arg: number) => unknown; resolve: Waiter } {
    const chunk = this.first!;
    const fn = chunk.fns[this.readAt]!;
    const resolve = chunk.resolves[this.readAt]!;
    this.advance();
    return { fn, resolve };
  }

  /** Calls `visit` with the slot and weight of every waiter not cancelled, oldest first. */
  forEachLive(visit: (slot: Slot, weight: number) => void): void {
    for (let chunk = this.first, i = this.readAt; chunk !== null; chunk = chunk.next, i = 0) {
      const end = chunk === this.last ? this.writeAt : chunk.size;
      for (; i < end; i++) if (chunk.resolves[i] !== null) visit({ chunk, index: i }, chunk.weights[i]!);
    }
  }

  private advance(): void {
    const chunk = this.first!;
    // Let go of the function and resolver at once, not when the chunk goes.
    (chunk.fns as unknown[])[this.readAt] = undefined;
    chunk.resolves[this.readAt] = null;
    this.readAt++;
    this.slots--;
    if (this.slots === 0) {
      this.first = this.last = null;
      this.readAt = this.writeAt = 0;
    } else if (this.readAt === chunk.size) {
      this.first = chunk.next;
      chunk.next = null;
      this.readAt = 0;
    }
  }
}

/** Whether the waiter is still in the queue (neither started nor cancelled). */
export function isLive(slot: Slot): boolean {
  return (slot.chunk.resolves[slot.index] ?? null) !== null;
}

/** Marks a waiter cancelled; returns its resolver, or null when it had left the queue already. */
export function cancelSlot(slot: Slot): Waiter | null {
  const resolve = slot.chunk.resolves[slot.index] ?? null;
  if (resolve === null) return null;
  slot.chunk.resolves[slot.index] = null;
  (slot.chunk.fns as unknown[])[slot.index] = undefined;
  return resolve;
}
