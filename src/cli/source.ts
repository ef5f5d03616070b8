import { isUtf8 } from 'node:buffer';
import { createReadStream, statSync } from 'node:fs';
import { TraderatioError } from '../errors.js';
import { type CliErrorCode, InputFileError } from './input.js';

/** The name a command gives standard input, read when a FILE argument is `-`. */
export const STDIN_NAME = '<stdin>';

/** Where a command's input comes from: a file, or standard input for `-`. */
export interface Source {
  /** The name messages give it: the path as typed, or {@link STDIN_NAME}. */
  readonly name: string;
  /** The bytes, as they arrive. */
  readonly chunks: AsyncIterable<Buffer | string>;
  /** Its size in bytes when known (a regular file), for progress; null for a pipe. */
  readonly size: number | null;
}

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
};

/** A failure to open or read `name`, as a message that names it. */
function cannotRead(name: string, e: unknown): InputFileError {
  const code = (e as NodeJS.ErrnoException).code;
  const reason = code === undefined ? (e as Error).message : `${REASONS[code] ?? 'the system refused'} (${code})`;
  return new InputFileError(name, null, `cannot read it: ${reason}`);
}

/**
 * Opens `file` for reading, or standard input when it is `-`. A directory, a missing file or one
 * that cannot be read is refused here, with a message that names it.
 */
export function openSource(file: string, stdin: AsyncIterable<Buffer | string>): Source {
  if (file === '-') return { name: STDIN_NAME, chunks: stdin, size: null };
  // Named as given, an empty name would leave the message starting with its colon.
  if (file === '') throw new InputFileError('""', null, 'cannot read it: the file name is empty');
  let size: number | null;
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' });
    size = stat.isFile() ? stat.size : null;
  } catch (e) {
    throw cannotRead(file, e);
  }
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  return { name: file, size, chunks: rethrowing(file, stream) };
}

async function* rethrowing(name: string, chunks: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  try {
    yield* chunks;
  } catch (e) {
    throw cannotRead(name, e);
  }
}

/**
 * Bytes that are not text: a NUL byte, or bytes that are not UTF-8. Thrown by {@link textChunks}
 * after the lines before them; the reader, which counts lines, says which line it is on.
 */
export class NotTextError extends TraderatioError<CliErrorCode> {
  constructor(readonly what: string) {
    super('INPUT_FILE', what);
  }

  /** The error for people: the file, the line, what is wrong. */
  at(name: string, line: number): InputFileError {
    return new InputFileError(name, line, this.what);
  }
}

/**
 * The longest line a CSV input (activity, request log) may have, in bytes before its line feed (a
 * CR counts): 64 KiB, hundreds of times a line of ours. A longer line is refused as soon as it has
 * been read that far, so a file that is not one of ours (one line of 50 MB) is refused at once.
 * JSON input (its first character other than white space `[` or `{`) has no such limit: it may
 * come on one line.
 */
export const MAX_LINE_BYTES = 65_536;

const TOO_LONG = `a line longer than ${MAX_LINE_BYTES.toLocaleString('en-US')} bytes, the longest an input line may be; is it the right file?`;

/**
 * The bytes of `source` in pieces of whole lines: each piece ends with a line feed, but the last
 * when the input does not. A UTF-8 byte-order mark at the start is dropped; UTF-16 is refused.
 * Every piece is checked to be UTF-8 text without NUL bytes and lines of at most `maxLineBytes`
 * ({@link MAX_LINE_BYTES} for CSV; none for JSON input, whatever is asked), all at once: when one
 * is not, the lines before the first bad one come as a piece of their own, then a {@link NotTextError}.
 */
export async function* textChunks(
  source: Source,
  maxLineBytes = Number.POSITIVE_INFINITY,
): AsyncGenerator<Buffer, void, undefined> {
  let rest: Buffer | null = null;
  let atStart = true;
  for await (const chunk of source.chunks) {
    const fresh = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let data: Buffer = rest === null || rest.length === 0 ? fresh : Buffer.concat([rest, fresh]);
    if (atStart) {
      // A byte-order mark is looked for once three bytes (or a whole line) have come.
      if (data.length < 3 && data.indexOf(10, 0) < 0) {
        rest = data;
        continue;
      }
      data = data.subarray(startOfText(source.name, data));
      atStart = false;
      if (isJson(data)) maxLineBytes = Number.POSITIVE_INFINITY;
    }
    const last = data.lastIndexOf(10, data.length - 1);
    if (last < 0) {
      // A line already past the longest is refused before more of it is read.
      if (data.length > maxLineBytes) throw new NotTextError(TOO_LONG);
      rest = data;
      continue;
    }
    yield* checked(data.subarray(0, last + 1), maxLineBytes);
    rest = data.subarray(last + 1);
  }
  if (rest !== null && rest.length > 0)
    yield* checked(atStart ? rest.subarray(startOfText(source.name, rest)) : rest, maxLineBytes);
}

/** `piece`, when it is text; else the lines before the first that is not, then the error. */
function* checked(piece: Buffer, maxLineBytes: number): Generator<Buffer, void, undefined> {
  const long = longLine(piece, maxLineBytes);
  if (long >= 0) {
    yield* checked(piece.subarray(0, long), maxLineBytes);
    throw new NotTextError(TOO_LONG);
  }
  if (isText(piece)) {
    yield piece;
    return;
  }
  for (let from = 0; from < piece.length; ) {
    const end = piece.indexOf(10, from);
    const to = end < 0 ? piece.length : end;
    const what = textProblem(piece, from, to);
    if (what !== null) {
      if (from > 0) yield piece.subarray(0, from);
      throw new NotTextError(what);
    }
    from = to + 1;
  }
}

/**
 * Reads all of `source` as text (see {@link textChunks}): binary data is refused with the line it
 * is on, never echoed.
 */
export async function readText(source: Source, maxLineBytes?: number): Promise<string> {
  const pieces: Buffer[] = [];
  try {
    for await (const piece of textChunks(source, maxLineBytes)) pieces.push(piece);
  } catch (e) {
    if (!(e instanceof NotTextError)) throw e;
    let lines = 1;
    for (const piece of pieces) for (let i = piece.indexOf(10, 0); i >= 0; i = piece.indexOf(10, i + 1)) lines++;
    throw e.at(source.name, lines);
  }
  return Buffer.concat(pieces).toString('utf8');
}

/** Whether text starting with `buf` is JSON: its first byte other than white space is `[` or `{`. */
function isJson(buf: Buffer): boolean {
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return b === 0x5b || b === 0x7b;
  }
  return false;
}

/** Where the text of `buf` starts: after a UTF-8 byte-order mark. UTF-16 is refused by name. */
function startOfText(name: string, buf: Buffer): number {
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return 3;
  if ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff)) {
    throw new InputFileError(name, 1, 'the file is UTF-16 text; save it as UTF-8');
  }
  return 0;
}

// Buffer's indexOf and lastIndexOf are given an offset at every call here: a call without one
// changes what V8 assumes of the function they share, and slows every search the line reader makes
// afterwards (`npm run bench:simulate` shows it).

/**
 * Where the first line of `buf` longer than `max` bytes starts, or -1. It looks one longest line
 * ahead of each line start for a line feed before it, so that a file of short lines costs a search
 * every `max` bytes, not one a line.
 */
function longLine(buf: Buffer, max: number): number {
  let start = 0;
  while (buf.length - start > max) {
    const end = buf.lastIndexOf(10, start + max);
    if (end < start) return start;
    start = end + 1;
  }
  return -1;
}

/** Whether `buf` is UTF-8 text without NUL bytes. */
function isText(buf: Buffer): boolean {
  return buf.indexOf(0, 0) < 0 && isUtf8(buf);
}

/** What keeps bytes [from, to) of `buf` (one line) from being text, or null when they are. */
function textProblem(buf: Buffer, from: number, to: number): string | null {
  const nul = buf.indexOf(0, from);
  if (nul >= 0 && nul < to) return `not text: a NUL byte at byte ${nul - from + 1} of the line; is it a binary file?`;
  const line = buf.subarray(from, to);
  if (isUtf8(line)) return null;
  const at = firstInvalidUtf8(line);
  return `not UTF-8 text: byte ${at + 1} of the line is 0x${line[at]!.toString(16).padStart(2, '0')}; save the file as UTF-8 (or is it a binary file?)`;
}

/** The offset of the first byte of `buf` that does not belong to a well-formed UTF-8 sequence. */
function firstInvalidUtf8(buf: Buffer): number {
  for (let i = 0; i < buf.length; ) {
    const b = buf[i]!;
    const n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (n === 0 || i + n > buf.length || !isUtf8(buf.subarray(i, i + n))) return i;
    i += n;
  }
  return buf.length;
}

/**
 * Reads standard input when `file` is `-`, else the file: shorthand for the commands that take all
 * of it (lines of at most `maxLineBytes`: {@link MAX_LINE_BYTES} for CSV).
 */
export async function readInput(
  file: string,
  stdin: AsyncIterable<Buffer | string>,
  maxLineBytes?: number,
): Promise<{ readonly name: string; readonly text: string }> {
  const source = openSource(file, stdin);
  return { name: source.name, text: await readText(source, maxLineBytes) };
}
