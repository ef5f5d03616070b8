// What a simple market-making strategy calls, futures and spot, through ccxt's gate and through
// the official gate-api SDK against the model exchange, each checked on the fields a strategy
// reads: markets with precision and limits, time, tickers, order books, trades and candles from
// the price walks, balances and positions that follow the model's fills, orders by id, open and
// finished, amend, cancel, batches, and the account's trades.
import axios from 'axios';
import { ApiClient, FuturesApi, SpotApi } from 'gate-api';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/index.js';
import { gateAt } from '../ccxt/helpers.js';

const accounts = {
  families: [
    {
      id: 'desk',
      accounts: [
        {
          id: 'main',
          role: 'main' as const,
          keys: [{ key: 'main-key', secret: 'main-secret' }],
          balances: { spot: { USDT: '10000', ETH: '1' }, futures: { usdt: '5000' } },
        },
      ],
    },
  ],
};
// BTC_USDT orders rest open; ETH_USDT orders fill at once as taker, at their price.
const fills = { instruments: { BTC_USDT: { maker: 0, taker: 0 }, ETH_USDT: { maker: 0, taker: 1 } } };

let exchange: RunningModelExchange | undefined;
afterEach(async () => {
  await exchange?.close();
  exchange = undefined;
});

async function start(): Promise<RunningModelExchange> {
  exchange = await startModelExchange({ port: 0, accounts, fills, prices: { seed: 11 } });
  return exchange;
}

/** Every call a strategy makes, counted: the test fails naming those that threw. */
function calls() {
  const failed: string[] = [];
  let made = 0;
  return {
    async call<T>(name: string, fn: () => Promise<T>): Promise<T> {
      made++;
      try {
        return await fn();
      } catch (e) {
        failed.push(`${name}: ${(e as Error).message.slice(0, 200)}`);
        throw e;
      }
    },
    get made() {
      return made;
    },
    failed,
  };
}

function checkBook(bids: number[][], asks: number[][], levels: number): void {
  expect([bids.length, asks.length]).toEqual([levels, levels]);
  for (let i = 1; i < levels; i++) {
    expect(bids[i]![0]!).toBeLessThan(bids[i - 1]![0]!);
    expect(asks[i]![0]!).toBeGreaterThan(asks[i - 1]![0]!);
  }
  expect(bids[0]![0]!).toBeLessThan(asks[0]![0]!);
  for (const [, amount] of [...bids, ...asks]) expect(amount!).toBeGreaterThan(0);
}

function checkCandles(candles: number[][], spanMs: number, n: number): void {
  expect(candles.length).toBe(n);
  for (let i = 0; i < n; i++) {
    const [t, o, h, l, c, v] = candles[i]!;
    if (i > 0) expect(t! - candles[i - 1]![0]!).toBe(spanMs);
    expect(l!).toBeLessThanOrEqual(Math.min(o!, c!));
    expect(h!).toBeGreaterThanOrEqual(Math.max(o!, c!));
    expect(v!).toBeGreaterThan(0);
  }
}

describe('a market-making strategy through ccxt', () => {
  it('futures: markets, market data, balance and positions following fills, orders, batches, trades', async () => {
    const ex = await start();
    const gate = gateAt(ex);
    const { call, failed } = calls();
    const BTC = 'BTC/USDT:USDT';
    const ETH = 'ETH/USDT:USDT';
    try {
      const markets = await call('loadMarkets', () => gate.loadMarkets());
      expect(markets[BTC]).toMatchObject({
        contractSize: 0.0001,
        precision: { price: 0.1, amount: 1 },
        limits: { amount: { min: 1, max: 1_000_000 } },
        linear: true,
        settle: 'USDT',
      });
      expect(Math.abs((await call('fetchTime', () => gate.fetchTime()))! - Date.now())).toBeLessThan(5000);
      const ticker = await call('fetchTicker', () => gate.fetchTicker(BTC));
      expect(ticker.bid!).toBeLessThan(ticker.last!);
      expect(ticker.ask!).toBeGreaterThan(ticker.last!);
      expect(ticker.last! / 60000).toBeGreaterThan(0.8);
      const book = await call('fetchOrderBook', () => gate.fetchOrderBook(BTC, 10));
      checkBook(book.bids as number[][], book.asks as number[][], 10);
      const trades = await call('fetchTrades', () => gate.fetchTrades(BTC, undefined, 5));
      expect(trades.length).toBe(5);
      for (const t of trades)
        expect([t.price! > 0, t.amount! > 0, ['buy', 'sell'].includes(t.side!), Number.isFinite(t.timestamp)]).toEqual([
          true,
          true,
          true,
          true,
        ]);
      checkCandles((await call('fetchOHLCV', () => gate.fetchOHLCV(BTC, '1m', undefined, 5))) as number[][], 60_000, 5);
      expect((await call('fetchBalance', () => gate.fetchBalance({ type: 'swap' }))).USDT).toMatchObject({
        total: 5000,
        free: 5000,
      });

      // A resting order: by id, amended, open; then cancelled and finished.
      const resting = await call('createOrder', () => gate.createOrder(BTC, 'limit', 'buy', 2, 60000));
      expect(resting.status).toBe('open');
      expect(await call('fetchOrder', () => gate.fetchOrder(resting.id!, BTC))).toMatchObject({
        id: resting.id,
        status: 'open',
        price: 60000,
        amount: 2,
        filled: 0,
        remaining: 2,
        side: 'buy',
      });
      expect(await call('editOrder', () => gate.editOrder(resting.id!, BTC, 'limit', 'buy', 2, 59000))).toMatchObject({
        id: resting.id,
        price: 59000,
      });
      expect((await call('fetchOpenOrders', () => gate.fetchOpenOrders(BTC))).map((o) => o.id)).toEqual([resting.id]);
      expect((await call('cancelOrder', () => gate.cancelOrder(resting.id!, BTC))).status).toBe('canceled');
      expect((await call('fetchClosedOrders', () => gate.fetchClosedOrders(BTC))).map((o) => [o.id, o.status])).toEqual(
        [[resting.id, 'canceled']],
      );

      // Fills move the position and the balance: 3 bought at 3000, 1 sold at 3100 (0.01 ETH a contract).
      expect((await call('createOrder', () => gate.createOrder(ETH, 'limit', 'buy', 3, 3000))).status).toBe('closed');
      await call('createOrder', () => gate.createOrder(ETH, 'limit', 'sell', 1, 3100));
      const [position] = await call('fetchPositions', () => gate.fetchPositions([ETH]));
      expect(position).toMatchObject({ symbol: ETH, contracts: 2, side: 'long', entryPrice: 3000 });
      expect((await call('fetchBalance', () => gate.fetchBalance({ type: 'swap' }))).USDT!.total).toBe(5001);
      const mine = await call('fetchMyTrades', () => gate.fetchMyTrades(ETH));
      expect(mine.map((t) => [t.side, t.amount, t.price])).toEqual([
        ['buy', 3, 3000],
        ['sell', 1, 3100],
      ]);
      for (const t of mine)
        expect([typeof t.id, typeof t.order, Number.isFinite(t.timestamp)]).toEqual(['string', 'string', true]);

      // Batches: placed together, cancelled together, and what is left cancelled at once.
      const batch = await call('createOrders', () =>
        gate.createOrders([
          { symbol: BTC, type: 'limit', side: 'buy', amount: 1, price: 58000 },
          { symbol: BTC, type: 'limit', side: 'sell', amount: 1, price: 62000 },
          { symbol: BTC, type: 'limit', side: 'sell', amount: 1, price: 63000 },
        ]),
      );
      expect(batch.map((o) => o.status)).toEqual(['open', 'open', 'open']);
      await call('cancelOrders', () => gate.cancelOrders([batch[0]!.id!, batch[1]!.id!], BTC));
      expect((await gate.fetchOpenOrders(BTC)).map((o) => o.id)).toEqual([batch[2]!.id]);
      await call('cancelAllOrders', () => gate.cancelAllOrders(BTC));
      expect(await gate.fetchOpenOrders(BTC)).toEqual([]);
    } finally {
      expect(failed).toEqual([]);
    }
  }, 60_000);

  it('spot: pairs with precision, market data, balances following fills, orders, batches, trades', async () => {
    const ex = await start();
    const gate = gateAt(ex);
    const { call, failed } = calls();
    const BTC = 'BTC/USDT';
    const ETH = 'ETH/USDT';
    try {
      const markets = await call('loadMarkets', () => gate.loadMarkets());
      expect(markets[BTC]).toMatchObject({
        spot: true,
        precision: { price: 0.1, amount: 0.000001 },
        limits: { amount: { min: 0.000001 }, cost: { min: 1 } },
      });
      expect(Math.abs((await call('fetchTime', () => gate.fetchTime()))! - Date.now())).toBeLessThan(5000);
      const ticker = await call('fetchTicker', () => gate.fetchTicker(ETH));
      expect([ticker.bid! < ticker.last!, ticker.ask! > ticker.last!, ticker.last! / 3000 > 0.8]).toEqual([
        true,
        true,
        true,
      ]);
      const book = await call('fetchOrderBook', () => gate.fetchOrderBook(ETH, 10));
      checkBook(book.bids as number[][], book.asks as number[][], 10);
      const trades = await call('fetchTrades', () => gate.fetchTrades(ETH, undefined, 5));
      for (const t of trades)
        expect([t.price! > 0, t.amount! > 0, ['buy', 'sell'].includes(t.side!)]).toEqual([true, true, true]);
      checkCandles(
        (await call('fetchOHLCV', () => gate.fetchOHLCV(ETH, '5m', undefined, 4))) as number[][],
        300_000,
        4,
      );
      const before = await call('fetchBalance', () => gate.fetchBalance());
      expect([before.USDT, before.ETH]).toMatchObject([{ free: 10000, used: 0, total: 10000 }, { total: 1 }]);

      // A resting buy holds its value; a filled one moves both currencies.
      const resting = await call('createOrder', () => gate.createOrder(BTC, 'limit', 'buy', 0.01, 60000));
      expect(await call('fetchOrder', () => gate.fetchOrder(resting.id!, BTC))).toMatchObject({
        id: resting.id,
        status: 'open',
        price: 60000,
        amount: 0.01,
        filled: 0,
        remaining: 0.01,
      });
      expect(
        await call('editOrder', () => gate.editOrder(resting.id!, BTC, 'limit', 'buy', 0.01, 59000)),
      ).toMatchObject({ id: resting.id, price: 59000 });
      expect((await call('createOrder', () => gate.createOrder(ETH, 'limit', 'buy', 0.5, 3000))).status).toBe('closed');
      const after = await call('fetchBalance', () => gate.fetchBalance());
      expect([after.USDT, after.ETH]).toMatchObject([
        { used: 590, total: 8500, free: 7910 },
        { total: 1.5, free: 1.5 },
      ]);
      expect((await call('fetchOpenOrders', () => gate.fetchOpenOrders(BTC))).map((o) => o.id)).toEqual([resting.id]);
      expect((await call('cancelOrder', () => gate.cancelOrder(resting.id!, BTC))).status).toBe('canceled');
      expect((await call('fetchClosedOrders', () => gate.fetchClosedOrders(BTC))).map((o) => [o.id, o.status])).toEqual(
        [[resting.id, 'canceled']],
      );
      const mine = await call('fetchMyTrades', () => gate.fetchMyTrades(ETH));
      expect(mine.map((t) => [t.side, t.amount, t.price])).toEqual([['buy', 0.5, 3000]]);

      const batch = await call('createOrders', () =>
        gate.createOrders([
          { symbol: BTC, type: 'limit', side: 'buy', amount: 0.001, price: 58000 },
          { symbol: BTC, type: 'limit', side: 'buy', amount: 0.001, price: 57000 },
        ]),
      );
      expect(batch.map((o) => o.status)).toEqual(['open', 'open']);
      await call('cancelOrders', () => gate.cancelOrders([batch[0]!.id!], BTC));
      expect((await gate.fetchOpenOrders(BTC)).map((o) => o.id)).toEqual([batch[1]!.id]);
      await call('cancelAllOrders', () => gate.cancelAllOrders(BTC));
      expect(await gate.fetchOpenOrders(BTC)).toEqual([]);
    } finally {
      expect(failed).toEqual([]);
    }
  }, 60_000);
});

describe('a market-making strategy through the gate-api SDK', () => {
  it('futures and spot: the same calls, the same fields', async () => {
    const ex = await start();
    const client = new ApiClient(
      `${ex.url}/api/v4`,
      axios.create() as unknown as ConstructorParameters<typeof ApiClient>[1],
    );
    client.setApiKeySecret('main-key', 'main-secret');
    const futures = new FuturesApi(client);
    const spot = new SpotApi(client);

    const [contract] = (await futures.listFuturesContracts('usdt')).body;
    expect(contract).toMatchObject({
      name: 'BTC_USDT',
      quantoMultiplier: '0.0001',
      orderPriceRound: '0.1',
      orderSizeMin: 1,
    });
    const [ticker] = (await futures.listFuturesTickers('usdt', { contract: 'BTC_USDT' })).body;
    expect(Number(ticker!.highestBid)).toBeLessThan(Number(ticker!.lowestAsk));
    const book = (await futures.listFuturesOrderBook('usdt', 'BTC_USDT', { limit: 5, withId: true })).body;
    expect([
      book.bids.length,
      book.asks.length,
      Number(book.bids[0]!.p) < Number(book.asks[0]!.p),
      typeof book.id,
    ]).toEqual([5, 5, true, 'number']);
    expect((await futures.listFuturesTrades('usdt', 'BTC_USDT', { limit: 3 })).body.map((t) => typeof t.price)).toEqual(
      ['string', 'string', 'string'],
    );
    const candles = (await futures.listFuturesCandlesticks('usdt', 'BTC_USDT', { interval: '1m', limit: 3 })).body;
    expect(candles.map((c) => Number(c.l) <= Number(c.h))).toEqual([true, true, true]);
    expect((await futures.listFuturesAccounts('usdt')).body).toMatchObject({
      total: '5000',
      available: '5000',
      currency: 'USDT',
    });

    const placed = (
      await futures.createFuturesOrder('usdt', { contract: 'BTC_USDT', size: 1, price: '60000' } as never)
    ).body;
    expect((await futures.getFuturesOrder('usdt', String(placed.id))).body).toMatchObject({
      id: placed.id,
      status: 'open',
      size: 1,
      left: 1,
      price: '60000',
    });
    expect((await futures.amendFuturesOrder('usdt', String(placed.id), { price: '59500' })).body.price).toBe('59500');
    expect((await futures.listFuturesOrders('usdt', 'open', { contract: 'BTC_USDT' })).body.map((o) => o.id)).toEqual([
      placed.id,
    ]);
    expect((await futures.cancelFuturesOrder('usdt', String(placed.id))).body.finishAs).toBe('cancelled');
    const batch = (
      await futures.createBatchFuturesOrder('usdt', [
        { contract: 'BTC_USDT', size: 1, price: '58000' },
        { contract: 'ETH_USDT', size: 2, price: '3000' },
      ] as never)
    ).body;
    expect(batch.map((o) => [o.succeeded, o.status])).toEqual([
      [true, 'open'],
      [true, 'finished'],
    ]);
    expect(
      (await futures.cancelBatchFutureOrders('usdt', [String(batch[0]!.id)])).body.map((r) => r.succeeded),
    ).toEqual([true]);
    expect((await futures.cancelFuturesOrders('usdt', { contract: 'BTC_USDT' })).body).toEqual([]);
    const [position] = (await futures.listPositions('usdt', { holding: true })).body;
    expect(position).toMatchObject({ contract: 'ETH_USDT', size: 2, entryPrice: '3000' });
    const ranged = (
      await futures.getMyTradesWithTimeRange('usdt', { contract: 'ETH_USDT', from: Math.floor(Date.now() / 1000) - 60 })
    ).body;
    expect(ranged.map((t) => [typeof t.tradeId, t.size, t.price, t.role])).toEqual([['string', '2', '3000', 'taker']]);

    const pair = (await spot.listCurrencyPairs()).body.find((p) => p.id === 'ETH_USDT');
    expect(pair).toMatchObject({
      base: 'ETH',
      quote: 'USDT',
      precision: 2,
      amountPrecision: 5,
      minQuoteAmount: '1',
      tradeStatus: 'tradable',
    });
    expect(Math.abs(Number((await spot.getSystemTime()).body.serverTime) - Date.now())).toBeLessThan(5000);
    const [spotTicker] = (await spot.listTickers({ currencyPair: 'ETH_USDT' })).body;
    expect(Number(spotTicker!.highestBid)).toBeLessThan(Number(spotTicker!.lowestAsk));
    const spotBook = (await spot.listOrderBook('ETH_USDT', { limit: 3 })).body;
    expect([spotBook.bids.length, Number(spotBook.bids[0]![0]) < Number(spotBook.asks[0]![0])]).toEqual([3, true]);
    expect((await spot.listTrades('ETH_USDT', { limit: 2 })).body.length).toBe(2);
    expect((await spot.listCandlesticks('ETH_USDT', { interval: '1m', limit: 2 })).body.length).toBe(2);
    const order = (
      await spot.createOrder({ currencyPair: 'BTC_USDT', side: 'buy', amount: '0.01', price: '60000' } as never)
    ).body;
    expect((await spot.getOrder(order.id!, 'BTC_USDT')).body).toMatchObject({
      id: order.id,
      status: 'open',
      left: '0.01',
    });
    expect((await spot.amendOrder(order.id!, { price: '59000' }, { currencyPair: 'BTC_USDT' })).body.price).toBe(
      '59000',
    );
    expect((await spot.listAllOpenOrders()).body.map((p) => [p.currencyPair, p.total])).toEqual([['BTC_USDT', 1]]);
    expect((await spot.listOrders('BTC_USDT', 'open')).body.map((o) => o.id)).toEqual([order.id]);
    expect((await spot.listSpotAccounts({ currency: 'USDT' })).body).toEqual([
      expect.objectContaining({ currency: 'USDT', available: '9410', locked: '590' }),
    ]);
    expect((await spot.cancelOrder(order.id!, 'BTC_USDT')).body.status).toBe('cancelled');
    const spotBatch = (
      await spot.createBatchOrders([{ currencyPair: 'ETH_USDT', side: 'sell', amount: '0.2', price: '3100' } as never])
    ).body;
    expect(spotBatch.map((o) => [o.succeeded, o.status])).toEqual([[true, 'closed']]);
    expect(
      (await spot.listMyTrades({ currencyPair: 'ETH_USDT' })).body.map((t) => [t.side, t.amount, t.price]),
    ).toEqual([['sell', '0.2', '3100']]);
    const rest = (
      await spot.createOrder({ currencyPair: 'BTC_USDT', side: 'buy', amount: '0.001', price: '50000' } as never)
    ).body;
    expect(
      (await spot.cancelBatchOrders([{ currencyPair: 'BTC_USDT', id: rest.id! }])).body.map((r) => r.succeeded),
    ).toEqual([true]);
    expect((await spot.cancelOrders({ currencyPair: 'BTC_USDT' })).body).toEqual([]);
    expect((await spot.listSpotAccounts({ currency: 'ETH' })).body).toEqual([
      expect.objectContaining({ available: '0.8', locked: '0' }),
    ]);
  }, 60_000);
});
