// One engine process of the cluster's failover and slot-move tests: one ioredis Cluster client;
// per family an account limiter on a Redis store of prefix `<prefix>:<family>`; per account
// `inFlight` placements in flight at all times on the model exchange, through limitedFetch, signed
// as API v4 asks. Prints `ready` once loaded and reads `until` (epoch ms) on stdin, and again
// whenever another line comes (the test says when to stop once it has seen what it waits for); then prints
// each placement as it is sent (`s <family> <account> <epoch ms>`) and as its answer comes
// (`p <family> <account> <epoch ms> <status>`), each store event (`event <family> <epoch ms>
// <type>`), and exits at `until` once its limiters and stores are closed.
// argv: node ports (comma-separated) prefix exchange-URL families-JSON in-flight
import { createInterface } from 'node:readline';
import { Cluster } from 'ioredis';
import { AccountLimiter } from '../../src/account/limiter.js';
import { limitedFetch } from '../../src/fetch/limited-fetch.js';
import { signRequest } from '../../src/model-exchange/auth.js';
import { RedisStore } from '../../src/redis/store.js';

/** A family as the test gives it: its id and accounts, each with its API key (secret `<key>-secret`). */
export interface WorkerFamily {
  readonly id: string;
  readonly accounts: readonly { readonly id: string; readonly role: 'main' | 'sub'; readonly key: string }[];
}

const [ports, prefix, exchange, familiesJson, inFlight] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const families = JSON.parse(familiesJson) as WorkerFamily[];
let out = '';
const flush = (): void => {
  if (out.length > 0) process.stdout.write(out);
  out = '';
};
const ticker = setInterval(flush, 20);
const client = new Cluster(
  ports.split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) })),
  { clusterRetryStrategy: () => 20, redisOptions: { maxRetriesPerRequest: null } },
);
client.on('error', () => {});

/** Node's fetch, signing each request with `key` as API v4 asks, and printing when it is sent. */
const signed =
  (family: string, account: string, key: string) =>
  (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    out += `s ${family} ${account} ${Date.now()}\n`;
    const url = new URL(String(input));
    const body = typeof init.body === 'string' ? init.body : '';
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers = new Headers(init.headers);
    headers.set('KEY', key);
    headers.set('Timestamp', timestamp);
    headers.set(
      'SIGN',
      signRequest(`${key}-secret`, init.method ?? 'GET', url.pathname, url.search.slice(1), body, timestamp),
    );
    headers.set('Content-Type', 'application/json');
    return fetch(url, { ...init, headers });
  };

const parts = families.map((f) => {
  const store = new RedisStore({ client, prefix: `${prefix}:${f.id}` });
  store.on((e) => (out += `event ${f.id} ${Date.now()} ${e.type}\n`));
  const limiter = new AccountLimiter({ accounts: f.accounts.map((a) => ({ id: a.id, role: a.role })), store });
  const gates = f.accounts.map((a) => ({
    account: a.id,
    gate: limitedFetch(limiter, { account: a.id, fetch: signed(f.id, a.id, a.key), askRateLimit: false }),
  }));
  return { f, store, limiter, gates };
});

process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
let until = Number((await lines.next()).value);
const stopping = new AbortController();
void (async () => {
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    until = Number(next.value);
    setTimeout(() => stopping.abort(), Math.max(0, until - Date.now()));
  }
})();

await Promise.all(
  parts.flatMap(({ f, gates }) =>
    gates.flatMap(({ account, gate }) =>
      Array.from({ length: Number(inFlight) }, async () => {
        while (Date.now() < until) {
          try {
            const res = await gate(`${exchange}/api/v4/futures/usdt/orders`, {
              method: 'POST',
              body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000', tif: 'gtc' }),
              signal: stopping.signal,
            });
            await res.arrayBuffer();
            out += `p ${f.id} ${account} ${Date.now()} ${res.status}\n`;
          } catch {
            // Aborted at `until`, or refused by the limiter: the next one goes on.
          }
        }
      }),
    ),
  ),
);
for (const p of parts) p.limiter.close();
await Promise.all(parts.map((p) => p.store.close()));
flush();
clearInterval(ticker);
client.disconnect();
process.stdin.destroy();
