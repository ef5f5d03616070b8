import type { CsvFault } from './rules.js';
import { splitCsvLine } from './split-line.js';

/**
 * The fields of one CSV line, as places in it: compared, parsed and cut only when needed, under
 * the rules of ./rules.ts (the same as the plan reader's csv-parse, and tested against it). Lines
 * with quotes, rare in a log, are split by csv-parse itself.
 */
export class FieldScanner {
  private buf: Buffer = Buffer.alloc(0);
  private nextQuote = -1;
  private cells: string[] | null = null;
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  count = 0;

  /** Whether the line [from, to) of `buf` is skipped: empty, only spaces and tabs, or a comment. */
  skipped(buf: Buffer, from: number, to: number): boolean {
    let a = from;
    while (a < to && (buf[a] === 32 || buf[a] === 9)) a++;
    return a === to || buf[a] === 35;
  }

  /** Reads the line [from, to) of `buf` (not skipped); returns the fault if it breaks a rule. */
  read(buf: Buffer, from: number, to: number): CsvFault | undefined {
    // The next quote in the chunk, looked for again only once passed: a chunk without quotes is
    // searched once, not once a line.
    if (buf !== this.buf || (this.nextQuote >= 0 && this.nextQuote < from)) this.nextQuote = buf.indexOf(34, from);
    this.buf = buf;
    const quote = this.nextQuote;
    if (quote >= 0 && quote < to) {
      const cells = splitCsvLine(buf.toString('utf8', from, to));
      if (typeof cells === 'string') return cells;
      this.cells = cells;
      this.count = cells.length;
      return undefined;
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
      while (a < b && (buf[a] === 32 || buf[a] === 9)) a++;
      while (b > a && (buf[b - 1] === 32 || buf[b - 1] === 9)) b--;
      this.starts[k] = a;
      this.ends[k] = b;
      k++;
      if (comma < 0) break;
      start = comma + 1;
    }
    this.count = k;
    return undefined;
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
    return (
      (this.sketch(iMethod, false) * 3 +
        this.sketch(iPath, true) * 7 +
        this.sketch(iContract, false) * 11 +
        this.sketch(iOrders, false) * 13) &
      255
    );
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

/** Whether `text` from `from` on is all digits. */
function digitsFrom(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}
