import { describe, expect, it } from 'vitest';
import { createCatalog } from '../../src/catalog/catalog.js';
import { WEBSOCKET_ORDER_CHANNELS, channelRequest } from '../../src/catalog/channels.js';
import { InvalidInputError } from '../../src/errors.js';

const catalog = createCatalog();
const keys = (c: { limits: readonly { key: string; limit: number; windowMs: number }[] }) =>
  c.limits.map((l) => `${l.key} ${l.limit}/${l.windowMs}`);

describe('classifyWebSocket with a budget (see docs/rules.md#r16)', () => {
  it('gives futures placement and amendment the tier budget under "separate", cancels the WebSocket 100 per s', () => {
    expect(keys({ limits: catalog.classifyWebSocket('futures', 'place', 'separate') })).toEqual([
      'ws.futures.place 100/1000',
    ]);
    expect(keys({ limits: catalog.classifyWebSocket('futures', 'amend', 'separate') })).toEqual([
      'ws.futures.place 100/1000',
    ]);
    expect(keys({ limits: catalog.classifyWebSocket('futures', 'cancel', 'separate') })).toEqual([
      'ws.futures.orders 100/1000',
    ]);
    expect(keys({ limits: catalog.classifyWebSocket('futures', 'place') })).toEqual(['ws.futures.orders 100/1000']);
    expect(() => catalog.classifyWebSocket('futures', 'place', 'both' as never)).toThrow('`budget`');
  });
});

describe('classifyChannel (see docs/rules.md#r16)', () => {
  it('draws a futures order on its WebSocket limit and on the REST limit of the same action by default', () => {
    const c = catalog.classifyChannel(
      'futures.order_batch_place',
      [{ contract: 'ETH_USDT' }, { contract: 'ETH_USDT' }],
      { settle: 'usdt' },
    );
    expect([c.market, c.action, c.orders, c.weight, c.instrument, c.endpoint]).toEqual([
      'futures',
      'place',
      2,
      2,
      'ETH_USDT',
      '/futures/{settle}/batch_orders',
    ]);
    expect(keys(c)).toEqual(['ws.futures.orders 100/1000', 'futures.place 100/1000']);
    expect(keys(catalog.classifyChannel('futures.order_cancel', { order_id: '12' }))).toEqual([
      'ws.futures.orders 100/1000',
      'futures.cancel 200/1000',
    ]);
  });

  it('draws a spot order on the WebSocket 10 per s and on the limit of its pair; a spot cancel on the REST cancel limit only', () => {
    expect(keys(catalog.classifyChannel('spot.order_place', { currency_pair: 'BTC_USDT', amount: '1' }))).toEqual([
      'ws.spot.place 10/1000',
      'spot.place:BTC_USDT 10/1000',
    ]);
    const cancel = catalog.classifyChannel('spot.order_cancel', { order_id: '5', currency_pair: 'ETH_USDT' });
    expect([cancel.action, cancel.instrument, ...keys(cancel)]).toEqual(['cancel', 'ETH_USDT', 'spot.cancel 200/1000']);
  });

  it('keeps WebSocket limits only under "separate", and status channels on their REST endpoint', () => {
    expect(
      keys(catalog.classifyChannel('futures.order_amend', { order_id: '1', price: '2' }, { budget: 'separate' })),
    ).toEqual(['ws.futures.place 100/1000']);
    expect(
      keys(catalog.classifyChannel('spot.order_cancel_cp', { currency_pair: 'BTC_USDT' }, { budget: 'separate' })),
    ).toEqual([]);
    expect(keys(catalog.classifyChannel('futures.order_status', { order_id: '1' }, { budget: 'separate' }))).toEqual([
      'futures:GET /futures/{settle}/orders/{order_id} 200/10000',
    ]);
  });

  it('refuses a channel that is not an order channel and a settle that is not one', () => {
    expect(WEBSOCKET_ORDER_CHANNELS).toContain('spot.order_amend');
    expect(() => catalog.classifyChannel('futures.tickers')).toThrow(InvalidInputError);
    expect(() => catalog.classifyChannel('futures.order_place', {}, { settle: 'USDT' })).toThrow('`settle`');
    expect(() => catalog.classifyChannel('futures.order_batch_place', [])).toThrow('at least one order');
  });
});

describe('channelRequest: the REST request a channel stands for', () => {
  it('puts the contract or pair of a cancel-all, and the pair of a spot request, in the query, and the order id in the path', () => {
    expect(channelRequest('futures.order_cancel_cp', { contract: 'BTC_USDT', side: 'bid' }, 'usdt')).toMatchObject({
      method: 'DELETE',
      path: '/futures/usdt/orders',
      query: 'contract=BTC_USDT',
      id: '',
    });
    expect(channelRequest('spot.order_cancel_cp', { currency_pair: 'ETH_USDT' }, 'usdt')).toMatchObject({
      path: '/spot/orders',
      query: 'currency_pair=ETH_USDT',
    });
    expect(
      channelRequest('spot.order_amend', { order_id: '12', currency_pair: 'ETH_USDT', price: '1' }, 'usdt'),
    ).toMatchObject({
      method: 'PATCH',
      path: '/spot/orders/12',
      query: 'currency_pair=ETH_USDT',
      id: '12',
      body: { order_id: '12', currency_pair: 'ETH_USDT', price: '1' },
    });
    expect(channelRequest('futures.order_cancel', { order_id: '7' }, 'btc')).toEqual({
      market: 'futures',
      action: 'cancel',
      method: 'DELETE',
      path: '/futures/btc/orders/7',
      query: '',
      id: '7',
    });
    expect(() => channelRequest('futures.order_explode', {}, 'usdt')).toThrow('`channel`');
  });
});
