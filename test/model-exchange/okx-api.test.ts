import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningModelExchange } from '../../src/model-exchange/server.js';
import { startModelExchange } from '../../src/model-exchange/server.js';
import { runModelExchange } from '../../src/cli/commands/model-exchange.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { KEY_A, LOWERING_HISTORY, OKX_ACCOUNTS, RATIO_12_HISTORY, okxCall, okxSocket, orders } from './okx-helpers.js';

const running: RunningModelExchange[] = [];
afterEach(async () => {
  for (const ex of running.splice(0)) await ex.close();
});

const START = '2026-11-21T10:00:00.000Z';

async function okxModel(options: Parameters<typeof startModelExchange>[0] = {}) {
  const clock = new VirtualClock({ wallStart: Date.parse(START) });
  const ex = await startModelExchange({ clock, exchange: 'okx', accounts: OKX_ACCOUNTS, ...options });
  running.push(ex);
  const call = (method: 'GET' | 'POST', path: string, body?: unknown) => okxCall(ex, clock, method, path, body);
  return { ex, clock, call };
}

describe('the model exchange on OKX: the endpoints an engine reads', () => {
  it('answers time, instruments, tickers and books from the price walks', async () => {
    const { ex } = await okxModel();
    const get = async (path: string) => (await (await fetch(`${ex.url}${path}`)).json()) as any;
    expect(await get('/api/v5/public/time')).toEqual({ code: '0', msg: '', data: [{ ts: String(Date.parse(START)) }] });
    const swaps = (await get('/api/v5/public/instruments?instType=SWAP')).data;
    expect(swaps.map((i: { instId: string }) => i.instId)).toEqual([
      'BTC-USDT-SWAP',
      'ETH-USDT-SWAP',
      'SOL-USDT-SWAP',
      'DOGE-USDT-SWAP',
      'BTC-USD-SWAP',
    ]);
    expect(swaps[0]).toMatchObject({
      instType: 'SWAP',
      uly: 'BTC-USDT',
      settleCcy: 'USDT',
      ctVal: '0.0001',
      ctType: 'linear',
      state: 'live',
    });
    expect(swaps[4]).toMatchObject({ settleCcy: 'BTC', ctValCcy: 'USD', ctType: 'inverse' });
    const spot = (await get('/api/v5/public/instruments?instType=SPOT')).data;
    expect(spot[0]).toMatchObject({ instId: 'BTC-USDT', baseCcy: 'BTC', quoteCcy: 'USDT' });
    expect((await get('/api/v5/public/instruments')).code).toBe('50014');
    const ticker = (await get('/api/v5/market/ticker?instId=BTC-USDT-SWAP')).data[0];
    expect(Number(ticker.bidPx)).toBeLessThan(Number(ticker.askPx));
    expect((await get('/api/v5/market/tickers?instType=SPOT')).data).toHaveLength(4);
    const book = (await get('/api/v5/market/books?instId=ETH-USDT&sz=3')).data[0];
    expect([book.asks.length, book.bids.length, book.asks[0].length]).toEqual([3, 3, 4]);
    expect((await get('/api/v5/market/books?instId=NOPE-USDT')).code).toBe('51001');
  });

  it('answers orders, fills, balance and positions of the account', async () => {
    const { call } = await okxModel({ fills: { maker: 0, taker: 1 } });
    const placed = await call('POST', '/api/v5/trade/order', {
      instId: 'BTC-USDT-SWAP',
      tdMode: 'cross',
      side: 'buy',
      ordType: 'market',
      sz: '2',
      clOrdId: 'mine1',
    });
    expect(placed.body).toMatchObject({ code: '0', data: [{ clOrdId: 'mine1', sCode: '0', sMsg: 'Order placed' }] });
    const ordId = placed.body.data[0].ordId;
    const order = (await call('GET', `/api/v5/trade/order?instId=BTC-USDT-SWAP&ordId=${ordId}`)).body.data[0];
    expect(order).toMatchObject({
      ordId,
      clOrdId: 'mine1',
      state: 'filled',
      side: 'buy',
      sz: '2',
      accFillSz: '2',
      ordType: 'market',
    });
    const fills = (await call('GET', '/api/v5/trade/fills?instType=SWAP')).body.data;
    expect(fills).toHaveLength(1);
    expect(fills[0]).toMatchObject({ ordId, instId: 'BTC-USDT-SWAP', fillSz: '2', execType: 'T', side: 'buy' });
    const positions = (await call('GET', '/api/v5/account/positions')).body.data;
    expect(positions[0]).toMatchObject({ instId: 'BTC-USDT-SWAP', pos: '2', posSide: 'net' });
    const balance = (await call('GET', '/api/v5/account/balance?ccy=USDT')).body.data[0];
    expect(balance.details.map((d: { ccy: string }) => d.ccy)).toEqual(['USDT']);
    // An order of another instrument, or none at all, is answered per order.
    const cancel = await call('POST', '/api/v5/trade/cancel-order', { instId: 'ETH-USDT-SWAP', ordId });
    expect([cancel.body.code, cancel.body.data[0].sCode]).toEqual(['1', '51400']);
    const amend = await call('POST', '/api/v5/trade/amend-order', { instId: 'BTC-USDT-SWAP', ordId, newSz: '3' });
    expect(amend.body.data[0].sCode).toBe('51503');
    const missing = await call('POST', '/api/v5/trade/order', {
      instId: 'BTC-USDT-SWAP',
      side: 'buy',
      ordType: 'limit',
      sz: '1',
      px: '1',
    });
    expect(missing.body.data[0]).toMatchObject({ sCode: '50014' });
    expect((await call('POST', '/api/v5/trade/batch-orders', orders('BTC-USDT-SWAP', 21))).body.code).toBe('51000');
    expect((await call('POST', '/api/v5/trade/order', { instId: 'BTC_USDT' })).body.code).toBe('51000');
  });

  it('amends and cancels a resting order by its clOrdId', async () => {
    const { call } = await okxModel({ fills: { maker: 0, taker: 0 } });
    await call('POST', '/api/v5/trade/order', { ...orders('ETH-USDT-SWAP', 1)[0], clOrdId: 'rest1' });
    const amend = await call('POST', '/api/v5/trade/amend-order', {
      instId: 'ETH-USDT-SWAP',
      clOrdId: 'rest1',
      newPx: '1100',
      reqId: 'r1',
    });
    expect(amend.body.data[0]).toMatchObject({ sCode: '0', clOrdId: 'rest1', reqId: 'r1' });
    const open = (await call('GET', '/api/v5/trade/orders-pending')).body.data;
    expect(open.map((o: { px: string; state: string }) => [o.px, o.state])).toEqual([['1100', 'live']]);
    const cancel = await call('POST', '/api/v5/trade/cancel-batch-orders', [
      { instId: 'ETH-USDT-SWAP', clOrdId: 'rest1' },
    ]);
    expect(cancel.body.code).toBe('0');
    expect((await call('GET', '/api/v5/trade/orders-history')).body.data[0].state).toBe('canceled');
  });
});

describe('the model exchange on OKX: WebSocket order operations (O11)', () => {
  const login = (ts: string, secret = KEY_A.secret) => ({
    op: 'login',
    args: [
      {
        apiKey: KEY_A.key,
        passphrase: KEY_A.passphrase,
        timestamp: ts,
        sign: createHmac('sha256', secret).update(`${ts}GET/users/self/verify`).digest('base64'),
      },
    ],
  });

  it('logs in with a signature, then draws orders on the limits REST draws on', async () => {
    const { ex, clock, call } = await okxModel({ verifySignatures: true, fills: { maker: 0, taker: 0 } });
    const ws = await okxSocket(ex);
    expect(await ws.send('ping')).toBe('pong');
    const ts = String(Math.floor(clock.wall() / 1000));
    expect((await ws.send({ id: '1', op: 'order', args: orders('BTC-USDT-SWAP', 1) })).code).toBe('60011');
    expect(await ws.send(login(ts, 'wrong'))).toMatchObject({ event: 'error', code: '60007' });
    expect(await ws.send(login(ts))).toMatchObject({ event: 'login', code: '0' });
    for (let i = 0; i < 59; i++) await call('POST', '/api/v5/trade/order', orders('BTC-USDT-SWAP', 1)[0]);
    const sixtieth = await ws.send({ id: '2', op: 'order', args: orders('BTC-USDT-SWAP', 1) });
    expect([sixtieth.id, sixtieth.op, sixtieth.code, sixtieth.data[0].sCode]).toEqual(['2', 'order', '0', '0']);
    const sixtyFirst = await ws.send({ id: '3', op: 'order', args: orders('BTC-USDT-SWAP', 1) });
    expect([sixtyFirst.code, sixtyFirst.data[0].sCode]).toEqual(['1', '50011']);
    const batch = await ws.send({ id: '4', op: 'batch-orders', args: [...orders('ETH-USDT-SWAP', 2)] });
    expect(batch.data.map((d: { sCode: string }) => d.sCode)).toEqual(['0', '0']);
    const cancel = await ws.send({
      id: '5',
      op: 'cancel-order',
      args: [{ instId: 'ETH-USDT-SWAP', ordId: batch.data[0].ordId }],
    });
    expect([cancel.code, cancel.data[0].ordId]).toEqual(['0', batch.data[0].ordId]);
    ws.close();
  });
});

describe('the model exchange on OKX: its clock from --start-at at --speed', () => {
  it('runs from startAt, checks timestamps against the machine clock, and lowers on its own clock', async () => {
    const clock = new VirtualClock({ wallStart: Date.parse('2026-01-01T00:00:00Z') });
    const ex = await startModelExchange({
      clock,
      exchange: 'okx',
      accounts: OKX_ACCOUNTS,
      startAt: '2026-11-04T07:59:00Z',
      speed: 60,
      history: LOWERING_HISTORY,
    });
    running.push(ex);
    const report = async () => (await okxCall(ex, clock, 'GET', '/api/v5/trade/account-rate-limit')).body.data[0];
    expect((await report()).accRateLimit).toBe('2500');
    // The endpoint answers once a second of the model's clock.
    clock.moveTo(983); // 58.98 s on the model's clock: 07:59:58.980
    expect((await report()).accRateLimit).toBe('2500');
    clock.moveTo(1000); // 08:00:00.000
    expect((await report()).accRateLimit).toBe('1750');
    const time = (await (await fetch(`${ex.url}/api/v5/public/time`)).json()) as any;
    expect(time.data[0].ts).toBe(String(Date.parse('2026-11-04T08:00:00Z')));
  });
});

describe('traderatio exchange --exchange okx', () => {
  it('serves API v5 from --start-at and sums up its counts per 2 s on stop', async () => {
    const values = { port: '0', exchange: 'okx', 'start-at': '2026-11-04T07:59:00Z', speed: '60' };
    const args = {
      values: new Map<string, string | true>(Object.entries(values)),
      typed: new Map(Object.keys(values).map((k) => [k, `--${k}`])),
      positionals: [],
    };
    const lines: string[] = [];
    let time: any;
    let stop!: (signal: string) => void;
    const stopped = new Promise<string>((resolve) => (stop = resolve));
    await runModelExchange(args, {
      out: (line) => {
        lines.push(line);
        const url = /^traderatio exchange: (http:\/\/\S+)$/.exec(line)?.[1];
        if (url !== undefined)
          void fetch(`${url}/api/v5/public/time`)
            .then((r) => r.json())
            .then((b) => ((time = b), stop('SIGINT')));
      },
      stop: stopped,
      stdin: (async function* () {})(),
    });
    expect(lines[1]).toMatch(/^ {2}OKX REST under http:\S+\/api\/v5, WebSocket on ws:\S+\/ws\/v5\/private/);
    expect(Number(time.data[0].ts)).toBeGreaterThanOrEqual(Date.parse('2026-11-04T07:59:00Z'));
    expect(lines.find((l) => l.startsWith('  account main'))).toContain('tier 1 (1000 per 2 s)');
    await expect(
      runModelExchange(
        { ...args, values: new Map([['exchange', 'kraken']]), typed: new Map([['exchange', '--exchange']]) },
        {
          out: () => {},
          stop: new Promise<string>(() => {}),
          stdin: (async function* () {})(),
        },
      ),
    ).rejects.toThrow('--exchange takes the name of an exchange, one of gate, okx, got "kraken"');
  });
});

describe('the model exchange on OKX: a new sub-account', () => {
  it('takes a key with its passphrase, and stays at tier 1 until 08:00 the next day', async () => {
    const history = RATIO_12_HISTORY;
    const { ex, clock } = await okxModel({ history });
    const sub = { key: 'okx-b', secret: 'secret-b', passphrase: 'pass-b' };
    const made = await fetch(`${ex.url}/_model/sub_accounts`, {
      method: 'POST',
      body: JSON.stringify({ main: 'A', id: 'B', keys: [sub] }),
    });
    expect(made.status).toBe(200);
    const report = async (k = sub) =>
      (await okxCall(ex, clock, 'GET', '/api/v5/trade/account-rate-limit', undefined, k)).body;
    expect((await report()).data[0].accRateLimit).toBe('1000');
    expect((await report({ ...sub, passphrase: 'wrong' })).code).toBe('50105');
    expect((await okxCall(ex, clock, 'GET', '/api/v5/trade/account-rate-limit')).body.data[0].accRateLimit).toBe(
      '2500',
    );
    clock.moveTo(Date.parse('2026-11-22T08:00:00Z') - Date.parse(START));
    expect((await report()).data[0].accRateLimit).toBe('2500');
  });
});
