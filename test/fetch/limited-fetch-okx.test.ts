import { AccountLimiter } from '../../src/account/limiter.js';
import { describe, expect, it } from 'vitest';
import { type FetchFunction, limitedFetch } from '../../src/fetch/index.js';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/index.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { closeAfterEach } from '../e2e/harness.js';
import { okxSign, orders, settled } from '../model-exchange/okx-helpers.js';

const live = closeAfterEach();
// The model's USDT swaps, and a price far below each (the orders rest).
const PRICES: Readonly<Record<string, string>> = {
  'BTC-USDT-SWAP': '1000',
  'ETH-USDT-SWAP': '100',
  'SOL-USDT-SWAP': '10',
  'DOGE-USDT-SWAP': '0.1',
};
const SWAPS = Object.keys(PRICES);
const resting = (instId: string, n: number) => orders(instId, n, { px: PRICES[instId] });

/**
 * The model on OKX and an OKX limiter on one virtual clock (1,000 new and amend orders per 2 s), a
 * limited fetch whose inner `fetch` signs each request as it leaves (the model's default key), and
 * records what it sent.
 */
async function setUp(options: { askRateLimit?: boolean } = {}) {
  const clock = new VirtualClock({ start: 0, wallStart: Date.now() });
  live.exchange = await startModelExchange({
    exchange: 'okx',
    port: 0,
    clock,
    verifySignatures: true,
    fills: { maker: 0, taker: 0 },
  });
  live.limiter = new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main', role: 'main' }], clock });
  const sent: string[] = [];
  const signed: FetchFunction = (input, init) => {
    const url = new URL(String(input));
    const ts = new Date(Math.floor(clock.wall())).toISOString();
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? init.body : '';
    const headers = new Headers(init?.headers);
    headers.set('Content-Type', 'application/json');
    headers.set('OK-ACCESS-KEY', 'main-key');
    headers.set('OK-ACCESS-SIGN', okxSign('main-secret', ts, method, url.pathname + url.search, body));
    headers.set('OK-ACCESS-TIMESTAMP', ts);
    headers.set('OK-ACCESS-PASSPHRASE', 'main-pass');
    sent.push(`${method} ${url.pathname}`);
    return fetch(input, { ...init, headers });
  };
  const okx = limitedFetch(live.limiter, {
    account: 'main',
    fetch: signed,
    askRateLimit: options.askRateLimit ?? false,
  });
  return { clock, okx, sent, limiter: live.limiter, exchange: live.exchange };
}

/** The model's count of a limit of the main account, by its key. */
function modelLimit(ex: RunningModelExchange, key: string) {
  return ex.stats().accounts[0]!.limits.find((x) => x.key === key);
}

const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });

describe('limitedFetch on OKX', () => {
  it("asks the exchange's figure and its time at the first request's host, before that request", async () => {
    const { okx, sent, exchange, limiter } = await setUp({ askRateLimit: true });
    const res = await okx(`${exchange.url}/api/v5/trade/orders-pending?instType=SWAP`);
    expect(((await res.json()) as { code: string }).code).toBe('0');
    expect(sent.slice(0, 2).sort()).toEqual(['GET /api/v5/public/time', 'GET /api/v5/trade/account-rate-limit']);
    expect(sent[2]).toBe('GET /api/v5/trade/orders-pending');
    expect(limiter.limitNow('main').limit).toBe(1000);
    expect(limiter.clockEstimate()).not.toBeNull();
    await expect(okx(`${exchange.url}/api/v4/spot/accounts`)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    // OKX's fills come to the limiter through recordFill: no poll.
    expect(() => limitedFetch(limiter, { account: 'main', fills: { everyMs: 1000 } })).toThrow(
      /Expected `fills` to be left out on a limiter of OKX, which takes fills from limiter.recordFill/,
    );
  });

  it("holds batches over the sub-account's 1,000 orders per 2 s: none answered 50061", async () => {
    const { clock, okx, exchange } = await setUp();
    // 4 swaps × 15 batches of 20: 1,200 orders, each swap's 300 within its batch limit.
    const placing = SWAPS.flatMap((instId) =>
      Array.from({ length: 15 }, () => okx(`${exchange.url}/api/v5/trade/batch-orders`, post(resting(instId, 20)))),
    );
    await settled(clock, exchange);
    expect(modelLimit(exchange, 'sub-account')?.most).toBe(1000);
    await clock.advance(2_000);
    const bodies = await Promise.all((await Promise.all(placing)).map((r) => r.json() as Promise<{ code: string }>));
    expect(bodies.map((b) => b.code)).toEqual(Array(60).fill('0'));
    expect(exchange.stats().accounts[0]!.refused).toEqual({});
  });

  it("holds each instrument's 60 placements per 2 s, and sends a cancel at once while they wait", async () => {
    const { clock, okx, exchange } = await setUp();
    const place = (instId: string) => okx(`${exchange.url}/api/v5/trade/order`, post(resting(instId, 1)[0]));
    const first = (await (await place('SOL-USDT-SWAP')).json()) as { data: { ordId: string }[] };
    // The swaps in turn: a placement waiting on its instrument keeps its turn on the sub-account's
    // limit, and those after it wait behind it (docs/okx.md#o5).
    const placing = Array.from({ length: 70 }, () => SWAPS.slice(0, 3).map(place)).flat();
    await settled(clock, exchange);
    expect(modelLimit(exchange, '/api/v5/trade/order:SOL-USDT-SWAP')?.accepted).toBe(60);
    const cancel = await okx(
      `${exchange.url}/api/v5/trade/cancel-order`,
      post({ instId: 'SOL-USDT-SWAP', ordId: first.data[0]!.ordId }),
    );
    expect(((await cancel.json()) as { code: string }).code).toBe('0');
    expect(clock.now()).toBe(0);
    await clock.advance(2_000);
    const answers = await Promise.all(placing);
    expect(answers.map((r) => r.status)).toEqual(Array(210).fill(200));
    expect(exchange.stats().accounts[0]!.refused).toEqual({});
    for (const instId of SWAPS.slice(0, 3))
      expect(modelLimit(exchange, `/api/v5/trade/order:${instId}`)?.most).toBe(60);
  });
});
