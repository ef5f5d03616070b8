import type { GrantArrival } from './calls.js';

/** A lease as {@link GrantArrivals} follows it. */
export interface ArrivalLease {
  readonly id: string;
  /** The weight sent on it (final once the lease has ended). */
  readonly sent: number;
  /** A Redis instant no earlier than the one at local instant x is x plus this, ms. */
  readonly redisOffset: number;
}

/** One lease of this process, from its grant until its permits' answers may no longer come. */
interface Followed {
  readonly lease: ArrivalLease;
  /** Local instants: when the lease was given, and when it ended (Infinity while in use). */
  readonly from: number;
  to: number;
  /** The weight answered, and the latest arrival at the exchange among those answers. */
  answered: number;
  latest: number;
  /** An answer may have been counted on the wrong lease, or a dispatch on none: never confirmed. */
  spoiled: boolean;
  /** The arrival last told to Redis (-Infinity: none). */
  told: number;
}

/** How long after a lease ended an answer to one of its permits is still waited for, ms. */
const FOLLOWED_MS = 30_000;

/**
 * The leases of one shared limit, matched with the arrivals of the requests sent on them (R13).
 * A lease whose every permit sent was answered is confirmed to Redis with the latest arrival
 * among them, as a Redis instant no earlier than it: Redis then counts the grant until that
 * arrival plus the window, instead of the lease's end plus the window and the latest lateness any
 * process measured lately. Such a confirmation rides on the process's next ACQUIRE on the limit.
 *
 * An answer is matched by its send instant: the permits of one lease are taken, and their tasks
 * start, between its grant and its end, and the next lease is given only after that. An answer
 * that falls within two leases (the same instant, on a coarse or virtual clock) spoils both, and
 * a lease on which more weight is answered than was sent, or during which the process sent on
 * something else, is never confirmed: Redis counts it as if nothing were known.
 */
export class GrantArrivals {
  private list: Followed[] = [];
  private head = 0;
  private pending: GrantArrival[] = [];

  /** A lease given at local instant `at`. */
  granted(lease: ArrivalLease, at: number): void {
    this.prune(at);
    // A lease not said to have ended: its answers could not be told apart from the new one's.
    const last = this.list.length > this.head ? this.list[this.list.length - 1]! : undefined;
    if (last !== undefined && last.to === Infinity) {
      last.to = at;
      last.spoiled = true;
    }
    this.list.push({ lease, from: at, to: Infinity, answered: 0, latest: -Infinity, spoiled: false, told: -Infinity });
  }

  /** The lease in use ended at local instant `at`: no more is sent on it. */
  ended(lease: ArrivalLease, at: number): void {
    const f = this.find(lease);
    if (f === undefined) return;
    f.to = at;
    if (lease.sent === 0) f.spoiled = true;
    this.settle(f);
  }

  /** Something was sent on this limit beside the lease in use: its answers could not be told apart. */
  spoil(lease: ArrivalLease): void {
    const f = this.find(lease);
    if (f !== undefined) f.spoiled = true;
  }

  /**
   * A request of `weight` sent at local instant `sentAt` reached the exchange at `arrivedAt`
   * (at or after it); `again`: the same request, counted later than before. True when a
   * confirmation waits to be sent.
   */
  arrived(weight: number, sentAt: number, arrivedAt: number, again: boolean): boolean {
    const list = this.list;
    let match: Followed | undefined;
    for (let i = list.length - 1; i >= this.head; i--) {
      const f = list[i]!;
      if (f.from > sentAt) continue;
      if (f.to < sentAt) break;
      if (match !== undefined) {
        match.spoiled = true;
        f.spoiled = true;
        return false;
      }
      match = f;
    }
    if (match === undefined) return false;
    if (!again) match.answered += weight;
    if (arrivedAt > match.latest) match.latest = arrivedAt;
    this.settle(match);
    return this.pending.length > 0;
  }

  /** The confirmations not yet sent, handed over (to the next ACQUIRE on the limit). */
  take(): GrantArrival[] {
    const p = this.pending;
    if (p.length > 0) this.pending = [];
    return p;
  }

  /** Confirmations whose ACQUIRE failed: sent again with the next. */
  restore(confirmed: readonly GrantArrival[]): void {
    if (confirmed.length > 0) this.pending = [...confirmed, ...this.pending];
  }

  private settle(f: Followed): void {
    if (f.to === Infinity) return;
    if (f.answered > f.lease.sent) f.spoiled = true;
    if (f.spoiled || f.answered < f.lease.sent || f.latest <= f.told) return;
    f.told = f.latest;
    this.pending.push({ id: f.lease.id, at: Math.ceil(f.latest + f.lease.redisOffset) });
  }

  private find(lease: ArrivalLease): Followed | undefined {
    for (let i = this.list.length - 1; i >= this.head; i--) if (this.list[i]!.lease === lease) return this.list[i];
    return undefined;
  }

  private prune(at: number): void {
    const list = this.list;
    while (this.head < list.length && list[this.head]!.to < at - FOLLOWED_MS) this.head++;
    if (this.head > 1024 && this.head * 2 > list.length) {
      this.list = list.slice(this.head);
      this.head = 0;
    }
  }
}
