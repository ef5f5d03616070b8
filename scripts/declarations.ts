// After the declaration build: drops the doc comments of private members from dist/*.d.cts. A
// private member stays declared (it keeps a class from being taken for another of the same
// shape), but what it is for is the sources' business, not the package's; it was 7 kB of the
// declarations.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dist = join(import.meta.dirname, '..', 'dist');
const privateDoc = /^[ \t]*\/\*\*(?:(?!\*\/)[\s\S])*\*\/\n(?=[ \t]*private )/gm;

for (const file of readdirSync(dist).filter((f) => f.endsWith('.d.cts'))) {
  const path = join(dist, file);
  const text = readFileSync(path, 'utf8');
  const stripped = text.replace(privateDoc, '');
  if (stripped !== text) writeFileSync(path, stripped);
}
