import { describe, expect, it } from 'vitest';
import { LogActivity } from '../../src/advise/log-activity.js';
import { createCatalog } from '../../src/catalog/catalog.js';

const catalog = createCatalog();
const cancel = catalog.classify('DELETE', '/api/v4/futures/usdt/orders/1');
const place = catalog.classify('POST', '/api/v4/futures/usdt/orders', { contract: 'BTC_USDT' });
const t0 = Date.UTC(2026, 10, 20, 9);

describe('LogActivity', () => {
  it('pairs a placement with a cancel at most the window before it, on the same contract and account', () => {
    const log = new LogActivity(1000);
    const m = log.account('m');
    const n = log.account('n');
    log.request(t0, m, cancel, 'BTC_USDT');
    log.request(t0 + 1000, m, place, 'BTC_USDT'); // exactly the window: a pair
    log.request(t0 + 2000, m, cancel, 'BTC_USDT');
    log.request(t0 + 3001, m, place, 'BTC_USDT'); // 1,001 ms: not
    log.request(t0 + 4000, m, cancel, 'BTC_USDT');
    log.request(t0 + 4100, m, place, 'ETH_USDT'); // another contract: not
    log.request(t0 + 4200, n, place, 'BTC_USDT'); // another account: not
    log.request(t0 + 4300, m, place, 'BTC_USDT'); // a pair
    log.request(t0 + 4400, m, place, 'BTC_USDT'); // its cancel is taken: not
    const w = log.window(Date.UTC(2026, 10, 20), false);
    expect(w.pairs).toEqual([{ account: 'm', contract: 'BTC_USDT', pairs: 2 }]);
    expect(w.accounts[0]!.contracts.find((c) => c.contract === 'BTC_USDT')).toMatchObject({ place: 4, cancel: 3 });
  });

  it('keeps one window of cancels per contract, however many go without a placement', () => {
    const log = new LogActivity(1000);
    const m = log.account('m');
    for (let i = 0; i < 100_000; i++) log.request(t0 + i * 10, m, cancel, 'BTC_USDT');
    const p = m.pending.get('BTC_USDT')!;
    expect(p.at.length - p.head).toBe(101);
    expect(p.at.length).toBeLessThan(2200);
  });
});
