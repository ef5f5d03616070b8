import { UNANSWERED_MAX_MS } from '../schedule/unanswered.js';
import type { GrantArrival } from './calls.js';

/** A lease as {@link GrantArrivals} follows it. */
export interface ArrivalLease {
  readonly id: string;
  /** The weight sent on it (final once the lease has ended). */
  readonly sent: number;
  /** A Redis instant no earlier than the one at local instant x is x plus this, ms. */
  readonly redisOffset: number;
  /** The weight granted, and the local instant by which its permits are sent. */
  readonly granted?: number;
  readonly until?: number;
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
  /** Bounded by answers: the weight sent as round trips that await their answer, and of it answered. */
  tracked: number;
  trackedAnswered: number;
  /** The entries LATE moved permits of it to (sent after it ended): confirmed with it. */
  lates: string[] | null;
}

/** How long after a lease ended an answer to one of its permits is still waited for, ms. */
const FOLLOWED_MS = 30_000;

/** A lease (or an entry sent beside the leases) followed from `from` to `to`, nothing heard of it yet. */
function followed(lease: ArrivalLease, from: number, to: number): Followed {
  return {
    lease,
    from,
    to,
    answered: 0,
    latest: -Infinity,
    spoiled: false,
    told: -Infinity,
    tracked: 0,
    trackedAnswered: 0,
    lates: null,
  };
}

/**
 * The leases of one shared limit, matched with the arrivals of the requests sent on them (see docs/rules.md#r13).
 * A lease whose every permit sent was answered is confirmed to Redis with the latest arrival
 * among them, as a Redis instant no earlier than it: Redis then counts the grant until that
 * arrival plus the window, instead of the lease's end plus the window and the latest lateness any
 * process measured lately. Such a confirmation rides on the process's next ACQUIRE on the limit.
 *
 * By default (arrivals bounded by answers) each round trip is followed to the lease it took its
 * permit from ({@link track}, {@link answer}), and the arrival confirmed is the latest instant any
 * of them can have reached the exchange, their answers. Until then Redis holds the grant (see
 * lua/grant.lua): nothing this process must say in time, however long it is held up or cut off
 * from Redis, keeps a request still on its way counted. With the arrival estimate (the option), an answer is matched by its send
 * instant: the permits of one lease are taken, and their tasks start, between its grant and its
 * end, and the next lease is given only after that. An answer that falls within two leases (the
 * same instant, on a coarse or virtual clock) spoils both, and a lease on which more weight is
 * answered than was sent, or during which the process sent on something else, is never
 * confirmed: Redis counts it as if nothing were known.
 */
export class GrantArrivals {
  /** Round trips tell of their answers (arrivals bounded by answers): see {@link track}. */
  private isBounded = false;
  private list: Followed[] = [];
  private head = 0;
  private pending: GrantArrival[] = [];

  /**
   * Whether the requests sent on the limit are followed to their answers (arrivals bounded by
   * answers): from {@link bound}, or the first {@link track}. Redis then holds each grant until it
   * is confirmed.
   */
  get bounded(): boolean {
    return this.isBounded;
  }

  /** The requests sent on the limit will be followed to their answers (see {@link bounded}). */
  bound(): void {
    this.isBounded = true;
  }

  /** A lease given at local instant `at`. */
  granted(lease: ArrivalLease, at: number): void {
    this.prune(at);
    // A lease not said to have ended: its answers could not be told apart from the new one's.
    const last = this.list.length > this.head ? this.list[this.list.length - 1]! : undefined;
    if (last !== undefined && last.to === Infinity) {
      last.to = at;
      last.spoiled = true;
    }
    this.list.push(followed(lease, at, Infinity));
  }

  /**
   * What was sent beside the leases (on the local share while Redis did not answer) was told to
   * Redis at local instant `at` as an entry of its own, `entry.id` (see lua/hello.lua): followed
   * like an ended lease, so that the requests of it still on their way confirm it once answered.
   */
  follow(entry: ArrivalLease, at: number): void {
    this.list.push(followed(entry, at, at));
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

  /**
   * Arrivals bounded by answers (see docs/rules.md#r13): `weight` sent on `lease` awaits its answer (a round trip).
   * From then on every lease of the limit is confirmed from its answers: when the lease is over
   * (ended, or all of it sent) and every permit that awaits an answer has one, at the latest
   * instant any of them can have reached the exchange (the end of the lease for permits sent
   * otherwise). Permits not answered keep their grant held in Redis.
   */
  track(lease: ArrivalLease, weight: number): void {
    this.isBounded = true;
    const f = this.find(lease);
    if (f !== undefined) f.tracked += weight;
  }

  /**
   * The answer to `weight` sent on `lease` (as {@link track} told) came back: the request reached
   * the exchange at `latest` at the latest. True when a confirmation waits to be sent.
   */
  answer(lease: ArrivalLease, weight: number, latest: number): boolean {
    const f = this.find(lease);
    if (f === undefined) return false;
    f.trackedAnswered += weight;
    if (latest > f.latest) f.latest = latest;
    this.settle(f);
    return this.pending.length > 0;
  }

  /**
   * Permits of `lease` may have been sent after it ended and are counted by an entry of their own,
   * `id` (see lua/late.lua): bounded by answers, the entry is confirmed with the lease, at the same
   * arrival, for their answers are the lease's.
   */
  late(lease: ArrivalLease, id: string): void {
    const f = this.find(lease);
    if (f !== undefined) (f.lates ??= []).push(id);
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

  /**
   * The score, a Redis instant, at which a grant (or LATE entry) is added back after Redis lost it,
   * given its id and the score this process kept (see recent-grants.ts): held `holdMs` longer
   * while its requests await their answers, as Redis held it; once confirmed, no earlier than its
   * arrival. One pass over the leases followed serves every grant added back at once (a loss adds
   * back every grant of the last minute; a pass for each took time in the square of their
   * number). The latest lease followed under an id (or whose permits LATE moved under it) answers
   * for it.
   */
  addBackScores(holdMs: number): (id: string, score: number) => number {
    const byId = new Map<string, Followed>();
    for (let i = this.head; i < this.list.length; i++) {
      const f = this.list[i]!;
      byId.set(f.lease.id, f);
      if (f.lates !== null) for (const id of f.lates) byId.set(id, f);
    }
    return (id, score) => {
      const f = byId.get(id);
      if (f === undefined) return score;
      if (this.isBounded && (f.trackedAnswered < f.tracked || f.told === -Infinity)) return score + holdMs;
      return Math.max(score, f.told);
    };
  }

  private settle(f: Followed): void {
    if (this.isBounded) {
      this.settleBounded(f);
      return;
    }
    if (f.to === Infinity) return;
    if (f.answered > f.lease.sent) f.spoiled = true;
    if (f.spoiled || f.answered < f.lease.sent || f.latest <= f.told) return;
    f.told = f.latest;
    this.pending.push({ id: f.lease.id, at: Math.ceil(f.latest + f.lease.redisOffset) });
  }

  /** {@link settle} when bounded by answers: matched by the round trips, not by instants. */
  private settleBounded(f: Followed): void {
    const { lease } = f;
    if (lease.sent === 0 || f.trackedAnswered < f.tracked) return;
    if (f.to === Infinity && (lease.granted === undefined || lease.sent < lease.granted)) return;
    // Permits sent without awaiting an answer count as sent at the end of the lease, at the latest.
    const untracked = lease.sent > f.tracked;
    const latest = untracked ? Math.max(f.latest, lease.until ?? f.to) : f.latest;
    if (latest === Infinity || latest === -Infinity) return;
    const at = Math.ceil(latest + lease.redisOffset);
    if (at <= f.told) return;
    f.told = at;
    this.confirm(f, at);
  }

  /** Confirms the grant of `f` at Redis instant `at`, with the entries LATE moved permits of it to. */
  private confirm(f: Followed, at: number): void {
    this.pending.push({ id: f.lease.id, at });
    if (f.lates !== null) for (const id of f.lates) this.pending.push({ id, at });
  }

  private find(lease: ArrivalLease): Followed | undefined {
    for (let i = this.list.length - 1; i >= this.head; i--) if (this.list[i]!.lease === lease) return this.list[i];
    return undefined;
  }

  private prune(at: number): void {
    const list = this.list;
    // A grant whose permits still wait for their answer stays followed, as long as Redis holds it.
    while (this.head < list.length) {
      const f = list[this.head]!;
      if (f.to >= at - FOLLOWED_MS || (f.trackedAnswered < f.tracked && f.to >= at - FOLLOWED_MS - UNANSWERED_MAX_MS))
        break;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > list.length) {
      this.list = list.slice(this.head);
      this.head = 0;
    }
  }
}
