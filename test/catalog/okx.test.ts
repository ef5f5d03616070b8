import { describe, expect, it } from 'vitest';
import { OKX_ENDPOINTS, classifyOkx } from '../../src/catalog/okx.js';

const SUB = { key: 'sub-account', scope: 'account' as const, limit: 1000, windowMs: 2000 };
const classify = (method: string, path: string, body?: unknown) => classifyOkx(method, path, body, SUB);

describe('classifyOkx', () => {
  it('puts a new order on the sub-account limit and on its instrument place limit', () => {
    expect(classify('post', '/api/v5/trade/order?x=1', { instId: 'btc-usdt-swap' })).toEqual({
      method: 'POST',
      endpoint: '/api/v5/trade/order',
      market: 'futures',
      action: 'place',
      orders: 1,
      weight: 1,
      instrument: 'BTC-USDT-SWAP',
      limits: [SUB, { key: '/api/v5/trade/order:BTC-USDT-SWAP', scope: 'account', limit: 60, windowMs: 2000 }],
    });
  });

  it('weighs a batch by its orders on both limits, and a batch of one on the single-order limit', () => {
    const batch = classify('POST', '/api/v5/trade/amend-batch-orders', [{ instId: 'ETH-USDT-SWAP' }, {}, {}]);
    expect(batch).toMatchObject({ action: 'amend', orders: 3, weight: 3 });
    expect(batch.limits.map((l) => [l.key, l.limit])).toEqual([
      ['sub-account', 1000],
      ['/api/v5/trade/amend-batch-orders:ETH-USDT-SWAP', 300],
    ]);
    const one = classify('POST', '/api/v5/trade/batch-orders', [{ instId: 'ETH-USDT-SWAP' }]);
    expect(one.limits.map((l) => [l.key, l.limit])).toEqual([
      ['sub-account', 1000],
      ['/api/v5/trade/order:ETH-USDT-SWAP', 60],
    ]);
  });

  it("leaves cancels and spot orders off the sub-account limit, and counts an option on its family's", () => {
    expect(
      classify('POST', '/api/v5/trade/cancel-order', { instId: 'BTC-USDT-SWAP' }).limits.map((l) => l.key),
    ).toEqual(['/api/v5/trade/cancel-order:BTC-USDT-SWAP']);
    expect(classify('POST', '/api/v5/trade/order', { instId: 'BTC-USDT' })).toMatchObject({
      market: 'spot',
      limits: [{ key: '/api/v5/trade/order:BTC-USDT', limit: 60 }],
    });
    expect(classify('POST', '/api/v5/trade/order', { instId: 'BTC-USD-261225-60000-C' })).toMatchObject({
      market: 'options',
      limits: [SUB, { key: '/api/v5/trade/order:BTC-USD' }],
    });
  });

  it('counts reads per account or per IP, at their own figures', () => {
    expect(classify('GET', '/api/v5/trade/account-rate-limit')).toMatchObject({
      market: 'other',
      action: 'other',
      limits: [{ key: 'GET /api/v5/trade/account-rate-limit', scope: 'account', limit: 1, windowMs: 1000 }],
    });
    expect(classify('GET', '/api/v5/public/instruments').limits).toEqual([
      { key: 'GET /api/v5/public/instruments', scope: 'ip', limit: 20, windowMs: 2000 },
    ]);
  });

  it('refuses a path that is none of the table, a batch that is no array, and a Gate contract name', () => {
    expect(() => classify('POST', '/futures/usdt/orders')).toThrow(
      /Expected `method` and `path` to be an OKX endpoint .*got "POST \/futures\/usdt\/orders"/,
    );
    expect(() => classify('POST', '/api/v5/trade/batch-orders', { instId: 'BTC-USDT-SWAP' })).toThrow(
      'Expected the body of POST /api/v5/trade/batch-orders to be an array of orders',
    );
    expect(() => classify('POST', '/api/v5/trade/batch-orders', [])).toThrow('to be at least one order');
    expect(() => classify('POST', '/api/v5/trade/order', { instId: 'BTC_USDT' })).toThrow(
      'Expected `instId` of POST /api/v5/trade/order to be an OKX instrument id',
    );
  });

  it('gives every endpoint a figure and its source', () => {
    for (const e of OKX_ENDPOINTS) {
      expect(e.limit.limit).toBeGreaterThan(0);
      expect(e.source).toMatch(/per (2 )?seconds?/);
      if (e.single !== undefined) expect(OKX_ENDPOINTS.some((x) => x.path === e.single && !x.batch)).toBe(true);
    }
  });
});
