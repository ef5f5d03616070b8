import { describe, expect, it } from 'vitest';
import { Outbox, type Pending } from '../../src/redis/outbox.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

function write(n: number): Pending {
  return { script: 'release', keys: ['k'], args: [n] };
}

describe('Outbox', () => {
  it('retries failed writes every retryMs on its clock, and sends them before a later one', async () => {
    const clock = new VirtualClock();
    let down = true;
    const sent: number[] = [];
    const failures: unknown[] = [];
    const outbox = new Outbox({
      clock,
      retryMs: 50,
      run: (p) => (down ? Promise.reject(new Error('down')) : (sent.push(p.args[0] as number), Promise.resolve(1))),
      failed: (e) => failures.push(e),
      isClosed: () => false,
    });
    outbox.send(write(1));
    outbox.send(write(2));
    await clock.advance(0);
    expect(sent).toEqual([]);
    expect(failures).toHaveLength(1);
    await clock.advance(49);
    expect(failures).toHaveLength(1);
    await clock.advance(1);
    expect(failures).toHaveLength(2);
    down = false;
    outbox.send(write(3));
    await clock.advance(0);
    // A new write sends at once, after the writes that failed.
    expect(sent).toEqual([1, 2, 3]);
    await clock.advance(50);
    expect(sent).toEqual([1, 2, 3]);
    expect(clock.pendingTimers).toBe(0);
  });
});
