import { describe, expect, it } from 'vitest';
import { Availability } from '../../src/redis/availability.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

describe('Availability', () => {
  it('goes down at the first failure, probes every retryMs on its clock, and comes back at the first answer', async () => {
    const clock = new VirtualClock();
    let answers = false;
    const events: string[] = [];
    const availability = new Availability({
      clock,
      retryMs: 20,
      isClosed: () => false,
      probe: () => (
        events.push(`probe@${clock.now()}`), answers ? Promise.resolve(1) : Promise.reject(new Error('down'))
      ),
      down: () => events.push('down'),
      up: () => events.push('up'),
      wake: () => events.push('wake'),
    });
    availability.failed(new Error('down'));
    availability.failed(new Error('again'));
    expect(availability.up).toBe(false);
    await clock.advance(40);
    answers = true;
    await clock.advance(20);
    expect(availability.up).toBe(true);
    expect(events).toEqual(['down', 'wake', 'probe@20', 'probe@40', 'probe@60', 'up', 'wake']);
    expect(clock.pendingTimers).toBe(0);
  });
});
