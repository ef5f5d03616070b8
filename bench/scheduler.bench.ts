/**
 * The scheduler beside the peers a user would pick instead, in one process and one run:
 * compliance with "N per second" under saturation, overhead per task, synchronous try-acquire and
 * memory per queued waiter, and what a task refused on a full queue costs beside one queued. Run:
 * npm run bench:scheduler [compliance|overhead|sync|memory|refusal]
 */
import { performance } from 'node:perf_hooks';
import Bottleneck from 'bottleneck';
import ccxt from 'ccxt';
import { RateLimiter } from 'limiter';
import PQueue from 'p-queue';
import { RateLimiterMemory, RateLimiterQueue } from 'rate-limiter-flexible';
import { Scheduler, WindowLimit } from '../dist/index.js';
import { median, printTable } from './measure.js';

/** Runs `task` when the limit allows: at the dispatch, as a user's request would be sent. */
type Run = (task: () => unknown) => Promise<unknown>;
interface Peer {
  readonly name: string;
  /** How a user runs one request through the library, for a limit of `n` per `windowMs`. */
  make(n: number, windowMs: number, queue: number): Run;
}

const { Throttler } = ccxt as unknown as {
  Throttler: new (config: Record<string, unknown>) => { throttle(cost?: number): Promise<void> };
};

const peers: Peer[] = [
  {
    name: 'traderatio',
    make(n, windowMs, queue) {
      const s = new Scheduler({ maxQueue: queue });
      const limits = s.limit({ limit: n, windowMs });
      return (task) => s.schedule(task, { limits });
    },
  },
  {
    name: 'bottleneck (reservoir)',
    make(n, windowMs) {
      const b = new Bottleneck({ reservoir: n, reservoirRefreshAmount: n, reservoirRefreshInterval: windowMs });
      return (task) => b.schedule(async () => task());
    },
  },
  {
    name: 'p-queue (interval)',
    make(n, windowMs) {
      const q = new PQueue({ intervalCap: n, interval: windowMs });
      return (task) => q.add(task);
    },
  },
  {
    name: 'limiter (token bucket)',
    make(n, windowMs) {
      const l = new RateLimiter({ tokensPerInterval: n, interval: windowMs });
      return (task) => l.removeTokens(1).then(task);
    },
  },
  {
    name: 'rate-limiter-flexible (queue)',
    make(n, windowMs, queue) {
      const q = new RateLimiterQueue(new RateLimiterMemory({ points: n, duration: windowMs / 1000 }), {
        maxQueueSize: queue,
      });
      return (task) => q.removeTokens(1).then(task);
    },
  },
  {
    name: 'ccxt Throttler (leaky bucket)',
    make(n, windowMs) {
      // As ccxt configures an exchange: one token per rateLimit milliseconds, capacity 1.
      const t = new Throttler({ refillRate: n / windowMs, capacity: 1, delay: 0.001, tokens: 0 });
      return (task) => t.throttle(1).then(task);
    },
  },
  {
    name: 'ccxt Throttler (rolling window)',
    make(n, windowMs) {
      const t = new Throttler({ algorithm: 'rollingWindow', windowSize: windowMs, rateLimit: windowMs / n });
      return (task) => t.throttle(1).then(task);
    },
  },
];

function noop(): undefined {
  return undefined;
}

/** Saturates one limit of `n` per second for `seconds`: the most in any 1 s, and the utilization. */
async function compliance(peer: Peer, n: number, seconds: number) {
  const run = peer.make(n, 1000, n * (seconds + 2));
  const times: number[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  const pending: Promise<unknown>[] = [];
  const send = (): void => {
    const t = performance.now();
    if (t < end) times.push(t);
  };
  for (let i = 0; i < n * (seconds + 2); i++) pending.push(run(send).catch(() => undefined));
  await new Promise((r) => setTimeout(r, seconds * 1000 + 50));
  times.sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (j < times.length && times[j]! < times[i]! + 1000) j++;
    most = Math.max(most, j - i);
  }
  return { most, utilization: times.length / (n * seconds), pending };
}

async function complianceSection(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  const repeats = Number(process.env.BENCH_REPEATS ?? 3);
  const rows: Record<string, string | number>[] = [];
  for (const n of [100, 250]) {
    for (const peer of peers) {
      // Where a window falls against a peer's timers varies from run to run: keep the worst.
      let most = 0;
      let utilization = Infinity;
      for (let r = 0; r < repeats; r++) {
        const result = await compliance(peer, n, seconds);
        most = Math.max(most, result.most);
        utilization = Math.min(utilization, result.utilization);
      }
      rows.push({
        library: peer.name,
        limit: `${n}/s`,
        'most in any 1 s': most,
        'x limit': (most / n).toFixed(2),
        'lowest utilization': `${(utilization * 100).toFixed(1)}%`,
        'within limit': most <= n ? 'yes' : 'NO',
      });
    }
  }
  printTable(`Compliance: ${seconds} s of saturation, worst of ${repeats} runs (real clock)`, rows);
  // Peers keep timers alive with their leftover queues: this section ends the process itself.
}

/** Tasks per second through each library's async path with a limit far above the load. */
async function overheadSection(): Promise<void> {
  const batch = 1000;
  const rows: { library: string; rate: number }[] = [];
  for (const peer of peers) {
    const run = peer.make(1_000_000_000, 1000, batch * 2);
    const runs: number[] = [];
    for (let r = 0; r < 4; r++) {
      // Batches of 1,000 awaited together, for at least a second (the first run warms up).
      const t0 = performance.now();
      let count = 0;
      while (performance.now() - t0 < 1000) {
        const ps: Promise<unknown>[] = new Array(batch);
        for (let i = 0; i < batch; i++) ps[i] = run(noop);
        await Promise.all(ps);
        count += batch;
      }
      if (r > 0) runs.push(count / ((performance.now() - t0) / 1000));
    }
    rows.push({ library: peer.name, rate: median(runs) });
  }
  const ours = rows[0]!.rate;
  const fastestPeer = Math.max(...rows.slice(1).map((r) => r.rate));
  printTable(
    'Overhead: tasks per second, limit far above the load (median of 3 runs of at least 1 s)',
    rows.map((r) => ({
      library: r.library,
      'tasks/s': Math.round(r.rate).toLocaleString('en-US'),
      'traderatio is x faster':
        r.library === 'traderatio' ? `${(ours / fastestPeer).toFixed(1)} (fastest peer)` : (ours / r.rate).toFixed(1),
    })),
  );
}

/** Synchronous try-acquire: ops per second. */
function syncSection(): void {
  const ops = 20_000_000;
  const rows: Record<string, string>[] = [];
  const rate = (fn: () => void): number => {
    const runs: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      fn();
      runs.push(ops / ((performance.now() - t0) / 1000));
    }
    return median(runs);
  };
  const s = new Scheduler();
  const l = s.limit({ limit: 1_000_000_000, windowMs: 1000 });
  const withClock = rate(() => {
    for (let i = 0; i < ops; i++) s.tryAcquire(l);
  });
  const w = new WindowLimit({ limit: 1_000_000_000, windowMs: 1000 });
  let at = 0;
  const withInstant = rate(() => {
    for (let i = 0; i < ops; i++) w.tryTake(1, (at += 0.00001));
  });
  const saturated = new WindowLimit({ limit: 100, windowMs: 1000 });
  let at2 = 0;
  const refused = rate(() => {
    for (let i = 0; i < ops; i++) saturated.tryTake(1, (at2 += 0.00001));
  });
  const limiter = new RateLimiter({ tokensPerInterval: 1_000_000_000, interval: 1000 });
  const peer =
    rate(() => {
      for (let i = 0; i < ops / 10; i++) limiter.tryRemoveTokens(1);
    }) / 10;
  rows.push({
    case: 'traderatio Scheduler.tryAcquire, built-in clock',
    'ops/s': Math.round(withClock).toLocaleString('en-US'),
    target: '15,000,000',
  });
  rows.push({
    case: 'traderatio WindowLimit.tryTake, instant passed',
    'ops/s': Math.round(withInstant).toLocaleString('en-US'),
    target: '50,000,000',
  });
  rows.push({
    case: 'traderatio WindowLimit.tryTake, saturated (refusals)',
    'ops/s': Math.round(refused).toLocaleString('en-US'),
    target: '',
  });
  rows.push({
    case: 'limiter RateLimiter.tryRemoveTokens',
    'ops/s': Math.round(peer).toLocaleString('en-US'),
    target: '',
  });
  printTable('Synchronous try-acquire (median of 5)', rows);
}

/** Heap per queued waiter with 1,000,000 queued, and the heap after the queue drains. */
async function memorySection(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  const count = 1_000_000;
  const heap = (): number => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const rows: Record<string, string>[] = [];
  {
    const s = new Scheduler({ maxQueue: count });
    const l = s.limit({ limit: 1, windowMs: 3_600_000 });
    await s.schedule(noop, { limits: l });
    const base = heap();
    const promises: Promise<unknown>[] = new Array(count);
    for (let i = 0; i < count; i++) promises[i] = s.schedule(noop, { limits: l });
    const full = heap();
    l.update({ limit: 1_000_000_000 });
    // Wait for each, holding no array of results, then let go of the promises.
    for (let i = 0; i < count; i++) await promises[i];
    promises.length = 0;
    const after = heap();
    rows.push({
      library: 'traderatio',
      'bytes per waiter': ((full - base) / count).toFixed(0),
      'heap after drain vs before (KiB)': ((after - base) / 1024).toFixed(0),
    });
  }
  for (const peer of peers.slice(1, 3)) {
    const run = peer.make(1, 3_600_000, count);
    await run(noop);
    const base = heap();
    let promises: Promise<unknown>[] | null = new Array(count / 10);
    for (let i = 0; i < count / 10; i++) promises[i] = run(noop);
    const full = heap();
    promises = null;
    rows.push({
      library: peer.name,
      'bytes per waiter': ((full - base) / (count / 10)).toFixed(0),
      'heap after drain vs before (KiB)': 'n/a',
    });
  }
  printTable('Memory: heap per queued waiter (1,000,000 queued; peers 100,000)', rows);
}

/** A library with a bounded queue, seen from its caller: give a task, and learn it was refused. */
interface Bounded {
  readonly name: string;
  /** The share of the section's task count it is measured on (a slow peer: less). */
  readonly share: number;
  /** A limit of one task per hour (nothing leaves the queue) whose queue holds `queue` tasks. */
  make(queue: number): { give(task: () => unknown): Promise<unknown>; end(): void };
}

const bounded: Bounded[] = [
  {
    name: 'traderatio',
    share: 1,
    make(queue) {
      const s = new Scheduler({ maxQueue: queue });
      const limits = s.limit({ limit: 1, windowMs: 3_600_000 });
      return { give: (task) => s.schedule(task, { limits }), end: () => s.close() };
    },
  },
  {
    name: 'bottleneck (highWater, OVERFLOW)',
    // Its refusals take hundreds of microseconds each.
    share: 0.1,
    make(queue) {
      const b = new Bottleneck({
        reservoir: 1,
        maxConcurrent: 1,
        highWater: queue,
        strategy: Bottleneck.strategy.OVERFLOW,
      });
      return { give: (task) => b.schedule(async () => task()), end: () => void b.stop({ dropWaitingJobs: true }) };
    },
  },
  {
    name: 'rate-limiter-flexible (queue)',
    share: 1,
    make(queue) {
      const q = new RateLimiterQueue(new RateLimiterMemory({ points: 1, duration: 3600 }), { maxQueueSize: queue });
      return { give: (task) => q.removeTokens(1).then(task), end: noop };
    },
  },
];

/** Microseconds per task given while the queue fills, and per task refused once it is full. */
async function refusalRun(lib: Bounded, count: number): Promise<{ queued: number; refused: number; all: number }> {
  const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 0));
  // Queuing: `count` tasks into a queue with room for all of them (after the one that runs).
  let q = lib.make(count + 1);
  q.give(noop).catch(noop);
  await settle();
  let t0 = performance.now();
  for (let i = 0; i < count; i++) q.give(noop).catch(noop);
  await settle();
  const queued = ((performance.now() - t0) * 1000) / count;
  q.end();
  await settle();
  // Refusing: `count` tasks given to a full queue of 1,000; each refusal settled (its handler ran).
  q = lib.make(1000);
  q.give(noop).catch(noop);
  await settle();
  for (let i = 0; i < 1000; i++) q.give(noop).catch(noop);
  await settle();
  let refusals = 0;
  const refused = (): void => {
    refusals++;
  };
  t0 = performance.now();
  for (let i = 0; i < count; i++) q.give(noop).catch(refused);
  // Some refuse a turn or more later: wait for every refusal (at most 30 s).
  while (refusals < count && performance.now() - t0 < 30_000) await settle();
  const refusedUs = ((performance.now() - t0) * 1000) / count;
  q.end();
  await settle();
  return { queued, refused: refusedUs, all: refusals };
}

/** A refusal on a full queue beside queuing a task, per library; and 1,000,000 refusals. */
async function refusalSection(): Promise<void> {
  const count = Number(process.env.BENCH_COUNT ?? 100_000);
  const rows: Record<string, string>[] = [];
  for (const lib of bounded) {
    const tasks = Math.round(count * lib.share);
    const runs = [];
    // The first run warms up.
    for (let r = 0; r < 4; r++) runs.push(await refusalRun(lib, tasks));
    const kept = runs.slice(1);
    const queued = median(kept.map((r) => r.queued));
    const refused = median(kept.map((r) => r.refused));
    rows.push({
      library: lib.name,
      tasks: tasks.toLocaleString('en-US'),
      'queue a task, µs': queued.toFixed(2),
      'refuse on a full queue, µs': refused.toFixed(2),
      'refusal / queuing': (refused / queued).toFixed(2),
      'refused within 30 s': kept.every((r) => r.all === tasks) ? 'all' : `${Math.min(...kept.map((r) => r.all))}`,
    });
  }
  printTable('Refusal on a full queue beside queuing a task: µs per task, median of 3 runs', rows);
  const million: number[] = [];
  for (let r = 0; r < 3; r++) {
    const q = bounded[0]!.make(1000);
    for (let i = 0; i <= 1000; i++) q.give(noop).catch(noop);
    const t0 = performance.now();
    for (let i = 0; i < 1_000_000; i++) q.give(noop).catch(noop);
    await new Promise((r) => setTimeout(r, 0));
    million.push((performance.now() - t0) / 1000);
    q.end();
  }
  printTable('traderatio: 1,000,000 tasks given to a full queue, each refusal settled', [
    {
      runs: million.map((s) => `${s.toFixed(2)} s`).join(', '),
      median: `${median(million).toFixed(2)} s`,
      goal: '< 5 s',
    },
  ]);
}

// Some peers' timers do not keep the process alive; this does, until the end.
const keepAlive = setInterval(noop, 1000);
const section = process.argv[2];
const sections: Record<string, () => unknown> = {
  compliance: complianceSection,
  overhead: overheadSection,
  sync: syncSection,
  memory: memorySection,
  refusal: refusalSection,
};
for (const [name, run] of Object.entries(sections)) {
  if (section === undefined || section === name) await run();
}
clearInterval(keepAlive);
process.exit(0);
