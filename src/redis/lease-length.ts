/**
 * The longest lease a store makes its requests' leases when answers come late, unless `leaseMs`
 * is longer, ms. One figure for every process of a budget (not each one's `timeoutMs`): a Redis
 * that lost its data waits that long for what was granted before (lua/check.lua), and must not
 * wait less than another process's lease may have been.
 */
export const LEASE_MAX_MS = 250;

/** The longest lease a store of lease `leaseMs` gives a grant: {@link LEASE_MAX_MS}, or `leaseMs` if longer. */
export function longestLease(leaseMs: number): number {
  return Math.max(leaseMs, LEASE_MAX_MS);
}

/**
 * How long the permits of a grant may be sent after they were asked for: the store's `leaseMs`,
 * made longer for a while when an answer comes back after its lease has ended.
 *
 * Such an answer is of no use (its permits go back to Redis) and the request is made again. While
 * the answers take longer than the lease (a Redis far away, a process whose event loop runs late
 * because its CPU is taken), each would be made again for nothing, and the store would admit
 * nothing at all. So a late answer makes the next requests' lease twice as long as that answer
 * took, or twice the lease it carried, whichever is longer (never shorter than the lease in
 * force: the answers of one call, or of calls in flight together, raise it once), at most `maxMs`
 * ({@link LEASE_MAX_MS}, or `leaseMs` if longer). What was added halves every second after that,
 * back to `leaseMs`.
 *
 * A longer lease stays within the guarantee: Redis scores each grant by the lease its request
 * carries and counts it that much longer, and the process sends on it only until that lease ends
 * on its own clock; every request tells Redis `maxMs` too, so that after Redis lost its data it
 * waits out the longest lease a grant made before may still be sent on (lua/check.lua). It costs
 * throughput while it lasts: a saturated limit gives at most N x W / (W + lease).
 */
export class LeaseLength {
  /** What was added to `leaseMs` when it was last made longer, ms. */
  #added = 0;
  #addedAt = 0;

  constructor(
    readonly leaseMs: number,
    readonly maxMs = longestLease(leaseMs),
  ) {}

  /** The lease of a request made at `at`, whole ms. */
  at(at: number): number {
    if (this.#added === 0) return this.leaseMs;
    const added = Math.floor(this.#added * 0.5 ** (Math.max(0, at - this.#addedAt) / 1000));
    if (added === 0) this.#added = 0;
    return this.leaseMs + added;
  }

  /** An answer came back at `at`, `tookMs` after its request was made, too late for the lease `leaseMs` it carried. */
  late(tookMs: number, leaseMs: number, at: number): void {
    const next = Math.min(this.maxMs, Math.max(this.at(at), 2 * leaseMs, Math.ceil(2 * tookMs)));
    this.#added = Math.max(0, next - this.leaseMs);
    this.#addedAt = at;
  }
}
