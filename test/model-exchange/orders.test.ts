import { afterEach, describe, expect, it } from 'vitest';
import type { RunningModelExchange } from '../../src/model-exchange/server.js';
import { call, model } from './helpers.js';

const ORDERS = '/api/v4/futures/usdt/orders';
let running: RunningModelExchange | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('a futures order over HTTP', () => {
  it('is placed open, listed, amended, cancelled and listed finished, each answer the order as the API writes it', async () => {
    const { ex } = await model('2026-11-21T10:00:00Z');
    running = ex;
    const placed = await call(ex, 'POST', ORDERS, 'main-key', {
      contract: 'BTC_USDT',
      size: -2,
      price: '60000.50',
      text: 't-"quoted"\\é',
    });
    expect(placed.status).toBe(200);
    expect(placed.body).toEqual({
      id: placed.body.id,
      user: placed.body.user,
      contract: 'BTC_USDT',
      create_time: Date.parse('2026-11-21T10:00:00Z') / 1000,
      size: -2,
      left: -2,
      price: '60000.5',
      fill_price: '0',
      tif: 'gtc',
      text: 't-"quoted"\\é',
      status: 'open',
      finish_as: '',
      is_reduce_only: false,
      is_close: false,
      iceberg: 0,
    });
    const id = placed.body.id as number;
    expect((await call(ex, 'GET', `${ORDERS}?contract=BTC_USDT`, 'main-key')).body).toEqual([placed.body]);
    const amended = await call(ex, 'PUT', `${ORDERS}/${id}`, 'main-key', { size: '-3', price: '59000' });
    expect(amended.body).toMatchObject({ id, size: -3, left: -3, price: '59000', status: 'open' });
    const cancelled = await call(ex, 'DELETE', `${ORDERS}/${id}`, 'main-key');
    expect(cancelled.body).toMatchObject({
      id,
      status: 'finished',
      finish_as: 'cancelled',
      finish_time: cancelled.body.create_time,
    });
    expect((await call(ex, 'GET', `${ORDERS}?status=finished`, 'main-key')).body).toEqual([cancelled.body]);
    expect((await call(ex, 'DELETE', `${ORDERS}/${id}`, 'main-key')).body.label).toBe('ORDER_FINISHED');
  });

  it('answers batch placement and batch cancellation item by item', async () => {
    const { ex } = await model('2026-11-21T10:00:00Z');
    running = ex;
    const batch = await call(ex, 'POST', '/api/v4/futures/usdt/batch_orders', 'main-key', [
      { contract: 'BTC_USDT', size: 1, price: '60000' },
      { contract: 'NOPE_USDT', size: 1, price: '1' },
    ]);
    expect(
      batch.body.map((o: { succeeded: boolean; status?: string; label?: string }) => [
        o.succeeded,
        o.status ?? o.label,
      ]),
    ).toEqual([
      [true, 'open'],
      [false, 'CONTRACT_NOT_FOUND'],
    ]);
    const cancel = await call(ex, 'POST', '/api/v4/futures/usdt/batch_cancel_orders', 'main-key', [
      String(batch.body[0].id),
      '999999',
    ]);
    expect(cancel.body.map((o: { succeeded: boolean }) => o.succeeded)).toEqual([true, false]);
  });
});

describe('the headers of every answer (see docs/rules.md#r12, #r15)', () => {
  it('carry X-In-Time <= X-Out-Time in microseconds and a trace id of their own, and the rate-limit headers where a limit applies', async () => {
    const { ex } = await model('2026-11-21T10:00:00Z');
    running = ex;
    const answers = [
      await call(ex, 'POST', ORDERS, 'main-key', { contract: 'BTC_USDT', size: 1, price: '60000' }),
      await call(ex, 'POST', ORDERS, 'main-key', { contract: 'BTC_USDT', size: 0, price: '60000' }),
      await call(ex, 'GET', '/api/v4/futures/usdt/contracts'),
      await call(ex, 'GET', '/api/v4/spot/orders'),
      await call(ex, 'GET', '/nowhere'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 400, 200, 401, 404]);
    for (const a of answers) {
      const inTime = Number(a.headers.get('x-in-time'));
      expect(inTime).toBe(Date.parse('2026-11-21T10:00:00Z') * 1000);
      expect(Number(a.headers.get('x-out-time'))).toBeGreaterThanOrEqual(inTime);
      expect(a.headers.get('content-type')).toBe('application/json');
    }
    expect(new Set(answers.map((a) => a.headers.get('x-service-trace-id'))).size).toBe(answers.length);
    expect(answers.map((a) => a.headers.get('x-gate-ratelimit-limit'))).toEqual(['100', '100', '200', null, null]);
    expect(answers[0]!.headers.get('x-gate-ratelimit-requests-remain')).toBe('99');
    expect(answers[1]!.headers.get('x-gate-ratelimit-requests-remain')).toBe('98');
    expect(answers[0]!.headers.get('x-gate-ratelimit-reset-timestamp')).toBe(
      String(Date.parse('2026-11-21T10:00:00Z') / 1000),
    );
  });
});
