import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { INSTALL_HINT, NoRedisError, answers, freePort, redisForTests } from '../../scripts/redis-for-tests.js';
import { REDIS_URL } from '../redis/address.js';

const root = resolve(import.meta.dirname, '../..');

describe('redisForTests', () => {
  it('starts a private redis-server on a free port when nothing answers, keeps nothing on disk, and stops it', async () => {
    const unused = `redis://127.0.0.1:${await freePort()}`;
    const redis = await redisForTests({ fallback: unused });
    expect(redis.private).toBe(true);
    expect(redis.url).not.toBe(unused);
    const client = new Redis(redis.url);
    try {
      expect(await client.ping()).toBe('PONG');
      expect(await client.config('GET', 'save')).toEqual(['save', '']);
      expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
      expect(await client.config('GET', 'bind')).toEqual(['bind', '127.0.0.1']);
      const [, dir] = (await client.config('GET', 'dir')) as [string, string];
      client.disconnect();
      await redis.stop();
      expect(await answers(redis.url, 300)).toBe(false);
      expect(existsSync(dir)).toBe(false);
    } finally {
      client.disconnect();
      await redis.stop();
    }
  }, 60_000);

  it('uses the Redis that answers where it looks, and starts nothing', async () => {
    const redis = await redisForTests({ fallback: REDIS_URL });
    expect(redis).toMatchObject({ url: REDIS_URL, private: false });
    await redis.stop();
    expect(await answers(REDIS_URL, 500)).toBe(true);
  });

  it('honours REDIS_URL, and refuses one where nothing answers', async () => {
    expect(await redisForTests({ url: REDIS_URL, fallback: 'redis://127.0.0.1:1' })).toMatchObject({
      url: REDIS_URL,
      private: false,
    });
    const unused = `redis://127.0.0.1:${await freePort()}`;
    await expect(redisForTests({ url: unused })).rejects.toThrow(
      new NoRedisError(
        `nothing answers at REDIS_URL=${unused}: start that Redis, or unset REDIS_URL and the tests start their own`,
      ),
    );
  });

  it('says in one line how to install redis-server when it is missing', async () => {
    await expect(redisForTests({ path: '/nonexistent' })).rejects.toThrow(new NoRedisError(INSTALL_HINT));
    expect(INSTALL_HINT).not.toContain('\n');
    // npm test as a whole: fails at once, with that line and how to run what needs no Redis.
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test.ts'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PATH: '/nonexistent', REDIS_URL: '' },
    });
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr: `npm test: ${INSTALL_HINT}\nnpm test: files without \`redis\` in their path run without it, as in \`npm test -- test/schedule\`\n`,
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
