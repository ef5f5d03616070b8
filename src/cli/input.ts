import { InvalidInputError, TraderatioError } from '../errors.js';

/**
 * The `code` of the command line's errors: `INPUT_FILE` (an input file is missing, not text, or has
 * a bad line) and `OUTPUT_FILE` (an output file cannot be written). The core's codes are
 * `ErrorCode`.
 */
export type CliErrorCode = 'INPUT_FILE' | 'OUTPUT_FILE';

/**
 * A problem in an input file: names the file, the line and the field (the line is null when the
 * file as a whole is at fault: missing, a directory).
 */
export class InputFileError extends TraderatioError<CliErrorCode> {
  constructor(
    readonly file: string,
    readonly line: number | null,
    message: string,
  ) {
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
