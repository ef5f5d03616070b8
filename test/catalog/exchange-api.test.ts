import { describe, expect, it } from 'vitest';
import { Tracker } from '../../src/account/tracker.js';
import { GATE_API, OKX_API, apiOf } from '../../src/catalog/exchange-api.js';
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
    const days = t.dailyActivity();
    expect(days[0]!.contracts.map((c) => OKX_API.activityName!(c.contract))).toEqual(ids);
    expect(days[0]!.contracts[2]).toMatchObject({ place: 1, makerVolume: '5' });
    expect(days[0]!.contracts[0]!.contract).toBe('BTC_USDT_SWAP');
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
