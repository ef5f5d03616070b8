import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// A page that names a file of the repository in a code quote (`src/proxy/server.ts`,
// `bench/arrivals.bench.ts:40`) sends its reader there; the file must exist. The changelog is
// history and may name what has gone since.
const root = resolve(import.meta.dirname, '..');
const pages = [
  ...readdirSync(root).filter((f) => f.endsWith('.md') && f !== 'CHANGELOG.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const FOLDERS = ['src', 'test', 'bench', 'examples', 'scripts', 'docs', '.ci'];

/** The repository paths a page names in inline code quotes, line numbers dropped, globs left out. */
function namedPaths(markdown: string): string[] {
  const quoted = [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  const paths: string[] = [];
  for (const q of quoted) {
    const m = /^\.?\/?((?:[a-z.]+)\/[\w./-]+?)(?::\d+(?:-\d+)?)?$/.exec(q.trim());
    if (m === null) continue;
    const path = m[1]!;
    if (!FOLDERS.includes(path.split('/')[0]!) || path.includes('*')) continue;
    paths.push(path);
  }
  return paths;
}

describe('repository paths the README and docs name', () => {
  it('reads a path out of a code quote, with or without a line range', () => {
    expect(namedPaths('see `src/proxy/server.ts:101-313` and `bench/x.bench.ts`')).toEqual([
      'src/proxy/server.ts',
      'bench/x.bench.ts',
    ]);
    expect(namedPaths('`npm test` and `test/**/*.ts` and `https://x/y` and `src`')).toEqual([]);
  });

  it('finds paths to check', () => {
    const all = pages.flatMap((p) => namedPaths(readFileSync(join(root, p), 'utf8')));
    expect(all.length).toBeGreaterThan(20);
  });

  it.each(pages)('%s names only files that exist', (page) => {
    const missing = namedPaths(readFileSync(join(root, page), 'utf8')).filter((p) => !existsSync(join(root, p)));
    expect(missing).toEqual([]);
  });
});
