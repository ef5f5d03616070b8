// The package as a user gets it: packed from a copy of the sources with no dist/ (prepack builds
// it), installed in a new project, imported as ESM and as CommonJS, its declarations type-checked
// by a strict consumer under each module resolution, its command line run. Offline: the new
// project's dependencies are the repository's own node_modules.
import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
const work = mkdtempSync(join(tmpdir(), 'traderatio-pack-'));
const app = join(work, 'app');
const installed = join(app, 'node_modules', 'traderatio');
let tarball: string;
let files: string[];

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  input?: string,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.stdin.end(input ?? '');
    child.on('close', (code) => done({ code, out, err }));
  });
}

beforeAll(async () => {
  // A fresh clone: the files git knows, or would (uncommitted ones too), and no dist/.
  const copy = join(work, 'clone');
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f !== '');
  for (const f of listed) {
    if (statSync(join(root, f), { throwIfNoEntry: false })?.isFile() !== true) continue;
    mkdirSync(dirname(join(copy, f)), { recursive: true });
    copyFileSync(join(root, f), join(copy, f));
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  const packed = await run('npm', ['pack', '--pack-destination', work, '--no-fund', '--no-audit'], copy);
  expect(packed.code, packed.err).toBe(0);
  tarball = join(work, `traderatio-${pkg.version}.tgz`);
  files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((f) => f.replace(/^package\//, ''))
    .sort();

  // The new project: the package unpacked where npm would put it, its dependencies (and the
  // TypeScript that checks the consumer) taken from the repository's node_modules.
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  for (const dep of [...Object.keys(pkg.dependencies), 'ioredis', 'redis', '@types/node']) {
    mkdirSync(dirname(join(app, 'node_modules', dep)), { recursive: true });
    symlinkSync(join(root, 'node_modules', dep), join(app, 'node_modules', dep));
  }
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module', dependencies: { traderatio: pkg.version } }),
  );
  // Packing builds the package (every entry, two builds and the declarations), which on a busy
  // machine beside the rest of the suite takes a long while (more than 2 minutes seen on 2 busy cores): the allowance is generous.
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed tarball', () => {
  it('holds the build, the licence and the README, and nothing else', () => {
    const allowed = [
      /^(LICENSE|README\.md|package\.json)$/,
      /^dist\/(index|rules|catalog|advise|testing|redis|fetch|ccxt|gate-api|websocket|model-exchange|metrics)\.(js|cjs|d\.ts|d\.cts)$/,
      /^dist\/chunk-[\w-]+\.(js|cjs)$/,
      /^dist\/[a-z]+-[\w-]+\.d\.cts$/,
      /^dist\/cli\/bin\.js$/,
    ];
    expect(files.filter((f) => !allowed.some((p) => p.test(f)))).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.cjs',
        'dist/index.d.ts',
        'dist/index.d.cts',
        'dist/rules.js',
        'dist/rules.cjs',
        'dist/rules.d.ts',
        'dist/rules.d.cts',
        'dist/catalog.js',
        'dist/catalog.cjs',
        'dist/catalog.d.ts',
        'dist/catalog.d.cts',
        'dist/advise.js',
        'dist/advise.cjs',
        'dist/advise.d.ts',
        'dist/advise.d.cts',
        'dist/testing.js',
        'dist/testing.cjs',
        'dist/testing.d.ts',
        'dist/testing.d.cts',
        'dist/redis.js',
        'dist/redis.cjs',
        'dist/redis.d.ts',
        'dist/redis.d.cts',
        'dist/fetch.js',
        'dist/fetch.cjs',
        'dist/fetch.d.ts',
        'dist/fetch.d.cts',
        'dist/ccxt.js',
        'dist/ccxt.cjs',
        'dist/ccxt.d.ts',
        'dist/ccxt.d.cts',
        'dist/gate-api.js',
        'dist/gate-api.cjs',
        'dist/gate-api.d.ts',
        'dist/gate-api.d.cts',
        'dist/websocket.js',
        'dist/websocket.cjs',
        'dist/websocket.d.ts',
        'dist/websocket.d.cts',
        'dist/model-exchange.js',
        'dist/model-exchange.cjs',
        'dist/model-exchange.d.ts',
        'dist/metrics.js',
        'dist/metrics.cjs',
        'dist/metrics.d.ts',
        'dist/metrics.d.cts',
        'dist/cli/bin.js',
      ]),
    );
    // The code is there once, as ES modules: the CommonJS entries only require them.
    for (const entry of [
      'index',
      'rules',
      'catalog',
      'advise',
      'testing',
      'redis',
      'fetch',
      'ccxt',
      'gate-api',
      'websocket',
      'model-exchange',
      'metrics',
    ]) {
      expect(readFileSync(join(installed, `dist/${entry}.cjs`), 'utf8')).toBe(
        `'use strict';\nmodule.exports = require('./${entry}.js');\n`,
      );
    }
  });

  it('weighs at most 400 kB', () => {
    expect(statSync(tarball).size).toBeLessThanOrEqual(400_000);
  });

  it('ships readable code: the names of the sources, one statement a line', () => {
    const code = files.filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(installed, f), 'utf8'));
    const all = code.join('\n');
    for (const name of [
      'function tradeRatio(',
      'var Scheduler = class',
      'var WindowLimit = class',
      'var AccountLimiter = class',
      'var RedisStore = class',
      'var RefusedError = class extends TraderatioError',
      'function limitedFetch(',
    ]) {
      expect(all).toContain(name);
    }
    // Minified code is a few lines of thousands of characters; the sources' lines are a few dozen.
    const lines = all.split('\n');
    expect(all.length / lines.length).toBeLessThan(60);
    // A Redis script is bundled as one string literal on a line of its own (src/redis/lua/*.lua),
    // in whichever quotes esbuild picks for its text.
    const scripts = /^var \w+_default = (?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*');$/;
    expect(lines.filter((l) => scripts.test(l)).length).toBeGreaterThan(3);
    expect(lines.filter((l) => l.length > 1000 && !scripts.test(l)).map((l) => l.slice(0, 80))).toEqual([]);
  });

  it('is under the MIT licence and names no repository, homepage or tracker', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.license).toBe('MIT');
    expect(Object.keys(manifest).filter((k) => ['repository', 'homepage', 'bugs'].includes(k))).toEqual([]);
    expect((manifest.keywords as string[]).length).toBeGreaterThan(3);
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
  });

  it('has every file package.json points at', () => {
    const manifest = readFileSync(join(installed, 'package.json'), 'utf8');
    const targets = [...manifest.matchAll(/"(\.\/dist\/[^"]+)"/g)].map((m) => m[1]!.slice(2));
    expect(targets.length).toBeGreaterThan(10);
    expect(targets.filter((t) => !files.includes(t))).toEqual([]);
  });

  it('declares no internal form of the options: no `Fixed`, no `*Config` type', () => {
    // GateApiRequestConfig is the gate-api SDK's own request type, which traderatio/gate-api wraps.
    const names = readdirSync(join(installed, 'dist'))
      .filter((f) => f.endsWith('.d.cts') || f.endsWith('.d.ts'))
      .flatMap((f) =>
        [...readFileSync(join(installed, 'dist', f), 'utf8').matchAll(/\b(Fixed\w*|\w*Config)\b/g)].map(
          (m) => `${f}: ${m[1]!}`,
        ),
      )
      .filter((n) => !n.endsWith(': GateApiRequestConfig'));
    expect(names).toEqual([]);
  });

  it('leaves out of the declarations what is marked @internal', () => {
    // What stays is a constructor parameter, which a declaration cannot leave out.
    const lines = readdirSync(join(installed, 'dist'))
      .filter((f) => f.endsWith('.d.cts') || f.endsWith('.d.ts'))
      .flatMap((f) => readFileSync(join(installed, 'dist', f), 'utf8').split('\n'))
      .filter((l) => l.includes('@internal'));
    expect(lines.filter((l) => !/^\s*\/\*\* @internal \*\/ \w+: [^()]+(\);|,)$/.test(l))).toEqual([]);
  });
});

describe('the installed package', () => {
  it.each([
    [
      'module',
      "import { Scheduler, WindowLimit, InvalidInputError, AccountLimiter } from 'traderatio';\nimport { tradeRatio } from 'traderatio/rules';\nimport { RedisStore, SharedLimit } from 'traderatio/redis';\nimport { limitedFetch } from 'traderatio/fetch';\nimport { limitedWebSocket } from 'traderatio/websocket';\nimport { limitCcxt } from 'traderatio/ccxt';\nimport { limitApiClient } from 'traderatio/gate-api';",
    ],
    [
      'commonjs',
      "const { Scheduler, WindowLimit, InvalidInputError, AccountLimiter } = require('traderatio');\nconst { tradeRatio } = require('traderatio/rules');\nconst { RedisStore, SharedLimit } = require('traderatio/redis');\nconst { limitedFetch } = require('traderatio/fetch');\nconst { limitedWebSocket } = require('traderatio/websocket');\nconst { limitCcxt } = require('traderatio/ccxt');\nconst { limitApiClient } = require('traderatio/gate-api');",
    ],
  ])('loads as %s, with one copy of the classes the three entries share', async (type, imports) => {
    const r = await run(
      process.execPath,
      [
        `--input-type=${type}`,
        '-e',
        `${imports}
      console.log(tradeRatio([{ contract: 'BTC_USDT', makerVolume: '1000', place: 100 }]).ratio.toFixed(2));
      // A shared limit is no WindowLimit, but the root's Scheduler takes it as one of its limits.
      const never = () => new Promise(() => {});
      const shared = new Scheduler({ store: new RedisStore({ client: { eval: never, evalsha: never }, prefix: 'p' }) }).limit({ name: 'orders', limit: 10, windowMs: 1000 });
      console.log(typeof Scheduler, typeof RedisStore, shared instanceof SharedLimit && !(shared instanceof WindowLimit) && shared.isShared());
      try { new RedisStore({}); } catch (e) { console.log(e instanceof InvalidInputError, e.name, e.code); }
      const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] });
      console.log(typeof limitedFetch(limiter, { account: 'main' }));
      try { limitedFetch(limiter, { account: 'other' }); } catch (e) { console.log(e instanceof InvalidInputError); }
      try { limitedWebSocket(limiter, { account: 'main', socket: {} }); } catch (e) { console.log(e instanceof InvalidInputError); }
      try { limitCcxt(limiter, { id: 'binance' }, { account: 'main' }); } catch (e) { console.log(e instanceof InvalidInputError); }
      try { limitApiClient(limiter, { account: 'main', client: {} }); } catch (e) { console.log(e instanceof InvalidInputError); }
      limiter.close();
    `,
      ],
      app,
    );
    expect(r).toEqual({
      code: 0,
      out: '10.00\nfunction function true\ntrue InvalidInputError INVALID_INPUT\nfunction\ntrue\ntrue\ntrue\ntrue\n',
      err: '',
    });
  });

  it.each([
    [
      'module',
      "import * as root from 'traderatio';\nimport * as rules from 'traderatio/rules';\nimport * as catalog from 'traderatio/catalog';\nimport * as advisor from 'traderatio/advise';\nimport * as testing from 'traderatio/testing';",
    ],
    [
      'commonjs',
      "const root = require('traderatio');\nconst rules = require('traderatio/rules');\nconst catalog = require('traderatio/catalog');\nconst advisor = require('traderatio/advise');\nconst testing = require('traderatio/testing');",
    ],
  ])("loads traderatio/rules, /catalog, /advise and /testing as %s, with the root's classes", async (type, imports) => {
    const r = await run(
      process.execPath,
      [
        `--input-type=${type}`,
        '-e',
        `${imports}
      console.log(rules.tierFor('10.06').tier, rules.createTierTable([{ minRatio: '0', limit: 7 }])[0].limit, typeof root.Tracker, typeof catalog.checkSpotBatch);
      console.log(rules.tradeRatio([{ contract: 'BTC_USDT', makerVolume: '1000', place: 100 }]).ratio instanceof root.Dec, 'tradeRatio' in root, 'Tracker' in rules);
      console.log(catalog.createCatalog().classify('POST', '/api/v4/futures/usdt/orders', {}).limits[0].key, typeof advisor.advise);
      const clock = new testing.VirtualClock();
      new root.Scheduler({ clock }).limit({ name: 'a', limit: 1, windowMs: 1000 });
      console.log(new testing.TooManyTimersError(1, '') instanceof root.TraderatioError, 'VirtualClock' in root, 'TooManyTimersError' in root);
    `,
      ],
      app,
    );
    expect(r).toEqual({
      code: 0,
      out: '5 7 function function\ntrue false false\nfutures.place function\ntrue false false\n',
      err: '',
    });
  });

  it('gives one copy of every class to a process that both requires and imports it', async () => {
    const r = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      import { createRequire } from 'node:module';
      import * as esm from 'traderatio';
      import { RedisStore } from 'traderatio/redis';
      const require = createRequire(import.meta.url);
      const cjs = require('traderatio');
      console.log(cjs.Scheduler === esm.Scheduler, cjs.InvalidInputError === esm.InvalidInputError, require('traderatio/redis').RedisStore === RedisStore);
    `,
      ],
      app,
    );
    expect(r).toEqual({ code: 0, out: 'true true true\n', err: '' });
  });

  it('starts the model exchange from traderatio/model-exchange', async () => {
    const r = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      import { VirtualClock } from 'traderatio/testing';
      import { startModelExchange } from 'traderatio/model-exchange';
      const exchange = await startModelExchange({ clock: new VirtualClock({ wallStart: Date.parse('2026-11-21T09:00:00Z') }), port: 0 });
      const res = await fetch(exchange.url + '/api/v4/futures/usdt/orders', { method: 'POST', headers: { KEY: 'main-key', 'Content-Type': 'application/json' }, body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' }) });
      console.log(res.status, res.headers.get('X-Gate-RateLimit-Limit'));
      await exchange.close();
    `,
      ],
      app,
    );
    expect(r).toEqual({ code: 0, out: '200 100\n', err: '' });
  });

  it('runs its command line', async () => {
    const bin = join(installed, 'dist/cli/bin.js');
    expect(await run(process.execPath, [bin, '--version'], app)).toEqual({ code: 0, out: `${pkg.version}\n`, err: '' });
    const plan = await run(
      process.execPath,
      [bin, 'plan', '-', '--json'],
      app,
      'account,contract,maker_volume,place\nA,BTC_USDT,1000,100\n',
    );
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.out).accounts[0]).toMatchObject({ account: 'A', tier: 5, limit: 300 });
  });

  // A strict consumer of both entries; @ts-expect-error lines fail the check if the member they
  // reach for is in the declarations.
  const consumer = `
import { InvalidInputError, Scheduler, WindowLimit, type Limit, Tracker } from 'traderatio';
import { tradeRatio, type RatioResult, createTierTable, type TierTable } from 'traderatio/rules';
import { TooManyTimersError, VirtualClock } from 'traderatio/testing';
import { RedisStore, SharedLimit, type RedisStoreOptions } from 'traderatio/redis';
import { limitedFetch, type LimitedFetch } from 'traderatio/fetch';
import { limitCcxt, type CcxtGate } from 'traderatio/ccxt';
import { limitedWebSocket, type LimitedWebSocket } from 'traderatio/websocket';
import * as root from 'traderatio';
import * as rules from 'traderatio/rules';

const r: RatioResult = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '1000', place: 100 }]);
export const ratio: string | undefined = r.ratio?.toFixed(2);
declare const client: RedisStoreOptions['client'];
const store = new RedisStore({ client, prefix: 'acct-42' });
export const scheduler = new Scheduler({ store });
export const limit: SharedLimit = scheduler.limit({ name: 'orders', limit: 100, windowMs: 1000 });
export const memoryLimit: WindowLimit = new Scheduler().limit({ name: 'orders', limit: 100, windowMs: 1000 });
// A shared limit goes wherever a limit does.
export const placed: Promise<number> = scheduler.schedule(() => 1, { limits: limit });
export const limits: Limit[] = [limit, memoryLimit];
export const refused = (e: unknown): boolean => e instanceof InvalidInputError && e.code === 'INVALID_INPUT';
declare const shared: SharedLimit;
declare const limiter: import('traderatio').AccountLimiter;
// A limited fetch goes wherever fetch does.
export const limited: typeof fetch = limitedFetch(limiter, { account: 'main' }) satisfies LimitedFetch;
// A limited WebSocket takes the platform's WebSocket as it is.
declare const socket: WebSocket;
export const api: LimitedWebSocket = limitedWebSocket(limiter, { account: 'main', socket });
declare const gate: CcxtGate;
export const detach: () => void = limitCcxt(limiter, gate, { account: 'main' }).detach;
export const table: TierTable = createTierTable([{ minRatio: '0', limit: 10 }, { minRatio: '1', limit: 20 }]);
export const tracker: Tracker | undefined = undefined;
export const virtual: Scheduler = new Scheduler({ clock: new VirtualClock() });
export const tooMany = (e: unknown): boolean => e instanceof TooManyTimersError && e.code === 'TOO_MANY_TIMERS';
// @ts-expect-error: the virtual clock is traderatio/testing's, not the root's
export const rootClock = root.VirtualClock;
// @ts-expect-error: options are resolved inside the package, not by its users
export const resolve = rules.resolveRatioOptions;
// @ts-expect-error: internal to the Redis store
store.acquire([], 1, 0);
// @ts-expect-error: internal to a shared limit
export const lease = shared.lease;
// @ts-expect-error: internal to the scheduler
export const waiting = limit.waiting;
`;
  const compilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    target: 'es2022',
    lib: ['es2022'],
    types: ['node'],
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
  };

  it('type-checks a strict consumer under moduleResolution nodenext (ESM and CommonJS), bundler and node10', async () => {
    writeFileSync(join(app, 'consumer.ts'), consumer);
    // The same consumer as a CommonJS module: its imports resolve with the "require" condition.
    writeFileSync(join(app, 'consumer.cts'), consumer);
    // traderatio/model-exchange is an ES module: an ESM consumer of it, its clock the library's.
    writeFileSync(
      join(app, 'model-exchange.ts'),
      `
import { VirtualClock } from 'traderatio/testing';
import { startModelExchange, type RunningModelExchange } from 'traderatio/model-exchange';
export const running: Promise<RunningModelExchange> = startModelExchange({ clock: new VirtualClock(), port: 0 });
`,
    );
    const configs = {
      nodenext: {
        compilerOptions: { ...compilerOptions, module: 'nodenext', moduleResolution: 'nodenext' },
        files: ['consumer.ts', 'consumer.cts', 'model-exchange.ts'],
      },
      bundler: {
        compilerOptions: { ...compilerOptions, module: 'esnext', moduleResolution: 'bundler' },
        files: ['consumer.ts', 'model-exchange.ts'],
      },
      node10: {
        compilerOptions: {
          ...compilerOptions,
          module: 'commonjs',
          moduleResolution: 'node10',
          ignoreDeprecations: '5.0',
        },
        files: ['consumer.ts', 'model-exchange.ts'],
      },
    };
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const results = await Promise.all(
      Object.entries(configs).map(async ([name, config]) => {
        writeFileSync(join(app, `tsconfig.${name}.json`), JSON.stringify(config));
        const r = await run(process.execPath, [tsc, '-p', `tsconfig.${name}.json`], app);
        return { name, code: r.code, out: r.out };
      }),
    );
    expect(results).toEqual(Object.keys(configs).map((name) => ({ name, code: 0, out: '' })));
  }, 60_000);

  it("type-checks a consumer with TypeScript's default lib (the DOM included) and skipLibCheck false", async () => {
    // The DOM's RequestInit has a `priority` of its own ('high' | 'low' | 'auto'): the options of a
    // limited fetch extend it, and must not redeclare what it has.
    writeFileSync(
      join(app, 'dom.ts'),
      `
import { AccountLimiter } from 'traderatio';
import { limitedFetch, type LimitedRequestInit } from 'traderatio/fetch';
import { limitedWebSocket } from 'traderatio/websocket';
import { limitApiClient } from 'traderatio/gate-api';
import { limitCcxt } from 'traderatio/ccxt';

const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] });
const gate = limitedFetch(limiter, { account: 'main' });
const init: LimitedRequestInit = { method: 'DELETE', priority: 'high', queuePriority: 10, contract: 'BTC_USDT' };
export const cancel: Promise<Response> = gate('https://api.gateio.ws/api/v4/futures/usdt/orders/1', init);
declare const socket: WebSocket;
export const api = limitedWebSocket(limiter, { account: 'main', socket });
export const kinds = [limitApiClient, limitCcxt].length;
`,
    );
    const config = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        types: ['node'],
      },
      files: ['dom.ts'],
    };
    writeFileSync(join(app, 'tsconfig.dom.json'), JSON.stringify(config));
    const r = await run(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.dom.json'],
      app,
    );
    expect({ code: r.code, out: r.out }).toEqual({ code: 0, out: '' });
  }, 60_000);
});
