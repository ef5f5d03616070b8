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

/** How long after a lease ended an answer to one of its permits is still waited for, ms. */
const FOLLOWED_MS = 30_000;

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
  // The leases followed, one per index from `head`, from its grant until its permits' answers may
  // no longer come, one column per field: no object per lease, and the instants kept unboxed, for
  // a limit may be granted hundreds a second and each is followed for half a minute.
  private leases: ArrivalLease[] = [];
  /** Local instants: when the lease was given, and when it ended (Infinity while in use). */
  private from: number[] = [];
  private to: number[] = [];
  /** The weight answered, and the latest arrival at the exchange among those answers. */
  private answered: number[] = [];
  private latest: number[] = [];
  /** An answer may have been counted on the wrong lease, or a dispatch on none: never confirmed. */
  private spoiled: boolean[] = [];
  /** The arrival last told to Redis, a Redis instant (-Infinity: none). */
  private told: number[] = [];
  /** Bounded by answers: the weight sent as round trips that await their answer, and of it answered. */
  private tracked: number[] = [];
  private trackedAnswered: number[] = [];
  /** The entries LATE moved permits of it to (sent after it ended): confirmed with it. */
  private lates: (string[] | null)[] = [];
  /** The local instant the last of those permits was sent by (-Infinity: none). */
  private lateAt: number[] = [];
  private head = 0;
  /** The row of the lease at index 0: a row stays the lease's as the columns are cut. */
  private base = 0;
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

  /** A lease given at local instant `at`; returns its row (see {@link confirmedAt}). */
  granted(lease: ArrivalLease, at: number): number {
    this.prune(at);
    // A lease not said to have ended: its answers could not be told apart from the new one's.
    const last = this.leases.length - 1;
    if (last >= this.head && this.to[last] === Infinity) {
      this.to[last] = at;
      this.spoiled[last] = true;
    }
    this.add(lease, at, Infinity);
    return this.base + this.leases.length - 1;
  }

  /**
   * Bounded by answers, the Redis instant the grant of `row` was confirmed at (its permits' latest
   * arrival), while it is followed and every permit that awaits an answer has one; else null (see
   * {@link addBackScores}, which scores it alike). With the arrival estimate, always null: an
   * estimate may be made later for as long as the arrivals are kept (a quicker way there seen).
   */
  confirmedAt(row: number): number | null {
    const i = row - this.base;
    if (!this.isBounded || i < this.head || i >= this.leases.length) return null;
    const told = this.told[i]!;
    if (told === -Infinity || this.trackedAnswered[i]! < this.tracked[i]!) return null;
    return told;
  }

  /**
   * What was sent beside the leases (on the local share while Redis did not answer) was told to
   * Redis at local instant `at` as an entry of its own, `entry.id` (see lua/hello.lua): followed
   * like an ended lease, so that the requests of it still on their way confirm it once answered.
   */
  follow(entry: ArrivalLease, at: number): void {
    this.add(entry, at, at);
  }

  /** The lease in use ended at local instant `at`: no more is sent on it. */
  ended(lease: ArrivalLease, at: number): void {
    const i = this.find(lease);
    if (i < 0) return;
    this.to[i] = at;
    if (lease.sent === 0) this.spoiled[i] = true;
    this.settle(i);
  }

  /** Something was sent on this limit beside the lease in use: its answers could not be told apart. */
  spoil(lease: ArrivalLease): void {
    const i = this.find(lease);
    if (i >= 0) this.spoiled[i] = true;
  }

  /**
   * A request of `weight` sent at local instant `sentAt` reached the exchange at `arrivedAt`
   * (at or after it); `again`: the same request, counted later than before. True when a
   * confirmation waits to be sent.
   */
  arrived(weight: number, sentAt: number, arrivedAt: number, again: boolean): boolean {
    let match = -1;
    for (let i = this.leases.length - 1; i >= this.head; i--) {
      if (this.from[i]! > sentAt) continue;
      if (this.to[i]! < sentAt) break;
      if (match >= 0) {
        this.spoiled[match] = true;
        this.spoiled[i] = true;
        return false;
      }
      match = i;
    }
    if (match < 0) return false;
    if (!again) this.answered[match]! += weight;
    if (arrivedAt > this.latest[match]!) this.latest[match] = arrivedAt;
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
    const i = this.find(lease);
    if (i >= 0) this.tracked[i]! += weight;
  }

  /**
   * The answer to `weight` sent on `lease` (as {@link track} told) came back: the request reached
   * the exchange at `latest` at the latest. True when a confirmation waits to be sent.
   */
  answer(lease: ArrivalLease, weight: number, latest: number): boolean {
    const i = this.find(lease);
    if (i < 0) return false;
    this.trackedAnswered[i]! += weight;
    if (latest > this.latest[i]!) this.latest[i] = latest;
    this.settle(i);
    return this.pending.length > 0;
  }

  /**
   * Permits of `lease` may have been sent after it ended, by local instant `at`, and are counted by
   * an entry of their own, `id` (see lua/late.lua): bounded by answers, the entry is confirmed with
   * the lease, at the same arrival, for their answers are the lease's; permits not followed to an
   * answer count as sent at `at`, at the latest. Returns the lease's row, or -1 when it is not
   * followed.
   */
  late(lease: ArrivalLease, id: string, at: number): number {
    const i = this.find(lease);
    if (i < 0) return -1;
    (this.lates[i] ??= []).push(id);
    if (at > this.lateAt[i]!) this.lateAt[i] = at;
    return this.base + i;
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
    const byId = new Map<string, number>();
    for (let i = this.head; i < this.leases.length; i++) {
      byId.set(this.leases[i]!.id, i);
      const lates = this.lates[i];
      if (lates != null) for (const id of lates) byId.set(id, i);
    }
    return (id, score) => {
      const i = byId.get(id);
      if (i === undefined) return score;
      const told = this.told[i]!;
      if (this.isBounded && (this.trackedAnswered[i]! < this.tracked[i]! || told === -Infinity)) return score + holdMs;
      return Math.max(score, told);
    };
  }

  /** Follows `lease` from local instant `from` to `to`, nothing heard of it yet. */
  private add(lease: ArrivalLease, from: number, to: number): void {
    this.leases.push(lease);
    this.from.push(from);
    this.to.push(to);
    this.answered.push(0);
    this.latest.push(-Infinity);
    this.spoiled.push(false);
    this.told.push(-Infinity);
    this.tracked.push(0);
    this.trackedAnswered.push(0);
    this.lates.push(null);
    this.lateAt.push(-Infinity);
  }

  private settle(i: number): void {
    if (this.isBounded) {
      this.settleBounded(i);
      return;
    }
    if (this.to[i] === Infinity) return;
    const sent = this.leases[i]!.sent;
    if (this.answered[i]! > sent) this.spoiled[i] = true;
    const latest = this.latest[i]!;
    if (this.spoiled[i] || this.answered[i]! < sent || latest === -Infinity) return;
    const at = Math.ceil(latest + this.leases[i]!.redisOffset);
    if (at <= this.told[i]!) return;
    this.told[i] = at;
    this.pending.push({ id: this.leases[i]!.id, at });
  }

  /** {@link settle} when bounded by answers: matched by the round trips, not by instants. */
  private settleBounded(i: number): void {
    const lease = this.leases[i]!;
    const tracked = this.tracked[i]!;
    if (lease.sent === 0 || this.trackedAnswered[i]! < tracked) return;
    const to = this.to[i]!;
    if (to === Infinity && (lease.granted === undefined || lease.sent < lease.granted)) return;
    // Permits sent without awaiting an answer count as sent at the end of the lease at the latest,
    // or when LATE said the last of them was sent after it.
    const untracked = lease.sent > tracked;
    const latest = untracked ? Math.max(this.latest[i]!, lease.until ?? to, this.lateAt[i]!) : this.latest[i]!;
    if (latest === Infinity || latest === -Infinity) return;
    const at = Math.ceil(latest + lease.redisOffset);
    if (at <= this.told[i]!) return;
    this.told[i] = at;
    this.confirm(i, at);
  }

  /** Confirms the grant of lease `i` at Redis instant `at`, with the entries LATE moved permits of it to. */
  private confirm(i: number, at: number): void {
    this.pending.push({ id: this.leases[i]!.id, at });
    const lates = this.lates[i];
    if (lates != null) for (const id of lates) this.pending.push({ id, at });
  }

  /** The index of `lease` among those followed, or -1. */
  private find(lease: ArrivalLease): number {
    for (let i = this.leases.length - 1; i >= this.head; i--) if (this.leases[i] === lease) return i;
    return -1;
  }

  private prune(at: number): void {
    // A grant whose permits still wait for their answer stays followed, as long as Redis holds it.
    while (this.head < this.leases.length) {
      const to = this.to[this.head]!;
      const waiting = this.trackedAnswered[this.head]! < this.tracked[this.head]!;
      if (to >= at - FOLLOWED_MS || (waiting && to >= at - FOLLOWED_MS - UNANSWERED_MAX_MS)) break;
      // Let go of the lease at once, not when the columns are cut.
      (this.leases as (ArrivalLease | null)[])[this.head] = null;
      this.lates[this.head] = null;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.leases.length) {
      const h = this.head;
      this.leases = this.leases.slice(h);
      this.from = this.from.slice(h);
      this.to = this.to.slice(h);
      this.answered = this.answered.slice(h);
      this.latest = this.latest.slice(h);
      this.spoiled = this.spoiled.slice(h);
      this.told = this.told.slice(h);
      this.tracked = this.tracked.slice(h);
      this.trackedAnswered = this.trackedAnswered.slice(h);
      this.lates = this.lates.slice(h);
      this.lateAt = this.lateAt.slice(h);
      this.base += h;
      this.head = 0;
    }
  }
}
