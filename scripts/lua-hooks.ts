// The module hook scripts/lua.ts registers: a .lua file is a module whose default export is its text.
import { readFile } from 'node:fs/promises';
import type { LoadHook } from 'node:module';

export const load: LoadHook = async (url, context, next) => {
  if (!url.endsWith('.lua')) return next(url, context);
  const text = await readFile(new URL(url), 'utf8');
  return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
};
