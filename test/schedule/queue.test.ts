import { describe, expect, it } from 'vitest';
import { cancelSlot, FIRST_CHUNK, isLive, MAX_CHUNK, type Slot, TaskQueue } from '../../src/schedule/queue.js';

const ignore = (): void => {};
/** A task whose function returns its own number. */
const task = (n: number) => (): number => n;

/** Pushes tasks `from`..`to` - 1 (weight and arrival number n, called with n), returns their slots. */
function pushAll(q: TaskQueue, from: number, to: number): Slot[] {
  const slots: Slot[] = [];
  for (let n = from; n < to; n++) slots.push(q.push(task(n), ignore, n, n, n));
  return slots;
}

/** Shifts every live task, the cancelled skipped, and returns their numbers in order. */
function drain(q: TaskQueue): number[] {
  const out: number[] = [];
  while (q.skipCancelled()) {
    const n = q.headSeq();
    expect(q.headWeight()).toBe(n);
    expect(q.headArg()).toBe(n);
    out.push(q.shift().fn(0) as number);
  }
  return out;
}

describe('TaskQueue', () => {
  it('starts with a small chunk and doubles each next one up to the bound', () => {
    const q = new TaskQueue();
    const slots = pushAll(q, 0, 5000);
    const sizes = [...new Set(slots.map((s) => s.chunk))].map((c) => c.size);
    expect(sizes.slice(0, 4)).toEqual([FIRST_CHUNK, 2 * FIRST_CHUNK, 4 * FIRST_CHUNK, 8 * FIRST_CHUNK]);
    expect(Math.max(...sizes)).toBe(MAX_CHUNK);
    expect(sizes.reduce((s, n) => s + n, 0)).toBeGreaterThanOrEqual(5000);
    expect(drain(q)).toEqual(Array.from({ length: 5000 }, (_, n) => n));
    expect(q.isEmpty).toBe(true);
  });

  it('starts again from a small chunk once drained', () => {
    const q = new TaskQueue();
    pushAll(q, 0, 3 * FIRST_CHUNK);
    drain(q);
    const [slot] = pushAll(q, 0, 1);
    expect(slot!.chunk.size).toBe(FIRST_CHUNK);
  });

  it('keeps the order when tasks come and go across chunks of every size', () => {
    const q = new TaskQueue();
    const seen: number[] = [];
    let next = 0;
    for (let round = 0; round < 40; round++) {
      pushAll(q, next, next + 7 * round + 3);
      next += 7 * round + 3;
      for (let i = 0; i < 5 * round && q.skipCancelled(); i++) seen.push(q.shift().fn(0) as number);
    }
    seen.push(...drain(q));
    expect(seen).toEqual(Array.from({ length: next }, (_, n) => n));
  });

  it('skips and visits only the tasks not cancelled, oldest first', () => {
    const q = new TaskQueue();
    const slots = pushAll(q, 0, 100);
    const cancelled = [0, 1, 7, 8, 23, 24, 56, 99];
    for (const n of cancelled) expect(cancelSlot(slots[n]!)).toBe(ignore);
    expect(cancelSlot(slots[7]!)).toBeNull();
    expect(isLive(slots[7]!)).toBe(false);
    expect(isLive(slots[9]!)).toBe(true);
    const expected = Array.from({ length: 100 }, (_, n) => n).filter((n) => !cancelled.includes(n));
    const visited: number[] = [];
    q.forEachLive((_slot, weight) => visited.push(weight));
    expect(visited).toEqual(expected);
    expect(drain(q)).toEqual(expected);
    expect(q.isEmpty).toBe(true);
  });
});
