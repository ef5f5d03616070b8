import { CsvError, parse } from 'csv-parse/sync';
import type { CsvFault } from './rules.js';

/** csv-parse set to the rules of ./rules.ts (its defaults: comma, double quote, a quote doubled), for one line. */
const OPTIONS = {
  record_delimiter: '\n',
  comment: '#',
  comment_no_infix: true,
  trim: true,
  skip_empty_lines: true,
} as const;

/**
 * Splits one CSV line into its fields with csv-parse, under the rules of ./rules.ts: spaces and
 * tabs around a field dropped, a field in double quotes kept as written with its doubled quotes
 * made single; none for a skipped line. Returns the fault instead when the line breaks a rule.
 * Parsed a line at a time, a quote left open is refused on the line it opens.
 */
export function splitCsvLine(text: string): string[] | CsvFault {
  try {
    return (parse(text, OPTIONS) as string[][])[0] ?? [];
  } catch (e) {
    if (!(e instanceof CsvError)) throw e;
    // The other faults csv-parse knows are of options not set here (column counts, record sizes).
    return e.code === 'CSV_QUOTE_NOT_CLOSED' ? 'unclosed' : 'stray-quote';
  }
}
