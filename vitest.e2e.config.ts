import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

// End-to-end runs against the model exchange in real time (`npm run test:e2e`): they measure
// throughput, which a loaded machine cannot give, so they stay out of `npm test`.
export default defineConfig({
  define: { __TRADERATIO_VERSION__: JSON.stringify(version) },
  test: { include: ['test/**/*.e2e.ts'], pool: 'forks', maxWorkers: 1 },
});
