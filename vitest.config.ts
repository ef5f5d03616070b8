import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

export default defineConfig({
  define: { __TRADERATIO_VERSION__: JSON.stringify(version) },
  test: {
    // End-to-end runs against the model exchange (`*.e2e.ts`) that do not yet meet their targets
    // on every machine are run on demand: `npm run test:e2e`.
    include: process.env.TRADERATIO_E2E === '1' ? ['test/**/*.e2e.ts'] : ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
