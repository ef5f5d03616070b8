import { InputFileError } from '../input.js';
import { checkColumns } from './columns.js';
import { CSV_FAULT_MESSAGES } from './rules.js';
import { splitCsvLine } from './split-line.js';

/** A record read from a file, with the line it starts on. */
export interface Row {
  readonly line: number;
  /** The row's values by (lower-case) column name. */
  readonly fields: Readonly<Record<string, string>>;
  /** Each (lower-case) column as the header spells it (`Maker_Volume`), for messages; absent for JSON. */
  readonly spelled?: Readonly<Record<string, string>>;
}

/**
 * The records of CSV text with their lines, read by csv-parse under the rules of ./rules.ts:
 * skipped lines (blank, comments) left out. A line that breaks a rule is refused with its line.
 */
export function csvRecords(file: string, text: string): { readonly line: number; readonly cells: string[] }[] {
  const out: { line: number; cells: string[] }[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const cells = splitCsvLine(lines[i]!);
    if (typeof cells === 'string') throw new InputFileError(file, i + 1, CSV_FAULT_MESSAGES[cells]);
    if (cells.length > 0) out.push({ line: i + 1, cells });
  }
  return out;
}

/**
 * Reads CSV text with a header row into rows keyed by (lower-case) column name, under the rules
 * of ./rules.ts, each with the header's own spelling of its columns. `required` columns must be in
 * the header; a column not `known` is refused.
 */
export function readCsv(file: string, text: string, required: readonly string[], known: readonly string[]): Row[] {
  let header: string[] | undefined;
  let headerLine = 0;
  const spelled: Record<string, string> = {};
  const rows: Row[] = [];
  for (const { line, cells } of csvRecords(file, text)) {
    if (header === undefined) {
      header = cells.map((c) => c.toLowerCase());
      headerLine = line;
      checkColumns(file, headerLine, cells, known);
      header.forEach((h, k) => {
        spelled[h] = cells[k]!;
      });
      for (const r of required) {
        if (!header.includes(r))
          throw new InputFileError(
            file,
            headerLine,
            `the header has no "${r}" column (required: ${required.join(', ')})`,
          );
      }
      continue;
    }
    if (cells.length !== header.length) {
      throw new InputFileError(
        file,
        line,
        `${cells.length} fields where the header (line ${headerLine}) has ${header.length}`,
      );
    }
    const fields: Record<string, string> = {};
    header.forEach((h, k) => {
      fields[h] = cells[k]!;
    });
    rows.push({ line, fields, spelled });
  }
  if (header === undefined) throw new InputFileError(file, 1, 'the file is empty: it needs a header row');
  return rows;
}
