import { describe, expect, it } from 'vitest';
import { AUTO_MAX, askFor } from '../../src/redis/admission.js';

const auto = { prefetch: -1, maxBatch: 64, leaseMs: 20 };
const place = { limit: 100, windowMs: 1000, queued: 0, used: 0 };

describe('askFor', () => {
  it('asks for the weight of the task alone when nothing else waits', () => {
    expect(askFor([place], 3, { ...auto, prefetch: 0 })).toEqual({ want: 3, extra: 0, room: false, queued: 0 });
  });

  it('asks for what waits, up to a sixteenth of the limit (rounded up) and never below the weight', () => {
    // 100 / 16 = 6.25: 7.
    expect(askFor([{ ...place, queued: 30 }], 1, auto).want).toBe(7);
    expect(askFor([{ ...place, queued: 7 }], 1, auto).want).toBe(7);
    expect(askFor([{ ...place, queued: 6 }], 1, auto).want).toBe(6);
    expect(askFor([{ ...place, queued: 30 }], 9, auto).want).toBe(9);
  });

  it('asks for no more than maxBatch, nor than the sixteenth of the smallest limit linked', () => {
    const big = { limit: 10_000, windowMs: 1000, queued: 500, used: 0 };
    expect(askFor([big], 1, auto).want).toBe(64);
    expect(askFor([big], 1, { ...auto, maxBatch: 10 }).want).toBe(10);
    expect(askFor([big, { ...place, limit: 32 }], 1, auto)).toMatchObject({ want: 2, queued: 500 });
  });

  it('with "auto", asks beyond it for what this process sent in one lease at its rate over the window, at most AUTO_MAX, while the limit has room', () => {
    // 500 in the last 1000 ms: 10 in 20 ms.
    expect(askFor([{ ...place, limit: 1000, used: 500 }], 1, auto)).toMatchObject({ extra: 10, room: true });
    // 49 in 1000 ms: 0.98 in 20 ms, floored.
    expect(askFor([{ ...place, used: 49 }], 1, auto).extra).toBe(0);
    expect(askFor([{ ...place, used: 50 }], 1, auto).extra).toBe(1);
    expect(askFor([{ ...place, limit: 100_000, used: 100_000 }], 1, auto).extra).toBe(AUTO_MAX);
    // The least over the limits linked.
    expect(
      askFor(
        [
          { ...place, limit: 1000, used: 500 },
          { ...place, used: 50 },
        ],
        1,
        auto,
      ).extra,
    ).toBe(1);
  });

  it('with a number, asks for that many beyond what waits, whatever was sent', () => {
    expect(askFor([{ ...place, used: 0 }], 1, { ...auto, prefetch: 5 })).toMatchObject({ extra: 5, room: false });
  });
});
