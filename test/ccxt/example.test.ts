import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs.test.ts runs the recipe of docs/integrations.md; it is the example program, word for word.
const root = resolve(import.meta.dirname, '../..');

describe('the ccxt recipe', () => {
  it('is examples/integrations/ccxt.ts as it stands', () => {
    const doc = readFileSync(resolve(root, 'docs/integrations.md'), 'utf8');
    const section = doc.slice(doc.indexOf('\n## ccxt\n'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBe(readFileSync(resolve(root, 'examples/integrations/ccxt.ts'), 'utf8'));
  });
});
