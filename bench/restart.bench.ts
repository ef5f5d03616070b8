/**
 * After a Redis lost what was sent: how soon an engine's first request of each kind goes, and how
 * many answers are 429, against the model exchange (real clock, one tier-1 main account).
 *
 * - fresh prefix: the ccxt recipe of docs/integrations.md, as written (`marginMs: 5`, the tier
 *   asked as ccxt attaches), on a `RedisStore` with a prefix Redis has never seen: `loadMarkets`
 *   (public GETs), `fetchBalance` (a private GET), `createOrder` (a placement), `cancelOrder`, each
 *   in turn from the start; beside it the same engine with no store.
 * - flush: the same engine placing (8 loops, about 70 a second) for 4 s; 1.5 s in, `FLUSHALL`; then
 *   the first of each kind asked after it, and the longest gap between placements.
 * - failover: the same, through a Sentinel set of its own (master, replica, three Sentinels), the
 *   replica 300 ms behind when the master is killed 1.5 s in: first placement after the promotion.
 * - cluster failover: the same on a Redis Cluster of its own (three masters, a replica each,
 *   `cluster-node-timeout` 1000 ms), through an ioredis `Cluster`: the master of the slot that
 *   holds the account's keys killed 1.5 s in; first placement after the replica serves the slot.
 * - proxies: two `traderatio proxy --redis` processes on a fresh prefix, and through each a Python
 *   engine whose first request is `GET /futures/usdt/my_trades`, then one placement.
 *
 * Uses a private redis-server on a free port (FLUSHALL touches nothing else). Run: npm run bench:restart
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ccxt from 'ccxt';
import { Redis } from 'ioredis';
import { AccountLimiter } from '../dist/index.js';
import { limitCcxt } from '../dist/ccxt.js';
import { startModelExchange } from '../dist/model-exchange.js';
import { RedisStore, type RedisStoreOptions } from '../dist/redis.js';
import { RedisCluster } from '../test/redis/cluster.js';
import { MASTER_NAME, SentinelSet } from '../test/redis/sentinel.js';
import { printTable } from './measure.js';

type ModelExchange = Awaited<ReturnType<typeof startModelExchange>>;
const root = resolve(import.meta.dirname, '..');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const children: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

/** A private redis-server, nothing written to disk. */
async function privateRedis(): Promise<number> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  children.push(child);
  const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50 });
  c.on('error', () => {});
  for (let i = 0; i < 100; i++) {
    try {
      await c.connect();
      break;
    } catch {
      await sleep(50);
    }
  }
  c.disconnect();
  return port;
}

/** The ccxt recipe of docs/integrations.md against `exchange`, on `store` (none: in memory). */
function recipe(exchange: ModelExchange, store?: RedisStore) {
  const gate = new ccxt.gate({ apiKey: 'main-key', secret: 'main-secret' });
  const api = gate.urls['api'] as Record<string, Record<string, string>>;
  for (const urls of Object.values(api)) for (const type of Object.keys(urls)) urls[type] = `${exchange.url}/api/v4`;
  const limiter = new AccountLimiter({
    accounts: [{ id: 'main', role: 'main' }],
    marginMs: 5,
    ...(store === undefined ? {} : { store }),
  });
  const limited = limitCcxt(limiter, gate, { account: 'main' });
  return {
    gate,
    close: async () => {
      limited.detach();
      limiter.close();
      await store?.close();
    },
  };
}

type Gate = ReturnType<typeof recipe>['gate'];
const SYMBOL = 'BTC/USDT:USDT';

/** The first request of each kind, in turn: ms from `from` to each answer, and each one's own ms. */
async function firstOfEach(gate: Gate, from: number, markets = true): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const step = async (name: string, call: () => Promise<unknown>) => {
    const asked = performance.now();
    await call();
    const done = performance.now();
    out[name] = `${(done - from).toFixed(0)} (${(done - asked).toFixed(0)})`;
  };
  if (markets) await step('public GET (loadMarkets)', () => gate.loadMarkets(true));
  await step('private GET (fetchBalance)', () => gate.fetchBalance({ type: 'swap' }));
  let id = '';
  await step('placement (createOrder)', async () => {
    id = (await gate.createOrder(SYMBOL, 'limit', 'buy', 1, 60000)).id!;
  });
  await step('cancel (cancelOrder)', () => gate.cancelOrder(id, SYMBOL));
  return out;
}

function tooMany(exchange: ModelExchange): number {
  const a = exchange.stats().accounts[0]!;
  return Object.values(a.refused).reduce((n, v) => n + v, 0);
}

/**
 * Places from 8 loops until `until` (epoch ms), each pausing 100 ms after an answer (about 70 a
 * second, below the tier's 100: a wait is the loss's, not the limit's), noting when each was answered.
 */
function placing(gate: Gate, until: number, answered: number[]): Promise<unknown> {
  return Promise.all(
    Array.from({ length: 8 }, async () => {
      while (Date.now() < until) {
        try {
          await gate.createOrder(SYMBOL, 'limit', 'buy', 1, 60000);
          answered.push(performance.now());
        } catch {
          // a 429 is counted by the model
        }
        await sleep(100);
      }
    }),
  );
}

function longestGap(times: readonly number[]): number {
  const t = [...times].sort((a, b) => a - b);
  let gap = 0;
  for (let i = 1; i < t.length; i++) gap = Math.max(gap, t[i]! - t[i - 1]!);
  return gap;
}

const rows: Record<string, string | number>[] = [];
const kinds = [
  'public GET (loadMarkets)',
  'private GET (fetchBalance)',
  'placement (createOrder)',
  'cancel (cancelOrder)',
];
const row = (when: string, firsts: Record<string, string>, extra: Record<string, string | number>) =>
  rows.push({
    when,
    ...Object.fromEntries(kinds.map((k) => [k, firsts[k] ?? '-'])),
    'first placement of the loops after it, ms': '-',
    'longest gap between placements, ms': '-',
    ...extra,
  });

const port = await privateRedis();
// Whatever fails, no server of this run outlives it.
const sets: SentinelSet[] = [];
const clusters: RedisCluster[] = [];
const stopAll = async (): Promise<void> => {
  await Promise.all([...sets.map((s) => s.stop()), ...clusters.map((c) => c.stop())]);
  for (const c of children.reverse()) {
    c.kill('SIGTERM');
    await new Promise((done) => (c.exitCode === null ? c.once('exit', done) : done(undefined)));
  }
};
process.on('uncaughtException', (e) => {
  console.error(e);
  void stopAll().then(() => process.exit(1));
});
process.on('unhandledRejection', (e) => {
  console.error(e);
  void stopAll().then(() => process.exit(1));
});

// A fresh prefix, and no store.
for (const withStore of [true, false]) {
  const exchange = await startModelExchange({ port: 0, fills: { maker: 0, taker: 0 } });
  const client = new Redis({ port, host: '127.0.0.1' });
  const store = withStore ? new RedisStore({ client, prefix: `bench-restart-${Date.now()}` }) : undefined;
  const start = performance.now();
  const engine = recipe(exchange, store);
  const firsts = await firstOfEach(engine.gate, start);
  row(withStore ? 'fresh prefix (RedisStore)' : 'no store (in memory)', firsts, { '429': tooMany(exchange) });
  await engine.close();
  client.disconnect();
  await exchange.close();
}

// FLUSHALL mid-run.
{
  const exchange = await startModelExchange({ port: 0, fills: { maker: 0, taker: 0 } });
  const client = new Redis({ port, host: '127.0.0.1' });
  const engine = recipe(exchange, new RedisStore({ client, prefix: `bench-restart-flush-${Date.now()}` }));
  await firstOfEach(engine.gate, performance.now());
  const answered: number[] = [];
  const run = placing(engine.gate, Date.now() + 4000, answered);
  await sleep(1500);
  const admin = new Redis({ port, host: '127.0.0.1' });
  await admin.flushall();
  const flushed = performance.now();
  const firsts = await firstOfEach(engine.gate, flushed);
  await run;
  const after = answered.filter((t) => t >= flushed);
  row('after FLUSHALL mid-run', firsts, {
    '429': tooMany(exchange),
    'first placement of the loops after it, ms': after.length === 0 ? '-' : (after[0]! - flushed).toFixed(0),
    'longest gap between placements, ms': longestGap(answered).toFixed(0),
  });
  admin.disconnect();
  await engine.close();
  client.disconnect();
  await exchange.close();
}

/**
 * The engine on `client` placing for `placeMs`; `failOver` called 1.5 s in, resolving with when
 * the master was killed and when a replica served its slots (epoch ms): the row of the first
 * requests after the promotion, the loops' first placement after it and their longest gap.
 */
async function throughFailover(
  label: string,
  client: RedisStoreOptions['client'],
  prefix: string,
  placeMs: number,
  failOver: () => Promise<{ readonly killedAt: number; readonly promotedAt: number }>,
): Promise<void> {
  const exchange = await startModelExchange({ port: 0, fills: { maker: 0, taker: 0 } });
  const engine = recipe(exchange, new RedisStore({ client, prefix }));
  await firstOfEach(engine.gate, performance.now());
  const answered: number[] = [];
  const run = placing(engine.gate, Date.now() + placeMs, answered);
  await sleep(1500);
  const failover = await failOver();
  // The promotion on this clock (failOver may have waited for more after it).
  const promoted = performance.now() - (Date.now() - failover.promotedAt);
  const firsts = await firstOfEach(engine.gate, promoted, false);
  await run;
  const after = answered.filter((t) => t >= promoted);
  row(`${label} (promoted ${failover.promotedAt - failover.killedAt} ms after the kill)`, firsts, {
    '429': tooMany(exchange),
    'first placement of the loops after it, ms': after.length === 0 ? '-' : (after[0]! - promoted).toFixed(0),
    'longest gap between placements, ms': longestGap(answered).toFixed(0),
  });
  await engine.close();
  await exchange.close();
}

// A failover to a replica 300 ms behind.
{
  const set = await SentinelSet.start();
  sets.push(set);
  const client = new Redis({
    sentinels: set.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })),
    name: MASTER_NAME,
    maxRetriesPerRequest: null,
    retryStrategy: () => 20,
    sentinelRetryStrategy: () => 20,
  });
  client.on('error', () => {});
  await throughFailover('failover', client, `bench-restart-failover-${Date.now()}`, 6000, () =>
    set.failOver({ lagMs: 600 }),
  );
  client.disconnect();
  await set.stop();
  sets.length = 0;
}

// A failover in a Redis Cluster: the master of the account's slot killed.
{
  const cluster = await RedisCluster.start();
  clusters.push(cluster);
  const client = cluster.client({ clusterRetryStrategy: () => 20 });
  const prefix = `bench-restart-cluster-${Date.now()}`;
  await throughFailover('cluster failover', client, prefix, 8000, async () =>
    cluster.failOver(await cluster.slotOf(`{${prefix}}:epoch`)),
  );
  client.disconnect();
  await cluster.stop();
  clusters.length = 0;
}

printTable(
  'First request of each kind: ms from the start (fresh prefix, no store), the flush or the promotion to its answer (its own ms in brackets)',
  rows,
);

// Two proxies on a fresh prefix, a Python engine through each whose first request is a private GET.
{
  const dir = mkdtempSync(join(tmpdir(), 'traderatio-bench-restart-'));
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
  const exchange = await startModelExchange({ port: 0, verifySignatures: true, fills: { maker: 0, taker: 0 } });
  const prefix = `bench-restart-proxy-${Date.now()}`;
  const proxies = await Promise.all(
    [0, 1].map(
      () =>
        new Promise<string>((done, fail) => {
          const child = spawn(
            process.execPath,
            [
              join(root, 'dist/cli/bin.js'),
              'proxy',
              '--port',
              '0',
              '--upstream',
              exchange.url,
              '--accounts',
              accounts,
              '--redis',
              `redis://127.0.0.1:${port}`,
              '--redis-prefix',
              prefix,
            ],
            { stdio: ['ignore', 'pipe', 'inherit'] },
          );
          children.push(child);
          let out = '';
          child.stdout!.setEncoding('utf8').on('data', (s: string) => {
            out += s;
            const url = /traderatio proxy: (http:\/\/\S+) ->/.exec(out)?.[1];
            if (url !== undefined) done(url);
          });
          child.on('exit', (code) => fail(new Error(`the proxy exited ${code}: ${out}`)));
        }),
    ),
  );
  const python = `
import hashlib, hmac, json, os, time, urllib.request, urllib.error
BASE = os.environ["GATE_URL"]
def call(method, path, body=""):
    ts = str(int(time.time()))
    payload = "\\n".join([method, path, "", hashlib.sha512(body.encode()).hexdigest(), ts])
    sign = hmac.new(b"main-secret", payload.encode(), hashlib.sha512).hexdigest()
    req = urllib.request.Request(BASE + path, data=body.encode() if body else None, method=method,
        headers={"KEY": "main-key", "Timestamp": ts, "SIGN": sign, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as a:
            return a.status
    except urllib.error.HTTPError as e:
        return e.code
start = time.monotonic()
s1 = call("GET", "/api/v4/futures/usdt/my_trades")
t1 = time.monotonic() - start
s2 = call("POST", "/api/v4/futures/usdt/orders", json.dumps({"contract": "BTC_USDT", "size": 1, "price": "60000", "tif": "gtc"}))
t2 = time.monotonic() - start
print(json.dumps({"my_trades": [s1, round(t1 * 1000)], "placement": [s2, round(t2 * 1000)]}))
`;
  const results = await Promise.all(
    proxies.map(
      (url) =>
        new Promise<{ my_trades: [number, number]; placement: [number, number] }>((done, fail) => {
          const child = spawn('python3', ['-c', python], {
            env: { ...process.env, GATE_URL: url },
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let out = '';
          child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
          child.on('exit', (code) =>
            code === 0 ? done(JSON.parse(out.trim())) : fail(new Error(`python exited ${code}`)),
          );
        }),
    ),
  );
  printTable(
    'Two proxies on a fresh prefix, a Python engine through each: GET /futures/usdt/my_trades first, then a placement',
    results.map((r, i) => ({
      proxy: i + 1,
      'my_trades: status, ms from start': `${r.my_trades[0]}, ${r.my_trades[1]}`,
      'placement: status, ms from start': `${r.placement[0]}, ${r.placement[1]}`,
      '429 at the model (both)': tooMany(exchange),
    })),
  );
  await exchange.close();
}

// The proxies first, then Redis.
await stopAll();
process.exit(0);
