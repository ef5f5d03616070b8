import { DEFAULT_REDIS_URL, REDIS_URL } from './redis/address.js';

// Tests that need a Redis server carry `redis` in their path (test/redis/, test/proxy/redis.e2e.test.ts),
// so that a folder without one runs where no Redis is (scripts/test.ts). Examples of the docs and
// the sources that connect to Redis run in test/redis/ for the same reason.

/** Whether example code connects to a Redis server (a client it only builds, lazily, does not). */
export function connectsToRedis(code: string): boolean {
  return /new Redis\((?!\{\s*lazyConnect: true)|createClient\(|new Cluster\(/.test(code);
}

/**
 * The example with its connection sent to the tests' Redis (REDIS_URL) instead of the reader's
 * 127.0.0.1:6379; throws when it reaches Redis in a way this does not redirect.
 */
export function toTestRedis(code: string): string {
  const local = code.replaceAll(
    "new Redis({ host: '127.0.0.1', port: 6379 })",
    `new Redis(${JSON.stringify(REDIS_URL)})`,
  );
  if (REDIS_URL !== DEFAULT_REDIS_URL && /6379|new Redis\(\)|createClient\(\)/.test(local))
    throw new Error('an example reaches Redis in a way the tests do not redirect to REDIS_URL');
  return local;
}
