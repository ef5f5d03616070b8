/** The most permits `prefetch: "auto"` asks for beyond what waits. */
export const AUTO_MAX = 32;

/** A limit a task waits on, as the policy reads it at the instant of asking. */
export interface AskingLimit {
  /** N. */
  readonly limit: number;
  /** W, ms. */
  readonly windowMs: number;
  /** The weight this process has waiting on the limit. */
  readonly queued: number;
  /** What this process sent on it in the window that ends now. */
  readonly used: number;
}

/** How a store asks: its `prefetch` (-1 for `"auto"`), `maxBatch` and `leaseMs` options. */
export interface AskPolicy {
  readonly prefetch: number;
  readonly maxBatch: number;
  readonly leaseMs: number;
}

/** What one request for permits asks Redis for (see lua/acquire.lua and lua/extra.lua). */
export interface Ask {
  /** The weight waiting, as much as one grant may take: at least the task's. */
  readonly want: number;
  /** Permits beyond `want`, a lease for tasks to come. */
  readonly extra: number;
  /** The extra only while the limit stays at most half used (`"auto"`). */
  readonly room: boolean;
  /** The most weight this process has waiting on any of the limits. */
  readonly queued: number;
}

/**
 * What to ask for a task of `weight` on `linked`, all at once. What waits, but never more than
 * `maxBatch` nor a sixteenth of any limit: processes that all wait when a window frees then take
 * turns rather than the fastest taking it all. Beyond it, with `prefetch: "auto"`, what this
 * process sent in the last `leaseMs` at its rate over the last window (at most {@link AUTO_MAX},
 * and only while the limit has room: Redis decides that); with a number, that many.

 */
export function askFor(linked: readonly AskingLimit[], weight: number, policy: AskPolicy): Ask {
  const auto = policy.prefetch < 0;
  let batch = policy.maxBatch;
  let queued = 0;
  let extra = auto ? AUTO_MAX : policy.prefetch;
  for (const l of linked) {
    if (l.queued > queued) queued = l.queued;
    batch = Math.min(batch, Math.ceil(l.limit / 16));
    if (auto) extra = Math.min(extra, Math.floor((l.used * policy.leaseMs) / l.windowMs));
  }
  return { want: Math.max(weight, Math.min(queued, batch)), extra, room: auto, queued };
}
