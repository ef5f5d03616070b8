/**
 * An engine that is not Node, through `traderatio proxy`, beside the same engine straight at the
 * model exchange: examples/proxy/engine.py (Python's standard library, 32 threads placing and
 * cancelling, each request signed) for SECONDS on a tier-4 account (250 placements a second).
 * The model (`traderatio exchange --verify-signatures`) and the proxy (`traderatio proxy`) run
 * from the build, each in a process of its own, as a user runs them; the two setups alternate over
 * ROUNDS rounds, the model's counts reset before each. Figures: answers 429, placements the model
 * accepted and their share of 250 per second over the run, the most it counted in any second.
 * A third setup, two `traderatio proxy --redis` processes in front of the account, each with the
 * engine through it at 16 threads, runs when a Redis answers at REDIS_URL (default
 * redis://127.0.0.1:6379); its keys are removed after.
 * Run: npm run bench:proxy [seconds] [rounds]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median, printTable } from './measure.js';

const SECONDS = Number(process.argv[2] ?? 10);
const ROUNDS = Number(process.argv[3] ?? 3);
const LIMIT = 250;
const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'dist', 'cli', 'bin.js');

const dir = mkdtempSync(join(tmpdir(), 'traderatio-bench-proxy-'));
const file = (name: string, value: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
};
const accounts = file('accounts.json', {
  families: [
    { id: 'desk', accounts: [{ id: 'main', role: 'main', keys: [{ key: 'main-key', secret: 'main-secret' }] }] },
  ],
});
// A ratio of 9 the day before yesterday: tier 4 all of today (R3, R5).
const history = file('history.json', {
  activity: [
    { account: 'main', day: -2, contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }] },
  ],
});
const fills = file('fills.json', { maker: 0, taker: 0 });

/** Starts a command of the built command line; resolves with the URL it prints first. */
function start(args: readonly string[], pattern: RegExp): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((done, fail) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const url = pattern.exec(out)?.[1];
      if (url !== undefined) done({ url, child });
    });
    child.on('exit', (code) => fail(new Error(`${args[0]} exited ${code}: ${out}`)));
  });
}

interface Run {
  readonly tooMany: number;
  readonly accepted: number;
  readonly most: number;
  readonly cancels: number;
}

function engine(url: string, threads = 32): Promise<{ statuses: Record<string, number>; cancels: number }> {
  const child = spawn('python3', [join(root, 'examples/proxy/engine.py')], {
    env: {
      ...process.env,
      GATE_URL: url,
      GATE_KEY: 'main-key',
      GATE_SECRET: 'main-secret',
      SECONDS: String(SECONDS),
      THREADS: String(threads),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  return new Promise((done, fail) =>
    child.on('exit', (code) =>
      code === 0 ? done(JSON.parse(out.trim())) : fail(new Error(`engine.py exited ${code}`)),
    ),
  );
}

const model = await start(
  ['exchange', '--port', '0', '--accounts', accounts, '--history', history, '--fills', fills, '--verify-signatures'],
  /traderatio exchange: (http:\/\/\S+)/,
);
const proxy = await start(
  ['proxy', '--port', '0', '--upstream', model.url, '--accounts', accounts, '--history', history],
  /traderatio proxy: (http:\/\/\S+) ->/,
);

/** The engine through each of `urls` at once (32 threads in all), the model's counts reset before. */
async function measure(urls: readonly string[]): Promise<Run> {
  await fetch(`${model.url}/_model/reset`, { method: 'POST' });
  const rs = await Promise.all(urls.map((url) => engine(url, 32 / urls.length)));
  const stats = (await (await fetch(`${model.url}/_model/stats`)).json()) as {
    accounts: { limits: { key: string; accepted: number; most: number }[] }[];
  };
  const place = stats.accounts[0]!.limits.find((l) => l.key === 'futures.place')!;
  return {
    tooMany: rs.reduce((n, r) => n + (r.statuses['429'] ?? 0), 0),
    accepted: place.accepted,
    most: place.most,
    cancels: rs.reduce((n, r) => n + r.cancels, 0),
  };
}

/**
 * One placement, signed as section 5 says: on a budget new to Redis, the one request let through
 * alone on each limit, whose answer states the exchange's count (docs/distributed.md#redis-restarts-and-failovers).
 */
async function warm(url: string): Promise<void> {
  const body = JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const payload = [
    'POST',
    '/api/v4/futures/usdt/orders',
    '',
    createHash('sha512').update(body).digest('hex'),
    timestamp,
  ].join('\n');
  const headers = {
    KEY: 'main-key',
    Timestamp: timestamp,
    SIGN: createHmac('sha512', 'main-secret').update(payload).digest('hex'),
  };
  await (await fetch(`${url}/api/v4/futures/usdt/orders`, { method: 'POST', headers, body })).text();
}

const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
redis.on('error', () => {});
const redisUp = await redis.connect().then(
  () => true,
  () => false,
);
const prefix = `bench-proxy-${randomBytes(4).toString('hex')}`;
const shared = redisUp
  ? await Promise.all(
      [0, 1].map(() =>
        start(
          [
            'proxy',
            '--port',
            '0',
            '--upstream',
            model.url,
            '--accounts',
            accounts,
            '--history',
            history,
            '--redis',
            redisUrl,
            '--redis-prefix',
            prefix,
          ],
          /traderatio proxy: (http:\/\/\S+) ->/,
        ),
      ),
    )
  : [];
for (const p of shared) await warm(p.url);

const runs: Record<string, Run[]> = {
  'through traderatio proxy': [],
  'straight at the model': [],
  ...(redisUp ? { 'two proxies, --redis, 16 threads each': [] } : {}),
};
for (let round = 0; round < ROUNDS; round++) {
  runs['through traderatio proxy']!.push(await measure([proxy.url]));
  runs['straight at the model']!.push(await measure([model.url]));
  if (redisUp) runs['two proxies, --redis, 16 threads each']!.push(await measure(shared.map((p) => p.url)));
}
for (const p of [proxy, model, ...shared]) p.child.kill('SIGTERM');
if (redisUp) {
  const keys = await redis.keys(`{${prefix}:desk}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}

const share = (r: Run) => r.accepted / (LIMIT * SECONDS);
printTable(
  `Python engine (32 threads, ${SECONDS} s per run, ${ROUNDS} rounds) on a tier-4 account (${LIMIT} placements/s); load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
  Object.entries(runs).map(([setup, rs]) => ({
    setup,
    'answers 429, each run': rs.map((r) => r.tooMany).join(', '),
    'limit used, each run': rs.map((r) => `${(share(r) * 100).toFixed(1)}%`).join(', '),
    'limit used, median': `${(median(rs.map(share)) * 100).toFixed(1)}%`,
    'most in any 1 s': Math.max(...rs.map((r) => r.most)),
    'cancels, median': median(rs.map((r) => r.cancels)),
  })),
);
