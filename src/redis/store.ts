import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '../errors.js';
import type { LimitHost, LimitStore } from '../schedule/store.js';
import type { WindowLimit, WindowLimitOptions } from '../schedule/window.js';
import { type RedisScripting, Script, scriptingOf } from './client.js';
import { ACQUIRE, FEEDBACK, RELEASE, UPDATE } from './scripts.js';
import { type Broker, type Lease, SharedLimit } from './shared-limit.js';

/** Options of a {@link RedisStore}. */
export interface RedisStoreOptions {
  /** An ioredis or node-redis client, connected; the store never closes it. */
  readonly client: unknown;
  /**
   * Names the budget: processes whose stores have the same prefix and limits of the same name
   * share one budget. Keys are `{prefix}:...`, all in one cluster slot. @default "traderatio"
   */
  readonly prefix?: string;
  /**
   * How long permits may be sent after they were asked for, in milliseconds; Redis counts them
   * that much longer than the window. Permits that arrive later are given back unused, so a slow
   * Redis costs throughput, never the limit. Steady throughput is at most N x W / (W + leaseMs).
   * @default 20
   */
  readonly leaseMs?: number;
  /**
   * Permits asked for beyond what the tasks waiting on a limit need (a lease kept for tasks still
   * to come). 0 asks for exactly what waits: one round trip per admission when one task waits.
   * @default 0
   */
  readonly prefetch?: number;
  /** The most weight one request asks for for the tasks already waiting. @default 64 */
  readonly maxBatch?: number;
  /** A request without an answer this long counts as failed, in milliseconds. @default 250 */
  readonly timeoutMs?: number;
  /** Time between attempts while Redis fails, in milliseconds. @default 50 */
  readonly retryMs?: number;
}

/** What a Redis store tells its listeners: Redis stopped or started answering. */
export type RedisStoreEvent =
  | { readonly type: 'unavailable'; readonly error: unknown }
  | { readonly type: 'available' };

interface Pending {
  readonly script: Script;
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
}

const acquireScript = new Script(ACQUIRE);
const releaseScript = new Script(RELEASE);
const feedbackScript = new Script(FEEDBACK);
const updateScript = new Script(UPDATE);

/**
 * Keeps limits in Redis so that every process drawing on them shares one budget (R10: the
 * exchange counts per account, whatever the number of processes). Admission is one Lua script,
 * atomic in Redis, on Redis's clock: it grants permits for all the limits of a task or none, and
 * counts them until `leaseMs` plus the window after the grant. A process sends them within
 * `leaseMs` of asking, measured on its own clock from before it asked, so no clock needs to agree
 * with another (R13 across processes).
 *
 * Faults: while Redis fails or is slow, tasks wait and requests are retried every `retryMs`; no
 * permit is invented locally, so the total never goes over. Permits granted to a request whose
 * answer was lost are given back when Redis answers again. A Redis that lost its data (a restart)
 * grants nothing for one window, until what it granted before has left every window.
 *
 * @example
 * ```ts
 * import Redis from 'ioredis'
 * import { Scheduler } from 'traderatio'
 * import { RedisStore } from 'traderatio/redis'
 *
 * const store = new RedisStore({ client: new Redis(), prefix: 'acct-42' })
 * const scheduler = new Scheduler({ store })
 * const place = scheduler.limit({ name: 'futures.place', limit: 100, windowMs: 1000 })
 * await scheduler.schedule(() => api.placeOrder(order), { limits: place })
 * ```
 */
export class RedisStore implements LimitStore, Broker {
  readonly leaseMs: number;
  readonly prefix: string;
  private readonly redis: RedisScripting;
  private readonly prefetch: number;
  private readonly maxBatch: number;
  private readonly timeoutMs: number;
  private readonly retryMs: number;
  /** Names this process's grants in Redis (`<id>.<n>`), so they can be told apart there. */
  readonly id = randomBytes(6).toString('base64url');
  private readonly epochKey: string;
  private readonly limits = new Set<SharedLimit>();
  private readonly listeners = new Set<(event: RedisStoreEvent) => void>();
  private seq = 0;
  private up = true;
  private outbox: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(options: RedisStoreOptions) {
    if (typeof options !== 'object' || options === null) throw new InvalidInputError('Redis store options', options, 'an object { client }');
    this.redis = scriptingOf(options.client);
    const prefix = options.prefix ?? 'traderatio';
    if (typeof prefix !== 'string' || prefix.length === 0 || /[{}]/.test(prefix)) {
      throw new InvalidInputError('`prefix`', prefix, 'a non-empty string without braces');
    }
    this.prefix = prefix;
    this.epochKey = `{${prefix}}:epoch`;
    this.leaseMs = readNumber(options.leaseMs, 20, '`leaseMs`', 'a positive number of milliseconds', (v) => v > 0 && Number.isFinite(v));
    this.prefetch = readNumber(options.prefetch, 0, '`prefetch`', 'a non-negative integer', (v) => Number.isSafeInteger(v) && v >= 0);
    this.maxBatch = readNumber(options.maxBatch, 64, '`maxBatch`', 'a positive integer', (v) => Number.isSafeInteger(v) && v > 0);
    this.timeoutMs = readNumber(options.timeoutMs, 250, '`timeoutMs`', 'a positive number of milliseconds', (v) => v > 0 && Number.isFinite(v));
    this.retryMs = readNumber(options.retryMs, 50, '`retryMs`', 'a positive number of milliseconds', (v) => v > 0 && Number.isFinite(v));
  }

  /** Whether Redis answered the last request. */
  get available(): boolean {
    return this.up;
  }

  /** @internal Makes a limit whose budget lives in Redis (called by `Scheduler.limit`). */
  limit(options: WindowLimitOptions, host: LimitHost): WindowLimit {
    if (this.closed) throw new InvalidInputError('the Redis store', 'closed', 'a store not closed');
    const l = new SharedLimit(options, this, host);
    this.limits.add(l);
    return l;
  }

  /** Listens to Redis becoming unavailable and available again. Returns a function that stops it. */
  on(listener: (event: RedisStoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Gives back every permit granted to this process and not sent, and waits (up to `timeoutMs`
   * per attempt, while Redis answers) until Redis has them. The client stays open.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const l of this.limits) l.endLease();
    await this.flushing;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** @internal */
  acquire(linked: readonly SharedLimit[], weight: number, priority: number): void {
    if (this.closed) return;
    const host = linked[0]!.host;
    const id = `${this.id}.${(this.seq++).toString(36)}`;
    let queued = 0;
    for (const l of linked) if (l.queuedWeight > queued) queued = l.queuedWeight;
    const want = Math.max(weight, Math.min(queued, this.maxBatch)) + this.prefetch;
    const keys: string[] = [this.epochKey];
    const args: (string | number)[] = [id, weight, want, this.leaseMs];
    for (const l of linked) {
      l.pending = true;
      keys.push(this.metaKey(l), this.logKey(l));
      args.push(l.limit, l.windowMs, l.marginMs, l.reservedFor(priority));
    }
    const sentAt = host.clock.now();
    this.call(acquireScript, keys, args).then(
      (reply) => {
        this.answered(linked, id, weight, reply as number[], sentAt);
      },
      (error: unknown) => {
        const now = host.clock.now();
        for (const l of linked) {
          l.pending = false;
          l.retryAt = now + this.retryMs;
        }
        // The script may have run and its answer been lost: give back whatever it granted.
        for (let i = 0; i < linked.length; i++) this.send(releaseScript, [keys[1 + 2 * i]!, keys[2 + 2 * i]!], [id, 0]);
        this.failed(error);
        host.wake();
      },
    );
  }

  /** @internal */
  endLease(limit: SharedLimit, lease: Lease): void {
    if (lease.sent < lease.granted) this.send(releaseScript, [this.metaKey(limit), this.logKey(limit)], [lease.id, lease.sent]);
  }

  /** @internal */
  feedback(limit: SharedLimit, pauseMs: number, holdWeight: number, holdMs: number): void {
    const id = `${this.id}.h${(this.seq++).toString(36)}`;
    this.send(feedbackScript, [this.metaKey(limit), this.logKey(limit)], [limit.limit, limit.windowMs, limit.marginMs, Math.max(0, pauseMs), holdWeight, Math.max(0, holdMs), id]);
  }

  /** @internal */
  update(limit: SharedLimit): void {
    this.send(updateScript, [this.metaKey(limit)], [limit.limit, limit.windowMs, limit.marginMs]);
  }

  private answered(linked: readonly SharedLimit[], id: string, weight: number, reply: number[], sentAt: number): void {
    const host = linked[0]!.host;
    const now = host.clock.now();
    const [status, value] = reply as [number, number];
    for (const l of linked) l.pending = false;
    if (status === 1) {
      const until = sentAt + this.leaseMs;
      for (const l of linked) {
        const lease: Lease = { id, granted: value, sent: 0, until };
        if (now < until && !this.closed) l.lease = lease;
        else this.endLease(l, lease);
      }
      // More than the asking task needs: what is left when the lease ends goes back at once,
      // not when the process next asks.
      if (value > weight && now < until) {
        const timer = setTimeout(() => {
          for (const l of linked) if (l.lease?.id === id) l.endLease();
        }, until - now);
        timer.unref?.();
      }
    } else {
      // Denied: Redis said when enough will have left the window, or the weight can never fit.
      const retryAt = now + (status === 0 ? value : this.retryMs);
      for (const l of linked) l.retryAt = retryAt;
    }
    for (let i = 0; i < linked.length; i++) linked[i]!.adopt(Number(reply[2 + 2 * i]), Number(reply[3 + 2 * i]));
    this.recovered();
    host.wake();
  }

  private call(script: Script, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Redis did not answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      script.run(this.redis, keys, args).then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  /** Writes that must reach Redis, in order, retried until they do (releases, feedback, updates). */
  private send(script: Script, keys: readonly string[], args: readonly (string | number)[]): void {
    this.outbox.push({ script, keys, args });
    this.kick();
  }

  private kick(): void {
    if (this.flushing === null && this.outbox.length > 0) this.flushing = this.flush();
  }

  private async flush(): Promise<void> {
    try {
      while (this.outbox.length > 0) {
        const batch = this.outbox;
        this.outbox = [];
        const results = await Promise.allSettled(batch.map((p) => this.call(p.script, p.keys, p.args)));
        const failed = batch.filter((_, i) => results[i]!.status === 'rejected');
        if (failed.length === 0) {
          this.recovered();
          continue;
        }
        this.outbox = failed.concat(this.outbox);
        this.failed((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason);
        if (this.closed) return;
        if (this.retryTimer === null) {
          this.retryTimer = setTimeout(() => {
            this.retryTimer = null;
            this.kick();
          }, this.retryMs);
          this.retryTimer.unref?.();
        }
        return;
      }
    } finally {
      this.flushing = null;
    }
  }

  private failed(error: unknown): void {
    if (!this.up) return;
    this.up = false;
    for (const listener of this.listeners) listener({ type: 'unavailable', error });
  }

  private recovered(): void {
    if (this.up) return;
    this.up = true;
    for (const listener of this.listeners) listener({ type: 'available' });
    this.kick();
  }

  private metaKey(l: WindowLimit): string {
    return `{${this.prefix}}:m:${l.name}`;
  }

  private logKey(l: WindowLimit): string {
    return `{${this.prefix}}:l:${l.name}`;
  }
}

function readNumber(value: unknown, fallback: number, field: string, expected: string, ok: (v: number) => boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !ok(value)) throw new InvalidInputError(field, value, expected);
  return value;
}
