import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', redis: 'src/redis/index.ts', 'cli/bin': 'src/cli/bin.ts' },
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts', redis: 'src/redis/index.ts' } },
  target: 'node20',
  clean: true,
  sourcemap: true,
  // One copy of the classes shared by `traderatio` and `traderatio/redis` (a shared store's
  // limits must be the scheduler's own WindowLimit, its errors the same classes).
  splitting: true,
});
