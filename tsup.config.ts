import { writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const shared = {
  target: 'node20',
  define: { __TRADERATIO_VERSION__: JSON.stringify(version) },
  // The Redis store's Lua scripts (src/redis/lua) are built in as text: dist needs no .lua file.
  loader: { '.lua': 'text' },
  // Readable output, as the sources are written: a user's stack trace names our functions. No
  // keepNames either, which would wrap every function and class in a naming call on the hot path.
  minify: false,
} as const;

// `npm run build` empties dist/ first: the two builds below run side by side and must not clean
// each other's output.
const entries = [
  'index',
  'rules',
  'catalog',
  'advise',
  'testing',
  'redis',
  'fetch',
  'ccxt',
  'gate-api',
  'websocket',
  'model-exchange',
  'metrics',
] as const;
// Each package entry's source: the root, then the subpaths (package.json "exports").
const sources = {
  index: 'src/index.ts',
  rules: 'src/rules/index.ts',
  catalog: 'src/catalog/index.ts',
  advise: 'src/advise/index.ts',
  testing: 'src/testing/index.ts',
  redis: 'src/redis/index.ts',
  fetch: 'src/fetch/index.ts',
  ccxt: 'src/ccxt/index.ts',
  'gate-api': 'src/gate-api/index.ts',
  websocket: 'src/websocket/index.ts',
  'model-exchange': 'src/model-exchange/index.ts',
  metrics: 'src/metrics/index.ts',
} satisfies Record<(typeof entries)[number], string>;
export default defineConfig([
  {
    ...shared,
    // The code is built once, as ES modules: one copy of the classes shared by every entry (a
    // shared store's limits must be the scheduler's own WindowLimit, its errors the same classes),
    // whether a user imports or requires them.
    entry: { ...sources, 'cli/bin': 'src/cli/bin.ts' },
    format: 'esm',
    define: { ...shared.define, __TRADERATIO_FORMAT__: JSON.stringify('ESM') },
    splitting: true,
    onSuccess: async () => {
      for (const entry of entries) {
        // CommonJS entries require the ES modules (Node 20.19 and later load an ES module without
        // top-level await from require); the declarations are written once, for CommonJS (.d.cts),
        // and those of the ESM entries re-export them.
        await writeFile(`dist/${entry}.cjs`, `'use strict';\nmodule.exports = require('./${entry}.js');\n`);
        await writeFile(`dist/${entry}.d.ts`, `export * from './${entry}.cjs';\n`);
      }
    },
  },
  {
    ...shared,
    entry: sources,
    format: 'cjs',
    splitting: true,
    // Declarations only. They say what a user may call: members marked @internal are left out.
    dts: { only: true, compilerOptions: { stripInternal: true } },
  },
]);
