import { describe, expect, it } from 'vitest';
import { docBlocks, freshFolder, runDocBlock } from '../doc-blocks.js';
import { connectsToRedis } from '../redis-tag.js';

// The ```ts blocks of README.md and docs/*.md that connect to Redis, run against the tests' Redis
// (the rest run in test/docs.test.ts).
const out = freshFolder('.docs-redis');
const blocks = docBlocks().filter((b) => connectsToRedis(b.code));

for (const file of new Set(blocks.map((b) => b.file))) {
  describe(file, () => {
    for (const block of blocks.filter((b) => b.file === file)) {
      it(`runs the example at line ${block.line}`, async () => {
        expect(block.code).toMatch(/from 'traderatio(\/[a-z-]+)?'/);
        await runDocBlock(block, out);
      }, 60_000);
    }
  });
}
