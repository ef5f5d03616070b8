import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GUIDE, readRepo, render, shownFiles } from '../../scripts/integrations.js';

const root = join(import.meta.dirname, '..', '..');
const recipes = readdirSync(join(root, 'examples', 'integrations'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => `examples/integrations/${f}`)
  .sort();

describe('docs/integrations.md', () => {
  it('shows every recipe of examples/integrations/ once, in a block marked with its file', () => {
    expect(
      shownFiles(readRepo(GUIDE))
        .map((s) => s.file)
        .sort(),
    ).toEqual(recipes);
  });

  it('shows each recipe as the file is (run `npm run docs:integrations` after changing one)', () => {
    for (const { file, code } of shownFiles(readRepo(GUIDE))) expect(code, file).toBe(readRepo(file));
  });
});

describe('render', () => {
  const guide = [
    'Intro.',
    '',
    '<!-- examples/integrations/a.ts -->',
    '```typescript',
    'const a = f(1, 2)',
    '```',
    '',
    '```typescript',
    'const unmarked = 1;',
    '```',
    '',
    '<!-- examples/integrations/b.ts -->',
    '```typescript',
    'old();',
    '```',
    '',
  ].join('\n');
  const files: Record<string, string> = {
    'examples/integrations/a.ts': 'const a = f(\n  1,\n  2,\n);\n',
    'examples/integrations/b.ts': 'fresh();',
  };

  it('writes each marked block from its file, whatever it held, and leaves the rest as it is', () => {
    const out = render(guide, (file) => files[file]!);
    expect(out).toBe(
      guide.replace('const a = f(1, 2)\n', 'const a = f(\n  1,\n  2,\n);\n').replace('old();\n', 'fresh();\n'),
    );
    expect(shownFiles(out)).toEqual([
      { file: 'examples/integrations/a.ts', code: files['examples/integrations/a.ts'] },
      { file: 'examples/integrations/b.ts', code: 'fresh();\n' },
    ]);
  });

  it('is the guide itself once the blocks hold their files', () => {
    const once = render(guide, (file) => files[file]!);
    expect(render(once, (file) => files[file]!)).toBe(once);
  });
});
