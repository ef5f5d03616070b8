import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REDIS_URL, REDIS_URL } from './redis/address.js';

// Every ```ts block in README.md and docs/*.md is a runnable example: it imports from
// 'traderatio' or one of its subpaths ('traderatio/rules', ...) and asserts what it shows. Each runs here against the sources.
const root = resolve(import.meta.dirname, '..');
const out = join(root, 'test', '.docs');
const files = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

for (const file of files) {
  const text = readFileSync(join(root, file), 'utf8');
  const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  if (blocks.length === 0) continue;
  describe(file, () => {
    blocks.forEach((code, i) => {
      const line = text.slice(0, text.indexOf(code)).split('\n').length;
      it(`runs the example at line ${line}`, async () => {
        expect(code).toMatch(/from 'traderatio(\/[a-z-]+)?'/);
        const path = join(out, `${file.replace(/[/.]/g, '_')}_${i}.ts`);
        // Examples connect to the Redis a reader has (127.0.0.1:6379); here, to the tests' own.
        const local = code.replaceAll(
          "new Redis({ host: '127.0.0.1', port: 6379 })",
          `new Redis(${JSON.stringify(REDIS_URL)})`,
        );
        if (REDIS_URL !== DEFAULT_REDIS_URL)
          expect(local, 'an example reaches Redis in a way this test does not redirect').not.toMatch(
            /6379|new Redis\(\)|createClient\(\)/,
          );
        writeFileSync(
          path,
          local
            .replace(/from 'traderatio\/([a-z-]+)'/g, "from '../../src/$1/index.js'")
            .replaceAll("from 'traderatio'", "from '../../src/index.js'"),
        );
        await import(pathToFileURL(path).href);
        // A recipe loads its client library (the SDK's hundreds of modules) and starts the model.
      }, 60_000);
    });
  });
}
