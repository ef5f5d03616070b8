// One engine process of the headline benchmark (bench/headline.bench.ts): a ccxt gate instance on
// the model exchange sending placements, amends and cancels of one account as fast as its setup
// lets it, with 16 requests in flight. Its setup: `traderatio` (limitCcxt on an AccountLimiter
// whose limits and counts are in Redis, shared with the other processes), `ccxt` (ccxt's own
// throttle) or `static` (a fixed share of each published limit, as hummingbot's
// rate_limits_share_pct). Prints one JSON line at the end: what it sent and what it waited.
import { AsyncLocalStorage } from 'node:async_hooks';
import ccxt from 'ccxt';
import { Redis } from 'ioredis';
import { AccountLimiter } from '../src/account/limiter.js';
import { createCatalog } from '../src/catalog/catalog.js';
import { limitCcxt } from '../src/ccxt/index.js';
import { isRefusedError } from '../src/errors.js';
import { RedisStore } from '../src/redis/store.js';
import type { Clock } from '../src/schedule/clock.js';
import { type Limit, Scheduler } from '../src/schedule/scheduler.js';

interface Config {
  readonly setup: 'traderatio' | 'ccxt' | 'static';
  readonly url: string;
  readonly prefix: string;
  readonly history: { days: object[]; hours: object[] };
  /** The share of each published limit a static process keeps for itself. */
  readonly share: number;
  readonly seed: number;
}

const config = JSON.parse(process.argv[2]!) as Config;

const gate = new ccxt.gate({ apiKey: 'main-key', secret: 'main-secret', enableRateLimit: config.setup === 'ccxt' });
const api = gate.urls['api'] as Record<string, Record<string, string>>;
for (const side of Object.values(api)) for (const type of Object.keys(side)) side[type] = `${config.url}/api/v4`;
await gate.loadMarkets();

// Started: the benchmark sets the model's clock once every process is, and says when to stop.
process.stdout.write('ready\n');
const { offset, end } = await new Promise<{ offset: number; end: number }>((resolve) => {
  let line = '';
  process.stdin.setEncoding('utf8').on('data', (s: string) => {
    line += s;
    if (line.includes('\n')) resolve(JSON.parse(line) as { offset: number; end: number });
  });
});
/** The model's clock: this machine's wall clock plus `offset`. */
const clock: Clock = {
  now: () => performance.now(),
  wall: () => performance.timeOrigin + performance.now() + offset,
  setTimer: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimer: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
};
gate.nonce = () => Math.floor(clock.wall());

let limiter: AccountLimiter | undefined;
let redis: Redis | undefined;
let store: RedisStore | undefined;
let statics: Scheduler | undefined;
if (config.setup === 'traderatio') {
  redis = new Redis({ host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null });
  store = new RedisStore({
    client: redis,
    prefix: config.prefix,
    clock,
    ...(process.env['HEADLINE_MAX_BATCH'] ? { maxBatch: Number(process.env['HEADLINE_MAX_BATCH']) } : {}),
  });
  // No margin (R13): each request counts until one window after its answer, which covers
  // whatever the way to the exchange does; the figures before arrivals were bounded by answers
  // were measured with 20 ms (docs/performance.md, Headline). HEADLINE_MARGIN_MS sets one.
  // HEADLINE_PACING sets `pacing` (1, unpaced, by default); HEADLINE_ARRIVALS=estimate, the
  // arrival estimate instead of arrivals bounded by answers.
  limiter = new AccountLimiter({
    accounts: [{ id: 'main', role: 'main' }],
    clock,
    store,
    marginMs: Number(process.env['HEADLINE_MARGIN_MS'] ?? 0),
    pacing: Number(process.env['HEADLINE_PACING'] ?? 1),
    arrivals: process.env['HEADLINE_ARRIVALS'] === 'estimate' ? 'estimate' : 'answers',
  });
  limiter.seed(config.history as never);
  limitCcxt(limiter, gate, { account: 'main' });
} else if (config.setup === 'static') {
  // Each limit a request draws on, at `share` of its published figure, in this process alone.
  statics = new Scheduler({ clock });
  const catalog = createCatalog();
  const limits = new Map<string, Limit>();
  const fetch2 = gate.fetch2.bind(gate);
  gate.fetch2 = ((
    path: unknown,
    apiName?: unknown,
    method?: string,
    params?: unknown,
    headers?: unknown,
    body?: unknown,
    cfg?: unknown,
  ) => {
    const built = gate.sign(
      path as string,
      apiName as string,
      method,
      params as object,
      headers as never,
      body as never,
    ) as { url: string; method: string; body?: string };
    const c = catalog.classify(
      built.method,
      built.url,
      built.body === undefined || built.body === '' ? undefined : JSON.parse(built.body),
    );
    const mine = c.limits.map((s) => {
      let l = limits.get(s.key);
      if (l === undefined)
        limits.set(
          s.key,
          (l = statics!.limit({
            name: s.key,
            limit: Math.max(1, Math.floor(s.limit * config.share)),
            windowMs: s.windowMs,
          })),
        );
      return l;
    });
    return statics!.schedule(
      () => fetch2(path, apiName, method, params as never, headers as never, body, cfg as never),
      { limits: mine, weight: c.weight },
    ) as Promise<unknown>;
  }) as typeof gate.fetch2;
}

// When each request was wanted (kept through ccxt's awaits) and when ccxt handed it to its HTTP layer.
const wanted = new AsyncLocalStorage<number>();
const waits: number[] = [];
const send = gate.fetch.bind(gate);
gate.fetch = ((url: string, method = 'GET', headers?: Record<string, string>, body?: unknown) => {
  const w = wanted.getStore();
  if (w !== undefined) waits.push(performance.now() - w);
  return send(url, method, headers, body);
}) as typeof gate.fetch;

let random = config.seed >>> 0;
const next = (): number => {
  random = (random + 0x6d2b79f5) >>> 0;
  let t = random;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const BTC = 'BTC/USDT:USDT';
const open: string[] = [];
const counts = { sent: 0, placements: 0, amends: 0, cancels: 0, tooMany: 0, otherErrors: 0, givenUp: 0 };

/** One request, its wait timed from here to ccxt handing it over. */
function act(): Promise<void> {
  return wanted.run(performance.now(), request);
}

async function request(): Promise<void> {
  const r = next();
  const id = open.length > 0 ? open[Math.floor(next() * open.length)]! : undefined;
  const kind = id === undefined || r < 0.7 ? 'place' : r < 0.85 ? 'amend' : 'cancel';
  const call = gate;
  try {
    if (kind === 'place') {
      const o = await call.createOrder(BTC, 'limit', 'buy', 1, 59_000 + Math.floor(next() * 100));
      counts.placements++;
      if (o.status === 'open') open.push(String(o.id));
    } else if (kind === 'amend') {
      counts.amends++;
      await call.editOrder(id!, BTC, 'limit', 'buy', 1, 59_000 + Math.floor(next() * 100));
    } else {
      counts.cancels++;
      open.splice(open.indexOf(id!), 1);
      await call.cancelOrder(id!, BTC);
    }
    counts.sent++;
  } catch (e) {
    if (e instanceof ccxt.RateLimitExceeded) {
      counts.sent++;
      counts.tooMany++;
    } else if (isRefusedError(e)) counts.givenUp++;
    else if (e instanceof ccxt.BaseError) {
      counts.sent++;
      counts.otherErrors++;
    } else throw e;
  }
}

const stop = setTimeout(() => {
  limiter?.scheduler.close();
  statics?.close();
}, end - clock.wall());
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (clock.wall() < end) await act();
  }),
);
clearTimeout(stop);
const state = limiter === undefined ? null : limiter.limitNow('main');
limiter?.close();
statics?.close();
await store?.close();
redis?.disconnect();
process.stdout.write(
  `${JSON.stringify({ ...counts, limit: state?.limit, throttle: state?.throttle ?? null, waits })}\n`,
);
