import { describe, expect, it } from 'vitest';
import { type CatalogOptions, createCatalog } from '../../src/catalog/catalog.js';

const catalog = createCatalog();
const brief = (method: string, path: string, body?: unknown) => {
  const c = catalog.classify(method, path, body);
  return {
    market: c.market,
    action: c.action,
    orders: c.orders,
    weight: c.weight,
    limits: c.limits.map((l) => `${l.key} ${l.limit}/${l.windowMs}`),
  };
};

describe('createCatalog().classify (see docs/rules.md#r10)', () => {
  it.each([
    ['POST', '/api/v4/futures/usdt/orders', undefined, 'futures', 'place', ['futures.place 100/1000']],
    ['POST', '/futures/usdt/orders', undefined, 'futures', 'place', ['futures.place 100/1000']],
    ['PATCH', '/futures/usdt/orders/123', undefined, 'futures', 'amend', ['futures.place 100/1000']],
    ['DELETE', '/futures/usdt/orders/123', undefined, 'futures', 'cancel', ['futures.cancel 200/1000']],
    ['DELETE', '/futures/usdt/orders?contract=BTC_USDT', undefined, 'futures', 'cancel', ['futures.cancel 200/1000']],
    [
      'GET',
      '/futures/usdt/accounts',
      undefined,
      'futures',
      'other',
      ['futures:GET /futures/{settle}/accounts 200/10000'],
    ],
    [
      'GET',
      '/futures/usdt/order_book',
      undefined,
      'public',
      'other',
      ['public:GET /futures/{settle}/order_book 200/10000'],
    ],
    ['GET', '/futures/orders', undefined, 'futures', 'other', ['futures:GET /futures/{settle}/orders 200/10000']],
    ['POST', '/delivery/usdt/orders', undefined, 'delivery', 'place', ['delivery.place 500/10000']],
    ['DELETE', '/delivery/usdt/orders/9', undefined, 'delivery', 'cancel', ['delivery.cancel 500/10000']],
    ['POST', '/options/orders', undefined, 'options', 'place', ['options.place 200/1000']],
    ['POST', '/spot/orders', { currency_pair: 'BTC_USDT' }, 'spot', 'place', ['spot.place:BTC_USDT 10/1000']],
    [
      'POST',
      '/spot/orders',
      { currency_pair: 'ETH_USDT', account: 'margin' },
      'margin',
      'place',
      ['spot.place:ETH_USDT 10/1000'],
    ],
    ['PATCH', '/spot/orders/77', { currency_pair: 'BTC_USDT' }, 'spot', 'amend', ['spot.place:BTC_USDT 10/1000']],
    // The amend by id names its pair in the query (see docs/rules.md#r10: 10 per second per pair, its placements' limit).
    ['PATCH', '/spot/orders/77?currency_pair=SOL_USDT', undefined, 'spot', 'amend', ['spot.place:SOL_USDT 10/1000']],
    [
      'PATCH',
      'https://api.gateio.ws/api/v4/spot/orders/77?account=spot&currency_pair=SOL_USDT',
      {},
      'spot',
      'amend',
      ['spot.place:SOL_USDT 10/1000'],
    ],
    [
      'PATCH',
      '/spot/orders/77?currency_pair=SOL_USDT',
      { currency_pair: 'BTC_USDT' },
      'spot',
      'amend',
      ['spot.place:BTC_USDT 10/1000'],
    ],
    ['PATCH', '/spot/orders/77?currency_pair=', undefined, 'spot', 'amend', ['spot.place:* 10/1000']],
    ['DELETE', '/spot/orders/77', undefined, 'spot', 'cancel', ['spot.cancel 200/1000']],
    ['GET', '/spot/tickers', undefined, 'public', 'other', ['public:GET /spot/tickers 200/10000']],
    ['GET', '/spot/accounts', undefined, 'spot', 'other', ['spot:GET /spot/accounts 200/10000']],
    ['POST', '/wallet/transfers', undefined, 'wallet', 'other', ['wallet:POST /wallet/transfers 80/10000']],
    [
      'GET',
      '/wallet/sub_account_futures_balances',
      undefined,
      'wallet',
      'other',
      ['wallet:GET /wallet/sub_account_futures_balances 80/10000'],
    ],
    ['GET', '/wallet/deposit_address', undefined, 'wallet', 'other', ['wallet:GET /wallet/deposit_address 200/10000']],
    ['GET', '/wallet/currency_chains', undefined, 'public', 'other', ['public:GET /wallet/currency_chains 200/10000']],
    [
      'POST',
      '/withdrawals',
      undefined,
      'wallet',
      'other',
      ['withdrawals 1/3000', 'wallet:POST /withdrawals 200/10000'],
    ],
    [
      'POST',
      '/withdrawals/push',
      undefined,
      'wallet',
      'other',
      ['withdrawals.push 1/10000', 'wallet:POST /withdrawals/push 200/10000'],
    ],
    [
      'DELETE',
      '/withdrawals/abc',
      undefined,
      'wallet',
      'other',
      ['wallet:DELETE /withdrawals/{withdrawal_id} 200/10000'],
    ],
    [
      'GET',
      '/sub_accounts/42/keys',
      undefined,
      'sub-accounts',
      'other',
      ['sub-accounts:GET /sub_accounts/{user_id}/keys 80/10000'],
    ],
    ['POST', '/unified/loans', undefined, 'unified', 'other', ['unified.loans 15/10000']],
    ['GET', '/unified/accounts', undefined, 'unified', 'other', ['unified:GET /unified/accounts 150/10000']],
    ['GET', '/earn/uni/lends', undefined, 'other', 'other', ['other:GET /earn/uni/lends 150/10000']],
  ])('%s %s is %s/%s', (method, path, body, market, action, limits) => {
    const c = brief(method, path, body);
    expect(c).toMatchObject({ market, action, limits });
  });

  it('counts a batch once per order, on the futures limit by its orders', () => {
    expect(brief('POST', '/futures/usdt/batch_orders', [{ contract: 'BTC_USDT' }, {}, {}])).toMatchObject({
      action: 'place',
      orders: 3,
      weight: 3,
    });
    expect(brief('POST', '/futures/usdt/batch_cancel_orders', ['1', '2'])).toMatchObject({
      action: 'cancel',
      orders: 2,
      weight: 2,
    });
    expect(brief('POST', '/futures/usdt/batch_amend_orders', [{}])).toMatchObject({ action: 'amend', orders: 1 });
    expect(catalog.classify('POST', '/futures/usdt/batch_orders', [{ contract: 'ETH_USDT' }]).instrument).toBe(
      'ETH_USDT',
    );
  });

  it('lists its fields in one order, leaving out a settlement or instrument the request does not name', () => {
    expect(Object.keys(catalog.classify('POST', '/futures/usdt/batch_orders', [{ contract: 'BTC_USDT' }]))).toEqual([
      'method',
      'endpoint',
      'orders',
      'weight',
      'settle',
      'instrument',
      'market',
      'action',
      'limits',
    ]);
    expect(Object.keys(catalog.classify('GET', '/spot/accounts'))).toEqual([
      'method',
      'endpoint',
      'orders',
      'weight',
      'market',
      'action',
      'limits',
    ]);
    expect(catalog.classify('GET', '/spot/tickers')).not.toHaveProperty('instrument');
  });

  it('charges a spot batch once on the limit of each currency pair it names', () => {
    const c = brief('POST', '/spot/batch_orders', [
      { currency_pair: 'BTC_USDT' },
      { currency_pair: 'ETH_USDT' },
      { currency_pair: 'BTC_USDT' },
    ]);
    expect(c).toMatchObject({
      action: 'place',
      orders: 3,
      weight: 1,
      limits: ['spot.place:BTC_USDT 10/1000', 'spot.place:ETH_USDT 10/1000'],
    });
    expect(brief('POST', '/spot/cancel_batch_orders', [{}, {}])).toMatchObject({ action: 'cancel', orders: 2 });
  });

  it('gives the WebSocket order limits: futures place, amend and cancel together, spot place and amend', () => {
    expect(catalog.classifyWebSocket('futures', 'cancel').map((l) => `${l.key} ${l.limit}/${l.windowMs}`)).toEqual([
      'ws.futures.orders 100/1000',
    ]);
    expect(catalog.classifyWebSocket('futures', 'place')[0]!.key).toBe('ws.futures.orders');
    expect(catalog.classifyWebSocket('spot', 'amend').map((l) => `${l.key} ${l.limit}/${l.windowMs}`)).toEqual([
      'ws.spot.place 10/1000',
    ]);
    expect(catalog.classifyWebSocket('spot', 'cancel')).toEqual([]);
    expect(() => catalog.classifyWebSocket('options' as never, 'place')).toThrow('`market`');
  });

  it.each([
    'https://api.gateio.ws/api/v4/futures/usdt/orders',
    'http://localhost:8080/api/v4/futures/usdt/orders?settle=usdt#x',
    'HTTPS://fx-api.gateio.ws/api/v4/futures/usdt/orders',
    new URL('https://host/api/v4/futures/usdt/orders?x=1'),
  ])('reads a full URL as HTTP clients give it (%s): any host, the query ignored', (url) => {
    const c = catalog.classify('POST', url);
    expect(c).toEqual(catalog.classify('POST', '/api/v4/futures/usdt/orders'));
    expect(c).toMatchObject({ endpoint: '/futures/{settle}/orders', market: 'futures', action: 'place' });
  });

  it('reads a method and path it has read before the same way, each classification its own', () => {
    const body = { contract: 'BTC_USDT', size: 1 };
    const first = catalog.classify('POST', '/futures/usdt/orders', body);
    const again = catalog.classify('POST', '/futures/usdt/orders', { contract: 'ETH_USDT', size: 1 });
    expect(again).toMatchObject({ endpoint: '/futures/{settle}/orders', settle: 'usdt', instrument: 'ETH_USDT' });
    expect(first.instrument).toBe('BTC_USDT');
    expect(catalog.classify('POST', '/futures/usdt/orders', body)).toEqual(first);
    expect(catalog.classify('POST', '/futures/usdt/orders', body)).not.toBe(first);
    expect(catalog.classify('POST', '/futures/usdt/orders', body).limits).not.toBe(first.limits);
    expect(catalog.classify('post', '/futures/usdt/orders', body).method).toBe('POST');
    // A method is checked whatever path it comes with: none is read as another method's path.
    expect(catalog.classify('GET', '/spot/x /y').endpoint).toBe('/spot/x /y');
    expect(() => catalog.classify('GET /spot/x', '/y')).toThrow('Expected `method` to be one of GET');
    // Another catalogue's limits, on the same route.
    const tier4 = createCatalog({ limits: { 'futures.place': { limit: 250, windowMs: 1000 } } });
    expect(tier4.classify('POST', '/futures/usdt/orders', body).limits[0]?.limit).toBe(250);
    expect(catalog.classify('POST', '/futures/usdt/orders', body).limits[0]?.limit).toBe(100);
  });

  it('refuses a URL that is not http(s), or a relative path', () => {
    expect(() => catalog.classify('POST', 'ftp://host/api/v4/futures/usdt/orders')).toThrow(
      'an API path starting with "/", or a full http(s) URL',
    );
    expect(() => catalog.classify('POST', 'api/v4/futures/usdt/orders')).toThrow(
      'an API path starting with "/", or a full http(s) URL',
    );
    expect(() => catalog.classify('POST', 'https://host/api/v4/nowhere')).toThrow('a path of the API v4');
  });

  it('takes overrides of the published limits', () => {
    const c = createCatalog({ limits: { withdrawals: { limit: 1, windowMs: 5000 } } });
    expect(c.classify('POST', '/withdrawals').limits[0]).toMatchObject({
      key: 'withdrawals',
      limit: 1,
      windowMs: 5000,
    });
    expect(() => createCatalog({ limits: { nope: { limit: 1, windowMs: 1 } } })).toThrow(
      'Unknown field `nope` in `limits`. The fields are public',
    );
    expect(() => createCatalog({ limits: { withdrawals: { limit: 0, windowMs: 1 } } })).toThrow(
      '`limits.withdrawals`.limit',
    );
  });

  it('refuses an unknown path, method or a batch without orders', () => {
    expect(() => catalog.classify('GET', '/nope/x')).toThrow('Expected `path` to be a path of the API v4');
    expect(() => catalog.classify('GET', 'futures/usdt/orders')).toThrow('starting with "/"');
    expect(() => catalog.classify('FETCH', '/spot/orders')).toThrow('Expected `method` to be one of GET');
    expect(() => catalog.classify('POST', '/futures/usdt/batch_orders', {})).toThrow('an array of orders');
    expect(() => catalog.classify('POST', '/futures/usdt/batch_orders', [])).toThrow('at least one order');
  });
});

describe('createCatalog with keys from parsed JSON', () => {
  it('refuses a "__proto__" limit key and leaves the prototype of every object alone', () => {
    const options = JSON.parse('{ "limits": { "__proto__": { "limit": 1, "windowMs": 1 } } }') as CatalogOptions;
    expect(() => createCatalog(options)).toThrow('Unknown field `__proto__` in `limits`. The fields are public');
    expect(() =>
      createCatalog(JSON.parse('{ "limits": { "constructor": { "limit": 1, "windowMs": 1 } } }') as CatalogOptions),
    ).toThrow('Unknown field `constructor` in `limits`');
    const c = createCatalog({ limits: { withdrawals: { limit: 2, windowMs: 3000 } } });
    expect(Object.getPrototypeOf(c.limits)).toBeNull();
    expect(c.limits['__proto__']).toBeUndefined();
    expect(c.limits.withdrawals).toEqual({ limit: 2, windowMs: 3000 });
    expect(({} as { limit?: unknown }).limit).toBeUndefined();
  });

  it('refuses null options or limits, naming them', () => {
    expect(() => createCatalog(null as never)).toThrow('Expected the catalogue options to be an options object');
    expect(() => createCatalog({ limits: null as never })).toThrow('Expected `limits` to be an options object');
  });
});

describe('a spot request by order id', () => {
  it('counts under the pair its query names (see docs/rules.md#r14), the futures ones never reading the query', () => {
    expect(
      catalog.classify('DELETE', new URL('https://api.gateio.ws/api/v4/spot/orders/9?currency_pair=ETH_USDT'))
        .instrument,
    ).toBe('ETH_USDT');
    expect(catalog.classify('DELETE', '/futures/usdt/orders/9?currency_pair=ETH_USDT').instrument).toBeUndefined();
  });
});
