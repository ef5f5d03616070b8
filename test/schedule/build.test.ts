// Two copies of traderatio in one program: the package as built in dist/, and the same files
// copied elsewhere (as a second installation would be). `npm test` builds dist/ first when it is
// older than the sources.
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIsStale } from '../../scripts/built.js';
import { BUILD, buildOf, copyOf } from '../../src/schedule/build.js';
import { systemClock } from '../../src/schedule/clock.js';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const { version } = require(join(root, 'package.json')) as { version: string };
type Library = typeof import('../../src/index.js');
type RedisLibrary = typeof import('../../src/redis/index.js');

const other = mkdtempSync(join(tmpdir(), 'traderatio-copy-'));
let esm: Library;
let second: Library;
let secondRedis: RedisLibrary;
beforeAll(async () => {
  if (buildIsStale(root))
    throw new Error('dist/ is missing or older than src/: run `npm run build` first (npm test does it)');
  esm = (await import(pathToFileURL(join(root, 'dist/index.js')).href)) as Library;
  cpSync(join(root, 'dist'), join(other, 'dist'), { recursive: true });
  cpSync(join(root, 'package.json'), join(other, 'package.json'));
  // Its dependencies, as an installation has them beside it.
  symlinkSync(join(root, 'node_modules'), join(other, 'node_modules'), 'dir');
  second = (await import(pathToFileURL(join(other, 'dist/index.js')).href)) as Library;
  secondRedis = require(join(other, 'dist/redis.cjs')) as RedisLibrary;
});
afterAll(() => rmSync(other, { recursive: true, force: true }));

describe('one copy for import and require, two copies told apart', () => {
  // That import and require give one copy is checked in a plain Node process (test/package.test.ts).
  it('marks each copy with its build and version', () => {
    expect(BUILD).toBe('source');
    expect(buildOf(systemClock)).toBe('source');
    expect(buildOf(esm.systemClock)).toBe('ESM');
    expect(buildOf({})).toBeUndefined();
    expect(copyOf(esm.systemClock)).toEqual({ build: 'ESM', version });
    expect(copyOf(second.systemClock)).toEqual({ build: 'ESM', version });
    expect(copyOf(esm.systemClock)).not.toBe(copyOf(second.systemClock));
  });

  it('says so when a scheduler is given a Redis store of another copy', () => {
    const client = new Redis({ lazyConnect: true });
    try {
      const scheduler = new esm.Scheduler({
        store: new secondRedis.RedisStore({ client, prefix: 'traderatio-build-test' }),
      });
      expect(() => scheduler.limit({ name: 'a', limit: 1, windowMs: 1000 })).toThrow(
        `the scheduler comes from the ESM build of traderatio ${version} and the Redis store from another copy of it: the program loads two copies of the library`,
      );
    } finally {
      client.disconnect();
    }
  });

  it('says so when a limit of another copy is given to a scheduler', () => {
    const foreign = new second.Scheduler().limit({ name: 'a', limit: 1, windowMs: 1000 });
    const scheduler = new esm.Scheduler();
    expect(() => scheduler.schedule(() => 1, { limits: [foreign] })).toThrow(
      `comes from the ESM build of traderatio ${version} and the scheduler from another copy of it`,
    );
    expect(() =>
      new esm.Scheduler({ store: second.memoryStore }).limit({ name: 'b', limit: 1, windowMs: 1000 }),
    ).toThrow(
      `the limit the store made comes from the ESM build of traderatio ${version} and the scheduler from another copy of it`,
    );
  });
});
