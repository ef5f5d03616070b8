import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { toTestRedis } from './redis-tag.js';

// Every ```ts block in README.md and docs/*.md is a runnable example: it imports from
// 'traderatio' or one of its subpaths ('traderatio/rules', ...) and asserts what it shows.
// test/docs.test.ts runs them against the sources, and test/redis/docs.test.ts those that connect to Redis.

const root = resolve(import.meta.dirname, '..');

/** One ```ts block of a page. */
export interface DocBlock {
  /** `README.md`, `docs/guide.md`. */
  readonly file: string;
  /** The line of the page the code starts on. */
  readonly line: number;
  /** Its place among the page's blocks. */
  readonly index: number;
  readonly code: string;
}

/** The ```ts blocks of the README and docs/, page by page. */
export function docBlocks(): DocBlock[] {
  const files = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  return files.flatMap((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m, index) => ({
      file,
      index,
      code: m[1]!,
      line: text.slice(0, m.index + 6).split('\n').length,
    }));
  });
}

/** An empty folder of test/ for the modules of a run. */
export function freshFolder(name: string): string {
  const out = join(root, 'test', name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  return out;
}

/** Runs a block as a module written to `out`, its imports of the package sent to the sources. */
export async function runDocBlock(block: DocBlock, out: string): Promise<void> {
  const path = join(out, `${block.file.replace(/[/.]/g, '_')}_${block.index}.ts`);
  writeFileSync(
    path,
    toTestRedis(block.code)
      .replace(/from 'traderatio\/([a-z-]+)'/g, "from '../../src/$1/index.js'")
      .replaceAll("from 'traderatio'", "from '../../src/index.js'"),
  );
  await import(pathToFileURL(path).href);
}
