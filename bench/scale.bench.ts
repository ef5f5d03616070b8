// `npm run bench:scale`: a desk of many accounts on one Redis and on a Redis Cluster. N accounts
// (10, 100, 1,000) in families of a main account and three sub-accounts (of 10, the last family
// has one), each family a budget of its own (a RedisStore of prefix `<run>:f<i>`, one slot), each
// account one limit of its own, the limits adding up to 1,000,000 per second: far more than this
// machine can send. Eight processes send as fast as admissions allow, each with 32 tasks in flight
// spread over every account in turn. Against a private redis-server, and against a cluster of
// three masters with a replica each on the same machine (test/redis/cluster.ts), all on free
// loopback ports, stopped at the end.
//
// Per run: admissions per second in all, p50 and p99 of the time from asking to dispatch, the
// CPU the Redis nodes used (INFO cpu, used_cpu_sys + used_cpu_user, over the measured seconds, as
// a share of one core: all nodes, and the busiest), the spread of admissions over the accounts
// (least and most against the mean), the most dispatches any account had in any 1 s window
// against its limit, how often a store took Redis as not answering, and how late the processes'
// event loops ran (p99: a starved process measures itself). Each run: 1 s to warm up, 4 s measured.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Cluster, Redis } from 'ioredis';
import { Scheduler } from '../dist/index.js';
import { RedisStore } from '../dist/redis.js';
import { RedisCluster } from '../test/redis/cluster.js';
import { mostInAnyWindow, onLines, stopChildren, track, waitFor, withNode } from '../test/redis/harness.js';
import { privateRedis } from '../test/redis/sentinel.js';
import { percentile, printTable } from './measure.js';

const PROCESSES = 8;
const IN_FLIGHT = 32;
const ACCOUNTS = [10, 100, 1000];
const ACCOUNTS_PER_FAMILY = 4;
/** What the accounts' limits add up to, per second. */
const TOTAL_PER_SECOND = 1_000_000;
const WINDOW_MS = 1000;
const WARM_MS = 1000;
const MEASURE_MS = 4000;
/** `prefetch` of the stores: the default (leases while a limit has room), and one round trip per admission. */
const PREFETCH: readonly ('auto' | 0)[] = ['auto', 0];

/** What a child is told to run. */
interface RunOrder {
  readonly accounts: number;
  readonly limit: number;
  readonly prefetch: 'auto' | 0;
  readonly base: string;
  /** Epoch ms: when to start sending, when the measured span starts, and when to stop. */
  readonly start: number;
  readonly from: number;
  readonly until: number;
}

/** What a child sent: dispatch instants per account (epoch ms), and the admission times measured, ms. */
interface RunResult {
  readonly times: number[][];
  readonly latencies: number[];
  /** How many times a store of the child found Redis not answering within its `timeoutMs`. */
  readonly unavailable: number;
  /** The p99 of the child's event-loop delay over the run, ms: how long a ready callback waited for its turn. */
  readonly loopDelayMs: number;
}

const familyPrefix = (base: string, f: number): string => `${base}:f${f}`;

async function child(kind: string, ports: string, index: number): Promise<void> {
  const nodes = ports.split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) }));
  const client =
    kind === 'cluster'
      ? new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: null } })
      : new Redis({ ...nodes[0]!, maxRetriesPerRequest: null });
  client.on('error', () => {});
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) {
    const order = JSON.parse(line) as RunOrder;
    const families = Math.ceil(order.accounts / ACCOUNTS_PER_FAMILY);
    let unavailable = 0;
    const parts = Array.from({ length: families }, (_, f) => {
      const store = new RedisStore({ client, prefix: familyPrefix(order.base, f), prefetch: order.prefetch });
      store.on((e) => {
        if (e.type === 'unavailable') unavailable++;
      });
      const scheduler = new Scheduler({ store });
      const limits = Array.from({ length: ACCOUNTS_PER_FAMILY }, (_, a) =>
        scheduler.limit({ name: `acct${a}.place`, limit: order.limit, windowMs: WINDOW_MS }),
      );
      return { store, scheduler, limits };
    });
    const times: number[][] = Array.from({ length: order.accounts }, () => []);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const latencies: number[] = [];
    await new Promise((r) => setTimeout(r, Math.max(0, order.start - Date.now())));
    const now = (): number => performance.timeOrigin + performance.now();
    loop.enable();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async (_, s) => {
        // Every sender of every process takes the accounts in turn, from a place of its own.
        let account = (index * IN_FLIGHT + s) % order.accounts;
        while (now() < order.until) {
          const part = parts[Math.floor(account / ACCOUNTS_PER_FAMILY)]!;
          const asked = now();
          const a = account;
          await part.scheduler.schedule(
            () => {
              const at = now();
              times[a]!.push(at);
              if (asked >= order.from && at < order.until) latencies.push(at - asked);
            },
            { limits: part.limits[a % ACCOUNTS_PER_FAMILY]! },
          );
          account = (account + PROCESSES * IN_FLIGHT) % order.accounts;
        }
      }),
    );
    loop.disable();
    for (const p of parts) p.scheduler.close();
    await Promise.all(parts.map((p) => p.store.close()));
    const result: RunResult = {
      times: times.map((ts) => ts.map((t) => Math.round(t * 100) / 100)),
      latencies: latencies.map((l) => Math.round(l * 1000) / 1000),
      unavailable,
      loopDelayMs: loop.percentile(99) / 1e6,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
  client.disconnect();
}

/** CPU seconds each node has used (used_cpu_sys + used_cpu_user). */
async function cpuSeconds(ports: readonly number[]): Promise<number[]> {
  return Promise.all(
    ports.map((port) =>
      withNode(port, async (c) => {
        const info = await c.info('cpu');
        const read = (field: string): number => Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
        return read('used_cpu_sys') + read('used_cpu_user');
      }),
    ),
  );
}

interface Backend {
  readonly name: string;
  readonly kind: 'single' | 'cluster';
  /** Every node's port (the children connect to them; CPU is read from each). */
  readonly ports: readonly number[];
  /** Deletes the keys of a run. */
  clean(base: string, families: number): Promise<void>;
  /** Has each family's budget known for long: no first-use wait. */
  warm(base: string, families: number): Promise<void>;
}

async function runBackend(backend: Backend, rows: Record<string, string | number>[]): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const children = Array.from({ length: PROCESSES }, (_, i) => {
    const proc = track(
      spawn(process.execPath, ['--import', 'tsx', self, 'child', backend.kind, backend.ports.join(','), String(i)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const c = { proc, ready: false, results: [] as RunResult[] };
    onLines(proc, (line) => {
      if (line === 'ready') c.ready = true;
      else c.results.push(JSON.parse(line) as RunResult);
    });
    return c;
  });
  await waitFor(() => children.every((c) => c.ready), 60_000);
  for (const prefetch of PREFETCH) {
    for (const accounts of ACCOUNTS) {
      const families = Math.ceil(accounts / ACCOUNTS_PER_FAMILY);
      const base = `tr-bench-scale-${randomBytes(4).toString('hex')}`;
      await backend.warm(base, families);
      const limit = Math.ceil(TOTAL_PER_SECOND / accounts);
      const start = Date.now() + 500;
      const order: RunOrder = {
        accounts,
        limit,
        prefetch,
        base,
        start,
        from: start + WARM_MS,
        until: start + WARM_MS + MEASURE_MS,
      };
      const done = children.map((c) => c.results.length + 1);
      for (const c of children) c.proc.stdin!.write(`${JSON.stringify(order)}\n`);
      await new Promise((r) => setTimeout(r, order.from - Date.now()));
      const cpu0 = await cpuSeconds(backend.ports);
      await new Promise((r) => setTimeout(r, order.until - Date.now()));
      const cpu1 = await cpuSeconds(backend.ports);
      await waitFor(() => children.every((c, i) => c.results.length >= done[i]!), 120_000);
      const results = children.map((c) => c.results.at(-1)!);
      const perAccount = Array.from({ length: accounts }, (_, a) => results.flatMap((r) => r.times[a]!));
      const measured = perAccount.map((ts) => ts.filter((t) => t >= order.from && t < order.until).length);
      const total = measured.reduce((x, y) => x + y, 0);
      const mean = total / accounts;
      const latencies = results.flatMap((r) => r.latencies);
      const most = Math.max(...perAccount.map((ts) => mostInAnyWindow(ts, WINDOW_MS)));
      const used = cpu1.map((c, i) => (c - cpu0[i]!) / (MEASURE_MS / 1000));
      const ms = (p: number): string => (latencies.length === 0 ? '-' : percentile(latencies, p).toFixed(2));
      rows.push({
        redis: backend.name,
        prefetch: String(prefetch),
        accounts,
        'limit per account /s': limit.toLocaleString('en-US'),
        'admissions/s': Math.round(total / (MEASURE_MS / 1000)).toLocaleString('en-US'),
        'p50 ms': ms(0.5),
        'p99 ms': ms(0.99),
        'Redis CPU, all nodes (busiest)': `${Math.round(100 * used.reduce((x, y) => x + y, 0))}% (${Math.round(100 * Math.max(...used))}%)`,
        'per account, least–most / mean': `${(Math.min(...measured) / mean).toFixed(2)}–${(Math.max(...measured) / mean).toFixed(2)}`,
        'most in any 1 s, of the limit': `${most.toLocaleString('en-US')} (${((100 * most) / limit).toFixed(1)}%)`,
        'over a limit': most > limit ? 'YES' : 0,
        'Redis not answering (store events)': results.reduce((n, r) => n + r.unavailable, 0),
        'event-loop delay p99 ms, worst process': Math.max(...results.map((r) => r.loopDelayMs)).toFixed(0),
      });
      await backend.clean(base, families);
      console.error(JSON.stringify(rows.at(-1)));
    }
  }
  for (const c of children) c.proc.stdin!.end();
  await Promise.all(children.map((c) => new Promise((r) => c.proc.once('exit', r))));
}

async function main(): Promise<void> {
  // Interrupted: the servers and children go with it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      stopChildren();
      process.exit(130);
    });
  const rows: Record<string, string | number>[] = [];
  const single = await privateRedis();
  const cluster = await RedisCluster.start();
  try {
    const one = new Redis({ port: single.port, host: '127.0.0.1' });
    await runBackend(
      {
        name: 'one Redis',
        kind: 'single',
        ports: [single.port],
        warm: async (base, families) => {
          for (let f = 0; f < families; f++) await one.set(`{${familyPrefix(base, f)}}:epoch`, '0');
        },
        clean: async (base) => {
          const keys = await one.keys(`{${base}:*`);
          for (let i = 0; i < keys.length; i += 500) await one.del(...keys.slice(i, i + 500));
        },
      },
      rows,
    );
    one.disconnect();
    const client = cluster.client();
    await runBackend(
      {
        name: 'cluster, 3 masters',
        kind: 'cluster',
        ports: cluster.nodes.map((n) => n.port),
        warm: async (base, families) => {
          for (let f = 0; f < families; f++) await client.set(`{${familyPrefix(base, f)}}:epoch`, '0');
        },
        clean: async (base, families) => {
          for (let f = 0; f < families; f++) await cluster.clean(familyPrefix(base, f));
        },
      },
      rows,
    );
    client.disconnect();
  } finally {
    single.proc.kill('SIGKILL');
    await cluster.stop();
  }
  printTable(
    `${PROCESSES} processes, ${IN_FLIGHT} tasks in flight in each spread over every account, accounts in families of ${ACCOUNTS_PER_FAMILY} (one budget, one slot, each), limits adding up to ${TOTAL_PER_SECOND.toLocaleString('en-US')}/s; ${WARM_MS / 1000} s to warm up, ${MEASURE_MS / 1000} s measured`,
    rows,
  );
  for (const prefetch of PREFETCH)
    for (const name of ['one Redis', 'cluster, 3 masters']) {
      const of = (n: number) =>
        Number(
          String(
            rows.find((r) => r.redis === name && r.prefetch === String(prefetch) && r.accounts === n)!['admissions/s'],
          ).replaceAll(',', ''),
        );
      console.log(
        `${name}, prefetch ${prefetch}: 1,000 accounts at ${((100 * of(1000)) / of(10)).toFixed(0)}% of 10 accounts' throughput`,
      );
    }
}

if (process.argv[2] === 'child') await child(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
else await main();
