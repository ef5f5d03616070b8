// After the declaration build: a class's private members become one `#private;` in dist/*.d.cts.
// TypeScript declares each private member by name only (`private timer;`) so that a class is not
// taken for another of the same shape; one ES private name does that as well (it is what
// TypeScript itself writes for a class with `#fields`), and what the members are is the sources'
// business, not the package's: their names and doc comments only weigh on the declarations.
// A private constructor stays: it says that the class is not built with `new`.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dist = join(import.meta.dirname, '..', 'dist');
const privateDoc = /^[ \t]*\/\*\*(?:(?!\*\/)[\s\S])*\*\/\n(?=[ \t]*private )/gm;

/** The declarations with each class's private members (but a private constructor) folded into one `#private;`. */
export function foldPrivates(text: string): string {
  const out: string[] = [];
  let folded = false;
  for (const line of text.replace(privateDoc, '').split('\n')) {
    if (/^(export )?declare (abstract )?class /.test(line)) folded = false;
    const member = /^([ \t]+)(private|#private;)/.exec(line);
    if (member === null || line.includes('private constructor')) {
      out.push(line);
      continue;
    }
    if (!folded) out.push(`${member[1]}#private;`);
    folded = true;
  }
  return out.join('\n');
}

if (process.argv[1] === import.meta.filename) {
  for (const file of readdirSync(dist).filter((f) => f.endsWith('.d.cts'))) {
    const path = join(dist, file);
    const text = readFileSync(path, 'utf8');
    const folded = foldPrivates(text);
    if (folded !== text) writeFileSync(path, folded);
  }
}
