import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/server.js';
import { EXAMPLE_ACCOUNTS, EXAMPLE_HISTORY, call, model, sign } from './helpers.js';

const ORDERS = '/api/v4/futures/usdt/orders';
const order = { contract: 'BTC_USDT', size: 1, price: '60000' };
let running: RunningModelExchange | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function example(start = '2026-11-21T09:00:00Z', options = {}) {
  const m = await model(start, { accounts: EXAMPLE_ACCOUNTS, history: EXAMPLE_HISTORY, ...options });
  running = m.ex;
  return m;
}

describe("the exchange's worked example over HTTP (see docs/rules.md#r1, #r3, #r7)", () => {
  it('answers GET /account/rate_limit with the ratios and tiers of the example', async () => {
    const { ex } = await example();
    const reports = await Promise.all(
      ['A', 'B', 'C'].map((k) => call(ex, 'GET', '/api/v4/account/rate_limit', `key-${k}`)),
    );
    expect(reports.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(reports.map((r) => [r.body[0].tier, r.body[0].ratio, r.body[0].main_ratio])).toEqual([
      ['4', '7.23', '8.19'],
      ['4', '7.91', '8.19'],
      ['5', '10.06', '8.19'],
    ]);
    expect(reports[0]!.body[0].updated_at).toBe(String(Date.parse('2026-11-21T00:00:00Z') / 1000));
  });

  it('accepts exactly 300 of a burst of 400 placements in one second on C, the other 100 refused with label and headers', async () => {
    const { ex, clock } = await example();
    const results = [];
    for (let i = 0; i < 400; i++) {
      results.push(await call(ex, 'POST', ORDERS, 'key-C', order));
      if (i % 50 === 49) await clock.advance(100);
    }
    const refused = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 200).length).toBe(300);
    expect(refused.length).toBe(100);
    expect(new Set(refused.map((r) => r.body.label))).toEqual(new Set(['TOO_MANY_REQUESTS']));
    const last = refused.at(-1)!;
    expect(last.headers.get('x-gate-ratelimit-limit')).toBe('300');
    expect(last.headers.get('x-gate-ratelimit-requests-remain')).toBe('0');
    // The first placement leaves the window at 09:00:01.000: that is when it resets.
    expect(last.headers.get('x-gate-ratelimit-reset-timestamp')).toBe(
      String(Date.parse('2026-11-21T09:00:01Z') / 1000),
    );
    const c = ex.stats().accounts.find((a) => a.account === 'C')!;
    expect(c.refused).toEqual({ TOO_MANY_REQUESTS: 100 });
    expect(c.limits.find((l) => l.key === 'futures.place')).toMatchObject({ accepted: 300, refused: 100, most: 300 });
  });
});

describe('rule edges through HTTP', () => {
  it('raises the limit at 08:00:00.000, not at 07:59:59.999 (see docs/rules.md#r5)', async () => {
    const { ex, clock } = await example('2026-11-21T07:59:59.999Z');
    const before = await call(ex, 'POST', ORDERS, 'key-C', order);
    expect(before.headers.get('x-gate-ratelimit-limit')).toBe('100');
    await clock.advance(1);
    const after = await call(ex, 'POST', ORDERS, 'key-C', order);
    expect(after.headers.get('x-gate-ratelimit-limit')).toBe('300');
    expect((await call(ex, 'GET', '/api/v4/account/rate_limit', 'key-C')).body[0].tier).toBe('5');
  });

  it('applies --clock-offset-ms: the same raise seen through an offset clock', async () => {
    const { ex } = await example('2026-11-21T07:59:59.000Z', { clockOffsetMs: 1000 });
    expect((await call(ex, 'POST', ORDERS, 'key-C', order)).headers.get('x-gate-ratelimit-limit')).toBe('300');
    const inTime = Number((await call(ex, 'GET', '/api/v4/account/rate_limit', 'key-C')).headers.get('x-in-time'));
    expect(inTime).toBe(Date.parse('2026-11-21T08:00:00Z') * 1000);
  });

  it('throttles placement the hour after 86,401 requests with nothing traded, not after 86,400 (see docs/rules.md#r9)', async () => {
    for (const [extra, throttled] of [
      [1, true],
      [0, false],
    ] as const) {
      const { ex, clock } = await model('2026-11-21T09:59:00Z', {
        history: { hours: [{ account: 'main', hour: -1, requests: 86_400 - extra }] },
      });
      running = ex;
      for (let i = 0; i < 2 * extra; i++) await call(ex, 'POST', ORDERS, 'main-key', order);
      await clock.advance(60_000);
      const results = [];
      for (let i = 0; i < 12; i++) results.push(await call(ex, 'POST', ORDERS, 'main-key', order));
      const refused = results.filter((r) => r.status === 429);
      expect(refused.length).toBe(throttled ? 2 : 0);
      if (throttled) {
        expect(refused[0]!.body.message).toMatch(/abuse-throttle: at most 10 per 10 s/);
        expect(ex.stats().accounts[0]!.throttle).toEqual({ limit: 10, windowMs: 10_000, reason: 'no-fills' });
        // Cancels are never throttled.
        expect((await call(ex, 'DELETE', `${ORDERS}/${results[0]!.body.id}`, 'main-key')).status).toBe(200);
      }
      await ex.close();
      running = undefined;
    }
  });

  it('throttles at a scaled threshold counted from live requests, refused ones included (see docs/rules.md#r9)', async () => {
    const { ex, clock } = await model('2026-11-21T10:00:00Z', { abuse: { requestThreshold: 150 } });
    running = ex;
    const statuses = [];
    for (let i = 0; i < 151; i++) statuses.push((await call(ex, 'POST', ORDERS, 'main-key', order)).status);
    expect(statuses.filter((s) => s === 429).length).toBe(51); // over 100 per second, still counted
    await clock.advance(3_600_000);
    expect(ex.stats().accounts[0]!.throttle?.reason).toBe('no-fills');
  });

  it('takes one withdrawal per 3 s, the next refused with TOO_FAST (see docs/rules.md#r10, #r12)', async () => {
    const { ex, clock } = await model('2026-11-21T10:00:00Z');
    running = ex;
    const w = { currency: 'USDT', amount: '10', address: 'addr' };
    expect((await call(ex, 'POST', '/api/v4/withdrawals', 'main-key', w)).status).toBe(200);
    await clock.advance(2999);
    const second = await call(ex, 'POST', '/api/v4/withdrawals', 'main-key', w);
    expect([second.status, second.body.label]).toEqual([429, 'TOO_FAST']);
    await clock.advance(1);
    expect((await call(ex, 'POST', '/api/v4/withdrawals', 'main-key', w)).status).toBe(200);
  });

  it('refuses a spot batch of 11 orders of one pair with TOO_MANY_ORDERS, and takes 10 (see docs/rules.md#r11)', async () => {
    const { ex } = await model('2026-11-21T10:00:00Z');
    running = ex;
    const o = { currency_pair: 'BTC_USDT', side: 'buy', amount: '0.001', price: '60000' };
    const eleven = await call(
      ex,
      'POST',
      '/api/v4/spot/batch_orders',
      'main-key',
      Array.from({ length: 11 }, () => o),
    );
    expect([eleven.status, eleven.body.label]).toEqual([400, 'TOO_MANY_ORDERS']);
    const ten = await call(
      ex,
      'POST',
      '/api/v4/spot/batch_orders',
      'main-key',
      Array.from({ length: 10 }, () => o),
    );
    expect(ten.status).toBe(200);
    expect(ten.body.every((r: { succeeded: boolean }) => r.succeeded)).toBe(true);
    const mixed = await call(ex, 'POST', '/api/v4/spot/batch_orders', 'main-key', [o, { ...o, account: 'margin' }]);
    expect(mixed.body.label).toBe('MIXED_ACCOUNT_TYPE');
  });
});

describe('spot history (see docs/rules.md#r14)', () => {
  const SPOT = '/api/v4/spot/orders';
  const o = { currency_pair: 'BTC_USDT', side: 'buy', amount: '0.001', price: '60000' };

  it('starts inside the spot low-fill throttle from seeded spotHours: fill ratio 0.0999 throttled at once, exactly 0.1 not', async () => {
    for (const [traded, throttled] of [
      ['9.99', true],
      ['10', false],
    ] as const) {
      const { ex, clock } = await model('2026-11-21T10:00:00Z', {
        history: { spotHours: [{ account: 'main', hour: -1, requests: 100, traded }] },
      });
      running = ex;
      // Ten in the first second (the pair's own 10 per 1 s), two more in the next.
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await call(ex, 'POST', SPOT, 'main-key', o)).status);
      await clock.advance(1000);
      for (let i = 0; i < 2; i++) statuses.push((await call(ex, 'POST', SPOT, 'main-key', o)).status);
      expect(statuses.filter((s) => s === 429).length).toBe(throttled ? 2 : 0);
      const limit = ex.stats().accounts[0]!.limits.find((l) => l.key === 'spot-fill-throttle')!;
      expect([limit.limit, limit.refused]).toEqual(throttled ? [10, 2] : [null, 0]);
      // Futures placement is not the spot throttle's business.
      expect((await call(ex, 'POST', ORDERS, 'main-key', order)).status).toBe(200);
      await ex.close();
      running = undefined;
    }
  });

  it('refuses hours of an unknown account, a bad count or amount, an hour twice or an unknown field, naming it', async () => {
    const bad = [
      [{ spotHours: [{ account: 'nobody', hour: -1, requests: 1 }] }, /spotHours\[0\]\.account/],
      [{ spotHours: [{ account: 'main', hour: -1, requests: -1 }] }, /spotHours\[0\]\.requests/],
      [{ spotHours: [{ account: 'main', hour: -1, requests: 1, trade: '5' }] }, /trade.*traded/],
      [{ spotHour: [] }, /spotHour.*spotHours/],
      [
        { spotHours: [{ account: 'main', hour: -1, requests: 1, traded: 'NaN' }] },
        'Expected `spotHours[0].traded` to be a non-negative decimal string, got "NaN"',
      ],
      [
        { hours: [{ account: 'main', hour: -1, requests: 1, traded: -5 }] },
        'Expected `hours[0].traded` to be a non-negative decimal string, got -5',
      ],
      [
        {
          hours: [
            { account: 'main', hour: -2, requests: 1 },
            { account: 'main', hour: '2026-11-21T08:30:00Z', requests: 2 },
          ],
        },
        'Expected `hours[1].hour` to be each hour of account main once (first as `hours[0].hour`), got "2026-11-21T08:30:00Z"',
      ],
    ] as const;
    for (const [history, message] of bad)
      await expect(model('2026-11-21T10:00:00Z', { history })).rejects.toThrow(message);
  });
});

describe('identification (see docs/rules.md#r11, section 5)', () => {
  it('answers no credentials with INVALID_CREDENTIALS, a missing KEY with MISSING_REQUIRED_HEADER, an unknown one with INVALID_KEY, an old Timestamp with REQUEST_EXPIRED', async () => {
    const { ex } = await model('2026-11-21T10:00:00Z');
    running = ex;
    const none = await call(ex, 'POST', ORDERS, undefined, order);
    expect([none.status, none.body.label]).toEqual([401, 'INVALID_CREDENTIALS']);
    const keyless = await call(ex, 'POST', ORDERS, undefined, order, {
      Timestamp: String(Date.parse('2026-11-21T10:00:00Z') / 1000),
    });
    expect([keyless.status, keyless.body.label]).toEqual([401, 'MISSING_REQUIRED_HEADER']);
    const unknown = await call(ex, 'POST', ORDERS, 'nope', order);
    expect([unknown.status, unknown.body.label]).toEqual([401, 'INVALID_KEY']);
    const now = Date.parse('2026-11-21T10:00:00Z') / 1000;
    expect((await call(ex, 'POST', ORDERS, 'main-key', order, { Timestamp: String(now - 61) })).body.label).toBe(
      'REQUEST_EXPIRED',
    );
    expect((await call(ex, 'POST', ORDERS, 'main-key', order, { Timestamp: String(now - 60) })).status).toBe(200);
    // Public endpoints need no key.
    expect((await call(ex, 'GET', '/api/v4/futures/usdt/contracts')).body[0]).toMatchObject({
      name: 'BTC_USDT',
      quanto_multiplier: '0.0001',
    });
  });

  it('checks SIGN when asked to', async () => {
    const { ex } = await model('2026-11-21T10:00:00Z', { verifySignatures: true });
    running = ex;
    const ts = String(Date.parse('2026-11-21T10:00:00Z') / 1000);
    const body = JSON.stringify(order);
    const good = sign('main-secret', 'POST', ORDERS, '', body, ts);
    expect((await call(ex, 'POST', ORDERS, 'main-key', body, { Timestamp: ts, SIGN: good })).status).toBe(200);
    expect(
      (
        await call(ex, 'POST', ORDERS, 'main-key', body, {
          Timestamp: ts,
          SIGN: good.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
        })
      ).body.label,
    ).toBe('INVALID_SIGNATURE');
    expect((await call(ex, 'POST', ORDERS, 'main-key', body, { Timestamp: ts })).body.label).toBe(
      'MISSING_REQUIRED_HEADER',
    );
  });
});

describe('bad requests', () => {
  it('answers each with the error shape and keeps serving', async () => {
    const { ex } = await model('2026-11-21T10:00:00Z', { bodyLimitBytes: 1024 });
    running = ex;
    const cases = [
      [await call(ex, 'POST', ORDERS, 'main-key', '{"contract": "BTC_USDT",'), 400, 'INVALID_REQUEST_BODY'],
      [await call(ex, 'POST', ORDERS, 'main-key', '[1, 2]'), 400, 'INVALID_REQUEST_BODY'],
      [await call(ex, 'POST', ORDERS, 'main-key', '"text"'), 400, 'INVALID_REQUEST_BODY'],
      [await call(ex, 'POST', ORDERS, 'main-key', { ...order, contract: 'NOPE_USDT' }), 400, 'CONTRACT_NOT_FOUND'],
      [await call(ex, 'POST', ORDERS, 'main-key', { ...order, price: '-1' }), 400, 'INVALID_PARAM_VALUE'],
      [await call(ex, 'POST', ORDERS, 'main-key', { ...order, size: 'ten' }), 400, 'INVALID_PARAM_VALUE'],
      [
        await call(ex, 'POST', '/api/v4/spot/orders', 'main-key', {
          currency_pair: 'BTC_USDT',
          side: 'buy',
          amount: '-0.5',
          price: '60000',
        }),
        400,
        'INVALID_PARAM_VALUE',
      ],
      [await call(ex, 'POST', ORDERS, 'main-key', { ...order, text: 'x'.repeat(2000) }), 413, 'INVALID_REQUEST_BODY'],
      [await call(ex, 'GET', '/api/v5/nothing', 'main-key'), 404, 'NOT_FOUND'],
      [await call(ex, 'DELETE', `${ORDERS}/999999`, 'main-key'), 404, 'ORDER_NOT_FOUND'],
    ] as const;
    for (const [r, status, label] of cases) expect([r.status, r.body.label]).toEqual([status, label]);
    expect((await call(ex, 'POST', ORDERS, 'main-key', order)).status).toBe(200);
    // A negative futures size is a sell, as the API has it.
    expect((await call(ex, 'POST', ORDERS, 'main-key', { ...order, size: -2 })).body.size).toBe(-2);
  });

  it('answers a client too slow to send its body with 408 in the error shape, while serving others', async () => {
    const { ex } = await model('2026-11-21T10:00:00Z', { slowClientMs: 300 });
    running = ex;
    const socket = connect(ex.port, '127.0.0.1');
    const reply = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (d) => (text += String(d)));
      socket.on('close', () => resolve(text));
    });
    socket.write(
      `POST ${ORDERS} HTTP/1.1\r\nHost: x\r\nKEY: main-key\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"contract":`,
    );
    expect((await call(ex, 'POST', ORDERS, 'main-key', order)).status).toBe(200);
    const text = await reply;
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ label: 'BAD_REQUEST' });
    expect((await call(ex, 'GET', '/api/v4/futures/usdt/orders', 'main-key')).status).toBe(200);
  });

  it('says in X-In-Time the instant a request counts from: a body that comes after another whole request counts after it, and says so', async () => {
    const { ex, clock } = await model('2026-11-21T10:00:00Z');
    running = ex;
    const socket = connect(ex.port, '127.0.0.1');
    const reply = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (d) => {
        text += String(d);
        if (text.includes('}')) resolve(text);
      });
    });
    const body = JSON.stringify(order);
    // The head and part of the body at 10:00:00; another whole placement at 10:00:00.100; the rest then.
    await new Promise<void>((done) =>
      socket.write(
        `POST ${ORDERS} HTTP/1.1\r\nHost: x\r\nKEY: main-key\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
        () => done(),
      ),
    );
    await new Promise((done) => setTimeout(done, 50));
    await clock.advance(100);
    const other = await call(ex, 'POST', ORDERS, 'main-key', order);
    socket.write(body.slice(5));
    const text = await reply;
    socket.destroy();
    const inTime = (head: string) => Number(/x-in-time: (\d+)/i.exec(head)?.[1]);
    expect(other.status).toBe(200);
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(Number(other.headers.get('x-in-time'))).toBe(Date.parse('2026-11-21T10:00:00.100Z') * 1000);
    expect(inTime(text)).toBe(Date.parse('2026-11-21T10:00:00.100Z') * 1000);
  });

  it('answers 404 in the error shape on a path it does not answer, 405 on one it answers with other methods; legacy futures paths as btc (section 9)', async () => {
    const { ex } = await model('2026-11-21T10:00:00Z');
    running = ex;
    for (const path of [
      '/api/v4/spot/nope',
      '/api/v4/futures/eth/orders',
      '/api/v4/futures/usdt/nope',
      '/api/v4/margin/nothing',
      '/api/v4/unified/nothing',
      '/api/v4/nope',
    ]) {
      const r = await call(ex, 'GET', path, 'main-key');
      expect([path, r.status, r.body.label, typeof r.body.message]).toEqual([path, 404, 'NOT_FOUND', 'string']);
    }
    const wrongMethod = await call(ex, 'DELETE', '/api/v4/futures/usdt/contracts', 'main-key');
    expect([wrongMethod.status, wrongMethod.body.label]).toEqual([405, 'METHOD_NOT_ALLOWED']);
    // Nothing was counted for them: the account has made no request.
    expect(ex.stats().accounts[0]!.accepted).toBe(0);
    const legacy = await call(ex, 'POST', '/api/v4/futures/orders', 'main-key', {
      contract: 'BTC_USD',
      size: 1,
      price: '60000',
    });
    expect([legacy.status, legacy.body.contract]).toEqual([200, 'BTC_USD']);
    // The heavy wallet endpoints share 80 per 10 s (see docs/rules.md#r10).
    for (let i = 0; i < 80; i++)
      await call(ex, 'POST', '/api/v4/wallet/transfers', 'main-key', {
        currency: 'USDT',
        from: 'spot',
        to: 'futures',
        amount: '1',
        settle: 'usdt',
      });
    expect(
      (
        await call(ex, 'POST', '/api/v4/wallet/transfers', 'main-key', {
          currency: 'USDT',
          from: 'spot',
          to: 'futures',
          amount: '1',
          settle: 'usdt',
        })
      ).status,
    ).toBe(429);
  });
});

describe('fills and administration', () => {
  it('fills by the seeded model; my_trades returns the fills with role, size and price', async () => {
    const { ex } = await model('2026-11-21T10:00:00Z', { fills: { seed: 3, maker: 0.5, taker: 0.25 } });
    running = ex;
    const placed = [];
    for (let i = 0; i < 40; i++)
      placed.push((await call(ex, 'POST', ORDERS, 'main-key', { ...order, size: i + 1 })).body);
    const filled = placed.filter((o) => o.finish_as === 'filled');
    const trades = (await call(ex, 'GET', '/api/v4/futures/usdt/my_trades?contract=BTC_USDT&limit=1000', 'main-key'))
      .body;
    expect(trades.length).toBe(filled.length);
    expect(filled.length).toBeGreaterThan(10);
    expect(new Set(trades.map((t: { role: string }) => t.role))).toEqual(new Set(['maker', 'taker']));
    expect(trades.map((t: { order_id: string }) => Number(t.order_id)).sort((a: number, b: number) => a - b)).toEqual(
      filled.map((o) => o.id),
    );
    expect(trades[0]).toMatchObject({ contract: 'BTC_USDT', price: '60000' });
    // The same seed gives the same fills.
    const again = await model('2026-11-21T10:00:00Z', { fills: { seed: 3, maker: 0.5, taker: 0.25 } });
    const second = [];
    for (let i = 0; i < 40; i++)
      second.push((await call(again.ex, 'POST', ORDERS, 'main-key', { ...order, size: i + 1 })).body.finish_as);
    await again.ex.close();
    expect(second).toEqual(placed.map((o) => o.finish_as));
  });

  it('accepts and fills placements on the machine clock, whose instants have microseconds (see docs/rules.md#r15)', async () => {
    running = await startModelExchange({ fills: { maker: 0.5, taker: 0.5 } });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await call(running, 'POST', ORDERS, 'main-key', order));
    expect(answers.map((a) => [a.status, a.body.finish_as])).toEqual(Array.from({ length: 5 }, () => [200, 'filled']));
    expect((await call(running, 'GET', '/api/v4/futures/usdt/my_trades', 'main-key')).body).toHaveLength(5);
  });

  it('creates a sub-account at tier 1 (see docs/rules.md#r8) and drops a family below VIP 14 to tier 1 at once (see docs/rules.md#r6)', async () => {
    const { ex } = await example();
    const created = await call(ex, 'POST', '/_model/sub_accounts', undefined, {
      main: 'A',
      id: 'D',
      keys: [{ key: 'key-D', secret: 's' }],
    });
    expect(created.status).toBe(200);
    expect((await call(ex, 'POST', ORDERS, 'key-D', order)).headers.get('x-gate-ratelimit-limit')).toBe('100');
    expect((await call(ex, 'POST', '/_model/vip', undefined, { account: 'C', level: 13 })).status).toBe(200);
    expect((await call(ex, 'GET', '/api/v4/account/rate_limit', 'key-C')).body[0].tier).toBe('1');
    expect((await call(ex, 'POST', '/_model/vip', undefined, { account: 'C', level: 99 })).body.label).toBe(
      'INVALID_PARAM_VALUE',
    );
    expect((await call(ex, 'POST', '/_model/reset')).status).toBe(200);
    expect((await call(ex, 'GET', '/api/v4/account/rate_limit', 'key-C')).body[0].tier).toBe('5');
    expect((await call(ex, 'POST', ORDERS, 'key-D', order)).body.label).toBe('INVALID_KEY');
  });
});
