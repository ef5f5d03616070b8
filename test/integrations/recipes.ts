// The engines of docs/integrations.md, each set up exactly as its recipe shows (the limiter and
// the one line in front of the client, nothing added: no seed, no report call, no option), and a
// run that saturates futures placement through one of them against the model exchange: what the
// end-to-end test asserts (answers 429, fills counted) and what bench/recipes.bench.ts measures
// (placements per second from the second second on).
import { createHash, createHmac } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import ccxt from 'ccxt';
import { ApiClient, FuturesApi } from 'gate-api';
import WebSocket from 'ws';
import { AccountLimiter } from '../../src/account/limiter.js';
import { limitCcxt } from '../../src/ccxt/index.js';
import {
  type ModelExchangeStats,
  type RunningModelExchange,
  startModelExchange,
} from '../../src/model-exchange/index.js';
import { limitedFetch } from '../../src/fetch/index.js';
import { limitApiClient } from '../../src/gate-api/index.js';
import { limitedWebSocket } from '../../src/websocket/index.js';

export const RECIPES = ['fetch', 'ccxt', 'gate-api', 'websocket'] as const;
export type Recipe = (typeof RECIPES)[number];

const DAY = 86_400_000;
const ORDER = { contract: 'BTC_USDT', size: 1, price: '60000' };

/** What a run needs of an engine: a placement and a cancel (each its answer's status), the fills asked once, and its limiter. */
export interface RecipeEngine {
  readonly limiter: AccountLimiter;
  /** One placement: 429 when the exchange refused it for its rate, its order id otherwise. */
  place(): Promise<{ readonly tooMany: boolean; readonly id?: string }>;
  cancel(id: string): Promise<{ readonly tooMany: boolean }>;
  /** The client's own "my trades" method, once. */
  myTrades(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A family's futures history for the model, the last two whole days: `makerVolume` over 100,000
 * placements a day (ratio 10: tier 5; 9: tier 4; 0: tier 1), so that the tier holds all day today.
 */
export function history(
  makerVolume: string,
  now = Date.now(),
): {
  activity: { account: string; day: string; contracts: { contract: string; makerVolume: string; place: number }[] }[];
} {
  const day = (n: number) => new Date(Math.floor(now / DAY) * DAY - n * DAY).toISOString().slice(0, 10);
  return {
    activity: [2, 1].map((n) => ({
      account: 'main',
      day: day(n),
      contracts: [{ contract: 'BTC_USDT', makerVolume, place: 100_000 }],
    })),
  };
}

/** The same history as the limiter's `seed` takes it. */
export function seedOf(h: ReturnType<typeof history>) {
  return { days: h.activity };
}

/**
 * The recipe's engine on the model exchange `ex`. `before` runs on the limiter before the client
 * is put behind it; `bare` leaves the client as it is (the limiter made, and unused): the peer a
 * benchmark measures beside it.
 */
export async function engineOf(
  recipe: Recipe,
  ex: Pick<Model, 'url' | 'wsUrl'>,
  before?: (limiter: AccountLimiter) => void,
  bare = false,
): Promise<RecipeEngine> {
  switch (recipe) {
    case 'fetch': {
      // docs/integrations.md, fetch: Node's fetch, signing each request as API v4 asks.
      const key = 'main-key';
      const secret = 'main-secret';
      const signed = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
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
        headers.set('KEY', key);
        headers.set('Timestamp', timestamp);
        headers.set('SIGN', createHmac('sha512', secret).update(payload).digest('hex'));
        headers.set('Content-Type', 'application/json');
        return fetch(url, { ...init, headers });
      };
      const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], marginMs: 5 });
      before?.(limiter);
      const gate: ReturnType<typeof limitedFetch> = bare
        ? signed
        : limitedFetch(limiter, { account: 'main', fetch: signed });
      const orders = `${ex.url}/api/v4/futures/usdt/orders`;
      return {
        limiter,
        async place() {
          const res = await gate(orders, { method: 'POST', body: JSON.stringify(ORDER) });
          const body = (await res.json()) as { id?: number };
          return { tooMany: res.status === 429, ...(body.id === undefined ? {} : { id: String(body.id) }) };
        },
        async cancel(id) {
          const res = await gate(`${orders}/${id}`, { method: 'DELETE', contract: 'BTC_USDT' });
          await res.arrayBuffer();
          return { tooMany: res.status === 429 };
        },
        async myTrades() {
          await (await gate(`${ex.url}/api/v4/futures/usdt/my_trades?contract=BTC_USDT`)).arrayBuffer();
        },
        async close() {
          limiter.close();
        },
      };
    }
    case 'ccxt': {
      // docs/integrations.md, ccxt.
      const gate = new ccxt.gate({ apiKey: 'main-key', secret: 'main-secret' });
      const api = gate.urls['api'] as Record<string, Record<string, string>>;
      for (const urls of Object.values(api)) for (const type of Object.keys(urls)) urls[type] = `${ex.url}/api/v4`;
      // (Against the exchange: no clock.)
      const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], marginMs: 5 });
      before?.(limiter);
      if (!bare) limitCcxt(limiter, gate, { account: 'main' });
      await gate.loadMarkets();
      const tooMany = (e: unknown) => {
        if (e instanceof ccxt.RateLimitExceeded) return true;
        if (e instanceof ccxt.ExchangeError) return false;
        throw e;
      };
      return {
        limiter,
        async place() {
          try {
            return { tooMany: false, id: (await gate.createOrder('BTC/USDT:USDT', 'limit', 'buy', 1, 60000)).id! };
          } catch (e) {
            return { tooMany: tooMany(e) };
          }
        },
        async cancel(id) {
          try {
            await gate.cancelOrder(id, 'BTC/USDT:USDT');
            return { tooMany: false };
          } catch (e) {
            return { tooMany: tooMany(e) };
          }
        },
        async myTrades() {
          await gate.fetchMyTrades('BTC/USDT:USDT');
        },
        async close() {
          limiter.close();
        },
      };
    }
    case 'gate-api': {
      // docs/integrations.md, gate-api (against the exchange: no clock).
      const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], marginMs: 5 });
      before?.(limiter);
      const client = new ApiClient(`${ex.url}/api/v4`);
      client.setApiKeySecret('main-key', 'main-secret');
      if (!bare) limitApiClient(limiter, { account: 'main', client });
      const futures = new FuturesApi(client);
      const status = (e: unknown): boolean => {
        const s = (e as { response?: { status?: unknown } } | null)?.response?.status;
        if (typeof s !== 'number') throw e;
        return s === 429;
      };
      return {
        limiter,
        async place() {
          try {
            return {
              tooMany: false,
              id: String(
                (await futures.createFuturesOrder('usdt', { contract: 'BTC_USDT', size: '1', price: '60000' })).body.id,
              ),
            };
          } catch (e) {
            return { tooMany: status(e) };
          }
        },
        async cancel(id) {
          try {
            await futures.cancelFuturesOrder('usdt', id);
            return { tooMany: false };
          } catch (e) {
            return { tooMany: status(e) };
          }
        },
        async myTrades() {
          await futures.getMyTrades('usdt', { contract: 'BTC_USDT' });
        },
        async close() {
          limiter.close();
        },
      };
    }
    case 'websocket': {
      // docs/integrations.md, WebSocket API, on a model whose WebSocket orders have a budget of
      // their own (see docs/rules.md#r16 `separate`: the tier replaces the WebSocket 100 per second).
      const limiter = new AccountLimiter({
        accounts: [{ id: 'main', role: 'main' }],
        marginMs: 5,
        websocketBudget: 'separate',
      });
      before?.(limiter);
      const socket = new WebSocket(`${ex.wsUrl}/v4/ws/usdt`);
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const api = bare
        ? bareWebSocket(socket)
        : limitedWebSocket(limiter, { account: 'main', socket, multipliers: { BTC_USDT: '0.0001' } });
      await api.request('futures.login', undefined, { payload: { api_key: 'main-key' } });
      socket.send(
        JSON.stringify({
          time: Math.floor(Date.now() / 1000),
          channel: 'futures.usertrades',
          event: 'subscribe',
          payload: ['!all'],
        }),
      );
      const refused = (status: unknown) => status === '311' || status === '312';
      return {
        limiter,
        async place() {
          const r = await api.request('futures.order_place', ORDER);
          const id = (r.data?.result as { id?: number } | undefined)?.id;
          return { tooMany: refused(r.header['status']), ...(id === undefined ? {} : { id: String(id) }) };
        },
        async cancel(id) {
          return { tooMany: refused((await api.request('futures.order_cancel', { order_id: id })).header['status']) };
        },
        async myTrades() {
          // The fills come on futures.usertrades after each reply: one more request lets the last arrive.
          await api.request('futures.order_status', { order_id: '1' });
        },
        async close() {
          api.close();
          socket.close();
          limiter.close();
        },
      };
    }
  }
}

/** What a saturating run through a recipe's engine came to. */
export interface RecipeRun {
  readonly recipe: Recipe;
  /** Answers 429 (311/312 over WebSocket), placements and cancels. */
  readonly tooMany: number;
  /** Placements the model accepted in each whole second of the run. */
  readonly perSecond: readonly number[];
  /** Placements accepted per second from the second second on, over `limit`. */
  readonly utilization: number;
  readonly accepted: number;
  /** The limiter's status at the end of the run: the limit in force and where it comes from. */
  readonly status: { readonly limit: number; readonly source: string };
}

/**
 * `workers` placing through the engine as fast as answers come back, a cancel of the latest order
 * every 10 ms, for `runMs`; the model's count of accepted placements read each second.
 */
export async function saturate(
  engine: RecipeEngine,
  ex: Model,
  options: { readonly runMs: number; readonly limit: number; readonly workers?: number },
): Promise<Omit<RecipeRun, 'recipe' | 'status'>> {
  // Over REST on the tier's limit; over WebSocket with a budget of its own, on that one (see docs/rules.md#r16).
  const placeAccepted = async () =>
    (await ex.stats()).accounts
      .find((a) => a.account === 'main')!
      .limits.filter((l) => l.key === 'futures.place' || l.key === 'ws.futures.place')
      .reduce((n, l) => n + l.accepted, 0);
  const start = performance.now();
  const end = start + options.runMs;
  const marks: Promise<number>[] = [placeAccepted()];
  const ticker = setInterval(() => marks.push(placeAccepted()), 1_000);
  let tooMany = 0;
  let lastId: string | undefined;
  const worker = async () => {
    while (performance.now() < end) {
      const r = await engine.place();
      if (r.tooMany) tooMany++;
      else if (r.id !== undefined) lastId = r.id;
    }
  };
  const canceller = async () => {
    while (performance.now() < end) {
      await new Promise((r) => setTimeout(r, 10));
      if (lastId !== undefined && (await engine.cancel(lastId)).tooMany) tooMany++;
    }
  };
  await Promise.all([...Array.from({ length: options.workers ?? 32 }, worker), canceller()]);
  clearInterval(ticker);
  const counts = await Promise.all(marks);
  const perSecond = counts.slice(1).map((m, i) => m - counts[i]!);
  const later = perSecond.slice(1);
  const utilization = later.length === 0 ? 0 : later.reduce((a, b) => a + b, 0) / (later.length * options.limit);
  return { tooMany, perSecond, utilization, accepted: (await placeAccepted()) - counts[0]! };
}

/** The model exchange as a run reads it: in this thread, or in a worker thread of its own. */
export interface Model {
  readonly url: string;
  readonly wsUrl: string;
  stats(): Promise<ModelExchangeStats>;
  close(): Promise<void>;
}

/** Starts the model exchange with `options`, in this thread or (`worker`) in a worker thread of its own. */
export async function startModel(options: Parameters<typeof startModelExchange>[0], worker = false): Promise<Model> {
  if (!worker) {
    const ex: RunningModelExchange = await startModelExchange(options);
    return { url: ex.url, wsUrl: ex.wsUrl, stats: async () => ex.stats(), close: () => ex.close() };
  }
  // The worker loads the TypeScript sources through tsx, as this thread does.
  const entry = new URL('./model-worker.ts', import.meta.url).href;
  const w = new Worker(
    `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(entry)}, ${JSON.stringify(import.meta.url)}))`,
    { eval: true, workerData: options },
  );
  const started = await new Promise<{ url: string; wsUrl: string }>((resolve, reject) =>
    w.once('message', resolve).once('error', reject),
  );
  const next = <T>(key: string) =>
    new Promise<T>((resolve) => {
      const on = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        w.off('message', on);
        resolve(m[key] as T);
      };
      w.on('message', on);
    });
  return {
    url: started.url,
    wsUrl: started.wsUrl,
    stats: () => {
      const answer = next<ModelExchangeStats>('stats');
      w.postMessage('stats');
      return answer;
    },
    close: async () => {
      const closed = next<boolean>('closed');
      w.postMessage('close');
      await closed;
      await w.terminate();
    },
  };
}

/**
 * One saturating run of `recipe` on a fresh model exchange whose family history gives `tier`
 * (5: 300 per second; 1: 100), the engine as the recipe shows it; `limiterHistory` seeds the
 * limiter first (a family history the exchange does not agree with).
 */
export async function runRecipe(
  recipe: Recipe,
  options: {
    readonly exchangeMakerVolume: string;
    readonly limit: number;
    readonly runMs: number;
    readonly limiterMakerVolume?: string;
    readonly bare?: boolean;
    /** The model in a worker thread of its own, not sharing the client's event loop. */
    readonly modelWorker?: boolean;
  },
): Promise<RecipeRun> {
  const ex = await startModel(
    {
      port: 0,
      history: history(options.exchangeMakerVolume),
      fills: { maker: 0, taker: 0 },
      websocketBudget: 'separate',
    },
    options.modelWorker,
  );
  const limiterHistory = options.limiterMakerVolume;
  const engine = await engineOf(
    recipe,
    ex,
    limiterHistory === undefined ? undefined : (limiter) => limiter.seed(seedOf(history(limiterHistory))),
    options.bare,
  );
  try {
    const run = await saturate(engine, ex, options);
    const { limit, source } = engine.limiter.limitNow('main');
    return { ...run, recipe, status: { limit, source } };
  } finally {
    await engine.close();
    await ex.close();
  }
}

/** A WebSocket API client with nothing in front of it: each request sent at once, its reply matched by req_id. */
function bareWebSocket(socket: WebSocket): Pick<ReturnType<typeof limitedWebSocket>, 'request' | 'close'> {
  type Reply = Awaited<ReturnType<ReturnType<typeof limitedWebSocket>['request']>>;
  const waiting = new Map<string, (reply: Reply) => void>();
  socket.on('message', (raw) => {
    const m = JSON.parse(String(raw)) as Reply & { request_id?: string };
    if (m.request_id !== undefined) waiting.get(m.request_id)?.(m);
    waiting.delete(String(m.request_id));
  });
  let n = 0;
  return {
    request: (channel, params, options = {}) =>
      new Promise<Reply>((resolve) => {
        const id = `bare-${++n}`;
        waiting.set(id, resolve);
        socket.send(
          JSON.stringify({
            time: Math.floor(Date.now() / 1000),
            channel,
            event: 'api',
            payload: { req_id: id, req_param: params, ...options.payload },
          }),
        );
      }),
    close: () => waiting.clear(),
  };
}
