import { afterEach, describe, expect, it, vi } from 'vitest';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/index.js';
import { API_DIALECTS } from '../../src/proxy/api-dialect.js';
import { LABELS } from '../../src/proxy/labels.js';
import { type RunningProxy, startProxy } from '../../src/proxy/server.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { OKX_SWAPS, okxAt, okxBatchesOverTier } from '../ccxt/helpers.js';
import { KEY_A, OKX_ACCOUNTS, okxCall, settled } from '../model-exchange/okx-helpers.js';

vi.setConfig({ testTimeout: 60_000 });

let exchange: RunningModelExchange | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await exchange?.close();
  proxy = exchange = undefined;
});

/**
 * The model on OKX and the proxy of OKX in front of it, one virtual clock for both (family desk at
 * VIP 5, account A: 1,000 new and amend orders per 2 s), a ccxt okx instance with A's key
 * speaking to the proxy, its own throttle off. ccxt signs with the machine's clock: within the
 * 30 s both check, the test being short.
 */
async function setUp() {
  const clock = new VirtualClock({ start: 0, wallStart: Date.now() });
  exchange = await startModelExchange({
    exchange: 'okx',
    port: 0,
    clock,
    accounts: OKX_ACCOUNTS,
    verifySignatures: true,
    fills: { maker: 0, taker: 0 },
  });
  proxy = await startProxy({ exchange: 'okx', upstream: exchange.url, accounts: OKX_ACCOUNTS, clock });
  const okx = okxAt({ url: proxy.url } as RunningModelExchange, {
    apiKey: KEY_A.key,
    secret: KEY_A.secret,
    password: KEY_A.passphrase,
    enableRateLimit: false,
  });
  await okx.loadMarkets();
  return { clock, okx, exchange, proxy };
}

/** The model's count of a limit of account A, by its key. */
function modelLimit(ex: RunningModelExchange, key: string) {
  return ex.stats().accounts[0]!.limits.find((x) => x.key === key);
}

describe('the proxy of OKX', () => {
  it("holds an okx engine's batches over the sub-account's 1,000 orders per 2 s: none answered 50061", async () => {
    const { clock, okx, exchange } = await setUp();
    const placing = okxBatchesOverTier(okx);
    await settled(clock, exchange);
    expect(modelLimit(exchange, 'sub-account')?.most).toBe(1000);
    await clock.advance(2_000);
    expect((await Promise.all(placing)).flat()).toHaveLength(1200);
    expect(exchange.stats().accounts[0]!.refused).toEqual({});
  });

  it("holds each instrument's 60 placements per 2 s, several at once, and lets a cancel pass them", async () => {
    const { clock, okx, exchange } = await setUp();
    const first = await okx.createOrder('SOL/USDT:USDT', 'limit', 'buy', 1, 10);
    // The swaps in turn; they reach the proxy in about that order (a placement waiting on its
    // instrument keeps its turn on the sub-account's limit, and those after it wait behind it).
    const placing = Array.from({ length: 70 }, () =>
      OKX_SWAPS.slice(0, 3).map(([symbol, price]) => okx.createOrder(symbol, 'limit', 'buy', 1, price)),
    ).flat();
    await settled(clock, exchange);
    expect(modelLimit(exchange, '/api/v5/trade/order:SOL-USDT-SWAP')?.accepted).toBeLessThanOrEqual(60);
    expect((await okx.cancelOrder(first.id!, 'SOL/USDT:USDT')).id).toBe(first.id);
    expect(clock.now()).toBe(0);
    await clock.advance(2_000);
    expect(await Promise.all(placing)).toHaveLength(210);
    expect(exchange.stats().accounts[0]!.refused).toEqual({});
    for (const id of ['BTC', 'ETH', 'SOL'])
      expect(modelLimit(exchange, `/api/v5/trade/order:${id}-USDT-SWAP`)?.most).toBe(60);
  });

  it("answers what it refuses itself in OKX's shape, never forwarded", async () => {
    const { clock, proxy, exchange } = await setUp();
    const at = { url: proxy.url } as RunningModelExchange;
    const accepted = exchange.stats().accounts[0]!.accepted;
    const unknown = await okxCall(at, clock, 'GET', '/api/v5/account/balance', undefined, {
      ...KEY_A,
      key: 'nobody',
    });
    expect(unknown).toEqual({
      status: 401,
      body: {
        code: '50111',
        msg: "TRADERATIO_UNKNOWN_KEY: the OK-ACCESS-KEY header names no account of the proxy's accounts file",
        data: [],
      },
    });
    const old = new Date(Math.floor(clock.wall()) - 40_000).toISOString();
    const expired = await okxCall(at, clock, 'GET', '/api/v5/account/balance', undefined, KEY_A, (h) => ({
      ...h,
      'OK-ACCESS-TIMESTAMP': old,
    }));
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('50102');
    expect(expired.body.msg).toMatch(
      /^TRADERATIO_REQUEST_EXPIRED: the signature's OK-ACCESS-TIMESTAMP \S+ is 40\.0 s old .*; the exchange allows 30 s either way \(50102 at the exchange\)/,
    );
    const gate = await fetch(`${proxy.url}/api/v4/spot/accounts`);
    expect([gate.status, ((await gate.json()) as { code: string }).code]).toEqual([404, '404']);
    expect(exchange.stats().accounts[0]!.accepted).toBe(accepted);
    // Signed as it should be: forwarded, and answered by the exchange.
    expect((await okxCall(at, clock, 'GET', '/api/v5/account/balance')).body.code).toBe('0');
  });

  it('answers a refusal for the rate as OKX documents 50011: HTTP 429', () => {
    const okx = API_DIALECTS.okx;
    expect(okx.own(503, LABELS.queueFull, 'too many wait')).toEqual({
      status: 429,
      body: { code: '50011', msg: 'TRADERATIO_QUEUE_FULL: too many wait', data: [] },
    });
    expect(okx.own(503, LABELS.closed, 'stopping').status).toBe(503);
    expect(okx.label(200, () => ({ code: '2', data: [{ sCode: '0' }, { sCode: '50061' }] }))).toBe('50061');
    expect(okx.label(429, () => ({ code: '50011', data: [] }))).toBe('50011');
    expect(okx.label(200, () => ({ code: '0', data: [] }))).toBeNull();
    expect(okx.tooMany(200, '50061')).toBe(true);
  });
});
