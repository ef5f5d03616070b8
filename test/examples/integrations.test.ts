import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Every recipe of docs/integrations.md is a complete program in examples/integrations/, shown in
// the guide as it is; each runs here against the model exchange, importing the built package.
const root = resolve(import.meta.dirname, '../..');
const guide = readFileSync(join(root, 'docs/integrations.md'), 'utf8');
const examples = readdirSync(join(root, 'examples/integrations')).filter((f) => f.endsWith('.ts'));

describe('examples/integrations', () => {
  it.each(examples)('%s runs to its end, and the guide shows it as it is', async (file) => {
    const code = readFileSync(join(root, 'examples/integrations', file), 'utf8');
    expect(guide).toContain('```typescript\n' + code + '```');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join('examples/integrations', file)], { cwd: root, timeout: 60_000 });
    expect(stdout).toContain(`${file.replace(/\.ts$/, '')}:`);
  }, 90_000);
});
