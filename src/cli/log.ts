import type { FillRole } from '../account/tracker.js';
import { type Catalog, type Classification } from '../catalog/catalog.js';
import { InvalidInputError } from '../errors.js';
import { formatUtcInstant } from '../rules/calendar.js';
import { isInstant, parseInstant } from '../rules/parse.js';
import { InputFileError, checkColumns, splitCsvLine } from './input.js';
import { NotTextError, type Source, textChunks } from './source.js';

/** The columns of a request log. */
export const LOG_COLUMNS = ['at', 'account', 'method', 'path', 'contract', 'orders', 'fill_role', 'fill_volume'];

/**
 * What the rows of a request log are handed to, in the log's order. Each is called with what the
 * reader has checked; an {@link InvalidInputError} it throws is reported with the row's line.
 */
export interface LogRows<A> {
  /** Before each row, with its instant (never earlier than the one before). */
  time(at: number): void;
  /** An account, the first time its id appears (on line `line`). */
  account(id: string, line: number): A;
  /** A request row: its classification (shared by every row of the same request) and its contract as written. */
  request(at: number, account: A, c: Classification, contract: string, line: number): void;
  /** A fill row: a spot fill when its path is a spot path (R14), else a futures fill. */
  fill(at: number, account: A, market: 'futures' | 'spot', contract: string, role: FillRole, volume: string, line: number): void;
}

/** What a log held. */
export interface LogSummary {
  readonly lines: number;
  readonly requests: number;
  readonly fills: number;
  readonly from: number;
  readonly to: number;
}

/**
 * Reads a request log (CSV: at, account, method, path, contract, orders, fill_role, fill_volume)
 * as a stream, in constant memory, handing each row to `rows`: every line is read in place in the
 * chunk's bytes, and requests are classified once per kind (a small cache compares a line's fields
 * in place). Bad input is refused with its file, line and field.
 */
export async function readLog<A>(source: Source, catalog: Catalog, rows: LogRows<A>, onProgress?: (bytes: number, lines: number) => void): Promise<LogSummary> {
  const reader = new LogReader(source.name, catalog, rows);
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
        reader.line(lineNo, data, start, end > start && data[end - 1] === 13 ? end - 1 : end);
        if (lineNo % 100_000 === 0) onProgress?.(bytes, lineNo);
        start = end + 1;
      }
      // The last line, without a line end.
      if (start < data.length) reader.line(++lineNo, data, start, data[data.length - 1] === 13 ? data.length - 1 : data.length);
    }
  } catch (e) {
    throw e instanceof NotTextError ? e.at(source.name, lineNo + 1) : e;
  }
  onProgress?.(bytes, lineNo);
  return reader.summary(lineNo);
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

class LogReader<A> {
  private readonly fields = new Fields();
  private header: string[] | null = null;
  /** Where each of LOG_COLUMNS is in the file, or -1. */
  private cols: number[] = [];
  private readonly classified = new Map<string, Classification>();
  private latest = -Infinity;
  private first: number | null = null;
  private requests = 0;
  private fills = 0;

  constructor(
    private readonly file: string,
    private readonly catalog: Catalog,
    private readonly rows: LogRows<A>,
  ) {}

  line(no: number, buf: Buffer, from: number, to: number): void {
    if (from === to || buf[from] === 35 /* # */) return;
    const f = this.fields;
    if (!f.read(buf, from, to)) throw new InputFileError(this.file, no, 'a quoted field is not closed');
    if (this.header === null) {
      if (f.line(from, to).trim() === '') return;
      const typed = Array.from({ length: f.count }, (_, i) => f.str(i));
      checkColumns(this.file, no, typed, LOG_COLUMNS);
      this.header = typed.map((h) => h.toLowerCase());
      for (const r of ['at', 'account']) if (!this.header.includes(r)) throw new InputFileError(this.file, no, `the header has no "${r}" column`);
      this.cols = LOG_COLUMNS.map((c) => this.header!.indexOf(c));
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
    const rows = this.rows;
    try {
      rows.time(at);
      if (f.empty(cols[1]!)) throw new InputFileError(this.file, no, 'the field `account` is empty');
      const account = this.accountOf(no, cols[1]!);
      if (!f.empty(cols[6]!)) {
        const role = f.str(cols[6]!);
        if (role !== 'maker' && role !== 'taker') throw new InputFileError(this.file, no, `Expected \`fill_role\` to be "maker" or "taker", got "${role}"`);
        // A fill row's path, if any, says its market: a spot path makes it a spot fill (R14).
        const market = !f.empty(cols[3]!) && /^(\/api\/v4)?\/spot\//.test(f.str(cols[3]!)) ? 'spot' : 'futures';
        rows.fill(at, account, market, f.str(cols[4]!), role, f.str(cols[7]!), no);
        this.fills++;
        return;
      }
      const entry = this.recentLookup(cols[2]!, cols[3]!, cols[4]!, cols[5]!) ?? this.classify(no);
      this.requests++;
      rows.request(at, account, entry.c, entry.contract, no);
    } catch (e) {
      throw this.located(no, e);
    }
  }

  /** Classifies the line's request, through the cache of every kind seen. */
  private classify(no: number): Recent {
    const f = this.fields;
    const cols = this.cols;
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
      c = this.catalog.classify(method, path, orders > 1 || /batch/.test(path) ? body : contract === '' ? undefined : body[0]);
      if (this.classified.size < 100_000) this.classified.set(key, c);
    }
    return this.remember(method, path, contract, ordersText, c);
  }

  // Classifications in a small direct-mapped cache, placed by the lengths and a few characters of
  // the request's fields (an order id at the end of a path left out) and checked against the
  // fields themselves: no string is cut or hashed for a line whose request was seen before, since
  // logs repeat a handful of requests (an order id at the end of a path aside).
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

  // Accounts seen last, found by comparing names in place.
  private readonly recentAccounts: { id: string; state: A }[] = [];
  private readonly accounts = new Map<string, A>();

  private accountOf(no: number, i: number): A {
    for (const r of this.recentAccounts) if (this.fields.is(i, r.id)) return r.state;
    const id = this.fields.str(i);
    let state = this.accounts.get(id);
    if (state === undefined) this.accounts.set(id, (state = this.rows.account(id, no)));
    if (this.recentAccounts.length >= 8) this.recentAccounts.shift();
    this.recentAccounts.push({ id, state });
    return state;
  }

  private instant(no: number, i: number): number {
    const f = this.fields;
    const at = f.digits(i);
    if (isInstant(at)) return at;
    try {
      return parseInstant(Number.isNaN(at) ? f.str(i) : at, '`at`');
    } catch (e) {
      throw this.located(no, e);
    }
  }

  private located(no: number, e: unknown): unknown {
    return e instanceof InvalidInputError ? new InputFileError(this.file, no, e.message) : e;
  }

  summary(lines: number): LogSummary {
    if (this.header === null) throw new InputFileError(this.file, 1, 'the file is empty: it needs a header row');
    if (this.first === null) throw new InputFileError(this.file, lines, 'no requests and no fills: the log has a header and nothing else');
    return { lines, requests: this.requests, fills: this.fills, from: this.first, to: this.latest };
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
