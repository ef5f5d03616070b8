/**
 * The headline: four engine processes on one account, through ccxt's gate, against the model
 * exchange, for `seconds` (default 60) per setup. Run: npm run bench:headline [seconds].
 *
 * The account's day: its ratio of the day before yesterday gave tier 1 (100 placements per
 * second), yesterday's gives tier 4 (250) from 08:00 today (R5); and yesterday between 07:00 and
 * 08:00 it sent 86,401 order requests with nothing traded, so today's check at 07:00 throttled it
 * to 10 placements per 10 s for the hour (R9), a throttle the 08:00 check lifts (that hour has left
 * the 24 hours). The run starts half its length before 08:00 on the model's clock: first the
 * throttle, then tier 4 after the raise.
 *
 * Setups, each with its four processes (bench/headline-engine.ts, 16 requests in flight each,
 * 70% placements, 15% amends, 15% cancels): `traderatio` (limitCcxt, limits and counts in Redis,
 * shared by the four), `ccxt enableRateLimit` (ccxt's one bucket per instance), and `static 25%`
 * (each process keeps a quarter of every published limit at tier 1, as a per-process share is
 * configured). Reported per setup: answers 429, the share of the placement limit in force used
 * in each half (from the model's counts), and the p50 and p99 wait of a request between the
 * engine asking ccxt for it and ccxt handing it to its HTTP layer.
 *
 * Environment, for variants: HEADLINE_SETUPS (a comma-separated list of the setups to run),
 * HEADLINE_PROCESSES (how many engine processes, default 4), HEADLINE_MARGIN_MS (the traderatio
 * processes' margin, default 0), HEADLINE_PACING (their `pacing`, default 1), HEADLINE_ARRIVALS=estimate (their `arrivals`: the
 * estimate instead of arrivals bounded by answers), HEADLINE_MAX_BATCH
 * (their Redis store's `maxBatch`, the store's default otherwise), HEADLINE_SERIES=1
 * (print the placements the model took in each second of the run), HEADLINE_NO_THROTTLE=1 (no
 * 07:00 hour of requests: tier 1 before 08:00 instead of the throttle; the first half's column
 * then counts tier-1 placements against the throttle's possible 10).
 */
import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { startModelExchange } from '../src/model-exchange/index.js';
import type { Clock } from '../src/schedule/clock.js';
import { median, printTable } from './measure.js';

const seconds = Number(process.argv[2] ?? 60);
if (!Number.isFinite(seconds) || seconds < 10)
  throw new Error(`seconds: a number of at least 10, got ${process.argv[2]}`);
const DAY = 86_400_000;
const HOUR = 3_600_000;
const PROCESSES = Number(process.env['HEADLINE_PROCESSES'] ?? 4);
const half = (seconds * 1000) / 2;
const engine = new URL('./headline-engine.ts', import.meta.url).pathname;
// The engine imports the Redis store's sources, whose .lua files scripts/lua.ts loads as text.
const luaText = new URL('../scripts/lua.ts', import.meta.url).href;

interface EngineResult {
  sent: number;
  placements: number;
  amends: number;
  cancels: number;
  tooMany: number;
  otherErrors: number;
  givenUp: number;
  waits: number[];
}

/**
 * A clock this machine's, moved (`moveTo`) so that it reads 08:00 UTC today minus `before` now;
 * until then it reads that less a minute.
 */
function modelClock(): Clock & { offset: number; raise: number; moveTo(before: number): void } {
  const now = performance.timeOrigin + performance.now();
  const raise = Math.floor(now / DAY) * DAY + 8 * HOUR;
  const clock = {
    offset: raise - 60_000 - now,
    raise,
    moveTo(before: number) {
      clock.offset = raise - before - (performance.timeOrigin + performance.now());
    },
    now: () => performance.now(),
    wall: () => performance.timeOrigin + performance.now() + clock.offset,
    setTimer: (fn: () => void, ms: number) => setTimeout(fn, Math.max(0, ms)),
    clearTimer: (t: unknown) => clearTimeout(t as ReturnType<typeof setTimeout>),
  };
  return clock;
}

/**
 * One engine process: `ready` resolves once it has started and loaded the markets (a process
 * takes seconds to start on a busy machine); `go(offset, end)` then sets it running on the
 * model's clock until `end`, and `result` resolves with what it did.
 */
function startEngine(config: object): {
  ready: Promise<void>;
  go: (offset: number, end: number) => void;
  result: Promise<EngineResult>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', luaText, engine, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  let isReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (isReady = resolve));
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    out += s;
    if (out.startsWith('ready\n')) isReady();
  });
  const result = new Promise<EngineResult>((resolve, reject) =>
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as EngineResult);
      else reject(new Error(`engine exited with ${code}: ${out.slice(-500)}`));
    }),
  );
  return { ready, go: (offset, end) => child.stdin.end(`${JSON.stringify({ offset, end })}\n`), result };
}

const rows: Record<string, string | number>[] = [];
const redis = new Redis({ host: '127.0.0.1', port: 6379 });
for (const setup of (process.env['HEADLINE_SETUPS']?.split(',') ?? ['traderatio', 'ccxt', 'static']) as (
  | 'traderatio'
  | 'ccxt'
  | 'static'
)[]) {
  const clock = modelClock();
  const day = (n: number) => new Date(clock.raise - n * DAY).toISOString().slice(0, 10);
  const days = [
    { account: 'main', day: day(2), contracts: [{ contract: 'BTC_USDT', makerVolume: '0', place: 100_000 }] },
    { account: 'main', day: day(1), contracts: [{ contract: 'BTC_USDT', makerVolume: '1800000', place: 100_000 }] },
  ];
  const hours = process.env['HEADLINE_NO_THROTTLE']
    ? []
    : [{ account: 'main', hour: new Date(clock.raise - DAY - HOUR).toISOString(), requests: 86_401, traded: '0' }];
  const exchange = await startModelExchange({
    port: 0,
    clock,
    history: { activity: days, hours },
    fills: { maker: 0.05, taker: 0.05 },
  });
  const prefix = `bench-headline-${process.pid}-${setup}`;
  const engines = Array.from({ length: PROCESSES }, (_, i) =>
    startEngine({
      setup,
      url: exchange.url,
      prefix,
      share: 1 / PROCESSES,
      seed: i + 1,
      history: { days, hours: hours.map((h) => ({ ...h, hour: Date.parse(h.hour) })) },
    }),
  );
  await Promise.all(engines.map((e) => e.ready));
  // Every process started: half a run before 08:00, plus 12 s for a new Redis prefix to wait out
  // the longest window in force (the throttle's 10 s; docs/distributed.md, Redis restarts).
  clock.moveTo(half + 12_000);
  const start = clock.raise - half;
  const end = clock.raise + half;
  const placed = () => exchange.stats().accounts[0]!.limits.find((l) => l.key === 'futures.place')?.accepted ?? 0;
  let atStart = 0;
  let atRaise = 0;
  const marks = [
    setTimeout(() => (atStart = placed()), start - clock.wall()),
    setTimeout(() => (atRaise = placed()), clock.raise - 1 - clock.wall()),
  ];
  for (const e of engines) e.go(clock.offset, end);
  const series: number[] = [];
  const sampler = process.env['HEADLINE_SERIES'] ? setInterval(() => series.push(placed()), 1000) : undefined;
  const results = await Promise.all(engines.map((e) => e.result));
  marks.forEach(clearTimeout);
  if (sampler !== undefined) {
    clearInterval(sampler);
    console.error(`${setup}: placements per second`, series.map((v, i) => v - (series[i - 1] ?? v)).join(' '));
  }
  const after = placed() - atRaise;
  const stats = exchange.stats().accounts[0]!;
  await exchange.close();
  const keys = await redis.keys(`{${prefix}}*`);
  if (keys.length > 0) await redis.del(...keys);
  const waits = results.flatMap((r) => r.waits).sort((a, b) => a - b);
  const sum = (f: (r: EngineResult) => number) => results.reduce((a, r) => a + f(r), 0);
  // Possible placements: throttled, 10 per 10 s (and the window open at the start); tier 4 after.
  const beforePossible = 10 * Math.ceil(half / 10_000);
  const afterPossible = 250 * (half / 1000);
  rows.push({
    setup:
      setup === 'ccxt'
        ? 'ccxt enableRateLimit'
        : setup === 'static'
          ? 'static 25% per process'
          : 'traderatio (Redis store)',
    'requests sent': sum((r) => r.sent),
    'answers 429': sum((r) => r.tooMany),
    'placements, throttled half': `${atRaise - atStart} of ${beforePossible} (${((100 * (atRaise - atStart)) / beforePossible).toFixed(0)}%)`,
    'placements, tier-4 half': `${after} of ${afterPossible} (${((100 * after) / afterPossible).toFixed(1)}%)`,
    'wait p50 ms': waits.length === 0 ? '-' : median(waits).toFixed(2),
    'wait p99 ms': waits.length === 0 ? '-' : waits[Math.floor(waits.length * 0.99)]!.toFixed(1),
    'model refused':
      stats.limits
        .filter((l) => l.refused > 0)
        .map((l) => `${l.key} ${l.refused}`)
        .join(', ') || 'none',
  });
  console.error(`${setup}: done`);
}
redis.disconnect();
printTable(
  `Four ccxt engine processes on one account, ${seconds} s: ${half / 1000} s throttled (10 per 10 s) before 08:00, ${half / 1000} s at tier 4 (250 per second) after`,
  rows,
);
