// One engine process for the failover test: an account limiter on a Redis store whose client
// reaches the master through Sentinels, placing futures orders on the model exchange through
// limitedFetch (signed as API v4 asks), 50 in flight at all times. Prints `ready` once loaded and
// reads `until` (epoch ms) on stdin; then prints each placement as it is sent (`s <epoch ms>`)
// and as its answer comes (`p <epoch ms> <status>`), and each store event (`event <epoch ms>
// <type>`), and exits at `until` once its limiter and store are closed.
// argv: sentinel ports (comma-separated) master name prefix exchange URL name
import { createHash, createHmac } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { AccountLimiter } from '../../src/account/limiter.js';
import { limitedFetch } from '../../src/fetch/limited-fetch.js';
import { RedisStore } from '../../src/redis/store.js';

const [sentinels, master, prefix, exchange, name] = process.argv.slice(2) as [string, string, string, string, string];
let out = '';
const flush = (): void => {
  if (out.length > 0) process.stdout.write(out);
  out = '';
};
const ticker = setInterval(flush, 20);
const client = new Redis({
  sentinels: sentinels.split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) })),
  name: master,
  connectionName: `${prefix}-${name}`,
  maxRetriesPerRequest: null,
  retryStrategy: () => 20,
  sentinelRetryStrategy: () => 20,
});
client.on('error', () => {});
const store = new RedisStore({ client, prefix });
store.on((e) => (out += `event ${Date.now()} ${e.type}\n`));
const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], store });

/** Node's fetch, signing each request as API v4 asks. */
const signed = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
  out += `s ${Date.now()}\n`;
  const url = new URL(String(input));
  const body = typeof init.body === 'string' ? init.body : '';
  const timestamp = String(Math.floor(Date.now() / 1000));
  const payload = [
    init.method ?? 'GET',
    url.pathname,
    url.search.slice(1),
    createHash('sha512').update(body).digest('hex'),
    timestamp,
  ].join('\n');
  const headers = new Headers(init.headers);
  headers.set('KEY', 'main-key');
  headers.set('Timestamp', timestamp);
  headers.set('SIGN', createHmac('sha512', 'main-secret').update(payload).digest('hex'));
  headers.set('Content-Type', 'application/json');
  return fetch(url, { ...init, headers });
};
const gate = limitedFetch(limiter, { account: 'main', fetch: signed, askRateLimit: false });

process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const until = Number((await lines.next()).value);

const place = async (): Promise<void> => {
  const res = await gate(`${exchange}/api/v4/futures/usdt/orders`, {
    method: 'POST',
    body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000', tif: 'gtc' }),
    signal: AbortSignal.timeout(Math.max(1, until - Date.now())),
  });
  await res.arrayBuffer();
  out += `p ${Date.now()} ${res.status}\n`;
};

await Promise.all(
  Array.from({ length: 50 }, async () => {
    while (Date.now() < until) await place().catch(() => {});
  }),
);
limiter.close();
await store.close();
flush();
clearInterval(ticker);
client.disconnect();
process.stdin.destroy();
