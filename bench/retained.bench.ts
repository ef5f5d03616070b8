// `npm run bench:retained`: what a process keeps per admission. One process admits as fast as it
// can for 8 s over 1,000 accounts in families of four (each family a budget: a RedisStore of its
// own on a private redis-server, at a free loopback port, stopped at the end), 32 tasks in flight
// spread over every account in turn, each account one limit of 1,000 a second. Side by side: the
// same scheduler and limits with no store (each process on its own), and each way with tasks that
// are plain functions and with round trips answered 2 ms after their send (`awaitAnswer`, as the
// account limiter and the adapters follow requests: a grant is then confirmed from its answers).
// Per run: admissions, the heap kept per admission (after a full collection, against the heap
// after one before the run), and the holds the limits keep (an answer later than its send holds
// its request until a window after it).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Scheduler, type WindowLimit } from '../dist/index.js';
import { RedisStore } from '../dist/redis.js';
import { privateRedis } from '../test/redis/sentinel.js';
import { printTable } from './measure.js';

const ACCOUNTS = 1000;
const ACCOUNTS_PER_FAMILY = 4;
const IN_FLIGHT = 32;
const RUN_MS = 8000;
const ANSWER_MS = 2;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (npm run bench:retained does)');

/** What a run reads of a limit: a store's limit and a WindowLimit alike follow a request to its answer. */
type RoundTripLimit = Pick<WindowLimit, 'awaitAnswer' | 'answered' | 'snapshot'>;

async function run(client: Redis | null, roundTrips: boolean): Promise<Record<string, string | number>> {
  const base = `tr-bench-retained-${randomBytes(4).toString('hex')}`;
  const families = Math.ceil(ACCOUNTS / ACCOUNTS_PER_FAMILY);
  if (client !== null) for (let f = 0; f < families; f++) await client.set(`{${base}:f${f}}:epoch`, '0');
  const parts = Array.from({ length: families }, (_, f) => {
    const store = client === null ? undefined : new RedisStore({ client, prefix: `${base}:f${f}`, prefetch: 0 });
    const scheduler = store === undefined ? new Scheduler() : new Scheduler({ store });
    const limits = Array.from({ length: ACCOUNTS_PER_FAMILY }, (_, a) =>
      scheduler.limit({ name: `acct${a}.place`, limit: 1000, windowMs: 1000 }),
    );
    return { store, scheduler, limits };
  });
  let admitted = 0;
  const send = (a: number): Promise<void> => {
    const part = parts[Math.floor(a / ACCOUNTS_PER_FAMILY)]!;
    const limit = part.limits[a % ACCOUNTS_PER_FAMILY]!;
    const followed = limit as RoundTripLimit;
    return part.scheduler.schedule(
      () => {
        admitted++;
        if (!roundTrips) return;
        const request = followed.awaitAnswer(1, part.scheduler.clock.now());
        setTimeout(() => followed.answered(request, part.scheduler.clock.now()), ANSWER_MS);
      },
      { limits: limit },
    );
  };
  gc!();
  const before = process.memoryUsage().heapUsed;
  const until = Date.now() + RUN_MS;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async (_, s) => {
      let account = s % ACCOUNTS;
      while (Date.now() < until) {
        await send(account);
        account = (account + IN_FLIGHT) % ACCOUNTS;
      }
    }),
  );
  // The last answers come back.
  await new Promise((r) => setTimeout(r, 10 * ANSWER_MS));
  gc!();
  const kept = process.memoryUsage().heapUsed - before;
  const holds = parts.reduce(
    (n, p) => n + p.limits.reduce((m, l) => m + (l as RoundTripLimit).snapshot().holds.length, 0),
    0,
  );
  for (const p of parts) p.scheduler.close();
  await Promise.all(parts.map((p) => p.store?.close()));
  if (client !== null) {
    const keys = await client.keys(`{${base}:*`);
    for (let i = 0; i < keys.length; i += 500) await client.del(...keys.slice(i, i + 500));
  }
  return {
    store: client === null ? 'none (memory)' : 'RedisStore, prefetch 0',
    tasks: roundTrips ? `round trips answered after ${ANSWER_MS} ms` : 'plain functions',
    admissions: admitted.toLocaleString('en-US'),
    'heap kept per admission, bytes': Math.round(kept / admitted),
    'holds kept at the end': holds.toLocaleString('en-US'),
  };
}

const server = await privateRedis();
try {
  const client = new Redis({ host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null });
  const rows: Record<string, string | number>[] = [];
  for (const roundTrips of [false, true]) {
    rows.push(await run(null, roundTrips));
    rows.push(await run(client, roundTrips));
  }
  client.disconnect();
  printTable(
    `One process, ${ACCOUNTS.toLocaleString('en-US')} accounts in families of ${ACCOUNTS_PER_FAMILY}, ${IN_FLIGHT} tasks in flight, ${RUN_MS / 1000} s each`,
    rows,
  );
} finally {
  server.proc.kill('SIGKILL');
}
