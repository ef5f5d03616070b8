// `npm run bench:script-cost`: what one admission costs Redis, by command, with few accounts and with
// many. One process, 32 tasks in flight spread over every account in turn, as each of the eight
// processes of `bench:scale` sends; accounts in families of four, each family a store of its own
// prefix, the limits adding up to 1,000,000 per second (nothing ever waits for the window). For 12
// and 1,000 accounts, with `prefetch: 0` (one round trip per admission) and "auto": admissions per
// second, Redis's CPU per admission (INFO cpu), and per command what INFO commandstats counted
// (after CONFIG RESETSTAT): calls per admission and microseconds per admission. A script's line
// (`evalsha`) counts the whole script; the commands it calls are counted again on their own lines,
// so what the script's line has beyond them is the Lua around them. Against a private redis-server
// on a free loopback port, stopped at the end. 1 s to warm up, 3 s measured per run.
import { Redis } from 'ioredis';
import { Scheduler } from '../dist/index.js';
import { RedisStore } from '../dist/redis.js';
import { stopChildren } from '../test/redis/harness.js';
import { privateRedis } from '../test/redis/sentinel.js';
import { printTable } from './measure.js';

const IN_FLIGHT = 32;
const ACCOUNTS = [12, 1000];
const PER_FAMILY = 4;
const TOTAL_PER_SECOND = 1_000_000;
const WARM_MS = 1000;
const MEASURE_MS = 3000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Calls and microseconds per command since the last CONFIG RESETSTAT. */
async function commandStats(admin: Redis): Promise<Map<string, { calls: number; usec: number }>> {
  const out = new Map<string, { calls: number; usec: number }>();
  for (const line of (await admin.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/.exec(line);
    if (m !== null && m[1] !== 'info' && m[1] !== 'config') out.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  }
  return out;
}

async function cpuSeconds(admin: Redis): Promise<number> {
  const info = await admin.info('cpu');
  const read = (field: string): number => Number(new RegExp(`${field}:([\\d.]+)`).exec(info)![1]);
  return read('used_cpu_sys') + read('used_cpu_user');
}

const { port, proc } = await privateRedis();
const client = new Redis({ host: '127.0.0.1', port });
const admin = new Redis({ host: '127.0.0.1', port });
const summary: Record<string, string | number>[] = [];
try {
  for (const accounts of ACCOUNTS) {
    for (const prefetch of [0, 'auto'] as const) {
      const families = Array.from({ length: Math.ceil(accounts / PER_FAMILY) }, (_, f) => {
        const store = new RedisStore({ client, prefix: `script-cost-${accounts}-${prefetch}:f${f}`, prefetch });
        const scheduler = new Scheduler({ store });
        const limits = Array.from({ length: Math.min(PER_FAMILY, accounts - f * PER_FAMILY) }, (_, a) =>
          scheduler.limit({ name: `a${a}`, limit: Math.floor(TOTAL_PER_SECOND / accounts), windowMs: 1000 }),
        );
        return { store, scheduler, limits };
      });
      const all = families.flatMap((f) => f.limits.map((limit) => ({ scheduler: f.scheduler, limit })));
      let next = 0;
      let admitted = 0;
      let stop = false;
      const loops = Array.from({ length: IN_FLIGHT }, async () => {
        while (!stop) {
          const t = all[next++ % all.length]!;
          await t.scheduler.schedule(() => undefined, { limits: t.limit });
          admitted++;
        }
      });
      await sleep(WARM_MS);
      await admin.config('RESETSTAT');
      const cpu0 = await cpuSeconds(admin);
      const own0 = process.cpuUsage();
      const from = admitted;
      const t0 = performance.now();
      await sleep(MEASURE_MS);
      const stats = await commandStats(admin);
      const cpu1 = await cpuSeconds(admin);
      const n = admitted - from;
      const own = process.cpuUsage(own0);
      const seconds = (performance.now() - t0) / 1000;
      stop = true;
      await Promise.all(loops);
      for (const f of families) {
        f.scheduler.close();
        await f.store.close();
      }
      const script = [...stats].filter(([name]) => name.startsWith('evalsha') || name.startsWith('eval'));
      const scriptUs = script.reduce((s, [, v]) => s + v.usec, 0);
      const innerUs = [...stats]
        .filter(([name]) => !script.some(([s]) => s === name))
        .reduce((s, [, v]) => s + v.usec, 0);
      summary.push({
        accounts,
        prefetch,
        'admissions/s': Math.round(n / seconds),
        'Redis CPU µs per admission': ((1e6 * (cpu1 - cpu0)) / n).toFixed(1),
        'sender CPU µs per admission': ((own.user + own.system) / n).toFixed(1),
        'script calls per admission': (script.reduce((s, [, v]) => s + v.calls, 0) / n).toFixed(2),
        'µs in scripts per admission': (scriptUs / n).toFixed(1),
        'of which commands': (innerUs / n).toFixed(1),
        'of which Lua around them': ((scriptUs - innerUs) / n).toFixed(1),
      });
      printTable(
        `${accounts} accounts, prefetch ${prefetch}: INFO commandstats per admission (${n} admissions)`,
        [...stats]
          .sort((a, b) => b[1].usec - a[1].usec)
          .slice(0, 10)
          .map(([name, v]) => ({
            command: name,
            'calls per admission': (v.calls / n).toFixed(2),
            'µs per admission': (v.usec / n).toFixed(2),
            'µs per call': (v.usec / v.calls).toFixed(2),
          })),
      );
      await admin.flushall();
    }
  }
  printTable('Redis per admission, one process, 32 in flight', summary);
} finally {
  client.disconnect();
  admin.disconnect();
  proc.kill('SIGTERM');
  stopChildren();
}
