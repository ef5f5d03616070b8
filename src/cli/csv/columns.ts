import { closestName } from '../../internal/names.js';
import { InputFileError } from '../input.js';

/**
 * Refuses a header cell that is not one of the `known` columns (compared in lower case), naming
 * it and the closest known column: CSV columns are snake_case (`maker_volume`), and `makerVolume`
 * is answered with "did you mean "maker_volume"?". A column given twice is refused too.
 */
export function checkColumns(file: string, line: number, header: readonly string[], known: readonly string[]): void {
  const seen = new Set<string>();
  for (const h of header) {
    // Two cells of one column: which a row's value comes from would be a guess.
    if (seen.has(h.toLowerCase()))
      throw new InputFileError(file, line, `the column "${h}" is given twice; give each column once`);
    seen.add(h.toLowerCase());
    if (known.includes(h.toLowerCase())) continue;
    const near = closestName(h, known);
    throw new InputFileError(
      file,
      line,
      `unknown column "${h}"${near === undefined ? '.' : `: did you mean "${near}"?`} The columns are ${known.join(', ')}`,
    );
  }
}
