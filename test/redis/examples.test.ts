import { describe, expect, it } from 'vitest';
import { freshFolder } from '../doc-blocks.js';
import { entries, exportsOf, importsThePackage, runExample, toModule } from '../examples.js';
import { connectsToRedis } from '../redis-tag.js';

// The @examples of the package's exports that connect to Redis, run against the tests' Redis (the
// rest run in test/examples.test.ts).
const out = freshFolder('.examples-redis');
const all = entries();
const found = exportsOf(all);

for (const entry of all) {
  const examples = (found.get(entry.name) ?? []).flatMap((x) => [...x.examples, ...x.memberExamples]);
  if (!examples.some((e) => connectsToRedis(e.code))) continue;
  describe(entry.specifier, () => {
    examples.forEach((example, i) => {
      if (!connectsToRedis(example.code)) return;
      it(`runs the example of ${example.of} (${example.at})`, async () => {
        expect(importsThePackage(example.code), 'the example imports what it uses from the package').toBe(true);
        expect(toModule(example.code).assertions, 'the example asserts what it shows').toBeGreaterThan(0);
        await runExample(out, entry.name, example, i);
      }, 60_000);
    });
  });
}
