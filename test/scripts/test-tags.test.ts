import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { needsRedis } from '../../scripts/redis-for-tests.js';
import { connectsToRedis } from '../redis-tag.js';

// Tests that need a Redis server carry `redis` in their path, so that `npm test -- test/schedule`
// runs where no Redis is: every other test file must do without one.
const root = resolve(import.meta.dirname, '../..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    if (d.name.startsWith('.')) return [];
    const path = join(dir, d.name);
    return d.isDirectory() ? testFiles(path) : d.name.endsWith('.test.ts') ? [relative(root, path)] : [];
  });
}

describe('tests that need Redis', () => {
  it('are told by a path with `redis` in it', () => {
    expect(needsRedis('test/redis/store.test.ts')).toBe(true);
    expect(needsRedis('test/proxy/redis.e2e.test.ts')).toBe(true);
    expect(needsRedis('test\\redis\\store.test.ts')).toBe(true);
    expect(needsRedis('test/schedule/build.test.ts')).toBe(false);
    expect(needsRedis('test/docs.test.ts')).toBe(false);
  });

  it('tell an example that connects from one that only builds a client', () => {
    expect(connectsToRedis("const client = new Redis({ host: '127.0.0.1', port: 6379 })")).toBe(true);
    expect(connectsToRedis('const client = createClient({ url })')).toBe(true);
    expect(connectsToRedis('const client = new Redis({ lazyConnect: true })')).toBe(false);
    expect(connectsToRedis('new RedisStore({ client: silent })')).toBe(false);
  });

  it('are all tagged: no other test file connects to Redis or reads its address', () => {
    const files = testFiles(join(root, 'test'));
    expect(files.length).toBeGreaterThan(100);
    const untagged = files.filter((f) => {
      // This file names what it looks for.
      if (needsRedis(f) || f === relative(root, import.meta.filename)) return false;
      const text = readFileSync(join(root, f), 'utf8');
      return connectsToRedis(text) || /REDIS_URL|from '[./]+redis\/|redisForTests/.test(text);
    });
    expect(untagged).toEqual([]);
  });
});
