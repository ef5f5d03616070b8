import { TraderatioError } from '../errors.js';
import { writeFileSync } from 'node:fs';
import type { CliErrorCode } from './input.js';

/** Writes `text` to `file` (--svg, --html); a file that cannot be written is an `OUTPUT_FILE` error naming it. */
export function writeOut(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new TraderatioError<CliErrorCode>(
      'OUTPUT_FILE',
      `${file}: cannot write it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
}
