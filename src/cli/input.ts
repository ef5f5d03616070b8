import { InvalidInputError, TraderatioError } from '../errors.js';
import { closestName } from '../rules/names.js';

/** A record read from a file, with the line it starts on. */
export interface Row {
  readonly line: number;
  readonly fields: Readonly<Record<string, string>>;
}

/**
 * A problem in an input file: names the file, the line and the field (the line is null when the
 * file as a whole is at fault: missing, a directory).
 */
export class InputFileError extends TraderatioError {
  override readonly name: string = 'InputFileError';
  constructor(readonly file: string, readonly line: number | null, message: string) {
    super('INPUT_FILE', `${file}${line === null ? '' : `:${line}`}: ${message}`);
  }
}

/**
 * Runs `fn` on a row, turning a validation error into one that names the file and line.
 */
export function atRow<T>(file: string, line: number, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof InvalidInputError) throw new InputFileError(file, line, e.message);
    throw e;
  }
}

/**
 * Splits one CSV line (RFC 4180 quoting: fields in double quotes may hold commas and doubled
 * quotes). Returns undefined for an unterminated quote.
 */
export function splitCsvLine(text: string): string[] | undefined {
  if (!text.includes('"')) return text.split(',').map((f) => f.trim());
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(field.trim());
      field = '';
    } else field += c;
  }
  if (quoted) return undefined;
  out.push(field.trim());
  return out;
}

/**
 * Refuses a header cell that is not one of the `known` columns (compared in lower case), naming
 * it and the closest known column: CSV columns are snake_case (`maker_volume`), and `makerVolume`
 * is answered with "did you mean "maker_volume"?".
 */
export function checkColumns(file: string, line: number, header: readonly string[], known: readonly string[]): void {
  for (const h of header) {
    if (known.includes(h.toLowerCase())) continue;
    const near = closestName(h, known);
    throw new InputFileError(file, line, `unknown column "${h}"${near === undefined ? '.' : `: did you mean "${near}"?`} The columns are ${known.join(', ')}`);
  }
}

/**
 * Reads CSV text with a header row into rows keyed by (lower-case) column name. Blank lines and
 * lines starting with `#` are skipped. `required` columns must be in the header.
 */
export function readCsv(file: string, text: string, required: readonly string[], known: readonly string[]): Row[] {
  const lines = text.split(/\r?\n/);
  let header: string[] | undefined;
  let headerLine = 0;
  const rows: Row[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const cells = splitCsvLine(raw);
    if (cells === undefined) throw new InputFileError(file, i + 1, 'a quoted field is not closed');
    if (header === undefined) {
      header = cells.map((c) => c.toLowerCase());
      headerLine = i + 1;
      checkColumns(file, headerLine, cells, known);
      for (const r of required) {
        if (!header.includes(r)) throw new InputFileError(file, headerLine, `the header has no "${r}" column (required: ${required.join(', ')})`);
      }
      continue;
    }
    if (cells.length !== header.length) {
      throw new InputFileError(file, i + 1, `${cells.length} fields where the header (line ${headerLine}) has ${header.length}`);
    }
    const fields: Record<string, string> = {};
    header.forEach((h, k) => {
      fields[h] = cells[k]!;
    });
    rows.push({ line: i + 1, fields });
  }
  if (header === undefined) throw new InputFileError(file, 1, 'the file is empty: it needs a header row');
  return rows;
}

/**
 * Parses JSON, naming the line of a syntax error, and gives a function that finds the line on
 * which the value at a path (`["activity", 3]`) starts.
 */
export function readJson(file: string, text: string): { value: unknown; lineOf: (path: readonly (string | number)[]) => number } {
  if (text.trim() === '') throw new InputFileError(file, 1, 'the file is empty: it needs a JSON value');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec(String((e as Error).message));
    const line = m === null ? 1 : text.slice(0, Number(m[1])).split('\n').length;
    throw new InputFileError(file, line, `not valid JSON (${(e as Error).message})`);
  }
  return { value, lineOf: (path) => locate(text, path) };
}

/** The 1-based line where the JSON value at `path` starts (the closest enclosing one found). */
function locate(text: string, path: readonly (string | number)[]): number {
  let i = 0;
  const skipSpace = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const skipString = (): void => {
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
  };
  const skipValue = (): void => {
    skipSpace();
    const c = text[i];
    if (c === '"') return skipString();
    if (c === '{' || c === '[') {
      let depth = 0;
      for (; i < text.length; i++) {
        const d = text[i];
        if (d === '"') {
          skipString();
          i--;
        } else if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          depth--;
          if (depth === 0) {
            i++;
            return;
          }
        }
      }
      return;
    }
    while (i < text.length && !/[,\]}\s]/.test(text[i]!)) i++;
  };
  for (const step of path) {
    skipSpace();
    if (typeof step === 'number' && text[i] === '[') {
      i++;
      for (let k = 0; k < step; k++) {
        skipValue();
        skipSpace();
        if (text[i] === ',') i++;
      }
    } else if (typeof step === 'string' && text[i] === '{') {
      i++;
      for (;;) {
        skipSpace();
        if (text[i] !== '"') break;
        const start = i;
        skipString();
        const key = JSON.parse(text.slice(start, i)) as string;
        skipSpace();
        i++; // the colon
        if (key === step) break;
        skipValue();
        skipSpace();
        if (text[i] === ',') i++;
      }
    } else break;
  }
  skipSpace();
  return text.slice(0, i).split('\n').length;
}
