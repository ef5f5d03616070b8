import { InputFileError } from './input.js';
import { readInput } from './source.js';

/**
 * Parses JSON, naming the line of a syntax error, and gives a function that finds the line on
 * which the value at a path (`["activity", 3]`) starts.
 */
export function readJson(
  file: string,
  text: string,
): { value: unknown; lineOf: (path: readonly (string | number)[]) => number } {
  if (text.trim() === '') throw new InputFileError(file, 1, 'the file is empty: it needs a JSON value');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec(String((e as Error).message));
    const line = m === null ? 1 : text.slice(0, Number(m[1])).split('\n').length;
    throw new InputFileError(file, line, `not valid JSON (${(e as Error).message})`);
  }
  checkKeysOnce(file, text);
  return { value, lineOf: (path) => locate(text, path) };
}

/**
 * Refuses an object that gives a key twice (valid JSON): JSON.parse keeps only the last, so the
 * first (a whole `activity` list, say) would be dropped without a word. `text` is valid JSON.
 */
function checkKeysOnce(file: string, text: string): void {
  // One entry per open object (its keys and the line each is on) or array (null).
  const open: (Map<string, number> | null)[] = [];
  let expectKey = false;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    else if (c === '{') {
      open.push(new Map());
      expectKey = true;
    } else if (c === '[') open.push(null);
    else if (c === '}' || c === ']') open.pop();
    else if (c === ',') expectKey = (open.at(-1) ?? null) !== null;
    else if (c === ':') expectKey = false;
    else if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      const keys = open.at(-1);
      if (expectKey && keys !== undefined && keys !== null) {
        const key = JSON.parse(text.slice(start, i + 1)) as string;
        const first = keys.get(key);
        if (first !== undefined)
          throw new InputFileError(
            file,
            line,
            `the key ${JSON.stringify(key)} is given twice in one object (first on line ${first}); JSON keeps only the last, so give it once`,
          );
        keys.set(key, line);
      }
    }
  }
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

/** A JSON input file, read when given: its name, its value and where each value of it starts. */
export async function jsonFile(
  file: string | true | undefined,
  stdin: AsyncIterable<Buffer | string>,
): Promise<({ name: string } & ReturnType<typeof readJson>) | undefined> {
  if (file === undefined || file === true) return undefined;
  const { name, text } = await readInput(file, stdin);
  return { name, ...readJson(name, text) };
}
