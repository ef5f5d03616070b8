// The two CSV readers side by side, on the same text: each gives the records it read with their
// lines, or the line and message of the first fault.
import { FieldScanner } from '../../../src/cli/csv/field-scanner.js';
import { CSV_FAULT_MESSAGES } from '../../../src/cli/csv/rules.js';
import { csvRecords } from '../../../src/cli/csv/read-csv.js';
import { InputFileError } from '../../../src/cli/input.js';

export type Read =
  | { readonly records: { readonly line: number; readonly cells: readonly string[] }[] }
  | { readonly fault: { readonly line: number; readonly message: string } };

/** The text through csv-parse, as the plan reader reads it. */
export function parsed(text: string): Read {
  try {
    return { records: csvRecords('t.csv', text) };
  } catch (e) {
    if (!(e instanceof InputFileError)) throw e;
    return { fault: { line: e.line!, message: e.message.slice(e.message.indexOf(': ') + 2) } };
  }
}

/** The text through the byte scanner, line by line as a request log is read. */
export function scanned(text: string): Read {
  const buf = Buffer.from(text, 'utf8');
  const f = new FieldScanner();
  const records: { line: number; cells: string[] }[] = [];
  let line = 0;
  let start = 0;
  while (start <= buf.length) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = buf.length;
    line++;
    const to = end > start && buf[end - 1] === 13 ? end - 1 : end;
    if (!f.skipped(buf, start, to)) {
      const fault = f.read(buf, start, to);
      if (fault !== undefined) return { fault: { line, message: CSV_FAULT_MESSAGES[fault] } };
      records.push({ line, cells: Array.from({ length: f.count }, (_, i) => f.str(i)) });
    }
    start = end + 1;
  }
  return { records };
}
