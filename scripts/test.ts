// `npm test`: builds dist/ when it is older than the sources (the command line and package tests
// run the build), then runs the suite (vitest, with any arguments given; without any, the
// end-to-end files after the rest) against a Redis:
// REDIS_URL when set, else the one on 127.0.0.1:6379, else a private redis-server started for the
// run and stopped at its end. Every test that talks to Redis reads REDIS_URL.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsStale } from './built.js';
import { NoRedisError, type TestRedis, needsRedis, redisForTests } from './redis-for-tests.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (buildIsStale(root)) {
  process.stderr.write('npm test: dist/ is older than the sources; building it first\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const given = process.argv.slice(2);

let redis: TestRedis;
try {
  redis = await redisForTests({ url: process.env.REDIS_URL });
} catch (e) {
  if (!(e instanceof NoRedisError)) throw e;
  // No Redis here: a selection of files that need none (`npm test -- test/schedule`) runs all the same.
  const selected =
    given.length === 0
      ? []
      : spawnSync(process.execPath, [vitest, 'list', '--filesOnly', ...given], { cwd: root, encoding: 'utf8' })
          .stdout.split('\n')
          .filter((line) => line.endsWith('.ts'));
  const needing = selected.filter(needsRedis);
  if (selected.length === 0 || needing.length > 0) {
    process.stderr.write(`npm test: ${e.message}\n`);
    if (needing.length > 0) process.stderr.write(`npm test: these files need Redis: ${needing.join(', ')}\n`);
    process.stderr.write(
      'npm test: files without `redis` in their path run without it, as in `npm test -- test/schedule`\n',
    );
    process.exit(1);
  }
  process.stderr.write(`npm test: ${e.message}\nnpm test: the files selected need no Redis; running them\n`);
  redis = { url: '', private: false, stop: async () => {} };
}
if (redis.private)
  process.stderr.write(
    `npm test: nothing answers on 127.0.0.1:6379; started a private redis-server at ${redis.url} for this run\n`,
  );

let child: ReturnType<typeof spawn> | null = null;
// Ctrl-C reaches vitest on its own (same process group); a TERM sent to this process alone is passed on.
process.on('SIGTERM', () => child?.kill('SIGTERM'));
process.on('SIGINT', () => {});
const run = async (args: readonly string[]): Promise<number> => {
  child = spawn(process.execPath, [vitest, 'run', ...args], {
    stdio: 'inherit',
    env: redis.url === '' ? process.env : { ...process.env, REDIS_URL: redis.url },
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child!.on('exit', (c, s) => resolve([c, s])),
  );
  return code ?? (signal === null ? 1 : 128 + 15);
};
// The whole suite: the end-to-end runs (*.e2e.test.ts: an engine saturating the model exchange,
// several processes on one Redis, the recipes) after the rest, one file at a time: each starts
// engines, proxies and servers that keep both cores of a small machine busy on their own. They
// assert what holds however busy the machine is; what its speed decides, they print.
let code = given.length > 0 ? await run(given) : await run(['--exclude', '**/*.e2e.test.ts']);
if (given.length === 0 && code === 0) code = await run(['--maxWorkers=1', '.e2e.test.ts']);
await redis.stop();
process.exit(code);
