import { afterEach, describe, expect, it } from 'vitest';
import type { RunningModelExchange } from '../../src/model-exchange/server.js';
import { call, model } from './helpers.js';

// A new order meets the book as its draw and its time in force say: taker unless post-only, maker
// unless IOC or FOK, and an IOC or FOK order that did not fill ends at once.
let running: RunningModelExchange | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const DRAWS = { taker: { taker: 1, maker: 0 }, maker: { taker: 0, maker: 1 }, open: { taker: 0, maker: 0 } } as const;

// [draw, tif] → [futures status, finish_as], [spot status, finish_as] (an open spot order's is `open`)
const CASES: [keyof typeof DRAWS, string, [string, string], [string, string]][] = [
  ['taker', 'gtc', ['finished', 'filled'], ['closed', 'filled']],
  ['taker', 'ioc', ['finished', 'filled'], ['closed', 'filled']],
  ['taker', 'fok', ['finished', 'filled'], ['closed', 'filled']],
  ['taker', 'poc', ['open', ''], ['open', 'open']],
  ['maker', 'gtc', ['finished', 'filled'], ['closed', 'filled']],
  ['maker', 'poc', ['finished', 'filled'], ['closed', 'filled']],
  ['maker', 'ioc', ['finished', 'ioc'], ['cancelled', 'ioc']],
  ['maker', 'fok', ['finished', 'cancelled'], ['cancelled', 'cancelled']],
  ['open', 'gtc', ['open', ''], ['open', 'open']],
  ['open', 'ioc', ['finished', 'ioc'], ['cancelled', 'ioc']],
  ['open', 'fok', ['finished', 'cancelled'], ['cancelled', 'cancelled']],
];

describe('a new order and its time in force', () => {
  it.each(CASES)('drawn %s with tif %s ends as the API says, futures and spot', async (draw, tif, futures, spot) => {
    const { ex } = await model('2026-11-21T10:00:00Z', { fills: DRAWS[draw] });
    running = ex;
    const f = await call(ex, 'POST', '/api/v4/futures/usdt/orders', 'main-key', {
      contract: 'BTC_USDT',
      size: 1,
      price: '60000',
      tif,
    });
    expect([f.body.status, f.body.finish_as]).toEqual(futures);
    const s = await call(ex, 'POST', '/api/v4/spot/orders', 'main-key', {
      currency_pair: 'ETH_USDT',
      side: 'buy',
      amount: '0.1',
      price: '3000',
      time_in_force: tif,
    });
    expect([s.body.status, s.body.finish_as]).toEqual(spot);
  });
});
