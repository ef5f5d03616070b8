// A call of each Lua script (src/redis/lua), typed, and its encoding as the KEYS and ARGV the script
// reads by position: the order is written once, here, beside the script's own comment of it. The
// replies the store reads are decoded here too, each beside its call.
import type { RedisKeys, ScriptName } from './protocol.js';
import type { RecentEntry } from './recent-grants.js';

/** A script's KEYS and ARGV, in the order it reads them. */
export interface Encoded {
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
}

/** A call of a script: which one, and its KEYS and ARGV. */
export interface ScriptCall extends Encoded {
  readonly script: ScriptName;
}

/** A limit as every script that may create its settings in Redis gives it. */
export interface LimitSettings {
  readonly name: string;
  /** N: the permits in any window. */
  readonly limit: number;
  /** W, ms. */
  readonly windowMs: number;
  /** How much longer than W a grant counts, ms. */
  readonly marginMs: number;
}

/** Asks for permits for one task on one or more limits, all or none (lua/acquire.lua). */
export interface AcquireCall {
  /** The instant to run at, ms; none: Redis's clock (TIME), which every process shares. */
  readonly at?: number | undefined;
  /** Names the grant (`<process>.<n>`): a repeated id returns its grant again. */
  readonly id: string;
  /** The task's weight. */
  readonly weight: number;
  /** What waits, as much as one grant may take (at least `weight`). */
  readonly want: number;
  /** How long after asking the process may send its permits, ms. */
  readonly leaseMs: number;
  /**
   * The longest lease a grant on the budget may carry, ms (none: `leaseMs`): a grant made before
   * Redis lost its data may still be sent on that long after it (see lua/check.lua).
   */
  readonly leaseMaxMs?: number | undefined;
  /** Redis instant past which nothing is done, ms (0: none). */
  readonly deadline: number;
  /** The process asking. */
  readonly process: string;
  /** The processes sharing the budget when Redis is down (0: no local shares). */
  readonly processes: number;
  /** After how long unheard a process may be sending on its local share, ms. */
  readonly staleMs: number;
  /** How long a process unheard of is still counted, beyond the window, ms. */
  readonly graceMs: number;
  /** Permits beyond `want`: a lease for tasks to come. */
  readonly extra: number;
  /** The extra only while the limit stays at most half used. */
  readonly room: boolean;
  /** The weight this process has waiting. */
  readonly queued: number;
  /** An N at or above which a limit is not in force: a new or restarted Redis holds it back not at all. */
  readonly unlimited: number;
  /**
   * The epoch the process knows ('' or none: none yet): a Redis holding another grants nothing,
   * so that the process adds back what it sent before it is granted more (see lua/restore.lua).
   */
  readonly epoch?: string | undefined;
  /** The process says it is alive (at most once a second is enough: see lua/restore.lua). */
  readonly alive?: boolean | undefined;
  readonly limits: readonly (LimitSettings & {
    /** Held back from this priority. */
    readonly reserved: number;
    /** The latest arrival this process measured lately, ms (0: none). */
    readonly lateMs: number;
    /** This process's grants on the limit whose permits' arrivals it measured (lua/confirm.lua; none: []). */
    readonly confirmed?: readonly GrantArrival[] | undefined;
    /**
     * How long past its lease the grant is held, ms, until this process confirms it from the
     * answers to its requests (arrivals bounded by answers; 0 or none: not held, see lua/grant.lua).
     */
    readonly holdMs?: number | undefined;
  })[];
}

/** A grant whose process heard the answer to every permit it sent on it (see docs/rules.md#r13). */
export interface GrantArrival {
  /** The grant's id. */
  readonly id: string;
  /** The latest arrival of its permits at the exchange, as a Redis instant no earlier than it, ms. */
  readonly at: number;
}

/**
 * KEYS: epoch, processes, then meta, log, waiting processes and confirmed grants of each limit,
 * then alive and lost. ARGV: the call's, then n, w, m, reserved, late, how many grants are
 * confirmed and the hold of each limit, then each confirmed grant's id and arrival, limit after limit, then
 * whether the process says it is alive, the epoch it knows, and the instant.
 */
export function encodeAcquire(keys: RedisKeys, c: AcquireCall): Encoded {
  const args = [
    c.id,
    c.weight,
    c.want,
    c.leaseMs,
    c.deadline,
    c.process,
    c.processes,
    c.staleMs,
    c.graceMs,
    c.extra,
    c.room ? 1 : 0,
    c.queued,
    c.unlimited,
    c.leaseMaxMs ?? c.leaseMs,
  ];
  const confirmed: (string | number)[] = [];
  for (const l of c.limits) for (const g of l.confirmed ?? []) confirmed.push(g.id, g.at);
  const encoded = encodePerLimit(
    keys,
    args,
    c.at,
    c.limits,
    (l) => ({
      keys: [keys.meta(l.name), keys.log(l.name), keys.wait(l.name), keys.arrived(l.name)],
      args: [l.limit, l.windowMs, l.marginMs, l.reserved, l.lateMs, l.confirmed?.length ?? 0, l.holdMs ?? 0],
    }),
    [...confirmed, c.alive ? 1 : 0, c.epoch ?? ''],
  );
  return { keys: [...encoded.keys, keys.alive, keys.lost], args: encoded.args };
}

/**
 * Several requests of one process on one budget, in one call (lua/acquire-many.lua): each granted
 * as {@link encodeAcquire}'s would be, on its own limits, independently of the others. What they
 * share is the first's (the process, its local shares, the N not in force), the lease the shortest
 * of theirs (the store sends on each grant for that long); the
 * instant is the last's (the latest read), the deadline the earliest (a request is never run
 * past its own), and the process says it is alive when any of them does. No two requests may
 * share a limit.
 *
 * KEYS: epoch, processes, then meta, log, waiting processes and confirmed grants of each limit of
 * each request, then alive and lost. ARGV: how many requests, the process, the processes sharing
 * the budget, stale and grace ms, the N not in force, the lease, the deadline, alive, the longest
 * lease; then each
 * request's id, weight, want, extra, room, queued, the epoch it knows and how many limits, then
 * n, w, m, reserved, late, how many grants are confirmed and the hold of each limit, then each
 * confirmed grant's id and arrival, limit after limit; then the instant.
 */
export function encodeAcquireMany(keys: RedisKeys, calls: readonly AcquireCall[]): Encoded {
  const first = calls[0]!;
  let deadline = 0;
  for (const c of calls) if (c.deadline > 0 && (deadline === 0 || c.deadline < deadline)) deadline = c.deadline;
  const k: string[] = [keys.epoch, keys.procs];
  const a: (string | number)[] = [
    calls.length,
    first.process,
    first.processes,
    first.staleMs,
    first.graceMs,
    first.unlimited,
    Math.min(...calls.map((c) => c.leaseMs)),
    deadline,
    calls.some((c) => c.alive) ? 1 : 0,
    Math.max(...calls.map((c) => c.leaseMaxMs ?? c.leaseMs)),
  ];
  for (const c of calls) {
    a.push(c.id, c.weight, c.want, c.extra, c.room ? 1 : 0, c.queued, c.epoch ?? '', c.limits.length);
    for (const l of c.limits) {
      k.push(keys.meta(l.name), keys.log(l.name), keys.wait(l.name), keys.arrived(l.name));
      a.push(l.limit, l.windowMs, l.marginMs, l.reserved, l.lateMs, l.confirmed?.length ?? 0, l.holdMs ?? 0);
    }
    for (const l of c.limits) for (const g of l.confirmed ?? []) a.push(g.id, g.at);
  }
  k.push(keys.alive, keys.lost);
  a.push(calls[calls.length - 1]!.at ?? '');
  return { keys: k, args: a };
}

/** N and W of a limit as Redis holds them (another process may have changed them). */
export interface HeldSettings {
  readonly limit: number;
  readonly windowMs: number;
}

/**
 * ACQUIRE's answer (lua/acquire.lua), read: `granted` permits on every limit asked for (`probe`:
 * the one request let through on a limit no process knows yet); `wait` `waitMs` before enough has
 * left a window; `never`, the weight being heavier than limit `index` (from 0) ever allows; or
 * `late`, the call having reached Redis past its deadline (nothing done). `redisNow` is Redis's
 * instant, floored; `limits` each limit's N and W in Redis, in the order asked; `epoch` which
 * data Redis holds.
 */
export type AcquireReply =
  | {
      readonly status: 'granted';
      readonly redisNow: number;
      readonly granted: number;
      readonly probe: boolean;
      readonly limits: readonly HeldSettings[];
      readonly epoch: string;
    }
  | {
      readonly status: 'wait';
      readonly redisNow: number;
      readonly waitMs: number;
      readonly limits: readonly HeldSettings[];
      readonly epoch: string;
    }
  | {
      readonly status: 'never';
      readonly redisNow: number;
      readonly index: number;
      readonly limits: readonly HeldSettings[];
      readonly epoch: string;
    }
  | { readonly status: 'late'; readonly redisNow: number };

/**
 * Reads ACQUIRE's reply for a call on `count` limits: {1, granted, now, n1, w1, ..., epoch,
 * probe}, {0, wait ms, now, n1, w1, ..., epoch}, {-1, index from 1, now, n1, w1, ..., epoch} or
 * {-2, 0, now}.
 */
export function decodeAcquire(reply: readonly unknown[], count: number): AcquireReply {
  const status = Number(reply[0]);
  const value = Number(reply[1]);
  const redisNow = Number(reply[2]);
  if (status === -2) return { status: 'late', redisNow };
  const limits: HeldSettings[] = [];
  for (let i = 0; i < count; i++) limits.push({ limit: Number(reply[3 + 2 * i]), windowMs: Number(reply[4 + 2 * i]) });
  const epoch = String(reply[3 + 2 * count]);
  if (status === 1)
    return { status: 'granted', redisNow, granted: value, probe: Number(reply[4 + 2 * count]) === 1, limits, epoch };
  if (status === 0) return { status: 'wait', redisNow, waitMs: value, limits, epoch };
  return { status: 'never', redisNow, index: value - 1, limits, epoch };
}

/** Reads ACQUIRE_MANY's reply: one ACQUIRE reply per request, on `counts[i]` limits each (see {@link decodeAcquire}). */
export function decodeAcquireMany(reply: readonly unknown[], counts: readonly number[]): AcquireReply[] {
  return counts.map((count, i) => decodeAcquire(reply[i] as unknown[], count));
}

/**
 * The layout ACQUIRE and HELLO share. KEYS: epoch, processes, then each limit's. ARGV: the call's
 * own, then each limit's, then `tail`, then the instant ('': Redis's clock).
 */
function encodePerLimit<L>(
  keys: RedisKeys,
  args: readonly (string | number)[],
  at: number | undefined,
  limits: readonly L[],
  each: (l: L) => Encoded,
  tail: readonly (string | number)[] = [],
): Encoded {
  const k: string[] = [keys.epoch, keys.procs];
  const a: (string | number)[] = [...args];
  for (const l of limits) {
    const e = each(l);
    k.push(...e.keys);
    a.push(...e.args);
  }
  a.push(...tail, at ?? '');
  return { keys: k, args: a };
}

/** What a process measured of the way to the exchange on one limit (lua/arrivals.lua). */
export interface ArrivalsCall {
  /** The instant to run at, ms; none: Redis's clock (TIME), which every process shares. */
  readonly at?: number | undefined;
  readonly limit: LimitSettings;
  /** The latest arrival this process measured lately, ms (0: none). */
  readonly lateMs: number;
  readonly leaseMs: number;
  readonly confirmed: readonly GrantArrival[];
}

/** KEYS: meta, log, confirmed grants. */
export function encodeArrivals(keys: RedisKeys, c: ArrivalsCall): Encoded {
  const l = c.limit;
  const args: (string | number)[] = [l.limit, l.windowMs, l.marginMs, c.lateMs, c.leaseMs, c.confirmed.length];
  for (const g of c.confirmed) args.push(g.id, g.at);
  args.push(c.at ?? '');
  return { keys: [keys.meta(l.name), keys.log(l.name), keys.arrived(l.name)], args };
}

/** A process says it is here, with what it sent on local shares (lua/hello.lua). */
export interface HelloCall {
  /** The instant to run at, ms; none: Redis's clock (TIME), which every process shares. */
  readonly at?: number | undefined;
  readonly process: string;
  /** Names the entries of what was sent. */
  readonly id: string;
  /** Redis instant past which nothing is done, ms (0: none). */
  readonly deadline: number;
  /** The limits it sent on: what it sent is counted as sent now. */
  /** `holdMs`: the entry is held for the answers to what was sent (see {@link AcquireCall}). */
  readonly limits: readonly (LimitSettings & { readonly sent: number; readonly holdMs?: number | undefined })[];
}

/** KEYS: epoch, processes, then meta and log of each limit. */
export function encodeHello(keys: RedisKeys, c: HelloCall): Encoded {
  return encodePerLimit(keys, [c.process, c.id, c.deadline], c.at, c.limits, (l) => ({
    keys: [keys.meta(l.name), keys.log(l.name)],
    args: [l.limit, l.windowMs, l.marginMs, l.sent, l.holdMs ?? 0],
  }));
}

/** HELLO's answer (lua/hello.lua): heard (false: past its deadline, nothing done), at Redis's instant. */
export interface HelloReply {
  readonly heard: boolean;
  readonly redisNow: number;
}

/** Reads HELLO's reply: {1, now}, or {-2, now} past its deadline. */
export function decodeHello(reply: readonly unknown[]): HelloReply {
  return { heard: Number(reply[0]) === 1, redisNow: Number(reply[1]) };
}

/** Permits of a grant that may have been sent after their score, counted from now (lua/late.lua). */
export interface LateCall {
  /** The instant to run at, ms; none: Redis's clock (TIME), which every process shares. */
  readonly at?: number | undefined;
  readonly limit: LimitSettings;
  /** Names the entry counted from now: a repeated id does nothing. */
  readonly id: string;
  readonly weight: number;
  /** The grant they are moved out of. */
  readonly grant: string;
  /** The entry is held for their answers as the grant is, ms (see {@link AcquireCall}; 0 or none: not). */
  readonly holdMs?: number | undefined;
}

/** KEYS: meta, log. */
export function encodeLate(keys: RedisKeys, c: LateCall): Encoded {
  const l = c.limit;
  return {
    keys: [keys.meta(l.name), keys.log(l.name)],
    args: [l.limit, l.windowMs, l.marginMs, c.id, c.weight, c.grant, c.holdMs ?? 0, c.at ?? ''],
  };
}

/** Ends a grant on one limit: what was sent stays counted, the rest is given back (lua/release.lua). */
export interface ReleaseCall {
  readonly limit: string;
  readonly grant: string;
  readonly sent: number;
}

/** KEYS: meta, log. */
export function encodeRelease(keys: RedisKeys, c: ReleaseCall): Encoded {
  return { keys: [keys.meta(c.limit), keys.log(c.limit)], args: [c.grant, c.sent] };
}

/** What the exchange said, for every process (lua/feedback.lua, see docs/rules.md#r12). */
export interface FeedbackCall {
  /** The instant to run at, ms; none: Redis's clock (TIME), which every process shares. */
  readonly at?: number | undefined;
  readonly limit: LimitSettings;
  /** A pause from now, ms (0: none). */
  readonly pauseMs: number;
  /** A weight held (0: none) ... */
  readonly holdWeight: number;
  /** ... for this long from now, ms. */
  readonly holdMs: number;
  /** Names the hold's entry. */
  readonly id: string;
  /** The hold is the exchange's count of the window (see docs/rules.md#r17): the limit is known to every process. */
  readonly counted?: boolean | undefined;
  /**
   * With `counted`: when the process sent the request whose answer stated the count, on Redis's
   * clock (at most that), ms: the exchange counted no earlier. None: when Redis runs the call. A
   * count that may have been made before grants were lost does not make the limit known after the
   * loss, however late its answer came or the call reaches Redis.
   */
  readonly countedAt?: number | undefined;
}

/** KEYS: meta, log, confirmed grants. */
export function encodeFeedback(keys: RedisKeys, c: FeedbackCall): Encoded {
  const l = c.limit;
  return {
    keys: [keys.meta(l.name), keys.log(l.name), keys.arrived(l.name)],
    args: [
      l.limit,
      l.windowMs,
      l.marginMs,
      c.pauseMs,
      c.holdWeight,
      c.holdMs,
      c.id,
      c.counted ? 1 : 0,
      c.countedAt === undefined ? '' : Math.floor(c.countedAt),
      c.at ?? '',
    ],
  };
}

/** What a process sent that Redis may have lost, added back (lua/restore.lua; see docs/rules.md#r17). */
export interface RestoreCall {
  /** The instant to run at, ms; none: Redis's clock (TIME), which every process shares. */
  readonly at?: number | undefined;
  /** The process adding back. */
  readonly process: string;
  readonly limits: readonly (LimitSettings & {
    /** The latest arrival this process measured lately, ms (0: none), kept as acquire.lua does. */
    readonly lateMs: number;
    readonly grants: readonly RecentEntry[];
  })[];
}

/**
 * KEYS: epoch, alive, lost, then meta and log of each limit. ARGV: the process, then n, w, m, late
 * and the grants of each limit, then the instant.
 */
export function encodeRestore(keys: RedisKeys, c: RestoreCall): Encoded {
  const k: string[] = [keys.epoch, keys.alive, keys.lost];
  const a: (string | number)[] = [c.process];
  for (const l of c.limits) {
    k.push(keys.meta(l.name), keys.log(l.name));
    a.push(l.limit, l.windowMs, l.marginMs, l.lateMs, l.grants.length);
    for (const g of l.grants) a.push(g.id, g.weight, g.score);
  }
  a.push(c.at ?? '');
  return { keys: k, args: a };
}

/** RESTORE's answer (lua/restore.lua): the epoch Redis holds now, at its instant. */
export interface RestoreReply {
  readonly epoch: string;
  readonly redisNow: number;
}

/** Reads RESTORE's reply: {epoch, now}. */
export function decodeRestore(reply: readonly unknown[]): RestoreReply {
  return { epoch: String(reply[0]), redisNow: Number(reply[1]) };
}

/** A new N and W for every process (lua/update.lua, see docs/rules.md#r13). */
export interface UpdateCall {
  readonly limit: LimitSettings;
}

/** KEYS: meta. */
export function encodeUpdate(keys: RedisKeys, c: UpdateCall): Encoded {
  const l = c.limit;
  return { keys: [keys.meta(l.name)], args: [l.limit, l.windowMs, l.marginMs] };
}

/** KEYS: epoch (the probe reads nothing; the key names the slot). */
export function encodeProbe(keys: RedisKeys): Encoded {
  return { keys: [keys.epoch], args: [] };
}

/** Writes a batch of an account's counts and reads the totals back (lua/counts.lua). */
export interface CountsCall {
  /** The instant to run at, ms; none: Redis's clock (TIME), which every process shares. */
  readonly at?: number | undefined;
  readonly process: string;
  /** The batch number, in order per process (0: none, or history written once under `once`). */
  readonly batch: number;
  /** The epoch the process knows ('': none). */
  readonly epoch: string;
  /** The last batch number of the process Redis said it held (0: none): a lower one held now is a loss. */
  readonly held: number;
  /**
   * `absent`: write only keys that do not exist; `merge`: seeded history, each key's marked fields
   * replaced when the rank written is higher than the one held.
   */
  readonly mode: 'add' | 'absent' | 'merge';
  /** History written once under this id, whichever process writes it. */
  readonly once?: string | undefined;
  /** The keys written (names under the counts' prefix), each with its time to live and increments. */
  readonly writes: readonly {
    readonly key: string;
    readonly ttlMs: number;
    readonly fields: ReadonlyMap<string, bigint>;
  }[];
  /** The keys read back (names under the counts' prefix). */
  readonly reads: readonly string[];
}

/** KEYS: epoch, batch numbers, the once key (or the epoch again), the keys written, the keys read. */
export function encodeCounts(keys: RedisKeys, c: CountsCall): Encoded {
  const k: string[] = [
    keys.epoch,
    keys.counts('seq'),
    c.once === undefined ? keys.epoch : keys.counts(`once:${c.once}`),
  ];
  const a: (string | number)[] = [
    c.process,
    c.batch,
    c.epoch,
    c.mode,
    c.once === undefined ? 0 : 1,
    c.writes.length,
    c.reads.length,
    c.held,
  ];
  for (const w of c.writes) {
    k.push(keys.counts(w.key));
    a.push(w.ttlMs, w.fields.size);
    for (const [f, n] of w.fields) a.push(f, n.toString());
  }
  for (const key of c.reads) k.push(keys.counts(key));
  a.push(c.at ?? '');
  return { keys: k, args: a };
}

/**
 * COUNTS's answer (lua/counts.lua), read: `written` (or written before, a batch sent again),
 * `lost` (the epoch changed: Redis lost what it held) or `behind` (Redis holds a lower last batch
 * number for the process than it said: batches it took are lost); the epoch Redis holds, the last
 * batch number it holds for the process, and each key read, in the order asked (null: none).
 */
export interface CountsReply {
  readonly status: 'written' | 'lost' | 'behind';
  readonly epoch: string;
  readonly held: number;
  readonly totals: readonly (Map<string, bigint> | null)[];
}

/** Reads COUNTS's reply for a call reading `count` keys: {status, epoch, held, then field, value, ... of each key}. */
export function decodeCounts(reply: readonly unknown[], count: number): CountsReply {
  const code = Number(reply[0]);
  const totals: (Map<string, bigint> | null)[] = [];
  for (let i = 0; i < count; i++) {
    const flat = reply[3 + i] as string[];
    if (flat.length === 0) {
      totals.push(null);
      continue;
    }
    const fields = new Map<string, bigint>();
    for (let j = 0; j < flat.length; j += 2) fields.set(flat[j]!, BigInt(flat[j + 1]!));
    totals.push(fields);
  }
  return {
    status: code === -3 ? 'lost' : code === -4 ? 'behind' : 'written',
    epoch: String(reply[1]),
    held: Number(reply[2]),
    totals,
  };
}
