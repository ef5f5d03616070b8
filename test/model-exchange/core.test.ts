import { describe, expect, it } from 'vitest';
import { createCatalog } from '../../src/catalog/catalog.js';
import { ModelExchangeCore } from '../../src/model-exchange/core.js';
import { WORKED_EXAMPLE } from '../../src/rules/example.js';

const catalog = createCatalog();
const place = catalog.classify('POST', '/api/v4/futures/usdt/orders', { contract: 'BTC_USDT' });
const cancel = catalog.classify('DELETE', '/api/v4/futures/usdt/orders/1');
const DAY = '2026-11-20';
const NEXT = Date.parse('2026-11-21T00:00:00Z');

function exampleCore(window: 'sliding' | 'fixed' = 'sliding'): ModelExchangeCore {
  const core = new ModelExchangeCore(
    [
      {
        id: 'f',
        accounts: [{ id: 'A', role: 'main' }, { id: 'B' }, { id: 'C' }],
        options: { ownVolumeThreshold: '0' },
      },
    ],
    { window },
  );
  core.seed({ days: WORKED_EXAMPLE.map((a) => ({ account: a.account, day: DAY, contracts: a.contracts })) });
  return core;
}

describe('ModelExchangeCore', () => {
  it('puts the worked example at 250, 250 and 300 from 08:00, and 100 before (see docs/rules.md#r5, #r7)', () => {
    const core = exampleCore();
    const limits = (at: number) => ['A', 'B', 'C'].map((id) => core.inForce(core.account(id), at).limit);
    expect(limits(NEXT + 8 * 3_600_000 - 1)).toEqual([100, 100, 100]);
    expect(limits(NEXT + 8 * 3_600_000)).toEqual([250, 250, 300]);
  });

  it('admits 300 of 400 placements in one second on C at tier 5, and counts all 400 (see docs/rules.md#r9)', () => {
    const core = exampleCore();
    const c = core.account('C');
    const t = NEXT + 9 * 3_600_000;
    const refused = Array.from({ length: 400 }, (_, i) => core.admit(c, place, t + i * 2, 'BTC_USDT')).filter(
      (r) => r !== null,
    );
    expect(refused.length).toBe(100);
    expect(new Set(refused.map((r) => `${r!.key} ${r!.label}`))).toEqual(new Set(['futures.place TOO_MANY_REQUESTS']));
    expect(c.family.futures.hourlyActivity('C').at(-1)?.requests).toBe(400);
    // Cancels have their own limit (see docs/rules.md#r10): the full placement limit does not hold them.
    expect(core.admit(c, cancel, t + 900, 'BTC_USDT')).toBeNull();
    expect(core.admit(c, place, t + 1000, 'BTC_USDT')).toBeNull();
  });

  it('lets 2 x 300 through across an aligned boundary with fixed windows, not with sliding ones', () => {
    for (const [mode, admitted] of [
      ['sliding', 300],
      ['fixed', 600],
    ] as const) {
      const core = exampleCore(mode);
      const c = core.account('C');
      const t = NEXT + 9 * 3_600_000 + 500;
      let n = 0;
      for (let i = 0; i < 600; i++) if (core.admit(c, place, t + (i < 300 ? 499 : 500), 'BTC_USDT') === null) n++;
      expect(n).toBe(admitted);
      expect(c.limits.get('futures.place')!.count.most).toBe(300);
    }
  });

  it('throttles placement, not cancels, the hour after more than 86,400 requests with nothing traded (see docs/rules.md#r9)', () => {
    const core = new ModelExchangeCore([{ id: 'f', accounts: [{ id: 'main', role: 'main' }] }], {
      abuse: { requestThreshold: 100 },
    });
    const a = core.account('main');
    const h = Date.parse('2026-11-21T10:00:00Z');
    for (let i = 0; i < 101; i++) core.admit(a, i % 2 === 0 ? place : cancel, h + i * 20, 'BTC_USDT');
    expect(core.inForce(a, h + 3_599_999).throttle).toBeNull();
    expect(core.inForce(a, h + 3_600_000).throttle?.reason).toBe('no-fills');
    const after = Array.from(
      { length: 12 },
      (_, i) => core.admit(a, place, h + 3_600_000 + i, 'BTC_USDT')?.key ?? 'ok',
    );
    expect(after.filter((k) => k === 'ok').length).toBe(10);
    expect(after.at(-1)).toBe('abuse-throttle');
    expect(core.admit(a, cancel, h + 3_600_100, 'BTC_USDT')).toBeNull();
  });

  it('throttles spot placement and amendment, not cancels or batches, from the hour after a fill ratio below 0.1 (see docs/rules.md#r14)', () => {
    const core = new ModelExchangeCore([{ id: 'f', accounts: [{ id: 'main', role: 'main' }] }]);
    const a = core.account('main');
    const spotPlace = catalog.classify('POST', '/api/v4/spot/orders', { currency_pair: 'ETH_USDT' });
    const spotAmend = catalog.classify('PATCH', '/api/v4/spot/orders/1', { currency_pair: 'ETH_USDT' });
    const spotCancel = catalog.classify('DELETE', '/api/v4/spot/orders/1?currency_pair=ETH_USDT');
    const spotBatch = catalog.classify('POST', '/api/v4/spot/batch_orders', [{ currency_pair: 'BTC_USDT' }]);
    const h = Date.parse('2026-11-21T10:00:00Z');
    // 100 spot requests and 9.99 USDT traded in the hour 10:00: a fill ratio of 0.0999.
    for (let i = 0; i < 100; i++) expect(core.admit(a, spotPlace, h + i * 1000, 'ETH_USDT')).toBeNull();
    core.recordFill(a, 'spot', 'ETH_USDT', 'maker', '9.99', h + 200_000);
    expect(core.inForce(a, h + 3_599_999).spotThrottle).toBeNull();
    expect(core.inForce(a, h + 3_600_000).spotThrottle).toEqual({
      limit: 10,
      windowMs: 10_000,
      reason: 'low-fill-rate',
    });
    const t = h + 3_600_000;
    // 150 ms apart: well inside the pair's own 10 per second (see docs/rules.md#r10).
    const placed = Array.from({ length: 6 }, (_, i) => core.admit(a, spotPlace, t + i * 150, 'ETH_USDT')?.key ?? 'ok');
    const amended = Array.from(
      { length: 5 },
      (_, i) => core.admit(a, spotAmend, t + 900 + i * 150, 'ETH_USDT')?.key ?? 'ok',
    );
    expect([...placed, ...amended].filter((k) => k === 'ok').length).toBe(10);
    expect(amended.at(-1)).toBe('spot-fill-throttle');
    expect(core.admit(a, spotCancel, t + 2000, 'ETH_USDT')).toBeNull();
    expect(core.admit(a, spotBatch, t + 2001, 'BTC_USDT')).toBeNull();
    // Futures placement is not throttled by the spot low-fill throttle (see docs/rules.md#r14).
    expect(core.admit(a, place, t + 2002, 'BTC_USDT')).toBeNull();
  });

  it('does not throttle spot at a fill ratio of exactly 0.1, and throttles batches with includeBatches (see docs/rules.md#r14)', () => {
    const run = (traded: string, includeBatches: boolean) => {
      const core = new ModelExchangeCore([{ id: 'f', accounts: [{ id: 'main', role: 'main' }] }], {
        spotFill: { includeBatches },
      });
      const a = core.account('main');
      const batch = catalog.classify('POST', '/api/v4/spot/batch_orders', [{ currency_pair: 'ETH_USDT' }]);
      const h = Date.parse('2026-11-21T10:00:00Z');
      for (let i = 0; i < 100; i++) core.admit(a, batch, h + i * 1000, 'ETH_USDT');
      core.recordFill(a, 'spot', 'ETH_USDT', 'taker', traded, h + 200_000);
      const t = h + 3_600_000;
      return Array.from({ length: 11 }, (_, i) => core.admit(a, batch, t + i * 150, 'ETH_USDT')?.key ?? 'ok').filter(
        (k) => k !== 'ok',
      );
    };
    expect(run('10', true)).toEqual([]);
    expect(run('9.99', true)).toEqual(['spot-fill-throttle']);
    expect(run('9.99', false)).toEqual([]);
  });

  it('counts an order and its fill at an instant with a fraction of a millisecond, in that millisecond', () => {
    const core = exampleCore();
    const a = core.account('A');
    const t = NEXT + 3_600_000 + 0.25;
    expect(core.admit(a, place, t, 'BTC_USDT')).toBeNull();
    core.recordFill(a, 'futures', 'BTC_USDT', 'maker', '60', t + 0.5);
    const snapshot = a.family.futures.snapshot();
    expect(snapshot.latest).toBe(NEXT + 3_600_000);
    expect(snapshot.hours.filter((h) => h.account === 'A').at(-1)).toEqual({
      account: 'A',
      hour: '2026-11-21T01:00:00.000Z',
      requests: 1,
      traded: '60',
    });
  });

  it('labels a refused withdrawal TOO_FAST (see docs/rules.md#r12)', () => {
    const core = new ModelExchangeCore([{ id: 'f', accounts: [{ id: 'main', role: 'main' }] }]);
    const w = catalog.classify('POST', '/withdrawals');
    const a = core.account('main');
    const t = Date.parse('2026-11-21T10:00:00Z');
    expect(core.admit(a, w, t)).toBeNull();
    expect(core.admit(a, w, t + 2999)?.label).toBe('TOO_FAST');
    expect(core.admit(a, w, t + 3000)).toBeNull();
  });

  it('refuses history for an account it does not hold, and keeps what it had', () => {
    const core = exampleCore();
    expect(() => core.seed({ days: [{ account: 'Z', day: DAY, contracts: [] }] })).toThrow(/activity\[0\]\.account/);
    expect(core.inForce(core.account('C'), NEXT + 9 * 3_600_000).limit).toBe(300);
  });
});
