import type { StoreLimit } from './limit.js';

/**
 * What a scheduler keeps about one of its limits, beside the limit: the tasks waiting on it and
 * their weight, the pass that last found it blocked, and whether it holds weight taken without an
 * instant. Kept by the scheduler rather than on the limit, so that a limit is only its budget.
 */
export class LimitBook {
  /** Tasks waiting on the limit. */
  waiting = 0;
  /** The weight of those tasks. */
  queuedWeight = 0;
  /** The pass that last found the limit blocked. */
  pass = 0;
  /** Whether the limit is in the scheduler's list of limits to stamp. */
  queuedStamp = false;

  constructor(readonly limit: StoreLimit) {}
}
