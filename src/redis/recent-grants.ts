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
 * Entries in the order they came, one column per field, from `head` on: no object per grant,
 * and the numbers kept unboxed, for a limit may send hundreds a second.
 */
class Columns {
  ids: string[] = [];
  /** The lease it came with while in use; null once it ended, and for weight counted again. */
  leases: (RecentLease | null)[] = [];
  /** The weight counted again, or sent on a lease that ended (0 for a lease in use). */
  weights: number[] = [];
  /** The local instant its last permit may have been sent by. */
  untils: number[] = [];
  /** A Redis instant no earlier than the one at local instant x is x plus this, ms. */
  offsets: number[] = [];
  /** Its grant's row among the leases followed to their answers (see GrantArrivals), or -1. */
  rows: number[] = [];
  head = 0;

  get size(): number {
    return this.ids.length;
  }

  push(id: string, lease: RecentLease | null, weight: number, until: number, offset: number, row: number): void {
    this.ids.push(id);
    this.leases.push(lease);
    this.weights.push(weight);
    this.untils.push(until);
    this.offsets.push(offset);
    this.rows.push(row);
  }

  /** Entry `i` in `to`, as it is. */
  copy(i: number, to: Columns): void {
    to.push(this.ids[i]!, this.leases[i]!, this.weights[i]!, this.untils[i]!, this.offsets[i]!, this.rows[i]!);
  }

  /**
   * Drops the entry at the head: its lease and id are let go of at once, and the columns are cut
   * once more than half of them is behind the head (a copy of what is left, no more often than
   * that: as much work again as the entries added, whatever their number).
   */
  shift(): void {
    this.leases[this.head] = null;
    this.ids[this.head] = '';
    this.head++;
    if (this.head > 64 && this.head * 2 > this.ids.length) {
      const h = this.head;
      this.ids = this.ids.slice(h);
      this.leases = this.leases.slice(h);
      this.weights = this.weights.slice(h);
      this.untils = this.untils.slice(h);
      this.offsets = this.offsets.slice(h);
      this.rows = this.rows.slice(h);
      this.head = 0;
    }
  }

  /** `lease` ended: what was sent on it is final, kept as its weight. True when it was found. */
  ended(lease: RecentLease): boolean {
    for (let i = this.ids.length - 1; i >= Math.max(this.head, this.ids.length - ENDED_LOOKUP); i--) {
      if (this.leases[i] !== lease) continue;
      this.weights[i] = lease.sent;
      this.leases[i] = null;
      return true;
    }
    return false;
  }

  /** The entries still in a window at local instant `now` (see {@link RecentGrants.entries}), into `out`. */
  entries(now: number, keep: number, out: RecentEntry[]): void {
    for (let i = this.head; i < this.ids.length; i++) {
      const until = this.untils[i]!;
      if (until + keep <= now) continue;
      const lease = this.leases[i]!;
      const weight = lease === null ? this.weights[i]! : now < until && !lease.ended ? lease.granted : lease.sent;
      if (weight > 0) out.push({ id: this.ids[i]!, weight, score: Math.ceil(until + this.offsets[i]!) });
    }
  }
}

/** What {@link RecentGrants} is told of the limit and of its grants' answers. */
export interface RecentGrantsOf {
  /** W and the configured margin of the limit, ms. */
  spanMs(): number;
  /** The longest lease a grant may carry, ms: a grant's answer came back within it. */
  leaseMaxMs(): number;
  /**
   * The Redis instant by which the permits of the grant of `row` reached the exchange, from their
   * answers, as this process confirmed it (see GrantArrivals); null while it has not, or no longer
   * follows it.
   */
  confirmedAt(row: number): number | null;
}

/**
 * What this process sent on one shared limit lately, from its own grants: after Redis lost them
 * (restarted or flushed, or failed over to a replica that had not yet received them), the process
 * adds them back, each under its id, so that the shared count is whole again without waiting for
 * a window (see docs/rules.md#r17). A grant Redis still holds is left as it is.
 *
 * A grant is kept while Redis may still count it. Once its permits' arrivals are confirmed, Redis
 * counts it until the latest of them plus W and the margin: it is let go of then (on Redis's
 * clock, read no later than it can be: its grant's answer came back within its lease). One not
 * confirmed then is kept for W, the margin and a minute after its lease's end, as long as Redis
 * may count it with the latest lateness measured.
 */
export class RecentGrants {
  /** The entries not yet decided on, in the order they came. */
  private readonly young = new Columns();
  /** Those not confirmed when decided on: kept for W, the margin and a minute. */
  private readonly held = new Columns();

  constructor(private readonly of: RecentGrantsOf) {}

  /** A lease granted to this process at local instant `now`, followed to its answers as `row` (-1: not). */
  granted(
    lease: {
      readonly id: string;
      readonly granted: number;
      readonly sent: number;
      readonly until: number;
      readonly redisOffset: number;
      readonly ended?: boolean | undefined;
    },
    row: number,
    now: number,
  ): void {
    this.young.push(lease.id, lease, 0, lease.until, lease.redisOffset, row);
    this.prune(now);
  }

  /**
   * `lease` ended: what was sent on it is final, kept as its weight, and the lease let go of. A
   * lease ends soon after it was granted, so it is looked for among the last entries only; one not
   * found there is read at its end as before.
   */
  ended(lease: RecentLease): void {
    if (!this.young.ended(lease)) this.held.ended(lease);
  }

  /**
   * Weight Redis counts again from its instant under `id` (LATE), sent by local instant `at`,
   * moved out of the grant of `row` (confirmed with it).
   */
  late(id: string, weight: number, at: number, redisOffset: number, row: number): void {
    this.young.push(id, null, weight, at, redisOffset, row);
    this.prune(at);
  }

  /**
   * The entries that may still be in a window at local instant `now` (Redis leaves out those that
   * are not, by the margin in force): a lease still in use with all it was granted, one ended (at
   * its end, or before: its unsent permits were given back) with what was sent on it.
   */
  entries(now: number): RecentEntry[] {
    const keep = this.of.spanMs() + KEPT_BEYOND_MS;
    const out: RecentEntry[] = [];
    this.held.entries(now, keep, out);
    this.young.entries(now, keep, out);
    return out;
  }

  /**
   * Decides on the entries whose lease ended W, the margin and the longest lease ago: let go of
   * those Redis no longer counts, keep those not confirmed; stops at one confirmed that Redis
   * still counts (it will not for long). Lets go of those held a minute longer.
   */
  private prune(now: number): void {
    const span = this.of.spanMs();
    const leaseMax = this.of.leaseMaxMs();
    const young = this.young;
    while (young.head < young.size) {
      const i = young.head;
      const until = young.untils[i]!;
      if (until + span + leaseMax + 2 > now) break;
      const row = young.rows[i]!;
      const at = row < 0 ? null : this.of.confirmedAt(row);
      if (at === null) young.copy(i, this.held);
      // Redis counts it until `at` + span, and its clock at local instant `now` is no earlier than
      // now + offset - 1 - leaseMax (it read its grant's instant before answering, within the
      // lease). Its score (until + offset, ceiled) plus span is past already, at the decision.
      else if (at + span > now + young.offsets[i]! - 1 - leaseMax) break;
      young.shift();
    }
    const held = this.held;
    while (held.head < held.size && held.untils[held.head]! + span + KEPT_BEYOND_MS < now) held.shift();
  }
}
