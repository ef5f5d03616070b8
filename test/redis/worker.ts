// One engine process for the multi-process tests. Prints its store's id and `ready` once loaded,
// and reads `until` (epoch ms) on stdin; then draws on one shared limit as fast as it lets it
// until `until`, printing each dispatch's instant (epoch ms, this machine's clock,
// which every worker shares) as it happens, so that a worker killed mid-run leaves its log.
// With slowMs > 0, one task in five does random synchronous work of up to slowMs after its
// dispatch, delaying the tasks after it in the scheduler's pass.
// argv: port prefix limit windowMs [name] [policy] [slowMs]
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { Scheduler } from '../../src/schedule/scheduler.js';
import { RedisStore } from '../../src/redis/store.js';
import { REDIS_PORT, REDIS_URL } from './address.js';

const [port, prefix, limit, windowMs, name = 'worker', policy = 'wait', slow = '0'] = process.argv.slice(2);
const slowMs = Number(slow);
const options = { connectionName: `${prefix}-${name}`, maxRetriesPerRequest: null, retryStrategy: () => 20 };
const client =
  Number(port) === REDIS_PORT
    ? new Redis(REDIS_URL, options)
    : new Redis({ port: Number(port), host: '127.0.0.1', ...options });
client.on('error', () => {});
const store = new RedisStore({
  client,
  prefix: prefix!,
  ...(policy === 'local' ? { onUnavailable: 'local', processes: 4 } : {}),
});
const scheduler = new Scheduler({ store });
const l = scheduler.limit({ name: 'orders', limit: Number(limit), windowMs: Number(windowMs) });
const wall = (): number => performance.timeOrigin + performance.now();
let out = '';
const flush = (): void => {
  if (out.length > 0) process.stdout.write(out);
  out = '';
};
const ticker = setInterval(flush, 20);
store.on((e) => (out += `event ${e.type}\n`));
process.stdout.write(`id ${store.id}\nready\n`);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const end = Number((await lines.next()).value);

// Keep 50 tasks waiting at all times, as a saturated engine does.
let live = 0;
await new Promise<void>((resolve) => {
  const refill = (): void => {
    while (live < 50 && wall() < end) {
      live++;
      scheduler
        .schedule(
          () => {
            out += `${wall()}\n`;
            if (slowMs > 0 && Math.random() < 0.2)
              for (const stop = performance.now() + Math.random() * slowMs; performance.now() < stop; );
          },
          { limits: l },
        )
        .finally(() => {
          live--;
          if (wall() < end) refill();
          else if (live === 0) resolve();
        })
        .catch(() => {});
    }
  };
  refill();
  setTimeout(() => scheduler.close(), Math.max(0, end - wall()));
}).catch(() => {});
scheduler.close();
await store.close();
flush();
clearInterval(ticker);
client.disconnect();
process.stdin.destroy();
