import { describe, expect, it } from 'vitest';
import { ModelExchange } from '../../src/model-exchange/model.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const ORDERS = '/api/v4/futures/usdt/orders';

function exchange(): ModelExchange {
  const clock = new VirtualClock({ wallStart: Date.parse('2026-11-21T10:00:00Z') });
  return new ModelExchange(
    { family: { tiers: [{ minRatio: '0', limit: 1_000_000_000 }] }, fills: { maker: 1, taker: 0 } },
    clock,
  );
}

function place(m: ModelExchange, order: Record<string, unknown>) {
  return m.handle({
    method: 'POST',
    path: ORDERS,
    query: '',
    key: 'main-key',
    timestamp: undefined,
    sign: undefined,
    body: JSON.stringify(order),
    ip: '127.0.0.1',
  });
}

describe('futures placement answers', () => {
  it('refuses a negative price whose text was read before as a (valid) negative size', () => {
    const m = exchange();
    expect(place(m, { contract: 'BTC_USDT', size: '-5', price: '60000' })).toMatchObject({
      status: 200,
      body: { size: '-5', left: '0', finish_as: 'filled' },
    });
    expect(place(m, { contract: 'BTC_USDT', size: 1, price: '-5' })).toMatchObject({
      status: 400,
      body: { label: 'INVALID_PARAM_VALUE' },
    });
  });

  it('answers a size sent as a number with numbers and one sent as text with text, the same value either way', () => {
    const m = exchange();
    expect(place(m, { contract: 'BTC_USDT', size: 2, price: '60000.50' }).body).toMatchObject({
      size: 2,
      left: 0,
      price: '60000.5',
      fill_price: '60000.5',
    });
    expect(place(m, { contract: 'BTC_USDT', size: '2', price: '60000.50' }).body).toMatchObject({
      size: '2',
      left: '0',
      price: '60000.5',
      fill_price: '60000.5',
    });
  });

  it('answers every price exactly past the 4,096 texts kept read, the first one again included', () => {
    const m = exchange();
    const prices = Array.from({ length: 5000 }, (_, i) => `${60000 + i}.${String(i % 100).padStart(2, '0')}`);
    const answered = [...prices, prices[0]!].map(
      (price) => place(m, { contract: 'BTC_USDT', size: 1, price }).body as { price: string },
    );
    const expected = [...prices, prices[0]!].map((p) => p.replace(/\.?0+$/, ''));
    expect(answered.map((a) => a.price)).toEqual(expected);
  });
});

describe('my_trades_timerange', () => {
  const get = (m: ModelExchange, path: string, query: string) =>
    m.handle({
      method: 'GET',
      path,
      query,
      key: 'main-key',
      timestamp: undefined,
      sign: undefined,
      body: '',
      ip: '127.0.0.1',
    });

  it('answers the fills of my_trades with their id as `trade_id` and their size as text, within from and to', () => {
    const m = exchange();
    place(m, { contract: 'BTC_USDT', size: 2, price: '60000' });
    place(m, { contract: 'BTC_USDT', size: -3, price: '60100' });
    const trades = get(m, '/api/v4/futures/usdt/my_trades', 'contract=BTC_USDT').body as { id: number }[];
    const timerange = get(m, '/api/v4/futures/usdt/my_trades_timerange', 'contract=BTC_USDT').body as Record<
      string,
      unknown
    >[];
    expect(timerange.map((t) => [t['trade_id'], t['size'], t['price'], t['role']])).toEqual([
      [String(trades[0]!.id), '-3', '60100', 'maker'],
      [String(trades[1]!.id), '2', '60000', 'maker'],
    ]);
    expect(timerange[0]).not.toHaveProperty('id');
    const at = Date.parse('2026-11-21T10:00:00Z') / 1000;
    expect(get(m, '/api/v4/futures/usdt/my_trades_timerange', `from=${at + 1}`).body).toEqual([]);
    expect((get(m, '/api/v4/futures/usdt/my_trades_timerange', `from=${at}&to=${at}`).body as unknown[]).length).toBe(
      2,
    );
    expect(get(m, '/api/v4/futures/usdt/my_trades_timerange', 'from=soon')).toMatchObject({
      status: 400,
      body: { label: 'INVALID_PARAM_VALUE' },
    });
  });
});
