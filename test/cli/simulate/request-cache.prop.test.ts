// The log reader classifies a request once per kind and finds it again by comparing a line's
// fields in place: whatever the order of the lines, every row gets what the catalog itself gives.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { type Classification, createCatalog } from '../../../src/catalog/catalog.js';
import { readLog } from '../../../src/cli/simulate/read-log.js';

const T = Date.parse('2026-11-20T09:00:00Z');

const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'),
  path: fc.oneof(
    fc.constantFrom(
      '/api/v4/futures/usdt/orders',
      '/api/v4/futures/usdt/batch_orders',
      '/api/v4/spot/orders',
      '/api/v4/spot/tickers',
      '/api/v4/withdrawals',
      '/api/v4/futures/usdt/positions',
    ),
    fc.nat(99_999).map((id) => `/api/v4/futures/usdt/orders/${id}`),
    fc.nat(99).map((id) => `/api/v4/spot/orders/${id}`),
  ),
  contract: fc.constantFrom('', 'BTC_USDT', 'ETH_USDT', 'SOL_USDT', 'BTC_USD'),
  orders: fc.constantFrom('', '1', '2', '3', '10'),
});

describe('the request cache of the log reader', () => {
  test.prop([fc.array(request, { minLength: 1, maxLength: 60 })])(
    'hands every row its contract and the classification the catalog gives it',
    async (rows) => {
      const csv = [
        'at,account,method,path,contract,orders',
        ...rows.map((r) => `${T},main,${r.method},${r.path},${r.contract},${r.orders}`),
      ].join('\n');
      const seen: [Classification, string][] = [];
      await readLog(
        {
          name: 'log.csv',
          size: null,
          chunks: (async function* () {
            yield Buffer.from(csv);
          })(),
        },
        createCatalog(),
        {
          time: () => {},
          account: (id) => id,
          request: (_at, _account, c, contract) => seen.push([c, contract]),
          fill: () => {},
        },
      );
      const catalog = createCatalog();
      const expected = rows.map(({ method, path, contract, orders }) => {
        const n = orders === '' ? 1 : Number(orders);
        const body = Array.from({ length: n }, () => ({ contract, currency_pair: contract }));
        return [
          catalog.classify(method, path, n > 1 || /batch/.test(path) ? body : contract === '' ? undefined : body[0]),
          contract,
        ];
      });
      expect(seen).toEqual(expected);
    },
  );
});
