import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshFolder } from './doc-blocks.js';
import { entries, exportsOf, importsThePackage, runExample, toModule } from './examples.js';
import { connectsToRedis } from './redis-tag.js';

// Every @example of an export runs here against the sources, as the Markdown examples do
// (test/docs.test.ts): it imports what it uses from 'traderatio' (or a subpath) as a reader's
// code would, and a line `expression // value` with a literal value asserts that the expression
// equals it. Those that connect to Redis run in test/redis/examples.test.ts.
//
const root = resolve(import.meta.dirname, '..');
const out = freshFolder('.examples');

const all = entries();
const found = exportsOf(all);

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
      if (connectsToRedis(example.code)) return;
      it(`runs the example of ${example.of} (${example.at})`, async () => {
        expect(importsThePackage(example.code), 'the example imports what it uses from the package').toBe(true);
        expect(
          toModule(example.code).assertions,
          'the example asserts what it shows (`expression // value`)',
        ).toBeGreaterThan(0);
        await runExample(out, entry.name, example, i);
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
