import { describe, expect, it } from 'vitest';
import { Tracker } from '../../src/account/tracker.js';
import { GATE_API, OKX_API, apiOf } from '../../src/model-exchange/exchange-api.js';
import { ModelExchangeCore } from '../../src/model-exchange/core.js';
import { GATE } from '../../src/rules/gate/rulebook.js';
import { OKX } from '../../src/rules/okx/rulebook.js';

const T = Date.parse('2026-11-20T10:00:00Z');

describe('OKX_API', () => {
  it("keeps OKX's instrument ids in a tracker and reads them back, an option's decimal strike included", () => {
    const t = new Tracker();
    const ids = ['BTC-USDT-SWAP', 'BTC-USDT-261225', 'ETH-USD-261225-1750.5-P', 'BTC-USDT'];
    for (const id of ids) {
      const c = OKX_API.classify('POST', '/api/v5/trade/order', { instId: id.toLowerCase() });
      const tracked = OKX_API.requestTracked(c, id)!;
      t.recordRequest('a', tracked.name, 'place', T);
    }
    t.recordFill('a', OKX_API.fillTracked('spot', 'eth-usd-261225-1750.5-p').name, 'maker', '5', T);
    const days = OKX_API.ratioView(t).dailyActivity();
    expect(days[0]!.contracts.map((c) => c.contract)).toEqual(ids);
    expect(days[0]!.contracts[2]).toMatchObject({ place: 1, makerVolume: '5' });
    // The tracker itself is left as it was.
    expect(t.dailyActivity()[0]!.contracts[0]!.contract).toBe('BTC_USDT_SWAP');
  });

  it('labels refusals by code and counts every order request for the ratio', () => {
    expect(OKX_API.refusalLabel('sub-account')).toBe('50061');
    expect(OKX_API.refusalLabel('/api/v5/trade/order:BTC-USDT-SWAP')).toBe('50011');
    const spot = OKX_API.classify('POST', '/api/v5/trade/order', { instId: 'BTC-USDT' });
    expect(OKX_API.requestTracked(spot, 'BTC-USDT')).toEqual({ tracker: 'futures', name: 'BTC_USDT' });
    const read = OKX_API.classify('GET', '/api/v5/account/balance');
    expect(OKX_API.requestTracked(read, '')).toBeNull();
  });

  it('is the API of a variant of OKX’s rulebook, as Gate’s is of Gate’s', () => {
    expect(apiOf({ ...OKX, timing: { ...OKX.timing, lowering: 'at-snapshot' } })).toBe(OKX_API);
    expect(apiOf(GATE)).toBe(GATE_API);
    expect(() => apiOf({ ...OKX, name: 'binance' })).toThrow('no API is known for the rulebook "binance"');
  });
});

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
