import { afterEach, describe, expect, it } from 'vitest';
import ccxt from 'ccxt';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/server.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { okxAt } from '../ccxt/helpers.js';

let running: RunningModelExchange | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

// ccxt's okx, unmodified but for its URLs, against the model on OKX: the shapes it reads and
// the signatures it writes (checked) are those of OKX's API v5.
describe('ccxt okx against the model exchange on OKX', () => {
  it('loads markets, places, reads, amends and cancels orders, signed and checked', async () => {
    running = await startModelExchange({ exchange: 'okx', verifySignatures: true, fills: { maker: 0, taker: 0 } });
    const okx = okxAt(running, { enableRateLimit: false });
    const markets = await okx.loadMarkets();
    expect(Object.keys(markets)).toEqual(expect.arrayContaining(['BTC/USDT', 'BTC/USDT:USDT', 'BTC/USD:BTC']));
    const placed = await okx.createOrder('BTC/USDT:USDT', 'limit', 'buy', 1, 1000);
    const id = placed.id!;
    const read = await okx.fetchOrder(id, 'BTC/USDT:USDT');
    expect([read.id, read.status, read.amount, read.price]).toEqual([id, 'open', 1, 1000]);
    await okx.editOrder(id, 'BTC/USDT:USDT', 'limit', 'buy', 2, 1001);
    expect((await okx.fetchOpenOrders('BTC/USDT:USDT')).map((o) => [o.amount, o.price])).toEqual([[2, 1001]]);
    await okx.cancelOrder(id, 'BTC/USDT:USDT');
    expect(await okx.fetchOpenOrders('BTC/USDT:USDT')).toEqual([]);
    const batch = await okx.createOrders([
      { symbol: 'BTC/USDT:USDT', type: 'limit', side: 'buy', amount: 1, price: 1000 },
      { symbol: 'ETH/USDT', type: 'limit', side: 'buy', amount: 0.1, price: 100 },
    ]);
    expect(batch.map((o) => o.id)).toHaveLength(2);
    const total = (await okx.fetchBalance()).total as unknown as Record<string, number>;
    expect(total['USDT']).toBeGreaterThan(0);
    expect((await okx.fetchOrderBook('ETH/USDT:USDT', 5)).bids).toHaveLength(5);
  });

  it('reads 50011 as ccxt’s RateLimitExceeded: the 61st order of an instrument in 2 s', async () => {
    // The model's clock stands still (ccxt signs with the machine's, 30 s of leeway): all 61 in one instant.
    const clock = new VirtualClock({ wallStart: Date.now() });
    running = await startModelExchange({ exchange: 'okx', clock, fills: { maker: 0, taker: 0 } });
    const okx = okxAt(running, { enableRateLimit: false });
    await okx.loadMarkets();
    // ccxt places one order as a batch of one: OKX counts it on the single-order limit (O5).
    const all = await Promise.allSettled(
      Array.from({ length: 61 }, () => okx.createOrder('SOL/USDT:USDT', 'limit', 'buy', 1, 10)),
    );
    const refused = all.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(ccxt.RateLimitExceeded);
    expect(running.stats().accounts[0]!.refused).toEqual({ '50011': 1 });
  });
});
