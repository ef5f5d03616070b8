// One budget across processes, held in Redis: traderatio's Redis store beside the Redis-backed
// limiters a user would pick instead, on the same Redis (127.0.0.1:6379) in the same run.
//
//   npm run bench:redis                  all sections
//   npm run bench:redis -- throughput    admissions per second and latency, one process
//   npm run bench:redis -- processes     admissions per second across 4 processes
//   npm run bench:redis -- compliance    4 processes on one limit of 100 per second
//   npm run bench:redis -- fairness      the two designs on that limit, 5 runs each
//
// Every section uses key prefixes of its own and deletes only those keys.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { Scheduler } from '../dist/index.js';
import { RedisStore } from '../dist/redis.js';
import { median, percentile, printTable } from './measure.js';

const PORT = 6379;
const PROCESSES = 4;

interface Limiter {
  run(task: () => void): Promise<unknown>;
  close(): Promise<void>;
}

interface Peer {
  readonly name: string;
  make(prefix: string, n: number, windowMs: number): Promise<Limiter>;
}

const connect = (): Redis => new Redis({ port: PORT, host: '127.0.0.1' });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * traderatio's Redis store; with `counting`, each task is also counted as an account limiter
 * given the store counts an order (R1, R9): in the process, written to Redis in batches with the
 * account's totals read back.
 */
function traderatio(name: string, prefetch: number | 'auto', counting = false): Peer {
  return {
    name,
    async make(prefix, n, windowMs) {
      const client = connect();
      const store = new RedisStore({ client, prefix, prefetch });
      const s = new Scheduler({ store });
      const limits = s.limit({ name: 'orders', limit: n, windowMs });
      const counts = counting ? store.counts() : null;
      counts?.start(
        () => ['main'],
        Date.now,
        () => {},
      );
      return {
        run:
          counts === null
            ? (task) => s.schedule(task, { limits })
            : (task) =>
                s.schedule(
                  () => {
                    counts.request('futures', 'main', 'BTC_USDT', 'place', 1, Date.now());
                    return task();
                  },
                  { limits },
                ),
        async close() {
          s.close();
          await store.close();
          client.disconnect();
        },
      };
    },
  };
}

const peers: Peer[] = [
  traderatio('traderatio (default: leases while the limit has room)', 'auto'),
  traderatio('traderatio (one round trip per admission)', 0),
  traderatio('traderatio (leases of 32)', 32),
  traderatio('traderatio (default, counting orders)', 'auto', true),
  traderatio('traderatio (one round trip, counting orders)', 0, true),
  {
    name: 'rate-limiter-flexible RateLimiterRedis',
    async make(prefix, n, windowMs) {
      const client = connect();
      const rl = new RateLimiterRedis({
        storeClient: client,
        keyPrefix: `{${prefix}}:rlf`,
        points: n,
        duration: windowMs / 1000,
      });
      return {
        async run(task) {
          // What a user of it writes to wait for a permit: retry after msBeforeNext.
          for (;;) {
            try {
              await rl.consume('account');
              return task();
            } catch (e) {
              if (e instanceof Error) throw e;
              await sleep((e as { msBeforeNext: number }).msBeforeNext);
            }
          }
        },
        async close() {
          client.disconnect();
        },
      };
    },
  },
  {
    name: 'bottleneck (Redis clustering, reservoir)',
    async make(prefix, n, windowMs) {
      const b = new Bottleneck({
        id: prefix,
        datastore: 'ioredis',
        clientOptions: { host: '127.0.0.1', port: PORT },
        clearDatastore: false,
        reservoir: n,
        reservoirRefreshAmount: n,
        reservoirRefreshInterval: windowMs,
        // Its reservoir refreshes on the cluster heartbeat (5 s by default): as often as the
        // refresh, or a limit of 100 per second gives 100 per 5 s.
        heartbeatInterval: 250,
      });
      await b.ready();
      return {
        run: (task) => b.schedule(async () => task()),
        async close() {
          await b.disconnect(false);
        },
      };
    },
  },
];

/** Admissions in `seconds` with `concurrency` loops each waiting for its previous admission. */
async function saturate(l: Limiter, seconds: number, concurrency: number, onDispatch: () => void): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let count = 0;
  const loop = async (): Promise<void> => {
    while (performance.now() < end) {
      await l.run(() => {
        count++;
        onDispatch();
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return count;
}

async function latencies(l: Limiter, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await l.run(() => undefined);
    out.push((performance.now() - t0) * 1000);
  }
  return out;
}

const newPrefix = (): string => `tr-bench-${randomBytes(4).toString('hex')}`;

/** A Redis new to a prefix grants nothing for one window (it could be a restart): skip that here. */
async function warm(client: Redis, prefix: string): Promise<void> {
  const [s] = (await client.call('TIME')) as [string, string];
  await client.set(`{${prefix}}:epoch`, String(Number(s) * 1000 - 3_600_000));
}

async function clean(client: Redis, prefix: string): Promise<void> {
  for (const pattern of [`{${prefix}}*`, `b_${prefix}_*`]) {
    const keys = await client.keys(pattern);
    if (keys.length > 0) await client.del(...keys);
  }
}

const BIG = 1_000_000_000;

async function throughput(client: Redis): Promise<void> {
  const rows: Record<string, string | number>[] = [];
  for (const peer of peers) {
    const runs: number[] = [];
    let lat: number[] = [];
    for (let run = 0; run < 3; run++) {
      const prefix = newPrefix();
      await warm(client, prefix);
      const l = await peer.make(prefix, BIG, 1000);
      await saturate(l, 0.3, 64, () => {});
      runs.push(await saturate(l, 1, 64, () => {}));
      if (run === 0) lat = await latencies(l, 2000);
      await l.close();
      await clean(client, prefix);
    }
    rows.push({
      peer: peer.name,
      'admissions/s (64 waiting)': Math.round(median(runs)).toLocaleString('en-US'),
      'p50 µs (one waiting)': percentile(lat, 0.5).toFixed(0),
      'p99 µs (one waiting)': percentile(lat, 0.99).toFixed(0),
    });
  }
  const base = Number(String(rows[0]!['admissions/s (64 waiting)']).replaceAll(',', ''));
  for (const r of rows)
    r['vs the default'] = (Number(String(r['admissions/s (64 waiting)']).replaceAll(',', '')) / base).toFixed(2);
  printTable(
    `One process, a limit that never binds (${BIG.toLocaleString('en-US')} per second): what the store costs per admission (median of 3 runs of 1 s, each on a fresh prefix)`,
    rows,
  );
}

const self = fileURLToPath(import.meta.url);

/** Runs `mode` in PROCESSES children at once; returns each child's output lines. */
async function children(mode: string, peer: number, prefix: string, args: readonly string[]): Promise<string[][]> {
  // Room for four Node processes to load on a busy machine: each must be waiting from the start
  // for the shares to say anything.
  const start = Date.now() + 4000;
  const runs = Array.from({ length: PROCESSES }, () => {
    const p = spawn(
      process.execPath,
      ['--import', 'tsx', self, 'child', mode, String(peer), prefix, String(start), ...args],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    p.stdout.setEncoding('utf8');
    p.stdout.on('data', (c: string) => (out += c));
    return new Promise<string[]>((resolve, reject) =>
      p.on('exit', (code) =>
        code === 0 ? resolve(out.trim().split('\n')) : reject(new Error(`child exited with ${code}`)),
      ),
    );
  });
  return Promise.all(runs);
}

async function processes(client: Redis): Promise<void> {
  const rows: Record<string, string | number>[] = [];
  for (let i = 0; i < peers.length; i++) {
    const prefix = newPrefix();
    await warm(client, prefix);
    const outs = await children('throughput', i, prefix, []);
    const total = outs.reduce((sum, lines) => sum + Number(lines[0]), 0);
    rows.push({
      peer: peers[i]!.name,
      'admissions/s, 4 processes together': Math.round(total / 2).toLocaleString('en-US'),
      'per process': Math.round(total / 2 / PROCESSES).toLocaleString('en-US'),
    });
    await clean(client, prefix);
  }
  printTable(`${PROCESSES} processes, 64 waiting in each, one limit that never binds`, rows);
}

/** The most dispatches in any interval [x, x + windowMs). */
function mostInAnyWindow(times: number[], windowMs: number): number {
  times.sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (j < times.length && times[j]! < times[i]! + windowMs) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

async function compliance(client: Redis): Promise<void> {
  const rows: Record<string, string | number>[] = [];
  const seconds = 4;
  for (let i = 0; i < peers.length; i++) {
    const prefix = newPrefix();
    await warm(client, prefix);
    const outs = await children('compliance', i, prefix, [String(seconds)]);
    const times = outs.flat().map(Number);
    const t0 = Math.min(...times);
    const inRun = times.filter((t) => t < t0 + seconds * 1000);
    const most = mostInAnyWindow(inRun, 1000);
    const each = outs.map((lines) => lines.map(Number).filter((t) => t < t0 + seconds * 1000).length);
    rows.push({
      peer: peers[i]!.name,
      'most in any 1 s': most,
      'over the limit': most > 100 ? 'yes' : 'no',
      [`sent in ${seconds} s`]: inRun.length,
      utilization: `${((inRun.length / (seconds * 100)) * 100).toFixed(1)}%`,
      'per process, least–most': `${Math.min(...each)}–${Math.max(...each)}`,
    });
    await clean(client, prefix);
  }
  printTable(
    `${PROCESSES} processes sharing one limit of 100 per 1 s through Redis, 50 waiting in each, ${seconds} s from the first dispatch`,
    rows,
  );
}

/**
 * The furthest any process's share strays from an equal one over any `spanMs` of the run (start
 * instants every 50 ms): |sent - total / processes| / (total / processes).
 */
function worstShare(each: readonly (readonly number[])[], from: number, to: number, spanMs: number): number {
  let worst = 0;
  for (let a = from; a + spanMs <= to; a += 50) {
    const counts = each.map((ts) => ts.filter((t) => t >= a && t < a + spanMs).length);
    const equal = counts.reduce((x, y) => x + y, 0) / counts.length;
    if (equal > 0) for (const c of counts) worst = Math.max(worst, Math.abs(c - equal) / equal);
  }
  return worst;
}

/** The designs on a binding limit, 5 runs each: how far from equal the processes' shares are. */
async function fairness(client: Redis): Promise<void> {
  const rows: Record<string, string | number>[] = [];
  const seconds = 5;
  for (const i of [0, 1, 2, 5]) {
    const least: number[] = [];
    const worst: number[] = [];
    for (let run = 0; run < 5; run++) {
      const prefix = newPrefix();
      await warm(client, prefix);
      const outs = await children('compliance', i, prefix, [String(seconds)]);
      const t0 = Math.min(...outs.flat().map(Number));
      const each = outs.map((lines) => lines.map(Number).filter((t) => t < t0 + seconds * 1000));
      least.push(Math.min(...each.map((ts) => ts.length)));
      // From a window after the first dispatch: every process has been waiting since the start
      // (they start together, after room to load), and the first window is whoever came first.
      worst.push(worstShare(each, t0 + 1000, t0 + seconds * 1000, 2000));
      await clean(client, prefix);
    }
    rows.push({
      peer: peers[i]!.name,
      [`least-served process in ${seconds} s, each run`]: least.join(', '),
      'furthest from an equal share over any 2 s after the first 1 s, each run': worst
        .map((w) => `${(w * 100).toFixed(0)}%`)
        .join(', '),
    });
  }
  printTable(`${PROCESSES} processes on one limit of 100 per 1 s, 50 waiting in each, 5 runs of ${seconds} s`, rows);
}

async function child(
  mode: string,
  peerIndex: number,
  prefix: string,
  start: number,
  rest: readonly string[],
): Promise<void> {
  const peer = peers[peerIndex]!;
  if (mode === 'throughput') {
    const l = await peer.make(prefix, BIG, 1000);
    await sleep(start - Date.now());
    await saturate(l, 0.5, 64, () => {});
    const n = await saturate(l, 2, 64, () => {});
    console.log(n);
    await l.close();
    return;
  }
  const seconds = Number(rest[0]);
  const l = await peer.make(prefix, 100, 1000);
  await sleep(start - Date.now());
  const times: number[] = [];
  const wall = (): number => performance.timeOrigin + performance.now();
  await saturate(l, seconds + 1.5, 50, () => times.push(wall()));
  console.log(times.join('\n'));
  await l.close();
}

async function main(): Promise<void> {
  const [section, ...rest] = process.argv.slice(2);
  if (section === 'child') {
    const [mode, peer, prefix, start, ...more] = rest;
    await child(mode!, Number(peer), prefix!, Number(start), more);
    return;
  }
  const client = connect();
  try {
    console.log(`Redis at 127.0.0.1:${PORT}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`);
    if (section === undefined || section === 'throughput') await throughput(client);
    if (section === undefined || section === 'processes') await processes(client);
    if (section === undefined || section === 'compliance') await compliance(client);
    if (section === undefined || section === 'fairness') await fairness(client);
  } finally {
    client.disconnect();
  }
}

await main();
