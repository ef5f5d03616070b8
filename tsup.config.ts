import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'cli/bin': 'src/cli/bin.ts' },
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts' } },
  target: 'node20',
  clean: true,
  sourcemap: true,
  splitting: false,
});
