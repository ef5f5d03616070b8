import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// `npm run test:e2e`: the end-to-end runs of the adapters against the model exchange
// (test/**/*.e2e.ts), each many seconds of saturated traffic whose figures need a machine with
// cores to spare; not part of `npm test`. One file at a time, so runs do not share the cores.
export default defineConfig({ ...base, test: { ...base.test, include: ['test/**/*.e2e.ts'], maxWorkers: 1 } });
