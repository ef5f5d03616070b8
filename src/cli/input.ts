import { InvalidInputError, TraderatioError } from '../errors.js';

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
