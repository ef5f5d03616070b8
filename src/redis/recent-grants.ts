/** One grant of this process, or weight it had counted again (LATE), as Redis should hold it. */
interface Granted {
  readonly id: string;
  /** The lease it came with, whose `sent` grows while it is in use; none for weight counted again. */
  readonly lease: { readonly granted: number; readonly sent: number; readonly ended?: boolean | undefined } | null;
  /** Its weight, for weight counted again. */
  readonly weight: number;
  /** The local instant its last permit may have been sent by. */
  readonly until: number;
  /** A Redis instant no earlier than the one at local instant x is x plus this, ms. */
  readonly redisOffset: number;
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

/**
 * What this process sent on one shared limit lately, from its own grants: after Redis lost them
 * (restarted or flushed, or failed over to a replica that had not yet received them), the process
 * adds them back, each under its id, so that the shared count is whole again without waiting for
 * a window (see docs/rules.md#r17). A grant Redis still holds is left as it is.
 */
export class RecentGrants {
  private list: Granted[] = [];
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
    this.add({ id: lease.id, lease, weight: 0, until: lease.until, redisOffset: lease.redisOffset });
  }

  /** Weight Redis counts again from its instant under `id` (LATE), sent by local instant `at`. */
  late(id: string, weight: number, at: number, redisOffset: number): void {
    this.add({ id, lease: null, weight, until: at, redisOffset });
  }

  /**
   * The entries that may still be in a window at local instant `now` (Redis leaves out those that
   * are not, by the margin in force): a lease still in use with all it was granted, one ended (at
   * its end, or before: its unsent permits were given back) with what was sent on it.
   */
  entries(now: number): RecentEntry[] {
    const keep = this.spanMs() + KEPT_BEYOND_MS;
    const out: RecentEntry[] = [];
    for (let i = this.head; i < this.list.length; i++) {
      const g = this.list[i]!;
      if (g.until + keep <= now) continue;
      const weight = g.lease === null ? g.weight : now < g.until && !g.lease.ended ? g.lease.granted : g.lease.sent;
      if (weight > 0) out.push({ id: g.id, weight, score: Math.ceil(g.until + g.redisOffset) });
    }
    return out;
  }

  private add(g: Granted): void {
    this.list.push(g);
    const keep = this.spanMs() + KEPT_BEYOND_MS;
    while (this.head < this.list.length && this.list[this.head]!.until + keep < g.until) this.head++;
    if (this.head > 1024 && this.head * 2 > this.list.length) {
      this.list = this.list.slice(this.head);
      this.head = 0;
    }
  }
}
