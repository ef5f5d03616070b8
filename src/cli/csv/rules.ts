/**
 * The CSV that traderatio reads (plan files, request logs), one set of rules for both readers
 * (docs/cli.md, "CSV"):
 *
 * - a record is one line: `\n` or `\r\n` ends it, and a field in quotes cannot span lines;
 * - a line that is empty, only spaces and tabs, or whose first character past them is `#` is
 *   skipped (a `#` further in is part of a field);
 * - fields are separated by commas; spaces and tabs around a field are dropped;
 * - a field may be put in double quotes to hold commas, `#`, spaces at its ends and quotes
 *   (doubled: `"say ""hi"""`); in quotes it is kept as written. A quote inside a field that does
 *   not open with one, or anything but spaces and tabs between a closing quote and the next
 *   comma, is refused.
 *
 * A line that breaks them is refused with one of these faults, and its line.
 */
export type CsvFault = 'unclosed' | 'stray-quote';

/** What each fault is told as, after the file and line. */
export const CSV_FAULT_MESSAGES: Readonly<Record<CsvFault, string>> = {
  unclosed: 'a quote is not closed on its line',
  'stray-quote': 'a quote out of place: write "a""b" for a"b',
};
