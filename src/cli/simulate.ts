import { Tracker } from '../account/tracker.js';
import { type Catalog, type Classification, createCatalog } from '../catalog/catalog.js';
import { InvalidInputError } from '../errors.js';
import { type AbuseConfig, buildAbuseTimeline, resolveAbuseOptions } from '../rules/abuse.js';
import { HOUR_MS, formatUtcInstant } from '../rules/calendar.js';
import { type FamilyConfig, type FamilyOptions, resolveFamilyOptions } from '../rules/family.js';
import { buildTimeline } from '../rules/timeline.js';
import { WindowLimit } from '../schedule/window.js';
import { InputFileError, splitCsvLine } from './input.js';

const COLUMNS = ['at', 'account', 'method', 'path', 'contract', 'orders', 'fill_role', 'fill_volume'];
const UNTHROTTLED = 1_000_000_000;

/** Options of a simulation. */
export interface SimulateOptions extends FamilyOptions {
  /** The family's VIP level. @default 14 */
  readonly vipLevel?: number;
  /** Called with the bytes read so far, at most every 100,000 lines. */
  readonly onProgress?: (bytes: number, lines: number) => void;
}

/** What a replay found. */
export interface SimulationReport {
  readonly lines: number;
  readonly requests: number;
  readonly fills: number;
  readonly from: number | null;
  readonly to: number | null;
  /** The log as sent: what the exchange would have refused with 429, by the limit that refused. */
  readonly exchange: {
    readonly refused: number;
    readonly byLimit: Readonly<Record<string, number>>;
    /** The first refused requests: line, instant and limit. */
    readonly examples: readonly { readonly line: number; readonly at: number; readonly limit: string }[];
  };
  /** The log sent through the scheduler: the delays it added, and what the exchange would refuse then. */
  readonly scheduler: {
    readonly delayed: number;
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly maxMs: number;
    /** Requests heavier than a limit could ever take (refused by the scheduler). */
    readonly tooHeavy: number;
    /** Requests the exchange would refuse at their scheduled instants: 0 when the schedule is right. */
    readonly refusedByExchange: number;
  };
}

/** A log-scale histogram of delays: 1% buckets, constant memory, quantiles read as bucket tops. */
class Histogram {
  private readonly counts = new Float64Array(2200);
  private zero = 0;
  total = 0;
  max = 0;
  add(ms: number): void {
    this.total++;
    if (ms > this.max) this.max = ms;
    if (ms <= 0.001) {
      this.zero++;
      return;
    }
    const i = Math.min(this.counts.length - 1, Math.max(0, Math.ceil(Math.log(ms / 0.001) / Math.log(1.01))));
    this.counts[i]!++;
  }
  quantile(q: number): number {
    if (this.total === 0) return 0;
    let rank = Math.ceil(q * this.total);
    if (rank <= this.zero) return 0;
    rank -= this.zero;
    for (let i = 0; i < this.counts.length; i++) {
      rank -= this.counts[i]!;
      if (rank <= 0) return Math.min(this.max, 0.001 * 1.01 ** i);
    }
    return this.max;
  }
}

/**
 * Weight sent in (t - W, t], counted exactly (one entry per request): the exchange's view, and an
 * independent check of a schedule. Holds at most N entries' worth of weight.
 */
class ExactWindow {
  private times: number[] = [];
  private weights: number[] = [];
  private head = 0;
  private sum = 0;
  /**
   * `keep`: the largest N this limit can have. Keeping only that many entries decides exactly for
   * any N up to it (each weighs at least 1: when they are all in the window, it is full).
   */
  constructor(private readonly keep: number) {}
  /** Whether `weight` more at `at` stays within N per W. */
  fits(at: number, weight: number, n: number, w: number): boolean {
    while (this.head < this.times.length && this.times[this.head]! <= at - w) {
      this.sum -= this.weights[this.head]!;
      this.head++;
    }
    if (this.head > 4096 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.weights = this.weights.slice(this.head);
      this.head = 0;
    }
    return this.sum + weight <= n;
  }
  add(at: number, weight: number): void {
    this.times.push(at);
    this.weights.push(weight);
    this.sum += weight;
    if (this.times.length - this.head > this.keep) {
      this.sum -= this.weights[this.head]!;
      this.head++;
    }
  }
}

interface Side {
  readonly key: string;
  /** The exchange's view of the log as sent. */
  readonly sent: ExactWindow;
  /** The scheduler's limit (N and W in force), and the last instant it dispatched at. */
  readonly scheduled: WindowLimit;
  last: number;
  /** The schedule checked against the rules. */
  readonly check: ExactWindow;
}

interface AccountState {
  readonly sides: Map<string, Side>;
  /** The sides each (cached) classification draws on. */
  readonly byClass: Map<Classification, Side[]>;
  place: Side;
  throttle: Side;
}

/**
 * Replays a request log (CSV: at, account, method, path, contract, orders, fill_role, fill_volume)
 * twice in one streaming pass, in constant memory: as sent, through the rules as the exchange
 * applies them (which requests would get a 429, and from which limit), and through the scheduler's
 * admission (the delays it adds), checking the scheduled instants against the rules again.
 * The accounts of the log form one family; tiers and the abuse throttle follow the log's own
 * activity, refreshed at every whole hour (R3-R9).
 */
export async function simulate(file: string, chunks: AsyncIterable<string | Buffer>, options: SimulateOptions = {}): Promise<SimulationReport> {
  const family = resolveFamilyOptions(options);
  const abuse = resolveAbuseOptions();
  const catalog = createCatalog();
  const vipLevel = options.vipLevel ?? 14;
  const run = new Replay(file, family, abuse, catalog, vipLevel);
  let rest: Buffer | null = null;
  let lineNo = 0;
  let bytes = 0;
  for await (const chunk of chunks) {
    const fresh = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    bytes += fresh.length;
    const data: Buffer = rest === null || rest.length === 0 ? fresh : Buffer.concat([rest, fresh]);
    let start = 0;
    for (;;) {
      const end = data.indexOf(10, start);
      if (end < 0) break;
      lineNo++;
      // The line is read in place, bytes [start, end) of the chunk: no string is made of it.
      run.line(lineNo, data, start, end > start && data[end - 1] === 13 ? end - 1 : end);
      if (lineNo % 100_000 === 0) options.onProgress?.(bytes, lineNo);
      start = end + 1;
    }
    rest = data.subarray(start);
  }
  if (rest !== null && rest.length > 0) run.line(++lineNo, rest, 0, rest.length);
  options.onProgress?.(bytes, lineNo);
  return run.report(lineNo);
}

interface Recent {
  readonly method: string;
  /** The path, or with an id at its end, the path up to it. */
  readonly prefix: string;
  readonly id: boolean;
  readonly contract: string;
  readonly orders: string;
  readonly c: Classification;
}

/**
 * The fields of one CSV line, as places in it: compared, parsed and cut only when needed. Lines
 * with quotes are split the careful way.
 */
class Fields {
  private buf: Buffer = Buffer.alloc(0);
  private nextQuote = -1;
  private cells: string[] | null = null;
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  count = 0;

  /** Reads the line [from, to) of `buf`. */
  read(buf: Buffer, from: number, to: number): boolean {
    // The next quote in the chunk, looked for again only once passed: a chunk without quotes is
    // searched once, not once a line.
    if (buf !== this.buf || (this.nextQuote >= 0 && this.nextQuote < from)) this.nextQuote = buf.indexOf(34, from);
    this.buf = buf;
    const quote = this.nextQuote;
    if (quote >= 0 && quote < to) {
      const cells = splitCsvLine(buf.toString('utf8', from, to));
      if (cells === undefined) return false;
      this.cells = cells.map((c) => c.trim());
      this.count = cells.length;
      return true;
    }
    this.cells = null;
    let start = from;
    let k = 0;
    for (;;) {
      let comma = buf.indexOf(44, start);
      if (comma >= to) comma = -1;
      const end = comma < 0 ? to : comma;
      let a = start;
      let b = end;
      while (a < b && buf[a] === 32) a++;
      while (b > a && buf[b - 1] === 32) b--;
      this.starts[k] = a;
      this.ends[k] = b;
      k++;
      if (comma < 0) break;
      start = comma + 1;
    }
    this.count = k;
    return true;
  }

  /** The line as text, for messages. */
  line(from: number, to: number): string {
    return this.buf.toString('utf8', from, to);
  }

  str(i: number): string {
    if (i < 0) return '';
    return this.cells !== null ? this.cells[i]! : this.buf.toString('utf8', this.starts[i]!, this.ends[i]!);
  }

  empty(i: number): boolean {
    return i < 0 || (this.cells !== null ? this.cells[i] === '' : this.starts[i] === this.ends[i]);
  }

  is(i: number, s: string): boolean {
    if (i < 0) return s === '';
    if (this.cells !== null) return this.cells[i] === s;
    const a = this.starts[i]!;
    const n = s.length;
    if (this.ends[i]! - a !== n) return false;
    const buf = this.buf;
    for (let k = n - 1; k >= 0; k--) {
      const c = s.charCodeAt(k);
      // Past ASCII, bytes and characters differ: compare as text.
      if (c > 127) return this.str(i) === s;
      if (buf[a + k] !== c) return false;
    }
    return true;
  }

  hasPrefixThenDigits(i: number, prefix: string): boolean {
    if (i < 0) return false;
    if (this.cells !== null) {
      const v = this.cells[i]!;
      return v.length > prefix.length && v.startsWith(prefix) && digitsFrom(v, prefix.length);
    }
    const a = this.starts[i]!;
    const b = this.ends[i]!;
    const n = prefix.length;
    if (b - a <= n) return false;
    const buf = this.buf;
    for (let k = n - 1; k >= 0; k--) {
      const c = prefix.charCodeAt(k);
      if (c > 127) return this.str(i).startsWith(prefix) && digitsFrom(this.str(i), n);
      if (buf[a + k] !== c) return false;
    }
    for (let k = a + n; k < b; k++) {
      const c = buf[k]!;
      if (c < 48 || c > 57) return false;
    }
    return true;
  }

  /** A slot (0 to 255) for a request: lengths and end bytes of its fields, an order id left out. */
  slot(iMethod: number, iPath: number, iContract: number, iOrders: number): number {
    return (this.sketch(iMethod, false) * 3 + this.sketch(iPath, true) * 7 + this.sketch(iContract, false) * 11 + this.sketch(iOrders, false) * 13) & 255;
  }

  private sketch(i: number, dropId: boolean): number {
    if (i < 0) return 0;
    if (this.cells !== null) {
      const v = this.cells[i]!;
      let b = v.length;
      if (dropId) {
        let k = b;
        while (k > 0 && v.charCodeAt(k - 1) >= 48 && v.charCodeAt(k - 1) <= 57) k--;
        if (k < b && k > 0 && v.charCodeAt(k - 1) === 47) b = k;
      }
      return b === 0 ? 1 : b * 31 + v.charCodeAt(0) + 5 * v.charCodeAt(b - 1);
    }
    const buf = this.buf;
    const a = this.starts[i]!;
    let b = this.ends[i]!;
    if (dropId) {
      let k = b;
      while (k > a && buf[k - 1]! >= 48 && buf[k - 1]! <= 57) k--;
      if (k < b && k > a && buf[k - 1] === 47) b = k;
    }
    return b === a ? 1 : (b - a) * 31 + buf[a]! + 5 * buf[b - 1]!;
  }

  /** The field as a whole number, or NaN when it is not all digits. */
  digits(i: number): number {
    if (i < 0) return Number.NaN;
    if (this.cells !== null) {
      const v = this.cells[i]!;
      return /^\d+$/.test(v) ? Number(v) : Number.NaN;
    }
    const buf = this.buf;
    const a = this.starts[i]!;
    const b = this.ends[i]!;
    if (a === b) return Number.NaN;
    let n = 0;
    for (let k = a; k < b; k++) {
      const c = buf[k]!;
      if (c < 48 || c > 57) return Number.NaN;
      n = n * 10 + (c - 48);
    }
    return n;
  }
}

class Replay {
  private readonly fields = new Fields();
  private header: string[] | null = null;
  /** Where each of COLUMNS is in the file, or -1. */
  private cols: number[] = [];
  private readonly tracker = new Tracker();
  private readonly accounts = new Map<string, AccountState>();
  private readonly ipSides = new Map<string, Side>();
  private readonly classified = new Map<string, Classification>();
  private nextRefresh = -Infinity;
  private latest = -Infinity;
  private first: number | null = null;
  private requests = 0;
  private fills = 0;
  private refused = 0;
  private readonly byLimit: Record<string, number> = {};
  private readonly examples: { line: number; at: number; limit: string }[] = [];
  private readonly delays = new Histogram();
  private delayed = 0;
  private tooHeavy = 0;
  private refusedLater = 0;

  constructor(
    private readonly file: string,
    private readonly family: FamilyConfig,
    private readonly abuse: AbuseConfig,
    private readonly catalog: Catalog,
    private readonly vipLevel: number,
  ) {}

  line(no: number, buf: Buffer, from: number, to: number): void {
    if (from === to || buf[from] === 35 /* # */) return;
    const f = this.fields;
    if (!f.read(buf, from, to)) throw new InputFileError(this.file, no, 'a quoted field is not closed');
    if (this.header === null) {
      if (f.line(from, to).trim() === '') return;
      this.header = Array.from({ length: f.count }, (_, i) => f.str(i).toLowerCase());
      for (const h of this.header) if (!COLUMNS.includes(h)) throw new InputFileError(this.file, no, `unknown column "${h}"; the columns are ${COLUMNS.join(', ')}`);
      for (const r of ['at', 'account']) if (!this.header.includes(r)) throw new InputFileError(this.file, no, `the header has no "${r}" column`);
      this.cols = COLUMNS.map((c) => this.header!.indexOf(c));
      return;
    }
    if (f.count !== this.header.length) {
      if (f.line(from, to).trim() === '') return;
      throw new InputFileError(this.file, no, `${f.count} fields where the header has ${this.header.length}`);
    }
    const cols = this.cols;
    const at = this.instant(no, cols[0]!);
    if (at < this.latest) throw new InputFileError(this.file, no, `Expected \`at\` to be at or after the line before (${formatUtcInstant(this.latest)}), got ${formatUtcInstant(at)}`);
    this.latest = at;
    this.first ??= at;
    while (at >= this.nextRefresh) this.refresh(this.nextRefresh === -Infinity ? at - (at % HOUR_MS) : this.nextRefresh);
    if (f.empty(cols[1]!)) throw new InputFileError(this.file, no, 'the field `account` is empty');
    const account = this.accountOf(no, cols[1]!);
    if (!f.empty(cols[6]!)) {
      const role = f.str(cols[6]!);
      if (role !== 'maker' && role !== 'taker') throw new InputFileError(this.file, no, `Expected \`fill_role\` to be "maker" or "taker", got "${role}"`);
      try {
        this.tracker.recordFill(account.id, f.str(cols[4]!), role, f.str(cols[7]!), at);
      } catch (e) {
        throw this.located(no, e);
      }
      this.fills++;
      return;
    }
    this.request(no, at, account);
  }

  private request(no: number, at: number, account: { readonly id: string; readonly state: AccountState }): void {
    const f = this.fields;
    const cols = this.cols;
    const state = account.state;
    let entry = this.recentLookup(cols[2]!, cols[3]!, cols[4]!, cols[5]!);
    if (entry === undefined) {
      const method = f.str(cols[2]!);
      const path = f.str(cols[3]!);
      const contract = f.str(cols[4]!);
      const ordersText = f.str(cols[5]!);
      const orders = ordersText === '' ? 1 : Number(ordersText);
      if (!/^\d*$/.test(ordersText) || !Number.isSafeInteger(orders) || orders <= 0) {
        throw new InputFileError(this.file, no, `Expected \`orders\` to be a positive integer, got "${ordersText}"`);
      }
      const key = `${method} ${withoutId(path)} ${orders} ${contract}`;
      let c = this.classified.get(key);
      if (c === undefined) {
        const body = Array.from({ length: orders }, () => ({ contract, currency_pair: contract }));
        c = this.at(no, () => this.catalog.classify(method, path, orders > 1 || /batch/.test(path) ? body : contract === '' ? undefined : body[0]));
        if (this.classified.size < 100_000) this.classified.set(key, c);
      }
      entry = this.remember(method, path, contract, ordersText, c);
    }
    const c = entry.c;
    const contract = entry.contract;
    this.requests++;
    const sides = this.sidesOf(state, c);
    // As sent: the exchange refuses with 429 when any limit is full.
    let refusedBy: string | null = null;
    for (const s of sides) if (!s.sent.fits(at, c.weight, s.scheduled.limit, s.scheduled.windowMs)) refusedBy ??= s.key;
    if (refusedBy === null) for (const s of sides) s.sent.add(at, c.weight);
    else {
      this.refused++;
      this.byLimit[refusedBy] = (this.byLimit[refusedBy] ?? 0) + 1;
      if (this.examples.length < 5) this.examples.push({ line: no, at, limit: refusedBy });
    }
    if (c.market === 'futures' && c.action !== 'other') {
      try {
        this.tracker.recordRequest(account.id, contract === '' ? 'BTC_USDT' : contract, c.action as 'place', at, c.orders);
      } catch (e) {
        throw this.located(no, e);
      }
    }
    // Through the scheduler: first in, first out on every limit it shares, at the earliest
    // instant all of its limits allow.
    let d = at;
    for (const s of sides) if (s.last > d) d = s.last;
    for (;;) {
      let wait = 0;
      for (const s of sides) {
        const w = s.scheduled.waitFor(c.weight, d);
        if (w > wait) wait = w;
      }
      if (wait === 0) break;
      if (wait === Infinity) {
        this.tooHeavy++;
        return;
      }
      d += wait;
    }
    for (const s of sides) {
      s.scheduled.take(c.weight, d);
      s.last = d;
      if (s.scheduled.limit < UNTHROTTLED) {
        if (!s.check.fits(d, c.weight, s.scheduled.limit, s.scheduled.windowMs)) this.refusedLater++;
        s.check.add(d, c.weight);
      }
    }
    if (d > at) this.delayed++;
    this.delays.add(d - at);
  }

  // The last few classifications, found by comparing the line's fields in place: cheaper than
  // cutting and hashing them for every line, since logs repeat a handful of requests (an order id
  // at the end of a path aside).
  // Classifications in a small direct-mapped cache, placed by the lengths and a few characters of
  // the request's fields (an order id at the end of a path left out) and checked against the
  // fields themselves: no string is cut or hashed for a line whose request was seen before.
  private readonly recent: (Recent | undefined)[] = new Array(256);

  private recentLookup(iMethod: number, iPath: number, iContract: number, iOrders: number): Recent | undefined {
    const f = this.fields;
    const e = this.recent[f.slot(iMethod, iPath, iContract, iOrders)];
    if (e === undefined || !f.is(iContract, e.contract) || !f.is(iMethod, e.method) || !f.is(iOrders, e.orders)) return undefined;
    return (e.id ? f.hasPrefixThenDigits(iPath, e.prefix) : f.is(iPath, e.prefix)) ? e : undefined;
  }

  private remember(method: string, path: string, contract: string, orders: string, c: Classification): Recent {
    const bare = withoutId(path);
    const id = bare !== path;
    const entry: Recent = { method, prefix: id ? bare.slice(0, -1) : path, id, contract, orders, c };
    this.recent[this.fields.slot(this.cols[2]!, this.cols[3]!, this.cols[4]!, this.cols[5]!)] = entry;
    return entry;
  }

  private sidesOf(state: AccountState, c: Classification): Side[] {
    const known = state.byClass.get(c);
    if (known !== undefined) return known;
    const out: Side[] = [];
    for (const spec of c.limits) {
      if (spec.key === 'futures.place') {
        out.push(state.place, state.throttle);
        continue;
      }
      const map = spec.scope === 'ip' ? this.ipSides : state.sides;
      let s = map.get(spec.key);
      if (s === undefined) map.set(spec.key, (s = side(spec.key, spec.limit, spec.windowMs)));
      out.push(s);
    }
    if (state.byClass.size < 10_000) state.byClass.set(c, out);
    return out;
  }

  /** Tiers and throttles at the whole hour `at` from the log's activity so far (R3-R9). */
  private refresh(at: number): void {
    this.nextRefresh = at + HOUR_MS;
    if (this.accounts.size === 0) return;
    const ids = [...this.accounts.keys()];
    const timeline = buildTimeline({ accounts: ids.map((id) => ({ id })), activity: this.tracker.dailyActivity(), vipLevel: this.vipLevel }, this.family);
    for (const id of ids) {
      const s = this.accounts.get(id)!;
      const limit = timeline.limitAt(id, at).limit;
      if (limit !== s.place.scheduled.limit) s.place.scheduled.update({ limit });
      const throttle = buildAbuseTimeline(this.tracker.hourlyActivity(id), this.abuse).throttleAt(at).throttle;
      const n = throttle?.limit ?? UNTHROTTLED;
      if (n !== s.throttle.scheduled.limit) s.throttle.scheduled.update({ limit: n });
    }
  }

  // Accounts seen last, found by comparing names in place.
  private readonly recentAccounts: { id: string; state: AccountState }[] = [];

  private accountOf(no: number, i: number): { readonly id: string; readonly state: AccountState } {
    for (const r of this.recentAccounts) if (this.fields.is(i, r.id)) return r;
    const id = this.fields.str(i);
    const record = { id, state: this.accounts.get(id) ?? this.addAccount(no, id) };
    if (this.recentAccounts.length >= 8) this.recentAccounts.shift();
    this.recentAccounts.push(record);
    return record;
  }

  private addAccount(no: number, id: string): AccountState {
    if (this.accounts.size >= 10_000) throw new InputFileError(this.file, no, 'more than 10,000 accounts in one log');
    const place = this.catalog.limits['futures.place']!;
    const state: AccountState = {
      sides: new Map(),
      byClass: new Map(),
      place: side('futures.place', this.family.tiers[0]!.limit, place.windowMs, this.family.tiers.at(-1)!.limit),
      throttle: side('abuse-throttle', UNTHROTTLED, Math.max(this.abuse.noFillLimit.windowMs, this.abuse.lowFillLimit.windowMs),
        Math.max(this.abuse.noFillLimit.limit, this.abuse.lowFillLimit.limit)),
    };
    this.accounts.set(id, state);
    this.refresh(this.nextRefresh - HOUR_MS);
    return state;
  }

  private instant(no: number, i: number): number {
    const f = this.fields;
    let at = f.digits(i);
    if (Number.isNaN(at)) {
      const text = f.str(i);
      at = /(Z|[+-]\d\d:\d\d)$/.test(text) ? Date.parse(text) : Number.NaN;
      if (!Number.isSafeInteger(at)) throw new InputFileError(this.file, no, `Expected \`at\` to be epoch milliseconds or an ISO instant with a zone, got "${text}"`);
    }
    return at;
  }

  private at<T>(no: number, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw this.located(no, e);
    }
  }

  private located(no: number, e: unknown): unknown {
    return e instanceof InvalidInputError ? new InputFileError(this.file, no, e.message) : e;
  }

  report(lines: number): SimulationReport {
    if (this.header === null) throw new InputFileError(this.file, 1, 'the file is empty: it needs a header row');
    return {
      lines,
      requests: this.requests,
      fills: this.fills,
      from: this.first,
      to: this.latest === -Infinity ? null : this.latest,
      exchange: { refused: this.refused, byLimit: { ...this.byLimit }, examples: [...this.examples] },
      scheduler: {
        delayed: this.delayed,
        p50Ms: this.delays.quantile(0.5),
        p99Ms: this.delays.quantile(0.99),
        maxMs: this.delays.max,
        tooHeavy: this.tooHeavy,
        refusedByExchange: this.refusedLater,
      },
    };
  }
}

/** Whether `text` from `from` on is all digits. */
function digitsFrom(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** The path with a trailing numeric id replaced, so that requests on different orders share a cache entry. */
function withoutId(path: string): string {
  const q = path.indexOf('?');
  const p = q < 0 ? path : path.slice(0, q);
  const slash = p.lastIndexOf('/');
  for (let i = slash + 1; i < p.length; i++) {
    const c = p.charCodeAt(i);
    if (c < 48 || c > 57) return p;
  }
  return slash + 1 < p.length ? `${p.slice(0, slash)}/0` : p;
}

function side(key: string, limit: number, windowMs: number, most = limit): Side {
  return { key, sent: new ExactWindow(most), scheduled: new WindowLimit({ name: key, limit, windowMs }), last: -Infinity, check: new ExactWindow(most) };
}
