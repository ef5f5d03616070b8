import { describe, expect, it } from 'vitest';
import { docBlocks, freshFolder, runDocBlock } from './doc-blocks.js';
import { connectsToRedis } from './redis-tag.js';

// Every ```ts block in README.md and docs/*.md runs here against the sources, but for those that
// connect to Redis: test/redis/docs.test.ts runs them.
const out = freshFolder('.docs');
const blocks = docBlocks();

const here = blocks.filter((b) => !connectsToRedis(b.code));
for (const file of new Set(here.map((b) => b.file))) {
  describe(file, () => {
    for (const block of here.filter((b) => b.file === file)) {
      it(`runs the example at line ${block.line}`, async () => {
        expect(block.code).toMatch(/from 'traderatio(\/[a-z-]+)?'/);
        await runDocBlock(block, out);
        // A recipe loads its client library (the SDK's hundreds of modules) and starts the model.
      }, 60_000);
    }
  });
}

describe('the examples of the docs', () => {
  it('are found, some of them connecting to Redis', () => {
    expect(blocks.length).toBeGreaterThan(20);
    expect(blocks.filter((b) => connectsToRedis(b.code)).length).toBeGreaterThan(0);
  });
});
