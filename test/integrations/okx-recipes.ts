// The OKX engines of docs/integrations.md, each set up exactly as its recipe shows (the limiter
// and the one line in front of the client, nothing added), and a run that saturates the
// sub-account's limit through one of them against the model exchange on OKX, in real time: what
// the end-to-end test asserts (no answer 50011 or 50061).
import { createHmac } from 'node:crypto';
import ccxt from 'ccxt';
import { AccountLimiter } from '../../src/account/limiter.js';
import { limitCcxt } from '../../src/ccxt/index.js';
import { limitedFetch } from '../../src/fetch/index.js';
import type { RunningModelExchange } from '../../src/model-exchange/index.js';

export const OKX_RECIPES = ['okx-ccxt', 'okx-fetch'] as const;
export type OkxRecipe = (typeof OKX_RECIPES)[number];

/** The model's USDT swaps, and a price far below each (the orders rest). */
export const OKX_SWAPS: Readonly<Record<string, { readonly symbol: string; readonly px: number }>> = {
  'BTC-USDT-SWAP': { symbol: 'BTC/USDT:USDT', px: 1000 },
  'ETH-USDT-SWAP': { symbol: 'ETH/USDT:USDT', px: 100 },
  'SOL-USDT-SWAP': { symbol: 'SOL/USDT:USDT', px: 10 },
  'DOGE-USDT-SWAP': { symbol: 'DOGE/USDT:USDT', px: 0.1 },
};

/** What a run needs of an engine: placements (one, or a batch), a cancel, each its answer's OKX codes. */
export interface OkxRecipeEngine {
  readonly limiter: AccountLimiter;
  /** `n` orders on `instId` (one request; a batch when `n` > 1): each order's code, and the ids placed. */
  place(instId: string, n: number): Promise<{ readonly codes: readonly string[]; readonly ids: readonly string[] }>;
  cancel(instId: string, id: string): Promise<string>;
  close(): void;
}

/** The recipe's engine on the model exchange on OKX `ex` (its default account: main-key). */
export async function okxEngineOf(recipe: OkxRecipe, ex: Pick<RunningModelExchange, 'url'>): Promise<OkxRecipeEngine> {
  if (recipe === 'okx-ccxt') {
    // docs/integrations.md, ccxt's okx.
    const okx = new ccxt.okx({ apiKey: 'main-key', secret: 'main-secret', password: 'main-pass' });
    const api = okx.urls['api'] as Record<string, string>;
    for (const name of Object.keys(api)) api[name] = ex.url;
    okx.options['fetchMarkets'] = { types: ['spot', 'swap'] };
    const limiter = new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main', role: 'main' }] });
    limitCcxt(limiter, okx, { account: 'main' });
    await okx.loadMarkets();
    // ccxt throws for an answer whose code is not 0: its code is read from the error.
    const codeOf = (e: unknown): string => {
      if (!(e instanceof ccxt.ExchangeError)) throw e;
      return (/"sCode":"(\d+)"/.exec(e.message) ?? /"code":"(\d+)"/.exec(e.message))?.[1] ?? 'error';
    };
    return {
      limiter,
      async place(instId, n) {
        const { symbol, px } = OKX_SWAPS[instId]!;
        try {
          const placed =
            n === 1
              ? [await okx.createOrder(symbol, 'limit', 'buy', 1, px)]
              : await okx.createOrders(
                  Array.from({ length: n }, () => ({ symbol, type: 'limit', side: 'buy', amount: 1, price: px })),
                );
          // A batch partly placed (code 2) comes back whole: an order without an id was refused.
          return {
            codes: placed.map((o) => (o.id ? '0' : 'refused')),
            ids: placed.flatMap((o) => (o.id ? [o.id] : [])),
          };
        } catch (e) {
          return { codes: [codeOf(e)], ids: [] };
        }
      },
      async cancel(instId, id) {
        try {
          await okx.cancelOrder(id, OKX_SWAPS[instId]!.symbol);
          return '0';
        } catch (e) {
          return codeOf(e);
        }
      },
      close: () => limiter.close(),
    };
  }
  // docs/integrations.md, fetch for OKX: Node's fetch, signing each request as API v5 asks.
  const signed = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    const method = init.method ?? 'GET';
    const body = typeof init.body === 'string' ? init.body : '';
    const timestamp = new Date().toISOString();
    const headers = new Headers(init.headers);
    headers.set('OK-ACCESS-KEY', 'main-key');
    headers.set('OK-ACCESS-TIMESTAMP', timestamp);
    headers.set('OK-ACCESS-PASSPHRASE', 'main-pass');
    headers.set(
      'OK-ACCESS-SIGN',
      createHmac('sha256', 'main-secret')
        .update(timestamp + method + url.pathname + url.search + body)
        .digest('base64'),
    );
    headers.set('Content-Type', 'application/json');
    return fetch(url, { ...init, headers });
  };
  const limiter = new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main', role: 'main' }] });
  const okx = limitedFetch(limiter, { account: 'main', fetch: signed });
  const post = async (path: string, body: unknown) => {
    const res = await okx(`${ex.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
    return (await res.json()) as { code: string; data: { ordId: string; sCode: string }[] };
  };
  return {
    limiter,
    async place(instId, n) {
      const order = {
        instId,
        tdMode: 'cross',
        side: 'buy',
        ordType: 'limit',
        sz: '1',
        px: String(OKX_SWAPS[instId]!.px),
      };
      const a =
        n === 1
          ? await post('/api/v5/trade/order', order)
          : await post('/api/v5/trade/batch-orders', Array(n).fill(order));
      if (a.data.length === 0) return { codes: [a.code], ids: [] };
      return { codes: a.data.map((o) => o.sCode), ids: a.data.filter((o) => o.sCode === '0').map((o) => o.ordId) };
    },
    async cancel(instId, ordId) {
      const a = await post('/api/v5/trade/cancel-order', { instId, ordId });
      return a.data[0]?.sCode ?? a.code;
    },
    close: () => limiter.close(),
  };
}

/** What came of a run: each order's code by count, and the most the model counted on the sub-account's limit. */
export interface OkxRecipeRun {
  readonly codes: Readonly<Record<string, number>>;
  readonly cancels: number;
  readonly mostSubAccount: number;
}

/**
 * For `runMs`, 2 workers per swap place batches of 20 and 1 places single orders, each as fast as
 * answers come back, a canceller cancelling the latest order every 20 ms: batches on 4 swaps
 * could place 1,200 orders per 2 s, the sub-account allows 1,000.
 */
export async function saturateOkx(
  engine: OkxRecipeEngine,
  ex: RunningModelExchange,
  runMs: number,
): Promise<OkxRecipeRun> {
  const codes: Record<string, number> = {};
  const latest: [string, string][] = [];
  const end = Date.now() + runMs;
  const worker = async (instId: string, n: number) => {
    while (Date.now() < end) {
      const placed = await engine.place(instId, n);
      for (const c of placed.codes) codes[c] = (codes[c] ?? 0) + 1;
      for (const id of placed.ids) latest.push([instId, id]);
    }
  };
  let cancels = 0;
  const canceller = async () => {
    while (Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const last = latest.pop();
      if (last === undefined) continue;
      const code = await engine.cancel(...last);
      cancels++;
      codes[`cancel ${code}`] = (codes[`cancel ${code}`] ?? 0) + 1;
    }
  };
  await Promise.all([
    ...Object.keys(OKX_SWAPS).flatMap((instId) => [worker(instId, 20), worker(instId, 20), worker(instId, 1)]),
    canceller(),
  ]);
  const sub = ex.stats().accounts[0]!.limits.find((l) => l.key === 'sub-account');
  return { codes, cancels, mostSubAccount: sub?.most ?? 0 };
}
