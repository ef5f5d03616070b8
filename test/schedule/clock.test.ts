import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/schedule/clock.js';

describe('VirtualClock', () => {
  it('fires timers in time order, then in the order set, as time passes them', async () => {
    const clock = new VirtualClock({ start: 100, wallStart: 5000 });
    const fired: string[] = [];
    clock.setTimer(() => fired.push(`b@${clock.now()}`), 50);
    clock.setTimer(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimer(() => fired.push(`c@${clock.now()}`), 50);
    const dropped = clock.setTimer(() => fired.push('never'), 20);
    clock.clearTimer(dropped);
    await clock.advance(49);
    expect(fired).toEqual(['a@110']);
    await clock.advance(1);
    expect(fired).toEqual(['a@110', 'b@150', 'c@150']);
    expect(clock.wall()).toBe(5050);
  });

  it('runs every timer to the end, including those set by timers', async () => {
    const clock = new VirtualClock();
    let n = 0;
    const tick = (): void => {
      if (++n < 5) clock.setTimer(tick, 100);
    };
    clock.setTimer(tick, 100);
    await clock.runAll();
    expect([n, clock.now(), clock.pendingTimers]).toEqual([5, 500, 0]);
    await expect(clock.advance(-1)).rejects.toThrow('non-negative');
  });
});
