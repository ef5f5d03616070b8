import { describe, expect, it } from 'vitest';
import { OKX_API } from '../../src/catalog/exchange-api.js';
import { ModelExchangeCore } from '../../src/model-exchange/core.js';
import { OKX } from '../../src/rules/okx/rulebook.js';

const T = Date.parse('2026-11-20T10:00:00Z');

describe('ModelExchangeCore under OKX_API', () => {
  const core = () => new ModelExchangeCore([{ id: 'f', accounts: [{ id: 'a' }], vipLevel: 5 }], { api: OKX_API });

  it('refuses over the sub-account limit with 50061, and counts only what it admits', () => {
    const c = core();
    const a = c.account('a');
    const batchOn = (instId: string) =>
      OKX_API.classify(
        'POST',
        '/api/v5/trade/batch-orders',
        Array.from({ length: 20 }, () => ({ instId })),
      );
    const batches = ['BTC', 'ETH', 'SOL', 'XRP', 'ADA'].map((b) => batchOn(`${b}-USDT-SWAP`));
    // 1,000 orders fit tier 1 (50 batches of 20, 200 on each instrument); the 51st batch does not.
    const labels = Array.from({ length: 51 }, (_, i) => c.admit(a, batches[i % 5]!, T + i, '')?.label ?? null);
    expect(labels.slice(0, 50).every((l) => l === null)).toBe(true);
    expect(labels[50]).toBe('50061');
    // Still full 100 ms on; 2 s after the first batches, room again. Refused orders are not counted.
    expect(c.admit(a, batches[0]!, T + 100, '')?.label).toBe('50061');
    expect(c.admit(a, batches[0]!, T + 2100, '')).toBeNull();
    const counted = a.family.futures.dailyActivity()[0]!.contracts.reduce((n, x) => n + (x.place ?? 0), 0);
    expect(counted).toBe(20 * 51);
  });

  it('has no abuse throttle on the tier limit and rates with OKX’s rulebook', () => {
    const c = core();
    const a = c.account('a');
    const place = OKX_API.classify('POST', '/api/v5/trade/order', { instId: 'BTC-USDT-SWAP' });
    expect(c.limitsOf(a, place).map((l) => l.key)).toEqual(['sub-account', '/api/v5/trade/order:BTC-USDT-SWAP']);
    expect(c.inForce(a, T)).toMatchObject({ limit: 1000, throttle: null, spotThrottle: null });
    expect(c.family('f').config.rulebook).toBe(OKX);
  });
});

describe('ModelExchangeCore.admitOrders', () => {
  it('admits the first orders of a batch that fit where orders are answered apart (OKX)', () => {
    const c = new ModelExchangeCore([{ id: 'f', accounts: [{ id: 'a' }], vipLevel: 5 }], { api: OKX_API });
    const a = c.account('a');
    const batch = (instId: string, n: number) =>
      OKX_API.classify(
        'POST',
        '/api/v5/trade/batch-orders',
        Array.from({ length: n }, () => ({ instId })),
      );
    // 300 orders on each of three swaps (each one's batch limit), 90 on a fourth.
    for (const [id, n] of [
      ['BTC-USDT-SWAP', 10],
      ['ETH-USDT-SWAP', 10],
      ['BTC-USD-SWAP', 10],
      ['ETH-USD-SWAP', 3],
    ] as const) {
      for (let i = 0; i < n; i++) expect(c.admitOrders(a, batch(id, 30), T, '').admitted).toBe(30);
    }
    expect(c.admitOrders(a, batch('BTC-USD-SWAP', 2), T, '')).toMatchObject({ admitted: 0 });
    // 990 orders in: of 20 more, 10 fit the 1,000; the rest are refused by the sub-account limit.
    const r = c.admitOrders(a, batch('ETH-USD-SWAP', 20), T, '');
    expect([r.admitted, r.refused?.label]).toEqual([10, '50061']);
    expect(c.admitOrders(a, batch('ETH-USD-SWAP', 2), T, '')).toMatchObject({ admitted: 0 });
    const counted = a.family.futures.dailyActivity()[0]!.contracts.reduce((n, x) => n + (x.place ?? 0), 0);
    expect(counted).toBe(1000);
  });

  it("admits or refuses a batch whole on Gate's API", () => {
    const c = new ModelExchangeCore([{ id: 'f', accounts: [{ id: 'a' }] }]);
    const a = c.account('a');
    const batch = (n: number) =>
      c.api.classify(
        'POST',
        '/futures/usdt/batch_orders',
        Array.from({ length: n }, () => ({ contract: 'BTC_USDT' })),
      );
    expect(c.admitOrders(a, batch(90), T, 'BTC_USDT')).toMatchObject({ admitted: 90, refused: null });
    const r = c.admitOrders(a, batch(20), T, 'BTC_USDT');
    expect([r.admitted, r.refused?.key, r.refused?.label]).toEqual([0, 'futures.place', 'TOO_MANY_REQUESTS']);
  });
});
