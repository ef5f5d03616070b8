import { afterAll } from 'vitest';
import { cleanPrefix, connect, uniquePrefix } from './harness.js';

/**
 * A Redis client for one test file and a maker of key prefixes of its own: after the file, every
 * prefix made is deleted and the client closed.
 */
export function redisForFile(): { client: ReturnType<typeof connect>; prefixFor: (name: string) => string } {
  const client = connect();
  const prefixes: string[] = [];
  afterAll(async () => {
    for (const p of prefixes) await cleanPrefix(client, p);
    client.disconnect();
  });
  const prefixFor = (name: string): string => {
    const p = uniquePrefix(name);
    prefixes.push(p);
    return p;
  };
  return { client, prefixFor };
}
