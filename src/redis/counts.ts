import { createHash } from 'node:crypto';
import type { CountedMarket, SharedCounts, SharedTotals } from '../account/shared-counts.js';
import {
  type CountedAction,
  DAYS_KEPT,
  type FillRole,
  HOURS_KEPT,
  Tracker,
  type TrackerState,
} from '../account/tracker.js';
import {
  DAY_MS,
  HOUR_MS,
  formatUtcDay,
  formatUtcInstant,
  parseUtcDay,
  parseUtcHour,
  utcDayStart,
  utcHourStart,
} from '../rules/calendar.js';
import { type Fixed, fixedFromDec, toDec } from '../internal/fixed.js';
import { parseNonNegativeDecimal } from '../internal/parse.js';
import { type Clock, unrefTimer } from '../schedule/clock.js';
import { type CountsCall, type CountsReply, decodeCounts } from './calls.js';

/**
 * Counts by Redis key, then by field: `<kind>:<start>:<account>` (kind `d` a futures day, `h` a
 * futures hour, `D` and `H` their spot twins), fields `<contract>:p|a|c` (requests), `<contract>:m<e>`
 * and `<contract>:t<e>` (maker, taker USDT), `r` and `t<e>` (an hour's requests and USDT traded).
 * A volume is held as limbs of nine digits, the one of field `<e>` worth 10^e each: Redis adds
 * 64-bit integers exactly, so every sum stays exact whatever its scale.
 */
type Buckets = Map<string, Map<string, bigint>>;

const LIMB = 1_000_000_000n;
/** How often every day and hour kept is read again (others' history, late batches). */
const FULL_READ_MS = 1000;
/**
 * How long a batch Redis took is kept, to send again should Redis lose it: a failover to a
 * replica that had not yet received it (see docs/distributed.md#redis-restarts-and-failovers).
 */
export const KEPT_AFTER_WRITE_MS = 10_000;
/** Days are read for 8 days after they end, hours for 25 hours: the longest window they serve. */
const DAY_TTL_MS = (DAYS_KEPT - 1) * DAY_MS;
const HOUR_TTL_MS = HOURS_KEPT * HOUR_MS;

/** What the counts need of their Redis store. */
export interface CountsHost {
  readonly id: string;
  readonly clock: Clock;
  readonly flushMs: number;
  readonly retryMs: number;
  /** How long a write may take to reach Redis before it has failed, in milliseconds. */
  readonly timeoutMs: number;
  /** Runs the counts script (with the store's timeout). */
  run(call: CountsCall): Promise<unknown>;
}

interface Batch {
  /** The batch number (0: history written once under `once`). */
  readonly seq: number;
  readonly buckets: Buckets;
  readonly once?: string;
  readonly mode: 'add' | 'absent' | 'merge';
}

/**
 * An account limiter's counts in Redis, summed over every process (see docs/rules.md#r1, #r9, #r14). What the process
 * counts is added into buckets (a day, an hour) and written every `flushMs` as one batch, numbered
 * so that a batch sent again counts once; the same script reads the totals back. While Redis
 * fails, counts go on adding into the same buckets (memory bounded by accounts x contracts x days)
 * and are written when it answers. The process keeps its own counts too: when Redis has lost its
 * data (a restart), it writes them again whole.
 */
export class RedisCounts implements SharedCounts {
  private pending: Buckets = new Map();
  /** Requests not yet in `pending` and `own` (see `request`), all of the hour `fastHour`. */
  private fast = new Map<string, Map<string, number[]>>();
  private fastHour = -Infinity;
  private readonly own: Buckets = new Map();
  private sent: Batch | null = null;
  private readonly once: Batch[] = [];
  /** Batches Redis took, with when (the store's clock): sent again should Redis lose them. */
  private written: { readonly batch: Batch; readonly at: number }[] = [];
  /** Numbered batches Redis lost, to send again in order before any other. */
  private lost: Batch[] = [];
  /** The last batch number of this process Redis said it held. */
  private held = 0;
  private readonly totals: Buckets = new Map();
  private seq = 0;
  private epoch = '';
  private flight: Promise<void> | null = null;
  private timer: unknown = null;
  private full = true;
  /** Whether the next totals handed over follow a change of history (see SharedTotals). */
  private history = true;
  private lastFull = -Infinity;
  private lastRead = -Infinity;
  private settling: ((complete: boolean) => void)[] = [];
  private accounts: () => readonly string[] = () => [];
  private now: () => number = () => this.host.clock.wall();
  private onTotals: ((totals: SharedTotals) => void) | null = null;
  private latest = -Infinity;
  private closed = false;
  private closing: Promise<void> | null = null;
  /** Another round trip is due as soon as the one under way ends. */
  private again = false;

  constructor(private readonly host: CountsHost) {}

  start(accounts: () => readonly string[], now: () => number, onTotals: (totals: SharedTotals) => void): void {
    this.accounts = accounts;
    this.now = now;
    this.onTotals = onTotals;
    this.tick();
  }

  request(
    market: CountedMarket,
    account: string,
    contract: string,
    action: CountedAction,
    orders: number,
    at: number,
  ): void {
    // Counted as plain numbers by account and contract, within one hour, and moved into the
    // buckets before anything reads them: a request costs two map lookups, not four bucket
    // updates in BigInt.
    if (!(at >= this.fastHour && at < this.fastHour + HOUR_MS)) {
      this.fold();
      this.fastHour = utcHourStart(at);
    }
    let byContract = this.fast.get(account);
    if (byContract === undefined) this.fast.set(account, (byContract = new Map()));
    let counts = byContract.get(contract);
    if (counts === undefined) byContract.set(contract, (counts = [0, 0, 0, 0, 0, 0]));
    counts[(market === 'spot' ? 3 : 0) + (action === 'place' ? 0 : action === 'amend' ? 1 : 2)]! += orders;
  }

  /** Moves the requests counted since the last time into the buckets, as pending and own. */
  private fold(): void {
    if (this.fast.size === 0) return;
    const day = utcDayStart(this.fastHour);
    for (const [account, byContract] of this.fast) {
      let futures = 0;
      let spot = 0;
      for (const [contract, counts] of byContract) {
        for (let i = 0; i < 6; i++) {
          const n = counts[i]!;
          if (n === 0) continue;
          this.add(i < 3 ? 'd' : 'D', day, account, `${contract}:${'pac'[i % 3]!}`, BigInt(n));
          if (i < 3) futures += n;
          else spot += n;
        }
      }
      if (futures > 0) this.add('h', this.fastHour, account, 'r', BigInt(futures));
      if (spot > 0) this.add('H', this.fastHour, account, 'r', BigInt(spot));
    }
    this.fast = new Map();
  }

  fill(
    market: CountedMarket,
    account: string,
    contract: string,
    role: FillRole,
    volume: string | number,
    at: number,
  ): void {
    for (const [e, d] of limbs(fixedFromDec(parseNonNegativeDecimal(volume, '`volume`')))) {
      this.add(
        market === 'spot' ? 'D' : 'd',
        utcDayStart(at),
        account,
        `${contract}:${role === 'maker' ? 'm' : 't'}${e}`,
        d,
      );
      this.add(market === 'spot' ? 'H' : 'h', utcHourStart(at), account, `t${e}`, d);
    }
  }

  seed(futures: TrackerState, spot: TrackerState, mode: 'merge' | 'absent'): void {
    const buckets: Buckets = new Map();
    // Merged history is kept apart from live counts in each bucket: its fields are marked SEEDED.
    const mark = mode === 'merge' ? SEEDED : '';
    const put = (kind: string, start: number, account: string, field: string, n: bigint): void => {
      if (n > 0n) addTo(buckets, `${kind}:${start}:${account}`, mark + field, n);
    };
    for (const [state, day, hour] of [
      [futures, 'd', 'h'],
      [spot, 'D', 'H'],
    ] as const) {
      for (const d of state.days) {
        const start = parseUtcDay(d.day, 'day');
        for (const c of d.contracts) {
          put(day, start, d.account, `${c.contract}:p`, BigInt(c.place));
          put(day, start, d.account, `${c.contract}:a`, BigInt(c.amend));
          put(day, start, d.account, `${c.contract}:c`, BigInt(c.cancel));
          for (const [e, n] of limbs(fixedFromDec(parseNonNegativeDecimal(c.makerVolume, 'makerVolume'))))
            put(day, start, d.account, `${c.contract}:m${e}`, n);
          for (const [e, n] of limbs(fixedFromDec(parseNonNegativeDecimal(c.takerVolume, 'takerVolume'))))
            put(day, start, d.account, `${c.contract}:t${e}`, n);
        }
      }
      for (const h of state.hours) {
        const start = parseUtcHour(h.hour, 'hour');
        put(hour, start, h.account, 'r', BigInt(h.requests));
        for (const [e, n] of limbs(fixedFromDec(parseNonNegativeDecimal(h.traded, 'traded'))))
          put(hour, start, h.account, `t${e}`, n);
      }
    }
    if (buckets.size === 0) return;
    if (mode === 'merge') {
      // Each bucket's seeded fields replace those Redis holds when they rank higher (see rankOf):
      // written in any order, by any process, any number of times, the highest stays.
      for (const fields of buckets.values()) fields.set(SEEDED, rankOf(fields));
      this.once.push({ seq: 0, buckets, mode });
      this.tick();
      return;
    }
    // The id is the history itself: several processes writing the same history write it once.
    const hash = createHash('sha1').update(mode);
    for (const [key, fields] of [...buckets].sort(([a], [b]) => (a < b ? -1 : 1))) {
      hash.update(key);
      for (const [f, n] of [...fields].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`${f}=${n};`);
    }
    this.once.push({ seq: 0, buckets, once: hash.digest('base64url'), mode });
    this.tick();
  }

  unreadMs(now: number): number {
    // The last reading was sent at `lastRead`; a batch counted up to flushMs before it is in it,
    // unless it was still on its way (at most timeoutMs).
    return now - this.lastRead + this.host.flushMs + this.host.timeoutMs;
  }

  settle(): Promise<boolean> {
    // Every process writes what it counted within flushMs: two of them, and everything counted
    // before the call is in Redis.
    return new Promise<boolean>((resolve) => {
      this.setTimer(() => {
        this.full = true;
        this.settling.push(resolve);
        this.tick();
      }, 2 * this.host.flushMs);
    });
  }

  close(): Promise<void> {
    // Closed by the limiter and by the store: both wait for the same last write.
    this.closing ??= (async () => {
      this.closed = true;
      if (this.timer !== null) this.host.clock.clearTimer(this.timer);
      this.timer = null;
      await this.flight;
      this.fold();
      // One round trip a batch (history waiting is one batch each), one attempt each.
      for (
        let n = this.once.length + this.lost.length + 2;
        n > 0 && (this.sent !== null || this.once.length > 0 || this.lost.length > 0 || this.pending.size > 0);
        n--
      )
        await this.sync();
      for (const r of this.settling.splice(0)) r(false);
    })();
    return this.closing;
  }

  /** Counts `n` in one field of one bucket, as pending and as this process's own. */
  private add(kind: string, start: number, account: string, field: string, n: bigint): void {
    const key = `${kind}:${start}:${account}`;
    addTo(this.pending, key, field, n);
    addTo(this.own, key, field, n);
    if (start > this.latest) this.latest = start;
  }

  private tick(): void {
    if (this.timer !== null) this.host.clock.clearTimer(this.timer);
    this.timer = null;
    if (this.closed) return;
    if (this.flight === null) {
      this.flight = this.sync().finally(() => {
        this.flight = null;
        if (this.again && !this.closed) {
          this.again = false;
          this.tick();
        }
      });
    }
    this.timer = this.setTimer(() => {
      this.timer = null;
      this.tick();
    }, this.host.flushMs);
  }

  private setTimer(callback: () => void, ms: number): unknown {
    return unrefTimer(this.host.clock.setTimer(callback, ms));
  }

  /** One round trip: the batch due (a batch sent before and unanswered first), and the totals. */
  private async sync(): Promise<void> {
    this.fold();
    const now = this.now();
    let batch = this.sent ?? this.lost.shift() ?? this.once[0] ?? null;
    if (batch === null && this.pending.size > 0) {
      batch = { seq: ++this.seq, buckets: this.pending, mode: 'add' };
      this.pending = new Map();
    }
    if (batch !== null && batch.seq > 0) this.sent = batch;
    const full = this.full || now - this.lastFull >= FULL_READ_MS;
    const settled = this.settling.splice(0);
    const reads = this.readKeys(now, full);
    const writes: CountsCall['writes'][number][] = [];
    for (const [key, fields] of batch?.buckets ?? []) {
      // How long from now, on this process's clock: the bucket's day or hour is this process's
      // (an engine on a clock of its own, a replay), and Redis's clock may be hours from it.
      writes.push({ key, ttlMs: Math.max(1, Math.ceil(expiry(key) - now)), fields });
    }
    const call: CountsCall = {
      process: this.host.id,
      batch: batch?.seq ?? 0,
      epoch: this.epoch,
      held: this.held,
      mode: batch?.mode ?? 'add',
      once: batch?.once,
      writes,
      reads,
    };
    let reply: CountsReply;
    try {
      reply = decodeCounts((await this.host.run(call)) as unknown[], reads.length);
    } catch {
      // Unanswered: the batch stays to be sent again under its number; counts go on adding up.
      this.retry(settled);
      return;
    }
    const { status, epoch, held } = reply;
    const at = this.host.clock.now();
    if (status === 'lost') {
      // Redis lost what it held: this process writes everything it counted itself again.
      this.sent = null;
      this.pending = new Map();
      for (const [key, fields] of this.own) for (const [f, n] of fields) addTo(this.pending, key, f, n);
      this.written = [];
      this.lost = [];
      this.full = this.history = true;
    } else if (status === 'behind') {
      this.sendAgain(held);
    } else if (batch !== null) {
      if (batch.seq > 0) this.sent = null;
      else {
        this.once.shift();
        this.full = this.history = true;
      }
      this.written.push({ batch, at });
    }
    this.held = held;
    while (this.written.length > 0 && at - this.written[0]!.at > KEPT_AFTER_WRITE_MS) this.written.shift();
    this.epoch = epoch;
    // Days and hours before the latest two change only by history written (seeded, restored,
    // written again after a loss, or late): the limits are then read again.
    const recent = new Set(this.readKeys(now, false));
    reads.forEach((key, i) => {
      const before = this.totals.get(key);
      const fields = reply.totals[i] ?? undefined;
      if (fields !== undefined) this.totals.set(key, fields);
      else this.totals.delete(key);
      if (!recent.has(key) && !sameFields(before, fields)) this.history = true;
    });
    this.lastRead = now;
    if (full && status === 'written') {
      this.full = false;
      this.lastFull = now;
    }
    this.prune(now);
    if (status === 'written') this.publish();
    // Read whole unless Redis lost its data: each process writes its own counts again first.
    for (const r of settled) r(status === 'written');
    if (this.full || this.once.length > 0 || this.lost.length > 0) this.again = true;
  }

  /**
   * Redis holds `held` as this process's last batch number, lower than it said before: it lost
   * the batches it took after that one (a failover to a replica that lagged). Those kept are sent
   * again in order, under their numbers, before anything else, with the one on its way; history
   * written once is written again (whoever wrote it, it counts once).
   */
  private sendAgain(held: number): void {
    const again = this.written.map((w) => w.batch).filter((b) => b.seq > held || b.seq === 0);
    if (this.sent !== null) again.push(this.sent);
    this.sent = null;
    this.lost = again.filter((b) => b.seq > 0).sort((a, b) => a.seq - b.seq);
    this.once.unshift(...again.filter((b) => b.seq === 0));
    this.written = this.written.filter((w) => w.batch.seq > 0 && w.batch.seq <= held);
    this.full = this.history = true;
  }

  private retry(settled: ((complete: boolean) => void)[]): void {
    // A boundary does not wait on Redis: the limiter decides on what it has.
    for (const r of settled) r(false);
    if (this.closed) return;
    if (this.timer !== null) this.host.clock.clearTimer(this.timer);
    this.timer = this.setTimer(
      () => {
        this.timer = null;
        this.tick();
      },
      Math.max(this.host.retryMs, this.host.flushMs),
    );
  }

  /** The buckets read: every one kept when `full`, else the latest two days and hours. */
  private readKeys(now: number, full: boolean): string[] {
    const keys: string[] = [];
    const day = utcDayStart(now);
    const hour = utcHourStart(now);
    for (const account of this.accounts()) {
      for (let i = full ? DAYS_KEPT - 1 : 1; i >= 0; i--)
        keys.push(`d:${day - i * DAY_MS}:${account}`, `D:${day - i * DAY_MS}:${account}`);
      for (let i = full ? HOURS_KEPT - 1 : 1; i >= 0; i--)
        keys.push(`h:${hour - i * HOUR_MS}:${account}`, `H:${hour - i * HOUR_MS}:${account}`);
    }
    return keys;
  }

  /** Forgets the days and hours no rule reads any more. */
  private prune(now: number): void {
    this.fold();
    const day = utcDayStart(now) - DAYS_KEPT * DAY_MS;
    const hour = utcHourStart(now) - HOURS_KEPT * HOUR_MS;
    for (const map of [this.totals, this.own]) {
      for (const key of map.keys()) {
        const start = Number(key.slice(2, key.indexOf(':', 2)));
        if (start <= (key[0] === 'd' || key[0] === 'D' ? day : hour)) map.delete(key);
      }
    }
  }

  /** Hands the limiter the totals with what it counted and Redis does not hold yet. */
  private publish(): void {
    if (this.onTotals === null || this.closed) return;
    this.fold();
    const all: Buckets = new Map();
    for (const b of [this.totals, this.sent?.buckets, ...this.lost.map((l) => l.buckets), this.pending]) {
      for (const [key, fields] of b ?? []) for (const [f, n] of fields) addTo(all, key, f, n);
    }
    for (const batch of this.once) {
      for (const [key, fields] of batch.buckets) {
        if (batch.mode === 'absent' && this.totals.has(key)) continue;
        if (batch.mode === 'merge') {
          // Not written yet: it stands in for the seeded history Redis holds when it ranks higher.
          const held = all.get(key);
          if ((held?.get(SEEDED) ?? -1n) >= fields.get(SEEDED)!) continue;
          if (held !== undefined) for (const f of [...held.keys()]) if (f.startsWith(SEEDED)) held.delete(f);
        }
        for (const [f, n] of fields) addTo(all, key, f, n);
      }
    }
    // Only a full reading may say the history changed: the limits are read again on all of it.
    const history = this.history && this.lastFull === this.lastRead;
    if (history) this.history = false;
    this.onTotals({ ...trackersOf(all, this.latest), history });
  }
}

/** Marks a bucket's fields of seeded history; the field of the mark alone holds their rank. */
const SEEDED = '=';
/** The smallest unit of volume a rank tells apart: 10^-45 USDT. */
const RANK_SCALE = 45;

/**
 * The rank of a bucket's seeded history: its requests first, then its volume (maker, taker or
 * traded), as one number of a fixed 151 digits (compared as text in Redis). History fetched later
 * holds at least as much of every day and hour as history fetched before, so the higher rank is
 * the later fetch: their union.
 */
function rankOf(fields: ReadonlyMap<string, bigint>): bigint {
  let requests = 0n;
  let volume = 0n;
  for (const [marked, n] of fields) {
    const f = marked.slice(SEEDED.length);
    const tag = f.slice(f.lastIndexOf(':') + 1);
    if (f === 'r' || tag === 'p' || tag === 'a' || tag === 'c') requests += n;
    else {
      const e = Number(tag.slice(1)) + RANK_SCALE;
      if (e >= 0) volume += n * 10n ** BigInt(e);
    }
  }
  return 10n ** 150n + requests * 10n ** 100n + volume;
}

function sameFields(a: Map<string, bigint> | undefined, b: Map<string, bigint> | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.size !== b.size) return false;
  for (const [f, n] of a) if (b.get(f) !== n) return false;
  return true;
}

function addTo(b: Buckets, key: string, field: string, n: bigint): void {
  let fields = b.get(key);
  if (fields === undefined) b.set(key, (fields = new Map()));
  fields.set(field, (fields.get(field) ?? 0n) + n);
}

/** When a bucket's key expires (epoch ms): 8 days after its day ends, 25 hours after its hour ends. */
function expiry(key: string): number {
  const start = Number(key.slice(2, key.indexOf(':', 2)));
  return key[0] === 'd' || key[0] === 'D' ? start + DAY_MS + DAY_TTL_MS : start + HOUR_MS + HOUR_TTL_MS;
}

/** An amount as limbs of nine digits: [e, d] for d x 10^e, d below 10^9. */
function limbs(f: Fixed): [number, bigint][] {
  const up = Math.ceil(f.scale / 9) * 9;
  let u = f.units * 10n ** BigInt(up - f.scale);
  const out: [number, bigint][] = [];
  for (let e = -up; u > 0n; e += 9, u /= LIMB) {
    const d = u % LIMB;
    if (d > 0n) out.push([e, d]);
  }
  return out;
}

/** The exact decimal text of limbs [e, d] (their sum of d x 10^e). */
function textOf(parts: readonly [number, bigint][]): string {
  const scale = Math.max(0, ...parts.map(([e]) => -e));
  let units = 0n;
  for (const [e, d] of parts) units += d * 10n ** BigInt(e + scale);
  return toDec({ units, scale }).toFixed();
}

/** The futures and spot trackers that hold `buckets`. */
function trackersOf(buckets: Buckets, latest: number): { futures: Tracker; spot: Tracker } {
  type Day = { account: string; day: string; contracts: TrackerState['days'][number]['contracts'][number][] };
  const states = {
    futures: { days: [] as [number, Day][], hours: [] as [number, TrackerState['hours'][number]][] },
    spot: { days: [] as [number, Day][], hours: [] as [number, TrackerState['hours'][number]][] },
  };
  let last = latest;
  for (const [key, marked] of buckets) {
    // Seeded and live counts of a bucket add up; the rank of the seeded ones is not a count.
    const fields = new Map<string, bigint>();
    for (const [f, n] of marked) {
      if (f === SEEDED) continue;
      const name = f.startsWith(SEEDED) ? f.slice(SEEDED.length) : f;
      fields.set(name, (fields.get(name) ?? 0n) + n);
    }
    const kind = key[0]!;
    const at = key.indexOf(':', 2);
    const start = Number(key.slice(2, at));
    const account = key.slice(at + 1);
    const state = kind === 'd' || kind === 'h' ? states.futures : states.spot;
    if (start > last) last = start;
    if (kind === 'd' || kind === 'D') {
      const contracts = new Map<
        string,
        { place: number; amend: number; cancel: number; m: [number, bigint][]; t: [number, bigint][] }
      >();
      for (const [field, n] of fields) {
        const cut = field.lastIndexOf(':');
        const name = field.slice(0, cut);
        const tag = field.slice(cut + 1);
        let c = contracts.get(name);
        if (c === undefined) contracts.set(name, (c = { place: 0, amend: 0, cancel: 0, m: [], t: [] }));
        if (tag === 'p') c.place += Number(n);
        else if (tag === 'a') c.amend += Number(n);
        else if (tag === 'c') c.cancel += Number(n);
        else (tag[0] === 'm' ? c.m : c.t).push([Number(tag.slice(1)), n]);
      }
      state.days.push([
        start,
        {
          account,
          day: formatUtcDay(start),
          contracts: [...contracts].map(([contract, c]) => ({
            contract,
            makerVolume: textOf(c.m),
            takerVolume: textOf(c.t),
            place: c.place,
            amend: c.amend,
            cancel: c.cancel,
          })),
        },
      ]);
    } else {
      const traded: [number, bigint][] = [];
      let requests = 0;
      for (const [field, n] of fields) {
        if (field === 'r') requests += Number(n);
        else traded.push([Number(field.slice(1)), n]);
      }
      state.hours.push([start, { account, hour: formatUtcInstant(start), requests, traded: textOf(traded) }]);
    }
  }
  const make = (s: typeof states.futures): Tracker =>
    Tracker.restore({
      latest: last === -Infinity ? null : last,
      days: s.days.sort((a, b) => a[0] - b[0]).map(([, d]) => d),
      hours: s.hours.sort((a, b) => a[0] - b[0]).map(([, h]) => h),
    });
  return { futures: make(states.futures), spot: make(states.spot) };
}
