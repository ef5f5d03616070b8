import { MAX_LINE_BYTES, NotTextError, type Source, textChunks } from '../source.js';
import { LogReader, type LogRows, type LogSummary } from './log-reader.js';
import type { LogClassifier } from './request-cache.js';

/**
 * Reads a request log (CSV: at, account, method, path, contract, orders, fill_role, fill_volume)
 * as a stream, in constant memory, handing each row to `rows`: every line is read in place in the
 * chunk's bytes, and requests are classified once per kind (a small cache compares a line's fields
 * in place). Bad input is refused with its file, line and field.
 */
export async function readLog<A>(
  source: Source,
  catalog: LogClassifier,
  rows: LogRows<A>,
  onProgress?: (bytes: number, lines: number) => void,
): Promise<LogSummary> {
  const reader = new LogReader(source.name, catalog, rows);
  let lineNo = 0;
  let bytes = 0;
  try {
    for await (const data of textChunks(source, MAX_LINE_BYTES)) {
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
      if (start < data.length)
        reader.line(++lineNo, data, start, data[data.length - 1] === 13 ? data.length - 1 : data.length);
    }
  } catch (e) {
    throw e instanceof NotTextError ? e.at(source.name, lineNo + 1) : e;
  }
  onProgress?.(bytes, lineNo);
  return reader.summary(lineNo);
}
