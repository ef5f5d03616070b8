import { writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const shared = {
  target: 'node20',
  define: { __TRADERATIO_VERSION__: JSON.stringify(version) },
  // Minified to keep the package small (under 150 kB packed); functions and classes keep their
  // names, so stack traces and `constructor.name` still say where.
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  keepNames: true,
} as const;

// `npm run build` empties dist/ first: the two builds below run side by side and must not clean
// each other's output.
export default defineConfig([
  {
    ...shared,
    // The command line is ESM only; one copy of the classes shared by `traderatio` and
    // `traderatio/redis` (a shared store's limits must be the scheduler's own WindowLimit, its
    // errors the same classes).
    entry: { index: 'src/index.ts', redis: 'src/redis/index.ts', exchange: 'src/exchange/index.ts', 'cli/bin': 'src/cli/bin.ts' },
    format: 'esm',
    define: { ...shared.define, __TRADERATIO_FORMAT__: JSON.stringify('ESM') },
    splitting: true,
    // The declarations are written once, for CommonJS (.d.cts); those of the ESM entries re-export
    // them, which halves what the package weighs in declarations.
    onSuccess: async () => {
      for (const entry of ['index', 'redis', 'exchange']) await writeFile(`dist/${entry}.d.ts`, `export * from './${entry}.cjs';\n`);
    },
  },
  {
    ...shared,
    // traderatio/exchange is an ES module only: its CommonJS build is made for its declarations
    // (which then share the library's) and left out of the package (package.json "files").
    entry: { index: 'src/index.ts', redis: 'src/redis/index.ts', exchange: 'src/exchange/index.ts' },
    format: 'cjs',
    define: { ...shared.define, __TRADERATIO_FORMAT__: JSON.stringify('CommonJS') },
    splitting: true,
    // The declarations say what a user may call: members marked @internal are left out.
    dts: { compilerOptions: { stripInternal: true } },
  },
]);
