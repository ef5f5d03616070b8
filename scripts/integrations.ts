// `npm run docs:integrations`: docs/integrations.md shows each recipe of examples/integrations/ as
// the file is. A block is marked by the file it shows, on the line above it:
//
//     <!-- examples/integrations/fetch.ts -->
//     ```typescript
//     ...the file...
//     ```
//
// and this script writes each marked block from its file, so that a change to a recipe (its
// formatting too) reaches the guide with one command; test/integrations/guide.test.ts fails while
// the guide shows another text.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');

/** The guide, relative to the repository. */
export const GUIDE = 'docs/integrations.md';

/** A marked block: the file it shows, and the code it holds now. */
export interface ShownFile {
  readonly file: string;
  readonly code: string;
}

const MARKED = /^<!-- (examples\/integrations\/[\w.-]+\.ts) -->\n```typescript\n([\s\S]*?)```$/gm;

/** The marked blocks of a guide, in the order they come. */
export function shownFiles(guide: string): ShownFile[] {
  return [...guide.matchAll(MARKED)].map((m) => ({ file: m[1]!, code: m[2]! }));
}

/** The guide with each marked block holding its file as `read` gives it (relative paths). */
export function render(guide: string, read: (file: string) => string): string {
  return guide.replace(MARKED, (_, file: string) => {
    const code = read(file);
    return `<!-- ${file} -->\n\`\`\`typescript\n${code.endsWith('\n') ? code : `${code}\n`}\`\`\``;
  });
}

/** Reads a file of the repository. */
export function readRepo(file: string): string {
  return readFileSync(join(root, file), 'utf8');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(join(root, GUIDE), render(readRepo(GUIDE), readRepo));
}
