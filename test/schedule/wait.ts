import type { TakeResult } from '../../src/schedule/limit.js';

/** A take's answer as the wait it says: 0 when taken, else its `retryAfterMs`. */
export function waitOf(result: TakeResult): number {
  return result.ok ? 0 : result.retryAfterMs;
}
