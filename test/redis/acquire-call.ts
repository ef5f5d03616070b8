import type { AcquireCall } from '../../src/redis/calls.js';

/** The instant the tests that run a script themselves give it (Redis's clock is not read). */
export const T0 = 1_000_000_000;

/** An ACQUIRE at {@link T0} of `weight` 1 on one limit "orders" of 10 per second, with a lease of 20 ms, as process "p". */
export function acquireCall(
  id: string,
  o: Partial<AcquireCall> = {},
  limit: Partial<AcquireCall['limits'][number]> = {},
): AcquireCall {
  return {
    at: T0,
    id,
    weight: 1,
    want: 1,
    leaseMs: 20,
    deadline: 0,
    process: 'p',
    processes: 0,
    staleMs: 1000,
    graceMs: 0,
    extra: 0,
    room: false,
    queued: 1,
    unlimited: 1_000_000_000,
    ...o,
    limits: [{ name: 'orders', limit: 10, windowMs: 1000, marginMs: 0, reserved: 0, lateMs: 0, ...limit }],
  };
}
