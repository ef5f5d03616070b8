/** A lease as {@link RecentGrants} reads it: `sent` grows while it is in use. */
interface RecentLease {
  readonly granted: number;
  readonly sent: number;
  readonly ended?: boolean | undefined;
}

/** An entry of a limit's log as this process adds it back to Redis: its id, weight and score. */
export interface RecentEntry {
  readonly id: string;
  readonly weight: number;
  /** A Redis instant no earlier than the one its last permit may have been sent at, ms. */
  readonly score: number;
}

/** How much longer than its window and margin a grant is kept: Redis counts none longer (a late arrival is bounded by a minute). */
const KEPT_BEYOND_MS = 60_000;

/** How many of the last entries {@link RecentGrants.ended} looks through for the lease that ended. */
const ENDED_LOOKUP = 64;

/**
 * What this process sent on one shared limit lately, from its own grants: after Redis lost them
 * (restarted or flushed, or failed over to a replica that had not yet received them), the process
 * adds them back, each under its id, so that the shared count is whole again without waiting for
 * a window (see docs/rules.md#r17). A grant Redis still holds is left as it is.
 */
export class RecentGrants {
  // One column per field, an entry per index from `head` (a grant, or weight LATE counted again),
  // in the order they came: no object per grant, and the numbers kept unboxed, for a limit may
  // send hundreds a second and each is kept for a minute.
  private ids: string[] = [];
  /** The lease it came with while in use; null once it ended, and for weight counted again. */
  private leases: (RecentLease | null)[] = [];
  /** The weight counted again, or sent on a lease that ended (0 for a lease in use). */
  private weights: number[] = [];
  /** The local instant its last permit may have been sent by. */
  private untils: number[] = [];
  /** A Redis instant no earlier than the one at local instant x is x plus this, ms. */
  private offsets: number[] = [];
  private head = 0;

  /** `spanMs`: W and the configured margin of the limit, ms. */
  constructor(private readonly spanMs: () => number) {}

  /** A lease granted to this process. */
  granted(lease: {
    readonly id: string;
    readonly granted: number;
    readonly sent: number;
    readonly until: number;
    readonly redisOffset: number;
    readonly ended?: boolean | undefined;
  }): void {
    this.add(lease.id, lease, 0, lease.until, lease.redisOffset);
  }

  /**
   * `lease` ended: what was sent on it is final, kept as its weight, and the lease let go of. A
   * lease ends soon after it was granted, so it is looked for among the last entries only; one not
   * found there is read at its end as before.
   */
  ended(lease: RecentLease): void {
    for (let i = this.ids.length - 1; i >= Math.max(this.head, this.ids.length - ENDED_LOOKUP); i--) {
      if (this.leases[i] !== lease) continue;
      this.weights[i] = lease.sent;
      this.leases[i] = null;
      return;
    }
  }

  /** Weight Redis counts again from its instant under `id` (LATE), sent by local instant `at`. */
  late(id: string, weight: number, at: number, redisOffset: number): void {
    this.add(id, null, weight, at, redisOffset);
  }

  /**
   * The entries that may still be in a window at local instant `now` (Redis leaves out those that
   * are not, by the margin in force): a lease still in use with all it was granted, one ended (at
   * its end, or before: its unsent permits were given back) with what was sent on it.
   */
  entries(now: number): RecentEntry[] {
    const keep = this.spanMs() + KEPT_BEYOND_MS;
    const out: RecentEntry[] = [];
    for (let i = this.head; i < this.ids.length; i++) {
      const until = this.untils[i]!;
      if (until + keep <= now) continue;
      const lease = this.leases[i]!;
      const weight = lease === null ? this.weights[i]! : now < until && !lease.ended ? lease.granted : lease.sent;
      if (weight > 0) out.push({ id: this.ids[i]!, weight, score: Math.ceil(until + this.offsets[i]!) });
    }
    return out;
  }

  private add(id: string, lease: RecentLease | null, weight: number, until: number, offset: number): void {
    this.ids.push(id);
    this.leases.push(lease);
    this.weights.push(weight);
    this.untils.push(until);
    this.offsets.push(offset);
    const keep = this.spanMs() + KEPT_BEYOND_MS;
    // An entry out of its time lets go of its lease and id at once, not when the columns are cut.
    while (this.head < this.ids.length && this.untils[this.head]! + keep < until) {
      this.leases[this.head] = null;
      this.ids[this.head] = '';
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.ids.length) {
      const h = this.head;
      this.ids = this.ids.slice(h);
      this.leases = this.leases.slice(h);
      this.weights = this.weights.slice(h);
      this.untils = this.untils.slice(h);
      this.offsets = this.offsets.slice(h);
      this.head = 0;
    }
  }
}
