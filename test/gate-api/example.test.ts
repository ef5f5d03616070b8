import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// test/docs.test.ts runs the recipe's block against the model exchange; here, the block is the
// example file as it is, so the file is what runs.
const root = resolve(import.meta.dirname, '../..');

describe('the gate-api recipe', () => {
  it('shows examples/integrations/gate-api.ts in docs/integrations.md, whole', () => {
    const doc = readFileSync(resolve(root, 'docs/integrations.md'), 'utf8');
    const section = doc.slice(doc.indexOf('\n## gate-api\n'));
    expect(section.length).toBeLessThan(doc.length);
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBe(readFileSync(resolve(root, 'examples/integrations/gate-api.ts'), 'utf8'));
  });
});
