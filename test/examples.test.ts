import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Example, entries, exportsOf, importsThePackage, toModule } from './examples.js';

// Every @example of an export runs here against the sources, as the Markdown examples do
// (test/docs.test.ts): it imports what it uses from 'traderatio' (or a subpath) as a reader's
// code would, and a line `expression // value` with a literal value asserts that the expression
// equals it.
//
const root = resolve(import.meta.dirname, '..');
const out = join(root, 'test', '.examples');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const all = entries();
const found = exportsOf(all);

function write(entry: string, example: Example, i: number): string {
  const path = join(out, `${entry}_${example.of.replace(/\W/g, '_')}_${i}.ts`);
  writeFileSync(path, toModule(example.code).text);
  return path;
}

async function run(path: string): Promise<void> {
  await import(pathToFileURL(path).href);
}

describe('the entries', () => {
  it('are read from package.json "exports": the root and the subpaths', () => {
    expect(all.map((e) => e.specifier)).toEqual([
      'traderatio',
      'traderatio/rules',
      'traderatio/catalog',
      'traderatio/advise',
      'traderatio/testing',
      'traderatio/redis',
      'traderatio/fetch',
      'traderatio/ccxt',
      'traderatio/gate-api',
      'traderatio/websocket',
      'traderatio/model-exchange',
      'traderatio/metrics',
    ]);
  });
});

// Every entry: each export has an @example, and each example (a class's members' too) imports
// what it uses from the package, asserts what it shows, and runs.
for (const entry of all) {
  const list = found.get(entry.name) ?? [];
  const examples = list.flatMap((x) => [...x.examples, ...x.memberExamples]);
  describe(entry.specifier, () => {
    it('gives every export an @example', () => {
      expect(list.length).toBeGreaterThan(0);
      expect(list.filter((x) => x.examples.length === 0).map((x) => x.name)).toEqual([]);
    });
    examples.forEach((example, i) => {
      it(`runs the example of ${example.of} (${example.at})`, async () => {
        expect(importsThePackage(example.code), 'the example imports what it uses from the package').toBe(true);
        expect(
          toModule(example.code).assertions,
          'the example asserts what it shows (`expression // value`)',
        ).toBeGreaterThan(0);
        await run(write(entry.name, example, i));
      }, 60_000);
    });
  });
}

describe('every @example in the sources', () => {
  it('is on an export of an entry, where it runs above', () => {
    const reached = new Set(
      [...found.values()].flatMap((list) => list.flatMap((x) => [...x.examples, ...x.memberExamples].map((e) => e.at))),
    );
    const written = execFileSync('git', ['grep', '-n', '@example', '--', 'src'], { cwd: root, encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => line.split(':').slice(0, 2).join(':'));
    expect(written.length).toBeGreaterThan(0);
    expect(written.filter((at) => !reached.has(at))).toEqual([]);
  });
});

describe('an example', () => {
  it('asserts a line whose comment is a literal, and leaves other comments alone', () => {
    const { text, assertions } = toModule(
      "import { f } from 'traderatio/fetch'\nf(1) // 2\nf('a // b') // ['x', { y: -1 }]\nf(3) // 'a' or 'b'\nconst x = f(4) // 5\n",
    );
    expect(assertions).toBe(2);
    expect(text).toContain('expect(f(1)).toEqual(2);');
    expect(text).toContain("expect(f('a // b')).toEqual(['x', { y: -1 }]);");
    expect(text).toContain("f(3) // 'a' or 'b'");
    expect(text).toContain('const x = f(4) // 5');
    expect(text).toContain("from '../../src/fetch/index.js'");
  });
});

describe('the examples of an entry', () => {
  it('are read from the declaration a re-export resolves to', () => {
    const start = found.get('model-exchange')?.find((x) => x.name === 'startModelExchange');
    expect(start?.examples.map((e) => e.at)).toEqual([expect.stringMatching(/^src\/model-exchange\/server\.ts:\d+$/)]);
  });
});
