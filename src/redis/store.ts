import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '../errors.js';
import { UNTHROTTLED } from '../rules/abuse.js';
import { checkSameBuild } from '../schedule/build.js';
import { type Clock, unrefTimer } from '../schedule/clock.js';
import { Listeners } from '../schedule/listeners.js';
import type { SharedCounts } from '../account/shared-counts.js';
import type { LimitHost, LimitStore } from '../schedule/store.js';
import type { WindowLimit, WindowLimitOptions } from '../schedule/window.js';
import {
  type AcquireCall,
  type AcquireReply,
  decodeHello,
  decodeRestore,
  encodeArrivals,
  encodeCounts,
  encodeFeedback,
  encodeHello,
  encodeLate,
  encodeRelease,
  encodeRestore,
  encodeUpdate,
  type Encoded,
  type HelloCall,
} from './calls.js';
import { askFor } from './admission.js';
import { AskBatch, type Asking, acquireAll } from './asks.js';
import { LeaseLength } from './lease-length.js';
import { Connection } from './connection.js';
import { RedisCounts } from './counts.js';
import { LocalShares } from './local-share.js';
import { RedisKeys, type ScriptName, entryId } from './protocol.js';
import { type Broker, type Lease, linkOf, SharedLimit } from './shared-limit.js';
import { type RedisStoreOptions, resolveStoreOptions, type StoreConfig } from './options.js';

export type { RedisStoreOptions } from './options.js';

/**
 * What a Redis store tells its listeners: Redis stopped or started answering, a process started
 * sending on its local share. `error` reports a listener that threw (source `listener`), at an
 * instant of the store's clock: the store carries on. An error thrown by a listener while it
 * handles an `error` event, or an error with no listener to take it, becomes a process warning
 * (`process.emitWarning`, type `TraderatioWarning`).
 *
 * @example
 * ```ts
 * import { Scheduler } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 * import { RedisStore, type RedisStoreEvent } from 'traderatio/redis'
 *
 * const silent = { evalsha: () => new Promise(() => {}), eval: () => new Promise(() => {}) } // a Redis that never answers
 * const clock = new VirtualClock()
 * const store = new RedisStore({ client: silent, clock, timeoutMs: 250 })
 * const events: RedisStoreEvent['type'][] = []
 * store.on((event) => events.push(event.type))
 * const scheduler = new Scheduler({ clock, store })
 * scheduler.schedule(() => 1, { limits: scheduler.limit({ limit: 10, windowMs: 1000 }) }).catch(() => {})
 * await clock.advance(250)
 * events // ['unavailable']
 * scheduler.close()
 * await Promise.all([store.close(), clock.advance(250)])
 * ```
 */
export type RedisStoreEvent =
  | { readonly type: 'unavailable'; readonly error: unknown }
  | { readonly type: 'available' }
  | { readonly type: 'local'; readonly limit: string }
  | { readonly type: 'error'; readonly at: number; readonly source: 'listener'; readonly error: unknown };

/**
 * Keeps limits in Redis so that every process drawing on them shares one budget (see docs/rules.md#r10: the
 * exchange counts per account, whatever the number of processes). Admission is one Lua script,
 * atomic in Redis, on Redis's clock: it grants permits for all the limits of a task or none, and
 * counts them until `leaseMs` plus the window after the grant. A process sends them within
 * `leaseMs` of asking, measured on its own clock from before it asked, so no clock needs to agree
 * with another (see docs/rules.md#r13 across processes). The scheduler checks the lease before each dispatch, and a
 * task that may still have started after it (held up by a slow task, a listener or a GC pause) is
 * counted again in Redis from when Redis hears of it.
 *
 * Faults: a request without an answer within `timeoutMs` has failed; Redis is then probed every
 * `retryMs`, and `onUnavailable` says what happens meanwhile (wait, or a local share). Permits
 * granted to a request whose answer was lost or came too late are given back when Redis answers
 * again. A Redis that lost its data (a restart, a flush, a new prefix) has each live process add
 * back what it sent; on a limit none of them knows, it lets one request through alone, whose
 * answer's rate-limit headers say what the exchange counted (see docs/rules.md#r17), and grants nothing else until
 * that count is in, or, when none comes, until what it granted before has left every window: no
 * burst when it comes back.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis'
 * import { Scheduler } from 'traderatio'
 * import { RedisStore } from 'traderatio/redis'
 *
 * const client = new Redis({ host: '127.0.0.1', port: 6379 })
 * const prefix = `acct-42-${Date.now()}`
 * const store = new RedisStore({ client, prefix })
 * const scheduler = new Scheduler({ store })
 * const place = scheduler.limit({ name: 'futures.place', limit: 100, windowMs: 1000 })
 * await scheduler.schedule(() => 'sent', { limits: place }) // 'sent'
 * store.available // true
 * scheduler.close()
 * await store.close()
 * await client.del(...(await client.keys(`{${prefix}}:*`)))
 * await client.quit()
 * ```
 */
export class RedisStore implements LimitStore<SharedLimit> {
  /** Names this process's grants in Redis (`<id>.<n>`), so they can be told apart there. */
  readonly id = randomBytes(6).toString('base64url');
  readonly leaseMs: number;
  readonly prefix: string;
  readonly clock: Clock;
  /** The options, checked and complete. */
  readonly #config: StoreConfig;
  readonly #keys: RedisKeys;
  readonly #limits = new Set<SharedLimit>();
  readonly #counters = new Set<RedisCounts>();
  readonly #listeners = new Listeners<RedisStoreEvent>((_source, error) => ({
    type: 'error',
    at: this.clock.now(),
    source: 'listener',
    error,
  }));
  readonly #connection: Connection;
  readonly #shares: LocalShares;
  /** What this store's limits ask of it (see {@link Broker}). */
  readonly #broker: Broker;
  #seq = 0;
  /** The limits with something measured of the way to the exchange to tell Redis (see `tell`). */
  readonly #telling = new Set<SharedLimit>();
  #closed = false;
  #heartbeatTimer: unknown = null;
  #hello: Promise<boolean> | null = null;
  /** The epoch Redis last answered with: which data it holds (see `restore`). */
  #epoch: string | null = null;
  /** Redis may have lost grants of this process: they are added back before it asks for more. */
  #lost = false;
  #restoring: Promise<boolean> | null = null;
  /** When this process last told Redis it is alive (see `saysAlive`). */
  #aliveAt = -Infinity;
  /** Requests for permits made and not sent yet. */
  readonly #asks = new AskBatch((asks) => this.#sendAsks(asks));
  /** The lease requests carry: `leaseMs`, longer for a while after an answer came too late for it. */
  readonly #lease: LeaseLength;

  constructor(options: RedisStoreOptions) {
    const o = resolveStoreOptions(options);
    this.#config = o;
    this.prefix = o.prefix;
    this.#keys = new RedisKeys(o.prefix);
    this.leaseMs = o.leaseMs;
    this.#lease = new LeaseLength(o.leaseMs);
    this.clock = o.clock;
    this.#shares = new LocalShares(o);
    this.#connection = new Connection({
      redis: o.redis,
      keys: this.#keys,
      clock: o.clock,
      timeoutMs: o.timeoutMs,
      retryMs: o.retryMs,
      clockInRedis: o.clockInRedis,
      isClosed: () => this.#closed,
      down: (error) => this.#emit({ type: 'unavailable', error }),
      up: () => {
        // Redis may be another now (a failover to a replica that lagged): this process's grants
        // are added back at once, and before it asks for more.
        this.#lost = true;
        this.#emit({ type: 'available' });
        this.#connection.flush();
        void this.#restore();
      },
      // A local share may start later: have every scheduler look again then.
      wake: () => this.#wakeAll(),
    });
    const connection = this.#connection;
    this.#broker = {
      leaseMs: this.leaseMs,
      get available() {
        return connection.up;
      },
      acquire: (linked, weight, priority) => this.#acquire(linked, weight, priority),
      endLease: (limit, lease) => this.#endLease(limit, lease),
      late: (limit, lease, weight, at) => this.#late(limit, lease, weight, at),
      tell: (limit) => this.#tell(limit),
      feedback: (limit, pauseMs, holdWeight, holdMs, counted, countedAt) =>
        this.#feedback(limit, pauseMs, holdWeight, holdMs, counted, countedAt),
      update: (limit) => this.#update(limit),
      fallback: (limit, at) => this.#fallback(limit, at),
      downWait: (limit, at) => this.#downWait(limit, at),
    };
  }

  /** Whether Redis answered the last request. */
  get available(): boolean {
    return this.#connection.up;
  }

  /** Makes a limit whose budget lives in Redis: the {@link LimitStore} method `Scheduler.limit` calls. */
  limit(options: WindowLimitOptions, host: LimitHost): SharedLimit {
    if (this.#closed) throw new InvalidInputError('the Redis store', 'closed', 'a store not closed');
    if (host.clock !== this.clock) checkSameBuild('the scheduler', host.clock, 'the Redis store', this.clock);
    if (host.clock !== this.clock)
      throw new InvalidInputError('the scheduler clock', host.clock, "the Redis store's clock (its `clock` option)");
    const l = new SharedLimit(options, this.#broker, host);
    this.#limits.add(l);
    if (this.#shares.enabled && this.#heartbeatTimer === null) this.#heartbeat();
    return l;
  }

  /**
   * The counts of an account limiter, kept in Redis for every process on the budget (see docs/rules.md#r1, #r9, #r14):
   * an `AccountLimiter` given this store calls it, and reads its limits, tiers and throttles from
   * the account's totals. Each call makes counts of their own (one per limiter).
   */
  counts(): SharedCounts {
    if (this.#closed) throw new InvalidInputError('the Redis store', 'closed', 'a store not closed');
    const c = new RedisCounts({
      id: this.id,
      clock: this.clock,
      flushMs: this.#config.countFlushMs,
      retryMs: this.#config.retryMs,
      timeoutMs: this.#config.timeoutMs,
      run: (call) => this.#call('counts', encodeCounts(this.#keys, { ...call, at: this.#connection.at() })),
    });
    this.#counters.add(c);
    return c;
  }

  /**
   * Listens to Redis becoming unavailable and available again. Returns a function that stops it.
   * A listener that throws breaks nothing: its error is reported as an `error` event.
   *
   * @example
   * ```ts
   * import { Scheduler } from 'traderatio'
   * import { VirtualClock } from 'traderatio/testing'
   * import { RedisStore } from 'traderatio/redis'
   *
   * const clock = new VirtualClock()
   * const store = new RedisStore({ client: { evalsha: () => new Promise(() => {}), eval: () => new Promise(() => {}) }, clock })
   * const log: string[] = []
   * store.on((event) => event.type === 'unavailable' && log.push(`Redis down: ${String(event.error)}`))
   * const scheduler = new Scheduler({ clock, store })
   * scheduler.schedule(() => 1, { limits: scheduler.limit({ limit: 10, windowMs: 1000 }) }).catch(() => {})
   * await clock.advance(250)
   * log // ['Redis down: NoReplyError: Redis did not answer within 250 ms']
   * scheduler.close()
   * await Promise.all([store.close(), clock.advance(250)])
   * ```
   */
  on(listener: (event: RedisStoreEvent) => void): () => void {
    return this.#listeners.add(listener);
  }

  /**
   * Gives back every permit granted to this process and not sent, writes the counts not yet
   * written, and waits (one attempt, up to `timeoutMs`) until Redis has them. The client stays open.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const l of this.#limits) {
      linkOf(l).endLease();
      // Grants confirmed from their answers and not told yet: Redis holds them until it hears.
      this.#tellNow(l);
    }
    if (this.#heartbeatTimer !== null) this.clock.clearTimer(this.#heartbeatTimer);
    this.#heartbeatTimer = null;
    await Promise.all([this.#connection.close(), ...[...this.#counters].map((c) => c.close())]);
  }

  #acquire(linked: readonly SharedLimit[], weight: number, priority: number): void {
    if (this.#closed || !this.#connection.up) return;
    const links = linked.map(linkOf);
    if (this.#shares.unreported) {
      // Back from a local share: Redis hears of what was sent on it before granting more.
      for (const k of links) k.asking();
      void this.#sayHello().then(() => {
        for (const k of links) k.asked();
        this.#wakeAll();
      });
      return;
    }
    if (this.#lost) {
      for (const k of links) k.asking();
      void this.#restore().then(() => {
        for (const k of links) k.asked();
        this.#wakeAll();
      });
      return;
    }
    const id = entryId(this.id, 'grant', this.#seq++);
    const sentAt = this.clock.now();
    const leaseMs = this.#lease.at(sentAt);
    const { host } = links[0]!;
    const at = host.clock.now();
    const auto = this.#config.prefetch < 0;
    const asked = linked.map((l) => ({
      limit: l.limit,
      windowMs: l.windowMs,
      queued: host.queuedWeight(l),
      // Read only where the policy reads it ("auto").
      used: auto ? l.usedAt(at) : 0,
    }));
    const { want, extra, room, queued } = askFor(asked, weight, {
      prefetch: this.#config.prefetch,
      maxBatch: this.#config.maxBatch,
      leaseMs: this.leaseMs,
    });
    const changes = links.map((k) => k.changes);
    // Whether Redis held this process's latest N and W when asked: only then is the N it answers newer.
    const current = links.map((k) => k.confirmed === k.changes);
    for (const k of links) k.asking();
    // This process's grants whose permits were all answered, counted by Redis from their arrivals.
    const confirmed = links.map((k) => k.takeConfirmed());
    const call: AcquireCall = {
      at: this.#connection.at(),
      id,
      weight,
      want,
      leaseMs,
      leaseMaxMs: this.#lease.maxMs,
      deadline: this.#connection.offset.deadline(sentAt, this.#config.timeoutMs),
      process: this.id,
      processes: this.#config.processes,
      staleMs: this.#config.staleMs,
      graceMs: this.#config.staleMs + leaseMs + this.#config.fallbackMaxMs,
      extra,
      room,
      queued,
      unlimited: UNTHROTTLED,
      epoch: this.#epoch ?? '',
      alive: this.#saysAlive(sentAt),
      limits: linked.map((l, i) => ({
        name: l.name,
        limit: l.limit,
        windowMs: l.windowMs,
        marginMs: l.marginMs,
        reserved: l.reservedFor(priority),
        lateMs: links[i]!.tellLateness(at),
        confirmed: confirmed[i]!,
        holdMs: links[i]!.holdMs,
      })),
    };
    // Sent once the work at hand is done, with the other requests made meanwhile: over many
    // limits of a budget, one call carries several (see lua/acquire-many.lua). The lease is
    // measured from `sentAt`, read before.
    this.#asks.add({ linked, id, weight, sentAt, changes, current, confirmed, call });
  }

  /** Sends the requests for permits made since the last were sent: one alone as ACQUIRE, several as ACQUIRE_MANY. */
  #sendAsks(asks: readonly Asking[]): void {
    // Redis scores a call's grants by the shortest lease among its requests (encodeAcquireMany).
    const leaseMs = Math.min(...asks.map((a) => a.call.leaseMs));
    const sent = acquireAll((script, encoded) => this.#call(script, encoded, leaseMs), this.#keys, asks);
    sent.then(
      (replies) => {
        for (const [i, a] of asks.entries())
          this.#answered(a.linked, a.id, a.weight, replies[i]!, a.sentAt, leaseMs, a.changes, a.current);
      },
      (error: unknown) => {
        const now = this.clock.now();
        const hosts = new Set<LimitHost>();
        for (const a of asks) {
          for (const [i, l] of a.linked.entries()) {
            linkOf(l).askFailed(now + this.#config.retryMs, a.confirmed[i]!);
            hosts.add(linkOf(l).host);
          }
          // The script may have run and its answer been lost: give back whatever it granted.
          for (const l of a.linked)
            this.#connection.write('release', encodeRelease(this.#keys, { limit: l.name, grant: a.id, sent: 0 }));
        }
        this.#connection.failed(error);
        for (const h of hosts) h.wake();
      },
    );
  }

  #endLease(limit: SharedLimit, lease: Lease): void {
    if (lease.sent < lease.granted)
      this.#connection.write(
        'release',
        encodeRelease(this.#keys, { limit: limit.name, grant: lease.id, sent: lease.sent }),
      );
  }

  #late(limit: SharedLimit, lease: Lease, weight: number, at: number): void {
    // A local share must not start while this may still be in a window.
    this.#shares.mayActUntil(at);
    const id = entryId(this.id, 'late', this.#seq++);
    linkOf(limit).lateGrant(id, lease, weight, at);
    this.#connection.write(
      'late',
      encodeLate(this.#keys, {
        at: this.#connection.at(),
        limit,
        id,
        weight,
        grant: lease.id,
        holdMs: linkOf(limit).holdMs,
      }),
    );
  }

  /**
   * What `limit` measured of the way to the exchange reaches Redis with its next
   * ACQUIRE; one lease later without one, on its own (a process that stops asking still has its
   * last grants counted from their arrivals, and its lateness counted on every grant).
   */
  #tell(limit: SharedLimit): void {
    if (this.#telling.has(limit) || this.#closed) return;
    this.#telling.add(limit);
    unrefTimer(
      this.clock.setTimer(() => {
        this.#telling.delete(limit);
        if (!this.#closed) this.#tellNow(limit);
      }, this.leaseMs),
    );
  }

  /** Tells Redis at once what `limit` measured that it has not heard (grants confirmed, its lateness). */
  #tellNow(limit: SharedLimit): void {
    const news = linkOf(limit).news(linkOf(limit).host.clock.now());
    if (news === null) return;
    const { confirmed, lateMs } = news;
    this.#connection.write(
      'arrivals',
      encodeArrivals(this.#keys, { at: this.#connection.at(), limit, lateMs, leaseMs: this.leaseMs, confirmed }),
    );
  }

  #feedback(
    limit: SharedLimit,
    pauseMs: number,
    holdWeight: number,
    holdMs: number,
    counted = false,
    countedAt?: number,
  ): void {
    const id = entryId(this.id, 'hold', this.#seq++);
    this.#connection.write(
      'feedback',
      encodeFeedback(this.#keys, {
        at: this.#connection.at(),
        limit,
        pauseMs: Math.max(0, pauseMs),
        holdWeight,
        holdMs: Math.max(0, holdMs),
        id,
        counted,
        // When the request answered was sent, on Redis's clock: at most that (the offset learnt is a
        // lower bound). The exchange counted no earlier.
        countedAt: countedAt === undefined ? undefined : this.#connection.offset.redisNoLaterThan(countedAt),
      }),
      // The exchange's count makes the limit known: what waited for it asks again at once.
      counted
        ? () => {
            linkOf(limit).askAgain();
            linkOf(limit).host.wake();
          }
        : undefined,
    );
  }

  #update(limit: SharedLimit): void {
    const change = linkOf(limit).changes;
    this.#connection.write('update', encodeUpdate(this.#keys, { limit }), () => linkOf(limit).confirm(change));
    this.#shares.resize(limit);
  }

  /**
   * The local share `limit` sends on now, or null (Redis answers, or the policy is to
   * wait, or the share has not started or has run out).
   */
  #fallback(limit: SharedLimit, at: number): WindowLimit | null {
    if (this.#connection.up || !this.#connection.offset.known) return null;
    return this.#shares.fallback(limit, at, (l) => this.#emit({ type: 'local', limit: l.name }));
  }

  /**
   * While Redis fails, how long from `at` a task on `limit` should wait before looking
   * again: until its local share starts, or a while (Redis answering again wakes the scheduler).
   */
  #downWait(limit: SharedLimit, at: number): number {
    return this.#shares.downWait(limit, at, this.#connection.offset.known);
  }

  #answered(
    linked: readonly SharedLimit[],
    id: string,
    weight: number,
    reply: AcquireReply,
    sentAt: number,
    leaseMs: number,
    changes: readonly number[],
    current: readonly boolean[],
  ): void {
    const now = this.clock.now();
    const links = linked.map(linkOf);
    const { redisNow } = reply;
    this.#connection.offset.learn(redisNow, now);
    if (reply.status !== 'late') this.#shares.heard(sentAt);
    for (const k of links) k.asked();
    if (reply.status === 'granted') {
      const until = sentAt + leaseMs;
      if (now >= until) this.#lease.late(now - sentAt, leaseMs, now);
      // Redis granted at its instant redisNow (floored), reached after this process asked at
      // `sentAt`: its clock at a local instant x is at most x + redisOffset.
      const redisOffset = redisNow + 1 - sentAt;
      for (const [i, l] of linked.entries()) {
        const lease: Lease = { id, granted: reply.granted, sent: 0, until, unstamped: 0, redisOffset, ended: false };
        if (now < until && !this.#closed) links[i]!.granted(lease, now, reply.probe);
        else this.#endLease(l, lease);
      }
      // More than the asking task needs: what is left when the lease ends goes back at once,
      // not when the process next asks.
      if (reply.granted > weight && now < until) {
        unrefTimer(
          this.clock.setTimer(() => {
            for (const k of links) k.endLeaseOf(id);
          }, until - now),
        );
      }
    } else {
      // Denied: Redis said when enough will have left the window; or the weight can never fit,
      // or the request came after its deadline: look again later. A limit this process changed
      // since it asked looks again at once: the wait was worked out on what it was before.
      // So does one whose change Redis had not taken when asked and has taken since.
      const changed = links.some((k, i) => k.changes !== changes[i] || (!current[i] && k.confirmed >= changes[i]!));
      const retryAt = changed ? now : now + (reply.status === 'wait' ? reply.waitMs : this.#config.retryMs);
      for (const k of links) k.denied(retryAt, linked);
    }
    if (reply.status !== 'late') {
      const lost = this.#epoch !== null && reply.epoch !== this.#epoch;
      this.#epoch = reply.epoch;
      if (lost) {
        this.#lost = true;
        void this.#restore();
      }
      // Another process's N and W, unless this process changed them since, or its change was
      // still on its way to Redis when it asked (the answer holds the N before it).
      for (const [i, k] of links.entries()) {
        const held = reply.limits[i]!;
        if (current[i] && k.changes === changes[i]) k.adopt(held.limit, held.windowMs);
      }
    }
    this.#connection.answered();
    links[0]!.host.wake();
  }

  /**
   * Runs a script, failing after `timeoutMs`. For a script that says this process is here
   * (`leaseMs`: the lease of what it grants, `leaseMs` of the options for one that grants
   * nothing), notes until when it may take effect in Redis, a lease longer than the options'
   * counted as taking effect that much later (see LocalShares).
   */
  #call(script: ScriptName, encoded: Encoded, leaseMs?: number): Promise<unknown> {
    if (leaseMs !== undefined) {
      const sentAt = this.clock.now();
      this.#shares.said(sentAt, sentAt + this.#config.timeoutMs + leaseMs - this.leaseMs);
    }
    return this.#connection.run(script, encoded);
  }

  /**
   * Whether an ACQUIRE sent at `at` tells Redis this process is alive: once a second, so that after
   * Redis lost grants it knows which processes may have lost some (lua/restore.lua).
   */
  #saysAlive(at: number): boolean {
    if (at - this.#aliveAt < 1000) return false;
    this.#aliveAt = at;
    return true;
  }

  /** With `"local"`: says this process is here when no request has said it lately. */
  #heartbeat(): void {
    this.#heartbeatTimer = unrefTimer(
      this.clock.setTimer(() => {
        if (this.#closed) return;
        this.#heartbeat();
        if (!this.#connection.up || this.clock.now() - this.#shares.lastSent < this.#config.staleMs / 4) return;
        void this.#sayHello();
      }, this.#config.staleMs / 4),
    );
  }

  /**
   * Adds back to Redis what this process sent on its limits that may still be in a window (its
   * grants, each under its id: one Redis still holds is left as it is), after Redis may have lost
   * them: it answered again after a failure (a failover to a replica that lagged), or with another
   * epoch (restarted or flushed). The shared count is then whole again for every process alive,
   * without waiting for a window (see docs/rules.md#r17); with its latest lateness, so that they
   * count as long as before. Where some were missing, Redis holds its limits in force until every
   * process alive has added back its own. True when Redis took them.
   */
  #restore(): Promise<boolean> {
    if (this.#restoring !== null) return this.#restoring;
    const now = this.clock.now();
    const limits = [...this.#limits]
      .map((l) => ({
        name: l.name,
        limit: l.limit,
        windowMs: l.windowMs,
        marginMs: l.marginMs,
        lateMs: linkOf(l).lateness(linkOf(l).host.clock.now()),
        grants: linkOf(l).recentGrants(now),
      }))
      .filter((l) => l.grants.length > 0);
    // Called with no limits too: Redis then knows this process has nothing more to add back.
    const call = encodeRestore(this.#keys, { at: this.#connection.at(), process: this.id, limits });
    this.#restoring = this.#call('restore', call).then(
      (reply) => {
        this.#restoring = null;
        const { epoch, redisNow } = decodeRestore(reply as unknown[]);
        this.#connection.offset.learn(redisNow, this.clock.now());
        this.#epoch = epoch;
        this.#connection.answered();
        this.#lost = false;
        return true;
      },
      (error: unknown) => {
        this.#restoring = null;
        this.#connection.failed(error);
        return false;
      },
    );
    return this.#restoring;
  }

  /** Tells Redis this process is here, with what it sent on local shares. True when Redis heard. */
  #sayHello(): Promise<boolean> {
    if (this.#hello !== null) return this.#hello;
    const sentAt = this.clock.now();
    const id = entryId(this.id, 'share', this.#seq++);
    const limits: HelloCall['limits'][number][] = [];
    const shares: SharedLimit[] = [];
    for (const l of this.#limits) {
      const { share, holdMs } = linkOf(l);
      if (share === null) continue;
      limits.push({
        name: l.name,
        limit: l.limit,
        windowMs: l.windowMs,
        marginMs: l.marginMs,
        sent: share.usedAt(sentAt),
        holdMs,
      });
      shares.push(l);
    }
    const call = encodeHello(this.#keys, {
      at: this.#connection.at(),
      process: this.id,
      id,
      deadline: this.#connection.offset.deadline(sentAt, this.#config.timeoutMs),
      limits,
    });
    this.#hello = this.#call('hello', call, this.leaseMs).then(
      (reply) => {
        this.#hello = null;
        const { heard, redisNow } = decodeHello(reply as unknown[]);
        this.#connection.offset.learn(redisNow, this.clock.now());
        if (!heard) return false;
        this.#shares.heard(sentAt);
        // What each share sent is counted in Redis from now: its round trips still on their way
        // keep it counted until their answers (see docs/rules.md#r13), as a lease's permits do.
        const redisOffset = redisNow + 1 - sentAt;
        const now = this.clock.now();
        shares.forEach((l, i) => {
          const sent = limits[i]!.sent;
          if (sent > 0) linkOf(l).reported({ id, sent, granted: sent, until: sentAt, redisOffset }, now);
        });
        for (const l of shares) linkOf(l).endShare();
        this.#shares.unreported = false;
        this.#connection.answered();
        return true;
      },
      (error: unknown) => {
        this.#hello = null;
        this.#connection.failed(error);
        return false;
      },
    );
    return this.#hello;
  }

  #wakeAll(): void {
    const hosts = new Set<LimitHost>();
    for (const l of this.#limits) hosts.add(linkOf(l).host);
    for (const h of hosts) h.wake();
  }

  #emit(event: RedisStoreEvent): void {
    this.#listeners.emit(event);
  }
}
