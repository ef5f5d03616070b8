import { describe, expect, it } from 'vitest';
import { Deadlines } from '../../src/schedule/deadlines.js';
import { cancelSlot } from '../../src/schedule/queue.js';
import { WaitingTasks } from '../../src/schedule/waiting.js';

const one = (): number => 1;
const ignore = (): void => {};

/** A group of one waiting queue, and `count` tasks in it with their slots. */
function tasks(count: number) {
  const waiting = new WaitingTasks();
  const group = waiting.groupFor(0, [], []);
  const slots = Array.from({ length: count }, () => waiting.push(group, one, ignore, 1, 0));
  return { waiting, group, slots };
}

describe('Deadlines', () => {
  it('keeps no entry for a deadline that never comes', () => {
    const { group, slots } = tasks(3);
    const deadlines = new Deadlines();
    for (const slot of slots) deadlines.add(Infinity, slot, group);
    expect(deadlines.size).toBe(0);
    expect(deadlines.next(3)).toBe(Infinity);
  });

  it('gives the earliest deadline of a task still waiting', () => {
    const { group, slots } = tasks(3);
    const deadlines = new Deadlines();
    deadlines.add(300, slots[0]!, group);
    deadlines.add(100, slots[1]!, group);
    deadlines.add(200, slots[2]!, group);
    expect(deadlines.next(3)).toBe(100);
    cancelSlot(slots[1]!);
    expect(deadlines.next(2)).toBe(200);
  });

  it('drops the entries of tasks that left once they outnumber the waiting ones', () => {
    const { group, slots } = tasks(5000);
    const deadlines = new Deadlines();
    for (const slot of slots) deadlines.add(3_600_000, slot, group);
    for (const slot of slots.slice(1)) cancelSlot(slot);
    expect(deadlines.next(1)).toBe(3_600_000);
    expect(deadlines.size).toBe(1);
  });

  it('takes out the deadlines past `now`, and those at `now` only when told', () => {
    const { group, slots } = tasks(2);
    const deadlines = new Deadlines();
    deadlines.add(10, slots[0]!, group);
    deadlines.add(20, slots[1]!, group);
    expect(deadlines.due(10, false)).toBeNull();
    expect(deadlines.due(10, true)?.at).toBe(10);
    expect(deadlines.due(30, false)?.at).toBe(20);
    expect(deadlines.due(30, true)).toBeNull();
  });
});
