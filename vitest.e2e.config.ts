import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

// `npm run test:e2e`: the end-to-end runs of the adapters against the model exchange
// (test/**/*.e2e.ts), each many seconds of saturated traffic whose figures need a machine with
// cores to spare; not part of `npm test`. One file at a time, so runs do not share the cores.
export default defineConfig({
  define: { __TRADERATIO_VERSION__: JSON.stringify(version) },
  test: {
    include: ['test/**/*.e2e.ts'],
    pool: 'forks',
    maxWorkers: 1,
  },
});
