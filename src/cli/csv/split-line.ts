import { COMMA, type CsvFault, QUOTE, isCsvSpace } from './rules.js';

/**
 * Splits one CSV line (not skipped) into its fields under the rules of ./rules.ts: spaces and tabs
 * around a field dropped, a field in double quotes kept as written with its doubled quotes made
 * single. Returns the fault instead when the line breaks a rule.
 *
 * @example
 * splitCsvLine(' a , "b, c" ,"say ""hi"""'); // ['a', 'b, c', 'say "hi"']
 * splitCsvLine('a,"b'); // 'unclosed'
 */
export function splitCsvLine(text: string): string[] | CsvFault {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  for (;;) {
    while (i < n && isCsvSpace(text.charCodeAt(i))) i++;
    if (i < n && text.charCodeAt(i) === QUOTE) {
      let field = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) return 'unclosed';
        field += text.slice(i, q);
        i = q + 1;
        if (text.charCodeAt(i) !== QUOTE) break;
        field += '"';
        i++;
      }
      while (i < n && isCsvSpace(text.charCodeAt(i))) i++;
      if (i < n && text.charCodeAt(i) !== COMMA) return 'stray-quote';
      out.push(field);
    } else {
      let end = text.indexOf(',', i);
      if (end < 0) end = n;
      const q = text.indexOf('"', i);
      if (q >= 0 && q < end) return 'stray-quote';
      let b = end;
      while (b > i && isCsvSpace(text.charCodeAt(b - 1))) b--;
      out.push(text.slice(i, b));
      i = end;
    }
    if (i >= n) return out;
    i++;
  }
}
