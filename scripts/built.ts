// Whether dist/ is older than what it is built from: the tests of the built package and command
// line need a build of the sources they test.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestIn(path: string): number {
  const s = statSync(path, { throwIfNoEntry: false });
  if (s === undefined) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestIn(join(path, name))));
}

/** True when `root`/dist/cli/bin.js is missing or older than src/, package.json or tsup.config.ts. */
export function buildIsStale(root: string): boolean {
  const built = statSync(join(root, 'dist/cli/bin.js'), { throwIfNoEntry: false });
  if (built === undefined) return true;
  const sources = Math.max(...['src', 'package.json', 'tsup.config.ts'].map((p) => newestIn(join(root, p))));
  return built.mtimeMs < sources;
}
