import type { FillRole } from '../../account/tracker.js';
import type { Classification } from '../../catalog/catalog.js';
import { InvalidInputError } from '../../errors.js';
import { formatUtcInstant } from '../../rules/calendar.js';
import { isInstant, parseInstant, parseNonNegativeDecimal } from '../../internal/parse.js';
import { FieldScanner } from '../csv/field-scanner.js';
import { checkColumns } from '../csv/columns.js';
import { CSV_FAULT_MESSAGES } from '../csv/rules.js';
import { InputFileError } from '../input.js';
import { wholeNumber } from '../whole-number.js';
import { type LogClassifier, type Recent, RequestCache } from './request-cache.js';

/** Plain decimal text, which every amount check accepts: the common case, told at once. */
const PLAIN_AMOUNT = /^\d{1,30}(\.\d{1,30})?$/;

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
  /** A fill row: a spot fill when its path is a spot path (see docs/rules.md#r14), else a futures fill. */
  fill(
    at: number,
    account: A,
    market: 'futures' | 'spot',
    contract: string,
    role: FillRole,
    volume: string,
    line: number,
  ): void;
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
 * Checks the lines of a request log, read in place by a {@link FieldScanner}, and hands each row
 * to a {@link LogRows}: the header, then requests (classified through a {@link RequestCache}) and
 * fills, in order of time.
 */
export class LogReader<A> {
  private readonly fields = new FieldScanner();
  private header: string[] | null = null;
  /** Each of LOG_COLUMNS as the file spells it, for messages. */
  private names: string[] = LOG_COLUMNS;
  /** Where each of LOG_COLUMNS is in the file, or -1. */
  private cols: number[] = [];
  private latest = -Infinity;
  private first: number | null = null;
  private requests = 0;
  private fills = 0;

  private readonly cache: RequestCache;

  constructor(
    private readonly file: string,
    catalog: LogClassifier,
    private readonly rows: LogRows<A>,
  ) {
    this.cache = new RequestCache(this.fields, catalog);
  }

  line(no: number, buf: Buffer, from: number, to: number): void {
    const f = this.fields;
    if (f.skipped(buf, from, to)) return;
    const fault = f.read(buf, from, to);
    if (fault !== undefined) throw new InputFileError(this.file, no, CSV_FAULT_MESSAGES[fault]);
    if (this.header === null) {
      const typed = Array.from({ length: f.count }, (_, i) => f.str(i));
      checkColumns(this.file, no, typed, LOG_COLUMNS);
      this.header = typed.map((h) => h.toLowerCase());
      for (const r of ['at', 'account'])
        if (!this.header.includes(r)) throw new InputFileError(this.file, no, `the header has no "${r}" column`);
      this.cols = LOG_COLUMNS.map((c) => this.header!.indexOf(c));
      this.names = LOG_COLUMNS.map((c, i) => typed[this.cols[i]!] ?? c);
      return;
    }
    if (f.count !== this.header.length) {
      throw new InputFileError(this.file, no, `${f.count} fields where the header has ${this.header.length}`);
    }
    const cols = this.cols;
    const at = this.instant(no, cols[0]!);
    if (at < this.latest)
      throw new InputFileError(
        this.file,
        no,
        `Expected \`${this.names[0]}\` to be at or after the line before (${formatUtcInstant(this.latest)}), got ${formatUtcInstant(at)}`,
      );
    this.latest = at;
    this.first ??= at;
    const rows = this.rows;
    try {
      rows.time(at);
      if (f.empty(cols[1]!)) throw new InputFileError(this.file, no, `the field \`${this.names[1]}\` is empty`);
      const account = this.accountOf(no, cols[1]!);
      if (!f.empty(cols[6]!)) {
        const role = f.str(cols[6]!);
        if (role !== 'maker' && role !== 'taker')
          throw new InputFileError(
            this.file,
            no,
            `Expected \`${this.names[6]}\` to be "maker" or "taker", got "${role}"`,
          );
        const volume = f.str(cols[7]!);
        // Checked here, so that a refusal names the column as the file spells it.
        if (!PLAIN_AMOUNT.test(volume)) parseNonNegativeDecimal(volume, `\`${this.names[7]}\``);
        // A fill row's path, if any, says its market: a spot path makes it a spot fill (see docs/rules.md#r14).
        const market = !f.empty(cols[3]!) && /^(\/api\/v4)?\/spot\//.test(f.str(cols[3]!)) ? 'spot' : 'futures';
        rows.fill(at, account, market, f.str(cols[4]!), role, volume, no);
        this.fills++;
        return;
      }
      const entry = this.cache.lookup(cols[2]!, cols[3]!, cols[4]!, cols[5]!) ?? this.classify(no);
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
    const ordersText = f.str(cols[5]!);
    const orders = ordersText === '' ? 1 : wholeNumber(ordersText);
    if (orders === undefined || orders <= 0) {
      throw new InputFileError(
        this.file,
        no,
        `Expected \`${this.names[5]}\` to be a positive integer, got "${ordersText}"`,
      );
    }
    return this.cache.classify(f.str(cols[2]!), f.str(cols[3]!), f.str(cols[4]!), ordersText, orders, cols);
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
      return parseInstant(Number.isNaN(at) ? f.str(i) : at, `\`${this.names[0]}\``);
    } catch (e) {
      throw this.located(no, e);
    }
  }

  private located(no: number, e: unknown): unknown {
    return e instanceof InvalidInputError ? new InputFileError(this.file, no, e.message) : e;
  }

  summary(lines: number): LogSummary {
    if (this.header === null) throw new InputFileError(this.file, 1, 'the file is empty: it needs a header row');
    if (this.first === null)
      throw new InputFileError(this.file, lines, 'no requests and no fills: the log has a header and nothing else');
    return { lines, requests: this.requests, fills: this.fills, from: this.first, to: this.latest };
  }
}
