import { markBuild } from '../schedule/build.js';
import { ownerOf, type StoreLimit, type TakeResult, takeResult } from '../schedule/limit.js';
import type { LimitHost } from '../schedule/store.js';
import { UNANSWERED_MAX_MS, type UnansweredRequest } from '../schedule/unanswered.js';
import { WindowLimit, type WindowLimitOptions, type WindowLimitState } from '../schedule/window.js';
import { checkTake } from '../schedule/window-input.js';
import type { GrantArrival } from './calls.js';
import { type ArrivalLease, GrantArrivals } from './grant-arrivals.js';
import { longestLease } from './lease-length.js';
import { type RecentEntry, RecentGrants } from './recent-grants.js';

/** Permits granted by the store to this process: usable until `until` on the local clock. */
export interface Lease {
  readonly id: string;
  readonly granted: number;
  sent: number;
  readonly until: number;
  /** Of `sent`, the weight not yet given an instant read after it was sent (see `stamp`). */
  unstamped: number;
  /** A Redis instant no earlier than the one at local instant x is x plus this, ms. */
  readonly redisOffset: number;
  /** Ended (what was not sent given back), perhaps before `until`. */
  ended?: boolean;
}

/** What a shared limit asks of its store. */
export interface Broker {
  /** How long a grant may be used after it was asked for, in milliseconds. */
  readonly leaseMs: number;
  /** Asks for permits for `linked`, all or none. */
  acquire(linked: readonly SharedLimit[], weight: number, priority: number): void;
  /** Gives back what was not sent of a lease. */
  endLease(limit: SharedLimit, lease: Lease): void;
  /**
   * Weight of a lease that may have been sent after it ended (a clock read `at`, after the
   * dispatch, is past it): has it counted from now, for a window, rather than by the grant.
   */
  late(limit: SharedLimit, lease: Lease, weight: number, at: number): void;
  /**
   * This process measured something of the way to the exchange on `limit` (a lateness, a grant's
   * arrivals): Redis hears of it with the next request on the limit, or soon without one.
   */
  tell(limit: SharedLimit): void;
  /**
   * Tells every process of a pause or a hold the exchange asked for (see docs/rules.md#r12); `counted`: the hold is
   * the exchange's count of the window (see docs/rules.md#r17), which makes the limit known after a loss;
   * `countedAt`: the local instant the request stating it was sent (the count is no older).
   */
  feedback(
    limit: SharedLimit,
    pauseMs: number,
    holdWeight: number,
    holdMs: number,
    counted?: boolean,
    countedAt?: number,
  ): void;
  /** Tells every process of a new N and W. */
  update(limit: SharedLimit): void;
  /** Whether Redis answered the last request. */
  readonly available: boolean;
  /** While Redis fails: the local share `limit` sends on at `at`, or null to wait. */
  fallback(limit: SharedLimit, at: number): WindowLimit | null;
  /** While Redis fails and there is no share to send on: how long to wait before looking again. */
  downWait(limit: SharedLimit, at: number): number;
}

/**
 * A shared limit as its store reads and changes it: its lease, its requests to Redis, what it
 * measured of the way to the exchange, its local share. The limit itself is what a scheduler and a
 * user call; this side is the store's alone ({@link linkOf}), and no other code changes it.
 */
export interface LimitLink {
  /** The scheduler the limit was made for. */
  readonly host: LimitHost;
  /** How long past its lease Redis holds a grant of this limit for its answers, ms (0: not held). */
  readonly holdMs: number;
  /** The permits Redis granted this process, or null. */
  readonly lease: Lease | null;
  /** How many times this process changed N or W. */
  readonly changes: number;
  /** How many of this process's changes of N or W Redis has taken. */
  readonly confirmed: number;
  /** While Redis fails: this process's own share of the limit, or null. */
  readonly share: WindowLimit | null;
  /** Starts this process's own share of the limit, `n` of it, while Redis fails. */
  startShare(n: number): WindowLimit;
  /** Ends the local share: Redis heard what was sent on it. */
  endShare(): void;
  /**
   * What this process sent on its local share was told to Redis as the entry `entry` (HELLO,
   * counted from then for a window): the round trips of it still on their way keep it counted
   * until their answers, as a lease's do (see {@link GrantArrivals.follow}).
   */
  reported(entry: ArrivalLease, at: number): void;
  /**
   * The latest arrival this process measured in the last one or two periods (max(10 s, 2 W)
   * each), in ms; `at` on the scheduler's clock (`host.clock`), as `extend`'s instants are.
   */
  lateness(at: number): number;
  /** Redis took this process's change number `change`: a wait given on the N before ends. */
  confirm(change: number): void;
  /** Takes the N and W every process shares, as Redis holds them. */
  adopt(limit: number, windowMs: number): void;
  /** A request for permits on this limit is on its way to Redis: no other is sent meanwhile. */
  asking(): void;
  /** The request on its way was answered (granted or not), or given up. */
  asked(): void;
  /**
   * Redis granted `lease` at `now`; `probing`: the one request it lets through on a limit no
   * process knows, whose answer's count is told to every process (see `SharedLimit.recount`).
   */
  granted(lease: Lease, now: number, probing: boolean): void;
  /** Redis said to wait until `retryAt` for permits asked for with `linked` (this limit among them). */
  denied(retryAt: number, linked: readonly SharedLimit[]): void;
  /**
   * The request on its way failed: asks again no sooner than `retryAt`; `confirmed`, the grants it
   * confirmed ({@link LimitLink.takeConfirmed}), are sent again with the next.
   */
  askFailed(retryAt: number, confirmed: readonly GrantArrival[]): void;
  /** Asks Redis again at once, whatever wait it gave (the limit became known to it). */
  askAgain(): void;
  /** Ends the lease if it is still grant `id` (what was not sent of it goes back). */
  endLeaseOf(id: string): void;
  /**
   * The grants of this process whose permits were all answered, to confirm to Redis with the next
   * request: taken (see {@link LimitLink.askFailed} when that request fails).
   */
  takeConfirmed(): GrantArrival[];
  /** The lateness sent to Redis with a request at `at` (see {@link LimitLink.lateness}), then the latest told. */
  tellLateness(at: number): number;
  /**
   * What Redis has not heard at `at`: the grants confirmed since it was last told, and the
   * lateness when it is more than the latest told; null when neither is new.
   */
  news(at: number): { readonly confirmed: GrantArrival[]; readonly lateMs: number } | null;
  /**
   * `weight` of `lease` may have been sent after it ended (a clock read `at` past it): counted as
   * grant `id` from `at`, redone should Redis lose it, and matched with its arrivals.
   */
  lateGrant(id: string, lease: Lease, weight: number, at: number): void;
  /**
   * What this process sent in the window before `now`, to add back to a Redis that lost it: held
   * while its requests await their answers, as Redis held it.
   */
  recentGrants(now: number): RecentEntry[];
  /** Ends the current lease, giving back what was not sent. */
  endLease(): void;
}

/** Each shared limit's store side, made with the limit. */
const links = new WeakMap<SharedLimit, LimitLink>();

/** The store's side of `limit` (see {@link LimitLink}). */
export function linkOf(limit: SharedLimit): LimitLink {
  return links.get(limit)!;
}

/**
 * A limit whose budget is shared by several processes through a store (see docs/rules.md#r13 across processes).
 * The scheduler admits a task on it only from permits the store granted to this process (a
 * lease), which must be sent before the lease ends; what the store has not granted yet, it asks
 * for and wakes the scheduler when the answer comes. The log it keeps itself holds only this
 * process's dispatches (what `usedAt` and stats report).
 *
 * Made by `Scheduler.limit` on a scheduler whose store is a `RedisStore`; not made directly.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis'
 * import { Scheduler } from 'traderatio'
 * import { RedisStore, SharedLimit } from 'traderatio/redis'
 *
 * const client = new Redis({ host: '127.0.0.1', port: 6379 })
 * const prefix = `acct-42-${Date.now()}`
 * const store = new RedisStore({ client, prefix })
 * const scheduler = new Scheduler({ store })
 * const place = scheduler.limit({ name: 'futures.place', limit: 100, windowMs: 1000 })
 * place instanceof SharedLimit // true
 * await scheduler.schedule(() => 'sent', { limits: place }) // 'sent'
 * place.usedAt(scheduler.clock.now()) // 1
 * scheduler.close()
 * await store.close()
 * await client.del(...(await client.keys(`{${prefix}}:*`)))
 * await client.quit()
 * ```
 */
export class SharedLimit implements StoreLimit {
  #lease: Lease | null = null;
  /** A request for permits is on its way to Redis: no other is sent meanwhile. */
  #pending = false;
  /** Redis said to wait until this instant before asking again. */
  #retryAt = -Infinity;
  /**
   * The limits asked for together with this one when Redis last said to wait: a change of any of
   * them ends the wait of all (a lifted throttle frees the placements it held back).
   */
  #deniedWith: readonly SharedLimit[] = [];
  /** How many times this process changed N or W: a denial made before the last change is not waited out. */
  #changes = 0;
  /** How many of those changes Redis has taken: a reply to a request sent before it holds the N before. */
  #confirmed = 0;
  /** This process's view of the limit: N, W, the reserve, and the log of its own dispatches. */
  readonly #local: WindowLimit;
  /** Leases with weight taken and not yet stamped (one, or two when a lease ended meanwhile). */
  readonly #unstampedLeases: Lease[] = [];
  /** The latest lateness sent to Redis, ms (see `lateness`). */
  #toldLate = 0;
  /** The leases of this process matched with their permits' arrivals, to confirm to Redis. */
  readonly #arrivals = new GrantArrivals();
  /** Where the weight taken last came from: a lease, or the local share (null: neither). */
  #takenFrom: Lease | WindowLimit | null = null;
  /** The round trips awaiting their answer, by what `awaitAnswer` gave: where they were sent from. */
  readonly #awaiting = new WeakMap<UnansweredRequest, Lease | WindowLimit>();
  /** The round trips sent on the local share and not answered yet (see `reported`). */
  readonly #shareWaiting = new Set<UnansweredRequest>();
  /** Of those, the ones told to Redis with what the share sent: the entry they confirm. */
  readonly #reportedIn = new WeakMap<UnansweredRequest, ArrivalLease>();
  /** What this process sent lately, to add back should Redis lose it. */
  readonly #recent = new RecentGrants({
    spanMs: () => this.windowMs + this.marginMs,
    leaseMaxMs: () => longestLease(this.#broker.leaseMs),
    confirmedAt: (row) => this.#arrivals.confirmedAt(row),
  });
  /** While Redis fails: this process's own share of the limit (onUnavailable "local"). */
  #share: WindowLimit | null = null;
  /**
   * When Redis's grant of the one request it lets through on a limit no process knows (a fresh
   * prefix, a flush, grants lost) came, or null: the count stated by the answer to a request sent
   * since is told to every process.
   */
  #probingSince: number | null = null;
  #pausedUntilHere = -Infinity;
  /** Held in this process only until this instant (see `holdHere`). */
  #heldHereUntil = -Infinity;
  #adopting = false;
  /** The N Redis holds when this process could not take it (at or below its reserve). */
  #sharedN: number | null = null;
  /** The latest arrivals measured (ms after the quickest way), in two periods: this one and the last. */
  #late = 0;
  #lateBefore = 0;
  #lateFrom = -Infinity;

  readonly #broker: Broker;

  readonly #host: LimitHost;

  constructor(options: WindowLimitOptions, broker: Broker, host: LimitHost) {
    this.#broker = broker;
    this.#host = host;
    this.#local = new WindowLimit(options);
    links.set(this, this.#link());
  }

  /** A name for stats, events and errors, and the key of the limit in Redis. */
  get name(): string {
    return this.#local.name;
  }

  /** N. */
  get limit(): number {
    return this.#local.limit;
  }

  /** W, in milliseconds. */
  get windowMs(): number {
    return this.#local.windowMs;
  }

  /** The longest W `update` may set, in milliseconds. */
  get maxWindowMs(): number {
    return this.#local.maxWindowMs;
  }

  /** How much longer than W each dispatch counts, in milliseconds. */
  get marginMs(): number {
    return this.#local.marginMs;
  }

  /** The weight a task of this priority may not use (the reserve of a higher class). */
  reservedFor(priority: number): number {
    return this.limit - this.#local.capacity(priority);
  }

  /** The most weight a task of this priority may ever take: never more than Redis can grant it. */
  capacity(priority = 0): number {
    const c = this.#local.capacity(priority);
    return this.#sharedN === null ? c : Math.min(c, this.#sharedN - (this.limit - c));
  }

  /**
   * Takes `weight` at `at` if the lease allows it: `{ ok: true }` when taken, otherwise
   * `{ ok: false, retryAfterMs }` (see {@link WindowLimit.tryTake}). Counted in this process's log only.
   */
  tryTake(weight: number, at: number, priority = 0): TakeResult {
    checkTake(weight, at, priority, this.name);
    const wait = this.waitFor(weight, at, priority);
    if (wait === 0) this.#local.take(weight, at);
    return takeResult(wait);
  }

  isShared(): boolean {
    return true;
  }

  fitsAnytime(): boolean {
    return false;
  }

  lacks(weight: number, at: number): boolean {
    if (this.#pausedUntilHere > at || this.#heldHereUntil > at || !this.#broker.available) return false;
    const lease = this.#lease;
    return lease === null || at >= lease.until || lease.granted - lease.sent < weight;
  }

  waitFor(weight: number, at: number, priority = 0): number {
    if (weight > this.capacity(priority)) return Infinity;
    if (this.#pausedUntilHere > at) return this.#pausedUntilHere - at;
    if (this.#heldHereUntil > at) return this.#heldHereUntil - at;
    const lease = this.#lease;
    if (lease !== null) {
      if (at < lease.until && lease.granted - lease.sent >= weight) return 0;
      if (at >= lease.until) this.#endLease();
    }
    if (!this.#broker.available) {
      const share = this.#broker.fallback(this, at);
      return share === null ? this.#broker.downWait(this, at) : share.waitFor(weight, at, priority);
    }
    if (this.#retryAt > at) return this.#retryAt - at;
    // An answer is on its way, or will be once asked: it wakes the scheduler. The wait given is
    // only the latest the scheduler looks again without it.
    return this.#broker.leaseMs;
  }

  request(linked: readonly StoreLimit[], weight: number, priority: number, at: number): void {
    for (const l of linked) {
      const s = l as SharedLimit;
      if (s.#pending || s.#retryAt > at) return;
    }
    for (const l of linked) {
      const s = l as SharedLimit;
      if (s.#lease !== null) s.#endLease();
    }
    this.#broker.acquire(linked as readonly SharedLimit[], weight, priority);
  }

  /** Counts `weight` as dispatched at `at` in this process's log, without checking. */
  take(weight: number, at: number): void {
    if (this.#lease !== null) this.#arrivals.spoil(this.#lease);
    this.#takenFrom = null;
    this.#local.take(weight, at);
  }

  takeUnstamped(weight: number): void {
    // From the lease when it has room (waitFor ended it if it had expired), else the local share.
    const lease = this.#lease;
    if (lease !== null && lease.granted - lease.sent >= weight) {
      lease.sent += weight;
      if (lease.unstamped === 0) this.#unstampedLeases.push(lease);
      lease.unstamped += weight;
      this.#takenFrom = lease;
    } else {
      if (lease !== null) this.#arrivals.spoil(lease);
      this.#share!.takeUnstamped(weight);
      this.#takenFrom = this.#share;
    }
    this.#local.takeUnstamped(weight);
  }

  stamp(at: number): void {
    // `at` was read after the weight was taken and its task started. Before the lease ended, the
    // task started by its score in Redis. Otherwise it may have started after it (the process was
    // held up between the check and the start: a listener, a GC pause, the OS), and Redis must
    // count it longer than the grant does.
    const leases = this.#unstampedLeases;
    for (let i = 0; i < leases.length; i++) {
      const lease = leases[i]!;
      if (at >= lease.until) this.#broker.late(this, lease, lease.unstamped, at);
      lease.unstamped = 0;
    }
    leases.length = 0;
    this.#share?.stamp(at);
    this.#local.stamp(at);
  }

  /** Weight this process dispatched in the window ending at `at` (feedback holds included). */
  usedAt(at: number): number {
    return this.#local.usedAt(at);
  }

  /** The state of this process's view of the limit, as plain data. */
  snapshot(): WindowLimitState {
    return this.#local.snapshot();
  }

  // The exchange counted `weight` from `arrivedAt` (see docs/rules.md#r13): counted here as in memory, and the
  // lateness (`arrivedAt - sentAt`) kept for Redis, where every process's grants on this limit
  // then count that much longer than the window while it is the latest any process measured
  // lately. A grant is counted by Redis, not here: its entry must outlast the late arrival there.
  /** The exchange counted `weight` sent at `sentAt` from `arrivedAt` (see {@link WindowLimit.extend}). */
  extend(weight: number, sentAt: number, arrivedAt: number): void {
    this.#local.extend(weight, sentAt, arrivedAt);
    const late = arrivedAt - sentAt;
    if (late <= 0) return;
    this.#lateAt(sentAt);
    if (late > this.#late) {
      this.#late = late;
      this.#broker.tell(this);
    }
  }

  /**
   * `weight` just taken and dispatched at `at` awaits its answer (arrivals bounded by answers,
   * see docs/rules.md#r13): the grant it was sent on stays counted in Redis until its answer comes, and then until
   * one window after the latest instant it can have reached the exchange (see
   * {@link GrantArrivals.track}); sent on the local share, the share counts it so.
   */
  awaitAnswer(weight: number, at: number): UnansweredRequest {
    const from = this.#takenFrom;
    const request = from instanceof WindowLimit ? from.awaitAnswer(weight, at) : this.#local.awaitAnswer(weight, at);
    if (from !== null) {
      this.#awaiting.set(request, from);
      if (from instanceof WindowLimit) this.#shareWaiting.add(request);
      else this.#arrivals.track(from, weight);
    }
    return request;
  }

  /**
   * The requests sent on this limit will be followed to their answers ({@link awaitAnswer}, arrivals
   * bounded by answers, see docs/rules.md#r13): from its next grant on, Redis holds each grant until this process
   * confirms it from their answers, however long this process is held up or cut off from Redis
   * meanwhile (for at most a minute past its window, as an unanswered request counts in memory).
   * The first `awaitAnswer` says the same for the grants after it; an account limiter says it
   * when it makes the limit.
   */
  followAnswers(): void {
    this.#arrivals.bound();
  }

  get #holdMs(): number {
    return this.#arrivals.bounded ? UNANSWERED_MAX_MS : 0;
  }

  /** The answer to `request` came back; it reached the exchange at `at` at the latest (see {@link awaitAnswer}). */
  answered(request: UnansweredRequest, at: number, withinWindow = true): void {
    const from = this.#awaiting.get(request);
    if (from instanceof WindowLimit) {
      from.answered(request, at, withinWindow);
      this.#shareWaiting.delete(request);
      const entry = this.#reportedIn.get(request);
      if (entry !== undefined && this.#arrivals.answer(entry, request.weight, at)) this.#broker.tell(this);
      return;
    }
    this.#local.answered(request, at, withinWindow);
    if (from === undefined) return;
    this.#awaiting.delete(request);
    if (this.#arrivals.answer(from, request.weight, at)) this.#broker.tell(this);
  }

  #reported(entry: ArrivalLease, at: number): void {
    if (this.#shareWaiting.size === 0) return;
    this.#arrivals.follow(entry, at);
    for (const request of this.#shareWaiting) {
      this.#reportedIn.set(request, entry);
      this.#arrivals.track(entry, request.weight);
    }
    this.#shareWaiting.clear();
  }

  /**
   * The exchange counted a request of `weight` sent at `sentAt` from `arrivedAt` (at or after it),
   * told for every answer; `again`: counted later than before. Matched with the lease it was sent
   * on, whose grant Redis then counts from its permits' arrivals (see {@link GrantArrivals}).
   */
  arrival(weight: number, sentAt: number, arrivedAt: number, again: boolean): void {
    if (this.#arrivals.arrived(weight, sentAt, arrivedAt, again)) this.#broker.tell(this);
  }

  #lateness(at: number): number {
    this.#lateAt(at);
    return Math.ceil(Math.max(this.#late, this.#lateBefore));
  }

  #lateAt(at: number): void {
    const period = Math.max(10_000, 2 * this.windowMs);
    if (at - this.#lateFrom < period) return;
    this.#lateBefore = at - this.#lateFrom < 2 * period ? this.#late : 0;
    this.#late = 0;
    this.#lateFrom = at;
  }

  pause(until: number): void {
    this.#local.pause(until);
    if (until <= this.#pausedUntilHere) return;
    this.#pausedUntilHere = until;
    this.#broker.feedback(this, until - this.#host.clock.now(), 0, 0);
  }

  /** Lets nothing through until `until` in this process only: Redis and the other processes hear nothing of it. */
  holdHere(until: number): void {
    const sooner = until < this.#heldHereUntil;
    this.#heldHereUntil = until;
    if (sooner) this.#host.wake();
  }

  shrink(remaining: number, until: number, at: number): void {
    this.#local.shrink(remaining, until, at);
    if (until > at && remaining < this.limit) this.#broker.feedback(this, 0, this.limit - remaining, until - at);
  }

  /**
   * The exchange counted `count` in the window at `at` (see docs/rules.md#r17): held until `until` in this
   * process's view; in Redis too when it answers the one request let through on a limit no
   * process knew (a fresh prefix, a flush), which it makes known to every process. Returns what
   * this process counted.
   */
  recount(count: number, until: number, at: number, sentAt = at): number {
    const counted = this.#local.recount(count, until, at);
    // Only the answer to the one request Redis let through after a loss, which every process waits
    // for. Otherwise Redis already counts what every process sent, by when each left the window:
    // the exchange's count held whole for a window from its answer would only hold a saturated
    // limit back (every process's answers say the window is nearly full). An answer to a request
    // sent before that grant came may state a count made before the loss: it is not the one.
    if (this.#probingSince !== null && sentAt >= this.#probingSince && until > at) {
      this.#probingSince = null;
      // Counted no earlier than the request was sent.
      this.#broker.feedback(this, 0, count, until - at, true, sentAt);
    }
    return counted;
  }

  /** Changes N and W from now on, for every process (see {@link WindowLimit.update}). */
  update(change: { readonly limit?: number; readonly windowMs?: number }): void {
    const from = { limit: this.limit, windowMs: this.windowMs };
    this.#local.update(change);
    if (!this.#adopting) {
      // A wait Redis gave was worked out on the N and W before: ask again at once (a throttle
      // lifted, a tier raised, must not keep its tasks waiting out the old window).
      this.#changes++;
      this.#retryAt = -Infinity;
      for (const l of this.#deniedWith) l.#retryAt = -Infinity;
    }
    // Sent to Redis before the scheduler looks again and asks on the new N.
    if (!this.#adopting) this.#broker.update(this);
    ownerOf(this)?.changed(this, from);
  }

  #confirm(change: number): void {
    if (change <= this.#confirmed) return;
    this.#confirmed = change;
    this.#retryAt = -Infinity;
    for (const l of this.#deniedWith) l.#retryAt = -Infinity;
    this.#host.wake();
  }

  #adopt(limit: number, windowMs: number): void {
    if (limit === (this.#sharedN ?? this.limit) && windowMs === this.windowMs) return;
    this.#adopting = true;
    try {
      this.update({ limit, windowMs: Math.min(windowMs, this.maxWindowMs) });
      this.#sharedN = null;
    } catch {
      // A shared N at or below this process's reserve: the local one stays (the reserve needs
      // more), but tasks heavier than what Redis can grant them are refused, not asked for forever.
      this.#sharedN = limit;
      ownerOf(this)?.changed(this, { limit: this.limit, windowMs: this.windowMs });
    } finally {
      this.#adopting = false;
    }
  }

  #granted(lease: Lease, now: number, probing: boolean): void {
    this.#lease = lease;
    if (probing) this.#probingSince = now;
    this.#recent.granted(lease, this.#arrivals.granted(lease, now), now);
  }

  #askFailed(retryAt: number, confirmed: readonly GrantArrival[]): void {
    this.#pending = false;
    this.#retryAt = retryAt;
    // Moving a grant again changes nothing: the next ACQUIRE sends them again.
    this.#arrivals.restore(confirmed);
  }

  #news(at: number): { readonly confirmed: GrantArrival[]; readonly lateMs: number } | null {
    const confirmed = this.#arrivals.take();
    const lateMs = this.#lateness(at);
    // A lateness already sent is kept by Redis, and sent again with each ACQUIRE.
    if (confirmed.length === 0 && lateMs <= this.#toldLate) return null;
    this.#toldLate = lateMs;
    return { confirmed, lateMs };
  }

  #recentGrants(now: number): RecentEntry[] {
    const hold = this.#holdMs;
    const scoreOf = this.#arrivals.addBackScores(hold);
    return this.#recent.entries(now).map((e) => ({ ...e, score: scoreOf(e.id, e.score) }));
  }

  #endLease(): void {
    const lease = this.#lease;
    if (lease === null) return;
    this.#lease = null;
    lease.ended = true;
    this.#recent.ended(lease);
    this.#arrivals.ended(lease, this.#host.clock.now());
    this.#broker.endLease(this, lease);
  }

  /** The store's side of this limit (see {@link LimitLink}). */
  #link(): LimitLink {
    const self = this;
    return {
      host: this.#host,
      get holdMs() {
        return self.#holdMs;
      },
      get lease() {
        return self.#lease;
      },
      get changes() {
        return self.#changes;
      },
      get confirmed() {
        return self.#confirmed;
      },
      get share() {
        return self.#share;
      },
      startShare: (n) =>
        (this.#share ??= new WindowLimit({
          name: this.name,
          limit: n,
          windowMs: this.windowMs,
          marginMs: this.marginMs,
        })),
      endShare: () => {
        this.#share = null;
      },
      reported: (entry, at) => this.#reported(entry, at),
      lateness: (at) => this.#lateness(at),
      confirm: (change) => this.#confirm(change),
      adopt: (limit, windowMs) => this.#adopt(limit, windowMs),
      asking: () => {
        this.#pending = true;
      },
      asked: () => {
        this.#pending = false;
      },
      granted: (lease, now, probing) => this.#granted(lease, now, probing),
      denied: (retryAt, linked) => {
        this.#retryAt = retryAt;
        this.#deniedWith = linked;
      },
      askFailed: (retryAt, confirmed) => this.#askFailed(retryAt, confirmed),
      askAgain: () => {
        this.#retryAt = -Infinity;
      },
      endLeaseOf: (id) => {
        if (this.#lease?.id === id) this.#endLease();
      },
      takeConfirmed: () => this.#arrivals.take(),
      tellLateness: (at) => {
        this.#toldLate = this.#lateness(at);
        return this.#toldLate;
      },
      news: (at) => this.#news(at),
      lateGrant: (id, lease, weight, at) => {
        this.#recent.late(id, weight, at, lease.redisOffset, this.#arrivals.late(lease, id, at));
      },
      recentGrants: (now) => this.#recentGrants(now),
      endLease: () => this.#endLease(),
    };
  }
}

// Shared limits say which copy of traderatio made them, as in-memory ones do.
markBuild(SharedLimit.prototype);
