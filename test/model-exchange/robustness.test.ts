// What an adversary sends the model exchange, one finding a test: each is answered in the
// exchange's shape (or its connection closed), counted once, and the server serves on.
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { summary } from '../../src/cli/commands/model-exchange.js';
import { type RunningModelExchange, isLoopback, startModelExchange } from '../../src/model-exchange/server.js';
import { call, model } from './helpers.js';

const ORDERS = '/api/v4/futures/usdt/orders';
const order = { contract: 'BTC_USDT', size: 1, price: '60000' };
const NOW = '2026-11-21T10:00:00Z';
let running: RunningModelExchange | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** Writes `bytes` on a new connection and reads until the server closes it (or `ms` pass). */
function raw(ex: RunningModelExchange, bytes: string | Buffer, ms = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(ex.port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`${text}<still open>`);
    }, ms);
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

/** The status lines of the answers in `text`. */
const statuses = (text: string) => [...text.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));

/** A WebSocket client that sends one API message at a time and reads its reply. */
async function wsClient(ex: RunningModelExchange, path = '/v4/ws/usdt') {
  const ws = new WebSocket(`${ex.wsUrl}${path}`);
  const waiting: ((v: any) => void)[] = [];
  ws.on('message', (d) => waiting.shift()?.(JSON.parse(String(d))));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const send = (channel: string, payload: object) =>
    new Promise<any>((resolve) => {
      waiting.push(resolve);
      ws.send(JSON.stringify({ time: 0, channel, event: 'api', payload }));
    });
  return { ws, send };
}

describe('WebSocket messages that once stopped the process', () => {
  it('answers a login with a timestamp of "abc" or 1e30, an amend of order "%zz" and a spot cancel of "%E0%A4%A", and serves on', async () => {
    const { ex } = await model(NOW);
    running = ex;
    const { ws, send } = await wsClient(ex);
    try {
      const abc = await send('futures.login', { req_id: '1', api_key: 'main-key', timestamp: 'abc' });
      expect([abc.header.status, abc.data.errs.label]).toEqual(['400', 'INVALID_PARAM_VALUE']);
      const far = await send('futures.login', { req_id: '2', api_key: 'main-key', timestamp: 1e30 });
      expect([far.header.status, far.data.errs.label]).toEqual(['401', 'REQUEST_EXPIRED']);
      const login = await send('futures.login', {
        req_id: '3',
        api_key: 'main-key',
        timestamp: String(Date.parse(NOW) / 1000),
      });
      expect(login.header.status).toBe('200');
      const amend = await send('futures.order_amend', { req_id: '4', req_param: { order_id: '%zz', price: '1' } });
      expect([amend.header.status, amend.data.errs.label]).toEqual(['404', 'ORDER_NOT_FOUND']);
      const spot = await send('spot.order_cancel', {
        req_id: '5',
        req_param: { order_id: '%E0%A4%A', currency_pair: 'BTC_USDT' },
      });
      expect([spot.header.status, spot.data.errs.label]).toEqual(['404', 'ORDER_NOT_FOUND']);
      const placed = await send('futures.order_place', { req_id: '6', req_param: order });
      expect([placed.header.status, placed.data.result.contract]).toEqual(['200', 'BTC_USDT']);
      // Each refusal counted once, on the account.
      expect(ex.stats().accounts[0]!.refused).toEqual({
        INVALID_PARAM_VALUE: 1,
        REQUEST_EXPIRED: 1,
        ORDER_NOT_FOUND: 2,
      });
    } finally {
      ws.close();
    }
  });
});

describe('the Timestamp header and order ids in the path', () => {
  it('answers a Timestamp that is not a number with INVALID_PARAM_VALUE, one out of any range with REQUEST_EXPIRED, never 500', async () => {
    const { ex } = await model(NOW);
    running = ex;
    const cases = [
      ['NaN', 400, 'INVALID_PARAM_VALUE'],
      ['', 400, 'INVALID_PARAM_VALUE'],
      ['abc', 400, 'INVALID_PARAM_VALUE'],
      ['1e30', 401, 'REQUEST_EXPIRED'],
      ['-1', 401, 'REQUEST_EXPIRED'],
      [String(Date.parse(NOW) / 1000 + 0.5), 200, undefined],
    ] as const;
    for (const [ts, status, label] of cases) {
      const r = await call(ex, 'POST', ORDERS, 'main-key', order, { Timestamp: ts });
      expect([ts, r.status, r.body.label]).toEqual([ts, status, label]);
    }
    // Each refusal counted once, on the account; none as unidentified.
    const stats = ex.stats();
    expect(stats.accounts[0]!.refused).toEqual({ INVALID_PARAM_VALUE: 3, REQUEST_EXPIRED: 2 });
    expect(stats.unidentified).toEqual({});
    // The stop summary of `traderatio exchange` says so, once.
    expect(summary(stats)).toEqual([
      '  account main (default): 1 accepted, refused 3 INVALID_PARAM_VALUE, 2 REQUEST_EXPIRED; tier 1 (100 r/s)',
    ]);
  });

  it('refuses an order id that cannot be percent-decoded before anything is counted', async () => {
    const { ex } = await model(NOW);
    running = ex;
    for (const id of ['%zz', '%E0%A4%A']) {
      const r = await call(ex, 'DELETE', `${ORDERS}/${id}`, 'main-key');
      expect([r.status, r.body.label]).toEqual([400, 'INVALID_PARAM_VALUE']);
    }
    const a = ex.stats().accounts[0]!;
    expect([a.accepted, a.limits.find((l) => l.key === 'futures.cancel')]).toEqual([0, undefined]);
    // A percent-encoded id that decodes is the order's id.
    const placed = await call(ex, 'POST', ORDERS, 'main-key', order);
    expect(
      (await call(ex, 'DELETE', `${ORDERS}/${encodeURIComponent(String(placed.body.id))}`, 'main-key')).body.finish_as,
    ).toBe('cancelled');
  });
});

describe('instrument names that are no contract', () => {
  it('answers a placement or a cancel of contract "NOPE" with CONTRACT_NOT_FOUND, counted, not 500', async () => {
    const { ex } = await model(NOW);
    running = ex;
    const place = await call(ex, 'POST', ORDERS, 'main-key', { contract: 'NOPE', size: 1, price: '1' });
    const cancel = await call(ex, 'DELETE', `${ORDERS}?contract=NOPE`, 'main-key');
    expect([place.status, place.body.label, cancel.status, cancel.body.label]).toEqual([
      400,
      'CONTRACT_NOT_FOUND',
      400,
      'CONTRACT_NOT_FOUND',
    ]);
    expect(ex.stats().accounts[0]!.accepted).toBe(2);
  });
});

describe('bytes after a request', () => {
  it('places an HTTP/1.0 order followed by more bytes once, answers it 200 and closes the connection', async () => {
    const { ex } = await model(NOW);
    running = ex;
    const body = JSON.stringify(order);
    const text = await raw(
      ex,
      `POST ${ORDERS} HTTP/1.0\r\nKEY: main-key\r\nContent-Length: ${body.length}\r\n\r\n${body}GARBAGE \x01\x02\r\n\r\n`,
    );
    expect(statuses(text)).toEqual([200]);
    expect(text).toContain('"contract":"BTC_USDT"');
    expect(ex.stats().accounts[0]!.accepted).toBe(1);
  });

  it('answers a keep-alive request and then 400 for the bytes after it that are not HTTP, then closes', async () => {
    const { ex } = await model(NOW);
    running = ex;
    const body = JSON.stringify(order);
    const text = await raw(
      ex,
      `POST ${ORDERS} HTTP/1.1\r\nHost: x\r\nKEY: main-key\r\nContent-Length: ${body.length}\r\n\r\n${body}\x00\x01 nonsense\r\n\r\n`,
    );
    expect(statuses(text)).toEqual([200, 400]);
    expect(JSON.parse(text.slice(text.lastIndexOf('\r\n\r\n') + 4))).toMatchObject({ label: 'BAD_REQUEST' });
    expect(ex.stats().accounts[0]!.accepted).toBe(1);
    expect((await call(ex, 'POST', ORDERS, 'main-key', order)).status).toBe(200);
  });
});

describe('a body over the cap', () => {
  it('answers each of twelve 10 MB uploads 413 in the error shape, none cut off by a reset', async () => {
    const { ex } = await model(NOW);
    running = ex;
    const chunk = Buffer.alloc(1 << 20, 'x');
    const upload = (declare: boolean) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: ex.port,
            method: 'POST',
            path: ORDERS,
            headers: {
              KEY: 'main-key',
              'Content-Type': 'application/json',
              ...(declare ? { 'Content-Length': String(10 * chunk.length) } : {}),
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject);
        let sent = 0;
        const more = () => {
          while (sent < 10) {
            sent++;
            if (!req.write(chunk)) return void req.once('drain', more);
          }
          req.end();
        };
        more();
      });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => upload(i % 2 === 0)));
    for (const a of answers) expect([a.status, a.body.label]).toEqual([413, 'INVALID_REQUEST_BODY']);
    expect((await call(ex, 'POST', ORDERS, 'main-key', order)).status).toBe(200);
  }, 60_000);
});

describe('administration', () => {
  it('changes the VIP level on the machine clock, whose instants have a fraction of a millisecond (see docs/rules.md#r6)', async () => {
    const ex = await startModelExchange({ port: 0 });
    running = ex;
    for (const level of [5, 14, 0]) {
      const r = await call(ex, 'POST', '/_model/vip', undefined, { account: 'main', level });
      expect([r.status, r.body]).toEqual([200, { family: 'default', level }]);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(ex.stats().accounts[0]!.vipLevel).toBe(0);
    for (const level of [17, 1e308]) {
      const r = await call(ex, 'POST', '/_model/vip', undefined, { account: 'main', level });
      expect([r.status, r.body.label]).toEqual([400, 'INVALID_PARAM_VALUE']);
      expect(r.body.message).toContain('a VIP level (a whole number from 0 to 16)');
    }
    const top = await call(ex, 'POST', '/_model/vip', undefined, { account: 'main', level: 16 });
    expect([top.status, ex.stats().accounts[0]!.vipLevel]).toEqual([200, 16]);
  });

  it('reports the latest 00:00 snapshot as updated_at of a family with no activity', async () => {
    const { ex } = await model(NOW);
    running = ex;
    const r = await call(ex, 'GET', '/api/v4/account/rate_limit', 'main-key');
    expect(r.body[0].updated_at).toBe(String(Date.parse('2026-11-21T00:00:00Z') / 1000));
  });

  it('requires its token when given one, and always off loopback', async () => {
    const { ex } = await model(NOW, { adminToken: 'a-long-token' });
    running = ex;
    expect(ex.adminToken).toBe('a-long-token');
    const denied = await call(ex, 'GET', '/_model/stats');
    expect([denied.status, denied.body.label]).toEqual([401, 'INVALID_CREDENTIALS']);
    expect(
      (await call(ex, 'GET', '/_model/stats', undefined, undefined, { Authorization: 'Bearer wrong-token!' })).status,
    ).toBe(401);
    expect(
      (await call(ex, 'GET', '/_model/stats', undefined, undefined, { Authorization: 'Bearer a-long-token' })).status,
    ).toBe(200);
    await expect(startModelExchange({ port: 0, adminToken: 'short' })).rejects.toThrow(
      /adminToken.*at least 8 characters, got "short"/,
    );
    expect(['127.0.0.1', '127.5.5.5', '::1', 'localhost'].map(isLoopback)).toEqual([true, true, true, true]);
    expect(['0.0.0.0', '::', '10.0.0.1', '128.0.0.1'].map(isLoopback)).toEqual([false, false, false, false]);
    const open = await model(NOW);
    expect(open.ex.adminToken).toBeNull();
    expect((await call(open.ex, 'GET', '/_model/stats')).status).toBe(200);
    await open.ex.close();
  });
});
