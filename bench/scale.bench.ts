// `npm run bench:scale`: a desk of many accounts on one Redis and on a Redis Cluster. N accounts
// (10, 100, 1,000) in families of a main account and three sub-accounts (of 10, the last family
// has one), each family a budget of its own (a RedisStore of prefix `<run>:f<i>`, one slot), each
// account one limit of its own, the limits adding up to 1,000,000 per second: far more than this
// machine can send. Eight processes send, against a private redis-server, and against a cluster of
// three masters with a replica each on the same machine (test/redis/cluster.ts), all on free
// loopback ports, stopped at the end. Two kinds of run:
// - saturated: each process keeps 32 tasks in flight spread over every account in turn, asking
//   again as soon as one is admitted: the most the machine admits. Its latency is set by the
//   queue this makes (Little's law: 256 tasks in flight over the admissions per second), not by
//   the store;
// - paced: the eight processes ask for 4,000 and 12,000 admissions a second in all, at an even
//   pace, each task on the next account in turn, whether or not the earlier ones were admitted:
//   the admission latency while Redis and the machine have CPU to spare.
// Before the runs, an unmeasured pass (each size once, 2 s) so that no row is measured on code
// the JIT has not optimized yet.
//
// Per run: admissions per second in all, p50 and p99 of the time from asking to dispatch, the
// CPU the Redis nodes used (INFO cpu, used_cpu_sys + used_cpu_user, over the measured seconds, as
// a share of one core: all nodes, and the busiest) and per admission, the script calls Redis ran
// per admission (INFO commandstats), the CPU the eight processes used per admission
// (process.cpuUsage over the measured span), the share of the machine's CPU left idle
// (/proc/stat), the spread of admissions over the accounts (least and most against the mean),
// the most dispatches any account had in any 1 s window against its limit, how often a store
// took Redis as not answering, and how late the processes' event loops ran (p99: a starved
// process measures itself). Each run: 1 s to warm up, 4 s measured.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
/** What the paced runs ask for, admissions per second in all: about a tenth and a third of what the saturated runs admit over 1,000 accounts. */
const PACED_PER_SECOND = [4000, 12000];
/** The unmeasured pass before the runs. */
const WARM_PASS_MS = 2000;

/** What a child is told to run. */
interface RunOrder {
  readonly accounts: number;
  readonly limit: number;
  readonly prefetch: 'auto' | 0;
  /** Admissions a second this process asks for, at an even pace; 0: as fast as admissions allow. */
  readonly rate: number;
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
  /** The CPU the process used over the measured span (user and system), µs. */
  readonly cpuUs: number;
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
    // The CPU this process used over the measured span, read by whichever task first sees each end.
    let cpuFrom: NodeJS.CpuUsage | null = null;
    let cpuUsed: NodeJS.CpuUsage | null = null;
    const mark = (t: number): void => {
      if (cpuFrom === null && t >= order.from) cpuFrom = process.cpuUsage();
      if (cpuFrom !== null && cpuUsed === null && t >= order.until) cpuUsed = process.cpuUsage(cpuFrom);
    };
    const send = (a: number): Promise<void> => {
      const part = parts[Math.floor(a / ACCOUNTS_PER_FAMILY)]!;
      const asked = now();
      mark(asked);
      return part.scheduler.schedule(
        () => {
          const at = now();
          times[a]!.push(at);
          if (asked >= order.from && at < order.until) latencies.push(at - asked);
        },
        { limits: part.limits[a % ACCOUNTS_PER_FAMILY]! },
      );
    };
    if (order.rate === 0) {
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async (_, s) => {
          // Every sender of every process takes the accounts in turn, from a place of its own.
          let account = (index * IN_FLIGHT + s) % order.accounts;
          while (now() < order.until) {
            await send(account);
            account = (account + PROCESSES * IN_FLIGHT) % order.accounts;
          }
          mark(now());
        }),
      );
    } else {
      // At an even pace from the start: every millisecond, the tasks due by then, each on the next
      // account of this process's turn (the processes' turns interleave).
      const pending: Promise<void>[] = [];
      let asked = 0;
      let account = index % order.accounts;
      for (let t = now(); t < order.until; t = now()) {
        const due = Math.floor(((t - order.start) * order.rate) / 1000);
        for (; asked < due; asked++) {
          pending.push(send(account));
          account = (account + PROCESSES) % order.accounts;
        }
        await new Promise((r) => setTimeout(r, 1));
      }
      mark(now());
      await Promise.all(pending);
    }
    loop.disable();
    for (const p of parts) p.scheduler.close();
    await Promise.all(parts.map((p) => p.store.close()));
    const result: RunResult = {
      times: times.map((ts) => ts.map((t) => Math.round(t * 100) / 100)),
      latencies: latencies.map((l) => Math.round(l * 1000) / 1000),
      unavailable,
      cpuUs: cpuUsed === null ? Number.NaN : (cpuUsed as NodeJS.CpuUsage).user + (cpuUsed as NodeJS.CpuUsage).system,
      loopDelayMs: loop.percentile(99) / 1e6,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
  client.disconnect();
}

/** Per node: CPU seconds used (used_cpu_sys + used_cpu_user), and script calls since the last CONFIG RESETSTAT. */
async function nodeStats(ports: readonly number[]): Promise<{ cpu: number; scripts: number }[]> {
  return Promise.all(
    ports.map((port) =>
      withNode(port, async (c) => {
        const info = await c.info('all');
        const read = (field: string): number => Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
        const calls = (command: string): number =>
          Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(info)?.[1] ?? 0);
        return { cpu: read('used_cpu_sys') + read('used_cpu_user'), scripts: calls('evalsha') + calls('eval') };
      }),
    ),
  );
}

/** The machine's CPU time so far, all cores: idle and in all, in clock ticks (/proc/stat); null where there is none. */
function machineTicks(): { idle: number; all: number } | null {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { idle: cpu[3]! + (cpu[4] ?? 0), all: cpu.reduce((x, y) => x + y, 0) };
  } catch {
    return null;
  }
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

interface Child {
  readonly proc: ReturnType<typeof spawn>;
  ready: boolean;
  readonly results: RunResult[];
}

/** One run on every child: `rate` admissions a second in all (0: saturated); a row, or nothing for an unmeasured run. */
async function runOnce(
  backend: Backend,
  children: readonly Child[],
  run: { accounts: number; prefetch: 'auto' | 0; rate: number; warmPass?: boolean },
): Promise<Record<string, string | number> | null> {
  const { accounts, prefetch, rate } = run;
  const families = Math.ceil(accounts / ACCOUNTS_PER_FAMILY);
  const base = `tr-bench-scale-${randomBytes(4).toString('hex')}`;
  await backend.warm(base, families);
  const limit = Math.ceil(TOTAL_PER_SECOND / accounts);
  const start = Date.now() + 500;
  const measureMs = run.warmPass ? WARM_PASS_MS : MEASURE_MS;
  const order: RunOrder = {
    accounts,
    limit,
    prefetch,
    rate: rate / PROCESSES,
    base,
    start,
    from: start + WARM_MS,
    until: start + WARM_MS + measureMs,
  };
  const done = children.map((c) => c.results.length + 1);
  for (const c of children) c.proc.stdin!.write(`${JSON.stringify(order)}\n`);
  await new Promise((r) => setTimeout(r, order.from - Date.now()));
  await Promise.all(backend.ports.map((port) => withNode(port, (c) => c.config('RESETSTAT'))));
  const before = await nodeStats(backend.ports);
  const ticks0 = machineTicks();
  await new Promise((r) => setTimeout(r, order.until - Date.now()));
  const after = await nodeStats(backend.ports);
  const ticks1 = machineTicks();
  await waitFor(() => children.every((c, i) => c.results.length >= done[i]!), 120_000);
  await backend.clean(base, families);
  if (run.warmPass) return null;
  const results = children.map((c) => c.results.at(-1)!);
  const perAccount = Array.from({ length: accounts }, (_, a) => results.flatMap((r) => r.times[a]!));
  const measured = perAccount.map((ts) => ts.filter((t) => t >= order.from && t < order.until).length);
  const total = measured.reduce((x, y) => x + y, 0);
  const mean = total / accounts;
  const latencies = results.flatMap((r) => r.latencies);
  const most = Math.max(...perAccount.map((ts) => mostInAnyWindow(ts, WINDOW_MS)));
  const used = after.map((n, i) => (n.cpu - before[i]!.cpu) / (MEASURE_MS / 1000));
  const redisCpu = used.reduce((x, y) => x + y, 0);
  const scripts = after.reduce((n, s) => n + s.scripts, 0);
  const senderUs = results.reduce((n, r) => n + r.cpuUs, 0);
  const idle =
    ticks0 === null || ticks1 === null
      ? '-'
      : `${Math.round((100 * (ticks1.idle - ticks0.idle)) / (ticks1.all - ticks0.all))}%`;
  const ms = (p: number): string => (latencies.length === 0 ? '-' : percentile(latencies, p).toFixed(2));
  const perAdmission = (x: number, digits: number): string => (total === 0 ? '-' : (x / total).toFixed(digits));
  const row = {
    redis: backend.name,
    run: rate === 0 ? 'saturated' : `paced, ${rate.toLocaleString('en-US')}/s`,
    prefetch: String(prefetch),
    accounts,
    'limit per account /s': limit.toLocaleString('en-US'),
    'admissions/s': Math.round(total / (MEASURE_MS / 1000)).toLocaleString('en-US'),
    'p50 ms': ms(0.5),
    'p99 ms': ms(0.99),
    'Redis CPU, all nodes (busiest)': `${Math.round(100 * redisCpu)}% (${Math.round(100 * Math.max(...used))}%)`,
    'Redis µs per admission': perAdmission(1e6 * redisCpu * (MEASURE_MS / 1000), 1),
    'script calls per admission': perAdmission(scripts, 2),
    'processes µs per admission': perAdmission(senderUs, 1),
    'machine idle': idle,
    'per account, least–most / mean': `${(Math.min(...measured) / mean).toFixed(2)}–${(Math.max(...measured) / mean).toFixed(2)}`,
    'most in any 1 s, of the limit': `${most.toLocaleString('en-US')} (${((100 * most) / limit).toFixed(1)}%)`,
    'over a limit': most > limit ? 'YES' : 0,
    'Redis not answering (store events)': results.reduce((n, r) => n + r.unavailable, 0),
    'event-loop delay p99 ms, worst process': Math.max(...results.map((r) => r.loopDelayMs)).toFixed(0),
  };
  console.error(JSON.stringify(row));
  return row;
}

async function runBackend(backend: Backend, rows: Record<string, string | number>[]): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const children: Child[] = Array.from({ length: PROCESSES }, (_, i) => {
    const proc = track(
      spawn(process.execPath, ['--import', 'tsx', self, 'child', backend.kind, backend.ports.join(','), String(i)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const c: Child = { proc, ready: false, results: [] };
    onLines(proc, (line) => {
      if (line === 'ready') c.ready = true;
      else c.results.push(JSON.parse(line) as RunResult);
    });
    return c;
  });
  await waitFor(() => children.every((c) => c.ready), 60_000);
  for (const prefetch of PREFETCH)
    for (const accounts of ACCOUNTS) await runOnce(backend, children, { accounts, prefetch, rate: 0, warmPass: true });
  for (const rate of [0, ...PACED_PER_SECOND])
    for (const prefetch of PREFETCH)
      for (const accounts of ACCOUNTS) {
        const row = await runOnce(backend, children, { accounts, prefetch, rate });
        if (row !== null) rows.push(row);
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
    `${PROCESSES} processes, saturated: ${IN_FLIGHT} tasks in flight in each, paced: ${PACED_PER_SECOND.map((r) => r.toLocaleString('en-US')).join(' and ')}/s in all; spread over every account, accounts in families of ${ACCOUNTS_PER_FAMILY} (one budget, one slot, each), limits adding up to ${TOTAL_PER_SECOND.toLocaleString('en-US')}/s; ${WARM_MS / 1000} s to warm up, ${MEASURE_MS / 1000} s measured`,
    rows,
  );
  const admitted = (name: string, run: string, prefetch: 'auto' | 0, accounts: number): number =>
    Number(
      String(
        rows.find(
          (r) => r.redis === name && r.run === run && r.prefetch === String(prefetch) && r.accounts === accounts,
        )!['admissions/s'],
      ).replaceAll(',', ''),
    );
  for (const prefetch of PREFETCH)
    for (const name of ['one Redis', 'cluster, 3 masters'])
      console.log(
        `${name}, prefetch ${prefetch}: 1,000 accounts at ${((100 * admitted(name, 'saturated', prefetch, 1000)) / admitted(name, 'saturated', prefetch, 10)).toFixed(0)}% of 10 accounts' throughput`,
      );
  for (const rate of PACED_PER_SECOND) {
    const run = `paced, ${rate.toLocaleString('en-US')}/s`;
    const paced = rows.filter((r) => r.run === run);
    const worst = paced.reduce((a, b) => (Number(b['p99 ms']) > Number(a['p99 ms']) ? b : a));
    console.log(
      `${run}: p99 at most ${worst['p99 ms']} ms (${worst.redis}, prefetch ${worst.prefetch}, ${worst.accounts} accounts)`,
    );
  }
}

if (process.argv[2] === 'child') await child(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
else await main();
