// Two copies of traderatio in one program: the ESM build (import) and the CommonJS build
// (require) of the package as built in dist/. `npm test` builds dist/ first when it is older.
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildIsStale } from '../../scripts/built.js';
import { BUILD, buildOf, copyOf } from '../../src/schedule/build.js';
import { systemClock } from '../../src/schedule/clock.js';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const { version } = require(join(root, 'package.json')) as { version: string };
type Library = typeof import('../../src/index.js');
type RedisLibrary = typeof import('../../src/redis/index.js');

let esm: Library;
let cjs: Library;
let cjsRedis: RedisLibrary;
beforeAll(async () => {
  if (buildIsStale(root)) throw new Error('dist/ is missing or older than src/: run `npm run build` first (npm test does it)');
  esm = (await import(pathToFileURL(join(root, 'dist/index.js')).href)) as Library;
  cjs = require(join(root, 'dist/index.cjs')) as Library;
  cjsRedis = require(join(root, 'dist/redis.cjs')) as RedisLibrary;
});

describe('two builds in one program', () => {
  it('marks the objects of each copy with its build and version', () => {
    expect(BUILD).toBe('source');
    expect(buildOf(systemClock)).toBe('source');
    expect(buildOf(esm.systemClock)).toBe('ESM');
    expect(buildOf(cjs.systemClock)).toBe('CommonJS');
    expect(buildOf({})).toBeUndefined();
    expect(copyOf(esm.systemClock)).toEqual({ build: 'ESM', version });
    expect(copyOf(esm.systemClock)).not.toBe(copyOf(cjs.systemClock));
  });

  it('says so when an ESM scheduler is given a Redis store of the CommonJS build', () => {
    const client = new Redis({ lazyConnect: true });
    try {
      const scheduler = new esm.Scheduler({ store: new cjsRedis.RedisStore({ client, prefix: 'traderatio-build-test' }) });
      expect(() => scheduler.limit({ name: 'a', limit: 1, windowMs: 1000 })).toThrow(
        `the scheduler comes from the ESM build of traderatio ${version} and the Redis store from the CommonJS build of traderatio ${version}: the program loads two copies of the library`,
      );
    } finally {
      client.disconnect();
    }
  });

  it('says so when a limit of the CommonJS build is given to an ESM scheduler', () => {
    const cjsLimit = new cjs.Scheduler().limit({ name: 'a', limit: 1, windowMs: 1000 });
    const scheduler = new esm.Scheduler();
    expect(() => scheduler.schedule(() => 1, { limits: [cjsLimit] })).toThrow(`comes from the CommonJS build of traderatio ${version} and the scheduler from the ESM build of traderatio ${version}`);
    expect(() => new esm.Scheduler({ store: cjs.memoryStore }).limit({ name: 'b', limit: 1, windowMs: 1000 })).toThrow(
      `the limit the store made comes from the CommonJS build of traderatio ${version} and the scheduler from the ESM build of traderatio ${version}`,
    );
  });
});
