import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

export default defineConfig({
  // A .lua file imported is its text, as in the build (tsup.config.ts): the Redis store's scripts.
  plugins: [
    {
      name: 'lua-text',
      transform: (code, id) =>
        id.endsWith('.lua') ? { code: `export default ${JSON.stringify(code)};`, map: null } : null,
    },
  ],
  define: { __TRADERATIO_VERSION__: JSON.stringify(version) },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Timeouts catch a test that hangs, not a slow one: on a busy machine a test may take a minute.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
