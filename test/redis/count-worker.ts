// One engine process on one account for the multi-process counting tests: an account limiter
// given a Redis store, on a wall clock shifted by `offset` ms (every worker the same: their clocks
// are driven together, so a whole hour falls mid-run), and `exchangeClock: 'local'`.
// Prints `ready` once loaded, and reads `<start> <until> <offset>` (epoch ms, this machine's
// clock; the shift) on stdin; then from `start`:
// - mode `requests`: sends `count` futures orders (no fill), as fast as the limits let it;
// - mode `fills`: until `until`, sends orders and records fills, and prints each count as it makes
//   it (`c <epoch ms> <orders> <volume>`), so that a worker killed mid-run leaves its log;
// - mode `boundary`: sends `count` futures orders at once, then 20 more asked 1 ms after the next
//   whole hour of its clock, and prints the instant of its clock each of those went out
//   (`s <instant>`).
// Every limiter event is printed as `event <epoch ms> <json>`. Exits at `until`.
// argv: port prefix name mode count threshold
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { AccountLimiter } from '../../src/account/limiter.js';
import { RedisStore } from '../../src/redis/store.js';
import type { Clock } from '../../src/schedule/clock.js';
import { REDIS_PORT, REDIS_URL } from './address.js';

const [port, prefix, name, mode, count, threshold] = process.argv.slice(2);
// Written at once (a pipe is written synchronously on Linux): a killed worker leaves every line.
const log = (line: string): void => void process.stdout.write(`${line}\n`);
log('ready');
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const [start, until, offset] = ((await lines.next()).value as string).split(' ').map(Number) as [
  number,
  number,
  number,
];
const options = { connectionName: `${prefix}-${name}`, maxRetriesPerRequest: null, retryStrategy: () => 20 };
const client =
  Number(port) === REDIS_PORT
    ? new Redis(REDIS_URL, options)
    : new Redis({ port: Number(port), host: '127.0.0.1', ...options });
client.on('error', () => {});
const shift = offset;
const clock: Clock = {
  now: () => performance.now(),
  wall: () => Date.now() + shift,
  setTimer: (callback, ms) => setTimeout(callback, ms),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
const store = new RedisStore({ client, prefix: prefix!, clock });
const limiter = new AccountLimiter({
  accounts: [{ id: 'main', role: 'main' }],
  store,
  clock,
  exchangeClock: 'local',
  abuse: { requestThreshold: Number(threshold) },
});
limiter.on((e) => log(`event ${Date.now()} ${JSON.stringify(e)}`));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));
await sleep(start - Date.now());
const order = (contract: string) =>
  limiter.request(
    'main',
    'POST',
    '/futures/usdt/orders',
    () => {
      if (mode === 'fills') log(`c ${Date.now()} 1 0`);
    },
    { body: { contract, size: 1 } },
  );

if (mode === 'requests') {
  await Promise.all(Array.from({ length: Number(count) }, () => order('BTC_USDT'))).catch(() => {});
} else if (mode === 'boundary') {
  void Promise.all(Array.from({ length: Number(count) }, () => order('BTC_USDT'))).catch(() => {});
  const hour = Math.floor(clock.wall() / 3_600_000) * 3_600_000 + 3_600_000;
  await sleep(hour + 1 - clock.wall());
  for (let i = 0; i < 20; i++) {
    void limiter
      .request('main', 'POST', '/futures/usdt/orders', () => log(`s ${clock.wall()}`), {
        body: { contract: 'BTC_USDT', size: 1 },
      })
      .catch(() => {});
  }
} else {
  while (Date.now() < until) {
    void order(Math.random() < 0.5 ? 'BTC_USDT' : 'ETH_USDT').catch(() => {});
    const volume = (Math.floor(Math.random() * 100_000) / 1000).toString();
    limiter.recordFill('main', { contract: 'BTC_USDT', role: Math.random() < 0.5 ? 'maker' : 'taker', volume });
    log(`c ${Date.now()} 0 ${volume}`);
    await sleep(5);
  }
}
await sleep(until - Date.now());
limiter.close();
await store.close();
client.disconnect();
process.stdin.destroy();
