import { type Catalog, type Classification, createCatalog } from '../catalog/catalog.js';
import { InvalidInputError } from '../errors.js';
import { type Account, type CountedLimit, ExchangeCore, type Party, SPOT_THROTTLE_KEY, THROTTLE_KEY } from '../exchange/core.js';
import { SlidingCount } from '../exchange/sliding-count.js';
import { HOUR_MS, formatUtcInstant } from '../rules/calendar.js';
import { isInstant, parseInstant } from '../rules/parse.js';
import { type FamilyConfig, type FamilyOptions, FAMILY_OPTION_FIELDS, readFamilyOptions } from '../rules/family.js';
import { WindowLimit } from '../schedule/window.js';
import { InputFileError, checkColumns, splitCsvLine } from './input.js';
import { NotTextError, type Source, textChunks } from './source.js';

const COLUMNS = ['at', 'account', 'method', 'path', 'contract', 'orders', 'fill_role', 'fill_volume'];
const UNTHROTTLED = 1_000_000_000;
/** The log's accounts form one family. */
const FAMILY = 'log';

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
    /** The first refused requests: line, instant, account and limit. */
    readonly examples: readonly { readonly line: number; readonly at: number; readonly account: string; readonly limit: string }[];
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

/** One limit as the scheduler side of the replay sees it. */
interface Side {
  readonly key: string;
  /** The scheduler's limit (N and W in force), and the last instant it dispatched at. */
  readonly scheduled: WindowLimit;
  last: number;
  /** The schedule checked against the rules. */
  readonly check: SlidingCount;
}

/** An account (or the log's one IP, for public requests) on both sides of the replay. */
interface PartyState {
  /** As the exchange counts it. */
  readonly party: Party;
  readonly sides: Map<string, Side>;
  /** The sides each (cached) classification draws on. */
  readonly byClass: Map<Classification, Side[]>;
}

interface AccountState extends PartyState {
  readonly party: Account;
  readonly place: Side;
  readonly throttle: Side;
  readonly spotThrottle: Side;
}

/**
 * Replays a request log (CSV: at, account, method, path, contract, orders, fill_role, fill_volume)
 * twice in one streaming pass, in constant memory: as sent, through the rules as the exchange
 * applies them (which requests would get a 429, and from which limit), and through the scheduler's
 * admission (the delays it adds), checking the scheduled instants against the rules again.
 * The accounts of the log form one family; tiers and the abuse throttle follow the log's own
 * activity, refreshed at every whole hour (R3-R9).
 */
export async function simulate(source: Source, options: SimulateOptions = {}): Promise<SimulationReport> {
  const family = readFamilyOptions(options, [...FAMILY_OPTION_FIELDS, 'vipLevel', 'onProgress'], 'the simulation options');
  const catalog = createCatalog();
  const vipLevel = options.vipLevel ?? 14;
  const run = new Replay(source.name, family, catalog, vipLevel);
  let lineNo = 0;
  let bytes = 0;
  try {
    for await (const data of textChunks(source)) {
      bytes += data.length;
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
      // The last line, without a line end.
      if (start < data.length) run.line(++lineNo, data, start, data[data.length - 1] === 13 ? data.length - 1 : data.length);
    }
  } catch (e) {
    throw e instanceof NotTextError ? e.at(source.name, lineNo + 1) : e;
  }
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
  /** The exchange's side: what it admits and refuses, and the activity it counts. */
  private readonly core: ExchangeCore;
  private readonly accounts = new Map<string, AccountState>();
  private readonly publicState: PartyState;
  private readonly classified = new Map<string, Classification>();
  private nextRefresh = -Infinity;
  private latest = -Infinity;
  private first: number | null = null;
  private requests = 0;
  private fills = 0;
  private refused = 0;
  private readonly byLimit: Record<string, number> = {};
  private readonly examples: { line: number; at: number; account: string; limit: string }[] = [];
  private readonly delays = new Histogram();
  private delayed = 0;
  private tooHeavy = 0;
  private refusedLater = 0;

  constructor(
    private readonly file: string,
    private readonly family: FamilyConfig,
    private readonly catalog: Catalog,
    vipLevel: number,
  ) {
    this.core = new ExchangeCore([{ id: FAMILY, accounts: [], vipLevel, options: family }]);
    this.publicState = { party: this.core.ip(''), sides: new Map(), byClass: new Map() };
  }

  line(no: number, buf: Buffer, from: number, to: number): void {
    if (from === to || buf[from] === 35 /* # */) return;
    const f = this.fields;
    if (!f.read(buf, from, to)) throw new InputFileError(this.file, no, 'a quoted field is not closed');
    if (this.header === null) {
      if (f.line(from, to).trim() === '') return;
      const typed = Array.from({ length: f.count }, (_, i) => f.str(i));
      checkColumns(this.file, no, typed, COLUMNS);
      this.header = typed.map((h) => h.toLowerCase());
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
        // A fill row's path, if any, says its market: a spot path makes it a spot fill (R14).
        const market = !f.empty(cols[3]!) && /^(\/api\/v4)?\/spot\//.test(f.str(cols[3]!)) ? 'spot' : 'futures';
        this.core.recordFill(account.state.party, market, f.str(cols[4]!), role, f.str(cols[7]!), at);
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
    this.requests++;
    const party = c.market === 'public' ? this.publicState : state;
    // As sent: the exchange refuses with 429 when any limit is full, and counts the request.
    let refused: CountedLimit | null;
    try {
      refused = this.core.admit(party.party, c, at, entry.contract);
    } catch (e) {
      throw this.located(no, e);
    }
    if (refused !== null) {
      this.refused++;
      this.byLimit[refused.key] = (this.byLimit[refused.key] ?? 0) + 1;
      if (this.examples.length < 5) this.examples.push({ line: no, at, account: account.id, limit: refused.key });
    }
    const sides = this.sidesOf(party, c);
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

  /** The scheduler's sides of the limits the exchange counts `c` on, in the same order. */
  private sidesOf(state: PartyState, c: Classification): Side[] {
    const known = state.byClass.get(c);
    if (known !== undefined) return known;
    const out: Side[] = [];
    for (const l of this.core.limitsOf(state.party, c)) {
      if (l.key === 'futures.place') out.push((state as AccountState).place);
      else if (l.key === THROTTLE_KEY) out.push((state as AccountState).throttle);
      else if (l.key === SPOT_THROTTLE_KEY) out.push((state as AccountState).spotThrottle);
      else {
        let s = state.sides.get(l.key);
        if (s === undefined) state.sides.set(l.key, (s = side(l.key, l.n, l.w)));
        out.push(s);
      }
    }
    if (state.byClass.size < 10_000) state.byClass.set(c, out);
    return out;
  }

  /** The scheduler's tiers and throttles at the whole hour `at`: what the exchange has in force (R3-R9, R14). */
  private refresh(at: number): void {
    this.nextRefresh = at + HOUR_MS;
    for (const s of this.accounts.values()) {
      const f = this.core.inForce(s.party, at);
      if (f.limit !== s.place.scheduled.limit) s.place.scheduled.update({ limit: f.limit });
      const n = f.throttle?.limit ?? UNTHROTTLED;
      if (n !== s.throttle.scheduled.limit) s.throttle.scheduled.update({ limit: n });
      const spot = f.spotThrottle?.limit ?? UNTHROTTLED;
      if (spot !== s.spotThrottle.scheduled.limit) s.spotThrottle.scheduled.update({ limit: spot });
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
    const abuse = this.core.abuse;
    let party: Account;
    try {
      party = this.core.addAccount(FAMILY, { id });
    } catch (e) {
      throw this.located(no, e);
    }
    const state: AccountState = {
      party,
      sides: new Map(),
      byClass: new Map(),
      place: side('futures.place', this.family.tiers[0]!.limit, place.windowMs, this.family.tiers.at(-1)!.limit),
      throttle: side(THROTTLE_KEY, UNTHROTTLED, Math.max(abuse.noFillLimit.windowMs, abuse.lowFillLimit.windowMs),
        Math.max(abuse.noFillLimit.limit, abuse.lowFillLimit.limit)),
      spotThrottle: side(SPOT_THROTTLE_KEY, UNTHROTTLED, this.core.spotFill.limit.windowMs, this.core.spotFill.limit.limit),
    };
    this.accounts.set(id, state);
    this.refresh(this.nextRefresh - HOUR_MS);
    return state;
  }

  private instant(no: number, i: number): number {
    const f = this.fields;
    let at = f.digits(i);
    if (isInstant(at)) return at;
    const text = f.str(i);
    return this.at(no, () => parseInstant(Number.isNaN(at) ? text : at, '`at`'));
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
    if (this.first === null) throw new InputFileError(this.file, lines, 'no requests and no fills: the log has a header and nothing else');
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
  return { key, scheduled: new WindowLimit({ name: key, limit, windowMs }), last: -Infinity, check: new SlidingCount(most) };
}
