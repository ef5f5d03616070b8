import { InvalidInputError } from '../errors.js';
import { type Clock, MAX_TIMEOUT_MS, systemClock } from '../schedule/clock.js';
import { isPositiveInteger } from '../internal/parse.js';
import { type RedisScripting, scriptingOf } from './client.js';

/**
 * Options of a `RedisStore`.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis'
 * import { RedisStore, type RedisStoreOptions } from 'traderatio/redis'
 *
 * const client = new Redis({ host: '127.0.0.1', port: 6379 })
 * const prefix = `acct-42-${Date.now()}`
 * const options: RedisStoreOptions = { client, prefix, leaseMs: 50, onUnavailable: 'local', processes: 4 }
 * const store = new RedisStore(options)
 * store.leaseMs // 50
 * await store.close()
 * await client.ping() // answered after what the store sent
 * for (const key of await client.keys(`{${prefix}}:*`)) await client.del(key)
 * await client.quit()
 * ```
 */
export interface RedisStoreOptions {
  /**
   * An ioredis or node-redis client, connected; the store never closes it. A Redis Cluster's
   * client (ioredis `Cluster`, node-redis `createCluster`) does too: every key of a budget is in
   * the slot of `{prefix}`, and the client follows the cluster's redirections (MOVED, ASK) itself.
   */
  readonly client: unknown;
  /**
   * Names the budget: processes whose stores have the same prefix and limits of the same name
   * share one budget. Keys are `{prefix}:...`, all in one cluster slot: on a cluster, budgets of
   * different prefixes spread over the masters. @default "traderatio"
   */
  readonly prefix?: string;
  /**
   * How long permits may be sent after they were asked for, in milliseconds; Redis counts them
   * that much longer than the window. Permits that arrive later are given back unused, so a slow
   * Redis costs throughput, never the limit. Steady throughput is at most N x W / (W + leaseMs).
   * An answer that comes after its lease makes the next requests' leases longer for a while
   * (twice what it took, at most 250 ms or `leaseMs` if longer, halving back every second), so
   * that answers slower than `leaseMs` still admit (docs/distributed.md, "A lease as long as the answers take").
   * @default 20
   */
  readonly leaseMs?: number;
  /**
   * Permits asked for beyond what the tasks waiting on a limit need: a lease kept for tasks still
   * to come, sent without a round trip while it lasts (`leaseMs`); what is left of it is given
   * back when it ends.
   * - `"auto"`: as many as this process sent on the limit in the last `leaseMs` at its rate over
   *   the last window, at most 32, and only while the limit stays at most half used and no other
   *   process waits its turn: a lease then holds back nobody, and on a limit that binds every
   *   admission is one round trip;
   * - a number: that many, whenever the limit has room for them;
   * - 0: exactly what waits, one round trip per admission when one task waits.
   * @default "auto"
   */
  readonly prefetch?: number | 'auto';
  /**
   * The most weight one request asks for for the tasks already waiting; never more than a
   * sixteenth of the limit, so that processes waiting together take turns. @default 64
   */
  readonly maxBatch?: number;
  /** A request without an answer this long counts as failed, in milliseconds. @default 250 */
  readonly timeoutMs?: number;
  /** Time between attempts to reach Redis while it fails, in milliseconds. @default 50 */
  readonly retryMs?: number;
  /**
   * What the process does while Redis cannot be reached:
   * - `"wait"`: nothing is sent until Redis answers again;
   * - `"local"`: after a pause long enough for what Redis granted to leave every window, each
   *   process sends on a share of its own, floor(N / `processes`) per window, for at most
   *   `fallbackMaxMs`; Redis holds the shares of processes it has not heard from back from the
   *   others meanwhile.
   * @default "wait"
   */
  readonly onUnavailable?: 'wait' | 'local';
  /** With `"local"`: the most processes that share the budget (required). */
  readonly processes?: number;
  /** With `"local"`: the longest a process sends on its local share, in milliseconds. @default 30000 */
  readonly fallbackMaxMs?: number;
  /**
   * With `"local"`: a process not heard from this long is taken as away (perhaps on its share);
   * each process says it is here at least four times as often. @default 1000
   */
  readonly staleMs?: number;
  /** The clock of the schedulers using the store (theirs must be the same). @default systemClock */
  readonly clock?: Clock;
  /**
   * With an account limiter: how often its counts (requests, fills) are written to Redis and the
   * account's totals read back, in milliseconds; what a process counts is at most this far behind
   * in the other processes' totals (plus a round trip). @default 50
   */
  readonly countFlushMs?: number;
  /**
   * @internal Whose instants Redis runs its scripts at: its own clock (`TIME`), the one every
   * process shares; or the store's `clock`, for tests on a VirtualClock, whose time Redis cannot
   * see (every store on the budget then has that clock). @default "redis"
   */
  readonly instants?: 'redis' | 'clock';
}

/** {@link RedisStoreOptions} read and checked, every default filled in. */
export interface StoreConfig {
  readonly redis: RedisScripting;
  readonly prefix: string;
  readonly leaseMs: number;
  /** Permits asked for beyond what waits; -1 for `"auto"`. */
  readonly prefetch: number;
  readonly maxBatch: number;
  readonly timeoutMs: number;
  readonly retryMs: number;
  /** Whether `onUnavailable` is `"local"`. */
  readonly local: boolean;
  /** 0 unless given. */
  readonly processes: number;
  readonly fallbackMaxMs: number;
  readonly staleMs: number;
  readonly countFlushMs: number;
  readonly clock: Clock;
  /** Whether Redis runs its scripts at the instants of `clock` instead of its own. */
  readonly clockInRedis: boolean;
}

/**
 * Reads the options of a Redis store into its complete form, refusing a bad one with an
 * {@link InvalidInputError} that names it (in the order of the fields above).
 */
export function resolveStoreOptions(options: RedisStoreOptions): StoreConfig {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('Redis store options', options, 'an object { client }');
  const redis = scriptingOf(options.client);
  const prefix = options.prefix ?? 'traderatio';
  if (typeof prefix !== 'string' || prefix.length === 0 || /[{}]/.test(prefix)) {
    throw new InvalidInputError('`prefix`', prefix, 'a non-empty string without braces');
  }
  const ms = (v: number): boolean => v > 0 && Number.isFinite(v);
  // Waited with setTimeout, which fires a longer delay at once.
  const timerMs = (v: number): boolean => v > 0 && v <= MAX_TIMEOUT_MS;
  const timerExpected = `a positive number of milliseconds, at most ${MAX_TIMEOUT_MS}`;
  const leaseMs = readNumber(options.leaseMs, 20, '`leaseMs`', timerExpected, timerMs);
  const prefetch =
    options.prefetch === 'auto'
      ? -1
      : readNumber(
          options.prefetch,
          -1,
          '`prefetch`',
          'a non-negative integer or "auto"',
          (v) => Number.isSafeInteger(v) && v >= 0,
        );
  const maxBatch = readNumber(options.maxBatch, 64, '`maxBatch`', 'a positive integer', isPositiveInteger);
  const timeoutMs = readNumber(options.timeoutMs, 250, '`timeoutMs`', timerExpected, timerMs);
  const retryMs = readNumber(options.retryMs, 50, '`retryMs`', timerExpected, timerMs);
  const policy = options.onUnavailable ?? 'wait';
  if (policy !== 'wait' && policy !== 'local')
    throw new InvalidInputError('`onUnavailable`', policy, '"wait" or "local"');
  const local = policy === 'local';
  if (local && options.processes === undefined)
    throw new InvalidInputError(
      '`processes`',
      undefined,
      'the most processes sharing the budget (required with onUnavailable "local")',
    );
  const processes = readNumber(options.processes, 0, '`processes`', 'a positive integer', isPositiveInteger);
  const fallbackMaxMs = readNumber(
    options.fallbackMaxMs,
    30_000,
    '`fallbackMaxMs`',
    'a positive number of milliseconds',
    ms,
  );
  const staleMs = readNumber(options.staleMs, 1000, '`staleMs`', timerExpected, timerMs);
  const countFlushMs = readNumber(options.countFlushMs, 50, '`countFlushMs`', timerExpected, timerMs);
  const clock = options.clock ?? systemClock;
  if (typeof clock !== 'object' || clock === null || typeof clock.now !== 'function')
    throw new InvalidInputError('`clock`', clock, 'a Clock');
  const instants = options.instants ?? 'redis';
  if (instants !== 'redis' && instants !== 'clock')
    throw new InvalidInputError('`instants`', instants, '"redis" or "clock"');
  return {
    redis,
    prefix,
    leaseMs,
    prefetch,
    maxBatch,
    timeoutMs,
    retryMs,
    local,
    processes,
    fallbackMaxMs,
    staleMs,
    countFlushMs,
    clock,
    clockInRedis: instants === 'clock',
  };
}

function readNumber(
  value: unknown,
  fallback: number,
  field: string,
  expected: string,
  ok: (v: number) => boolean,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !ok(value)) throw new InvalidInputError(field, value, expected);
  return value;
}
