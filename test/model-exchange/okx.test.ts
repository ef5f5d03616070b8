import { afterEach, describe, expect, it } from 'vitest';
import type { RunningModelExchange } from '../../src/model-exchange/server.js';
import { startModelExchange } from '../../src/model-exchange/server.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { KEY_A, LOWERING_HISTORY, OKX_ACCOUNTS, RATIO_12_HISTORY, okxCall, okxSign, orders } from './okx-helpers.js';

const running: RunningModelExchange[] = [];
afterEach(async () => {
  for (const ex of running.splice(0)) await ex.close();
});

/** Ten swaps beside the default markets' five: room for a tier above 1,500 across their batch limits. */
const TEN = Array.from({ length: 10 }, (_, i) => `X${i}-USDT-SWAP`);
const MARKETS = {
  futures: {
    usdt: Object.fromEntries(TEN.map((id) => [id.replace('-USDT-SWAP', '_USDT'), { multiplier: '1', price: '10' }])),
  },
};

async function okxModel(start: string, options: Parameters<typeof startModelExchange>[0] = {}) {
  const clock = new VirtualClock({ wallStart: Date.parse(start) });
  const ex = await startModelExchange({
    clock,
    exchange: 'okx',
    accounts: OKX_ACCOUNTS,
    fills: { maker: 0, taker: 0 },
    ...options,
  });
  running.push(ex);
  const call = (method: 'GET' | 'POST', path: string, body?: unknown) => okxCall(ex, clock, method, path, body);
  const to = (iso: string) => clock.moveTo(Date.parse(iso) - Date.parse(start));
  return { ex, clock, call, to };
}

const PLACE = '/api/v5/trade/order';
const BATCH = '/api/v5/trade/batch-orders';
const one = (instId: string) => orders(instId, 1)[0]!;

describe('the model exchange on OKX: each instrument 60 per 2 s', () => {
  it('places 60 orders on an instrument, refuses the 61st with 50011 (HTTP 429) until 2 s after the first', async () => {
    const { call, to } = await okxModel('2026-11-21T10:00:00.000Z');
    for (let i = 0; i < 60; i++) {
      const r = await call('POST', PLACE, one('BTC-USDT-SWAP'));
      expect([r.status, r.body.code, r.body.data[0].sCode]).toEqual([200, '0', '0']);
    }
    const refused = await call('POST', PLACE, one('BTC-USDT-SWAP'));
    expect([refused.status, refused.body.code, refused.body.data]).toEqual([429, '50011', []]);
    // Another instrument has its own 60; cancels their own 60 too.
    expect((await call('POST', PLACE, one('ETH-USDT-SWAP'))).body.code).toBe('0');
    to('2026-11-21T10:00:01.999Z');
    expect((await call('POST', PLACE, one('BTC-USDT-SWAP'))).status).toBe(429);
    to('2026-11-21T10:00:02.000Z');
    const again = await call('POST', PLACE, one('BTC-USDT-SWAP'));
    expect([again.status, again.body.code]).toEqual([200, '0']);
  });

  it('counts a batch per order on the batch limit of each instrument, and answers each order apart', async () => {
    const { call } = await okxModel('2026-11-21T10:00:00.000Z');
    // 300 orders of BTC-USDT-SWAP fill its batch limit (300 per 2 s).
    for (let i = 0; i < 15; i++) expect((await call('POST', BATCH, orders('BTC-USDT-SWAP', 20))).body.code).toBe('0');
    const mixed = [one('BTC-USDT-SWAP'), one('ETH-USDT-SWAP'), one('BTC-USDT-SWAP'), one('SOL-USDT-SWAP')];
    const r = await call('POST', BATCH, mixed);
    expect([r.status, r.body.code, r.body.msg]).toEqual([200, '2', 'Bulk operation partially succeeded']);
    expect(r.body.data.map((d: { sCode: string }) => d.sCode)).toEqual(['50011', '0', '50011', '0']);
    expect(r.body.data[1].ordId).toMatch(/^\d+$/);
    expect(r.body.data[0].ordId).toBe('');
    // The single-order limit of BTC-USDT-SWAP is another: 60 per 2 s, untouched.
    expect((await call('POST', PLACE, one('BTC-USDT-SWAP'))).body.code).toBe('0');
    const pending = await call('GET', '/api/v5/trade/orders-pending?instId=ETH-USDT-SWAP');
    expect(pending.body.data.map((o: { ordId: string }) => o.ordId)).toEqual([r.body.data[1].ordId]);
  });
});

describe('the model exchange on OKX: the sub-account tier per 2 s', () => {
  const five = ['BTC-USDT-SWAP', 'ETH-USDT-SWAP', 'SOL-USDT-SWAP', 'DOGE-USDT-SWAP', 'BTC-USD-SWAP'];

  it('admits 1,000 new orders per 2 s at tier 1, answers the 1,001st with 50061, and frees them 2 s on', async () => {
    const { call, to } = await okxModel('2026-11-21T10:00:00.000Z');
    for (let i = 0; i < 50; i++) expect((await call('POST', BATCH, orders(five[i % 5]!, 20))).body.code).toBe('0');
    const r = await call('POST', PLACE, one('ETH-USDT-SWAP'));
    expect([r.status, r.body.code, r.body.msg, r.body.data[0].sCode]).toEqual([
      200,
      '1',
      'All operations failed',
      '50061',
    ]);
    // Cancels are not counted on the tier: one goes through at the full tier.
    const open = (await call('GET', '/api/v5/trade/orders-pending?instId=BTC-USDT-SWAP')).body.data[0];
    const cancel = await call('POST', '/api/v5/trade/cancel-order', { instId: 'BTC-USDT-SWAP', ordId: open.ordId });
    expect([cancel.body.code, cancel.body.data[0].ordId]).toEqual(['0', open.ordId]);
    to('2026-11-21T10:00:01.999Z');
    expect((await call('POST', PLACE, one('ETH-USDT-SWAP'))).body.data[0].sCode).toBe('50061');
    to('2026-11-21T10:00:02.000Z');
    expect((await call('POST', PLACE, one('ETH-USDT-SWAP'))).body.data[0].sCode).toBe('0');
  });

  it('admits the first orders of a batch that fit the tier, and refuses the rest with 50061', async () => {
    const { call } = await okxModel('2026-11-21T10:00:00.000Z');
    for (let i = 0; i < 49; i++) await call('POST', BATCH, orders(five[i % 5]!, 20));
    await call('POST', BATCH, orders('BTC-USD-SWAP', 15)); // 995 in
    const r = await call('POST', BATCH, [...orders('BTC-USDT-SWAP', 3), ...orders('ETH-USDT-SWAP', 4)]);
    expect(r.body.code).toBe('2');
    expect(r.body.data.map((d: { sCode: string }) => d.sCode)).toEqual(['0', '0', '0', '0', '0', '50061', '50061']);
    // Spot orders are exempt from the tier (O1): BTC-USDT is placed at the full tier.
    expect((await call('POST', PLACE, { ...one('BTC-USDT'), tdMode: 'cash', sz: '0.001' })).body.code).toBe('0');
  });

  it('takes a higher tier from the history: 2,500 per 2 s at a fill ratio of 12', async () => {
    const history = RATIO_12_HISTORY;
    const { call } = await okxModel('2026-11-21T10:00:00.000Z', { history, markets: MARKETS });
    const ids = TEN;
    // 2,500 orders over ten instruments (250 each, under their 300): all in; the 2,501st is not.
    for (let i = 0; i < 125; i++) expect((await call('POST', BATCH, orders(ids[i % 10]!, 20))).body.code).toBe('0');
    expect((await call('POST', BATCH, orders('X0-USDT-SWAP', 2))).body.data.map((d: any) => d.sCode)).toEqual([
      '50061',
      '50061',
    ]);
    const report = (await call('GET', '/api/v5/trade/account-rate-limit')).body.data[0];
    expect(report).toMatchObject({ accRateLimit: '2500', fillRatio: '12', nextAccRateLimit: '2500' });
  });
});

describe('the model exchange on OKX: a lowering lands at 08:00 UTC a day after the snapshot', () => {
  const history = LOWERING_HISTORY;

  it('reports 2,500 with 1,750 next through the grace day, and 1,750 from 08:00', async () => {
    const { call, to } = await okxModel('2026-11-03T07:59:59.000Z', { history });
    const report = async () => (await call('GET', '/api/v5/trade/account-rate-limit')).body.data[0];
    expect(await report()).toEqual({
      accRateLimit: '2500',
      fillRatio: '4',
      mainFillRatio: '4',
      nextAccRateLimit: '1750',
      ts: String(Date.parse('2026-11-02T08:00:00Z')),
    });
    // The endpoint answers once a second (its own limit): read a second before and at 08:00.
    to('2026-11-04T07:59:59.000Z');
    expect((await report()).accRateLimit).toBe('2500');
    to('2026-11-04T08:00:00.000Z');
    expect(await report()).toMatchObject({ accRateLimit: '1750', ts: String(Date.parse('2026-11-04T08:00:00Z')) });
  });

  it('admits 1,751 orders at 07:59:59.999 and refuses the next at 08:00:00.000', async () => {
    const { call, to } = await okxModel('2026-11-04T07:59:59.000Z', { history, markets: MARKETS });
    to('2026-11-04T07:59:59.999Z');
    const ids = TEN;
    for (let i = 0; i < 87; i++) expect((await call('POST', BATCH, orders(ids[i % 10]!, 20))).body.code).toBe('0');
    expect((await call('POST', BATCH, orders('X7-USDT-SWAP', 11))).body.code).toBe('0'); // 1,751 in
    to('2026-11-04T08:00:00.000Z');
    expect((await call('POST', PLACE, one('X8-USDT-SWAP'))).body.data[0].sCode).toBe('50061');
  });
});

describe('the model exchange on OKX: signing (O10)', () => {
  it('checks the OK-ACCESS headers, the passphrase, the timestamp and, when asked, the signature', async () => {
    const { ex, clock, call } = await okxModel('2026-11-21T10:00:00.000Z', { verifySignatures: true });
    const path = '/api/v5/account/balance';
    const with_ = (change: (h: Record<string, string>) => Record<string, string>) =>
      okxCall(ex, clock, 'GET', path, undefined, KEY_A, change);
    expect((await call('GET', path)).body.code).toBe('0');
    const bad = await with_((h) => ({
      ...h,
      'OK-ACCESS-SIGN': okxSign('other', h['OK-ACCESS-TIMESTAMP']!, 'GET', path, ''),
    }));
    expect([bad.status, bad.body]).toEqual([401, { code: '50113', msg: 'Invalid signature', data: [] }]);
    const codes = async (change: (h: Record<string, string>) => Record<string, string>) =>
      (await with_(change)).body.code;
    const without = (name: string) => (h: Record<string, string>) => {
      const { [name]: _, ...rest } = h;
      return rest;
    };
    expect(await codes(without('OK-ACCESS-KEY'))).toBe('50103');
    expect(await codes(without('OK-ACCESS-PASSPHRASE'))).toBe('50104');
    expect(await codes(without('OK-ACCESS-SIGN'))).toBe('50106');
    expect(await codes(without('OK-ACCESS-TIMESTAMP'))).toBe('50107');
    expect(await codes((h) => ({ ...h, 'OK-ACCESS-PASSPHRASE': 'wrong' }))).toBe('50105');
    expect(await codes((h) => ({ ...h, 'OK-ACCESS-KEY': 'nobody' }))).toBe('50111');
    expect(await codes((h) => ({ ...h, 'OK-ACCESS-TIMESTAMP': '1795338001' }))).toBe('50112');
    const late = (ms: number) => (h: Record<string, string>) => {
      const ts = new Date(clock.wall() + ms).toISOString();
      return { ...h, 'OK-ACCESS-TIMESTAMP': ts, 'OK-ACCESS-SIGN': okxSign(KEY_A.secret, ts, 'GET', path, '') };
    };
    expect(await codes(late(30_000))).toBe('0');
    expect(await codes(late(30_001))).toBe('50102');
    expect(ex.stats().accounts[0]!.refused).toMatchObject({ '50113': 1, '50102': 1, '50105': 1 });
  });
});
