import type { Classification } from '../catalog/catalog.js';
import { ApiError, badRequest } from './api-error.js';
import type { Account } from './core.js';
import { whole } from './market-data.js';
import type { Markets, Pair } from './markets.js';
import type { ModelExchange } from './model.js';
import { uidOf } from './order-json.js';

// The endpoints the model answers, by method and path template: what each runs on the model for
// an admitted request, and the refusal of one it does not answer.

/** What an endpoint's handler reads of an admitted request. */
export interface Admitted {
  readonly c: Classification;
  readonly body: unknown;
  readonly query: URLSearchParams;
  readonly id: string;
  readonly at: number;
}
/** A private endpoint, for the account that sent the request. */
export type Handler = (m: ModelExchange, a: Account, r: Admitted) => unknown;
/** A public endpoint (market data), the same for every caller. */
export type PublicHandler = (m: ModelExchange, r: Admitted) => unknown;
/** An endpoint the model answers, found once per classification. */
export interface Route {
  readonly name: string;
  readonly handler: ((m: ModelExchange, a: Account | null, r: Admitted) => unknown) | undefined;
}

/** The refusal of a request the model does not answer: 405 on a path it answers with other methods, else 404. */
export function notAnswered(c: Classification): ApiError {
  const methods = ANSWERED.get(c.endpoint);
  if (methods !== undefined)
    return new ApiError(
      405,
      'METHOD_NOT_ALLOWED',
      `${c.method} ${c.endpoint}: the model answers ${methods.join(', ')} there`,
    );
  return new ApiError(
    404,
    'NOT_FOUND',
    `${c.method} ${c.endpoint} is not a path the model answers (docs/model-exchange.md lists them)`,
  );
}

function withdrawal(body: unknown, at: number, n: number): unknown {
  const o = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof o.address !== 'string' || o.address === '')
    throw badRequest('MISSING_REQUIRED_PARAM', 'address is required for a withdrawal');
  return {
    id: `w${n}`,
    txid: '',
    withdraw_order_id: o.withdraw_order_id ?? '',
    timestamp: String(Math.floor(at / 1000)),
    amount: String(o.amount ?? '0'),
    currency: String(o.currency ?? ''),
    address: o.address,
    memo: String(o.memo ?? ''),
    withdraw_id: '',
    asset_class: '',
    status: 'REQUEST',
    chain: String(o.chain ?? ''),
  };
}

let serial = 1;

/** The private endpoints: each runs for the account whose key signed the request. */
export const ROUTES = new Map<string, Handler>([
  ['POST /futures/{settle}/orders', (m, a, r) => m.trading.placeFutures(a, r.c.settle!, r.body, r.at)],
  ['POST /futures/{settle}/batch_orders', (m, a, r) => m.trading.placeFuturesBatch(a, r.c.settle!, r.body, r.at)],
  ['PUT /futures/{settle}/orders/{order_id}', (m, a, r) => m.trading.amendFutures(a, r.c.settle!, r.id, r.body, r.at)],
  [
    'PATCH /futures/{settle}/orders/{order_id}',
    (m, a, r) => m.trading.amendFutures(a, r.c.settle!, r.id, r.body, r.at),
  ],
  ['POST /futures/{settle}/batch_amend_orders', (m, a, r) => m.trading.amendFuturesBatch(a, r.c.settle!, r.body, r.at)],
  ['DELETE /futures/{settle}/orders/{order_id}', (m, a, r) => m.trading.cancelFutures(a, r.c.settle!, r.id, r.at)],
  [
    'DELETE /futures/{settle}/orders',
    (m, a, r) => m.trading.cancelFuturesAll(a, r.c.settle!, r.query.get('contract') ?? undefined, r.at),
  ],
  [
    'POST /futures/{settle}/batch_cancel_orders',
    (m, a, r) => m.trading.cancelFuturesBatch(a, r.c.settle!, r.body, r.at),
  ],
  ['GET /futures/{settle}/orders', (m, a, r) => m.trading.listFutures(a, r.c.settle!, r.query)],
  ['GET /futures/{settle}/my_trades', (m, a, r) => m.trading.futuresTrades(a, r.c.settle!, r.query)],
  ['GET /futures/{settle}/my_trades_timerange', (m, a, r) => m.trading.futuresTradesTimerange(a, r.c.settle!, r.query)],
  ['GET /futures/{settle}/orders/{order_id}', (m, a, r) => m.trading.futuresOrderJson(a, r.c.settle!, r.id)],
  ['GET /futures/{settle}/accounts', (m, a, r) => m.trading.futuresAccount(a, r.c.settle!, r.at)],
  ['GET /futures/{settle}/positions', (m, a, r) => m.trading.positions(a, r.c.settle!, r.query, r.at)],
  [
    'GET /futures/{settle}/positions/{contract}',
    (m, a, r) => m.trading.positionJson(a, m.trading.contract(r.c.settle!, r.id), r.at),
  ],
  ['POST /spot/orders', (m, a, r) => m.trading.placeSpot(a, r.body, r.at)],
  ['POST /spot/batch_orders', (m, a, r) => m.trading.placeSpotBatch(a, r.body, r.at)],
  ['PATCH /spot/orders/{order_id}', (m, a, r) => m.trading.amendSpot(a, r.id, r.body ?? {}, r.query, r.at)],
  ['POST /spot/amend_batch_orders', (m, a, r) => m.trading.amendSpotBatch(a, r.body, r.at)],
  [
    'DELETE /spot/orders/{order_id}',
    (m, a, r) => m.trading.cancelSpot(a, r.id, r.query.get('currency_pair') ?? undefined, r.at),
  ],
  ['DELETE /spot/orders', (m, a, r) => m.trading.cancelSpotAll(a, r.query.get('currency_pair'), r.at)],
  ['POST /spot/cancel_batch_orders', (m, a, r) => m.trading.cancelSpotBatch(a, r.body, r.at)],
  ['GET /spot/orders', (m, a, r) => m.trading.listSpot(a, r.query)],
  ['GET /spot/my_trades', (m, a, r) => m.trading.spotTrades(a, r.query)],
  [
    'GET /spot/orders/{order_id}',
    (m, a, r) => m.trading.spotOrderJson(a, r.id, r.query.get('currency_pair') ?? undefined),
  ],
  ['GET /spot/open_orders', (m, a, r) => m.trading.spotOpenOrders(a, r.query)],
  ['GET /spot/accounts', (m, a, r) => m.trading.spotAccounts(a, r.query)],
  ['GET /account/rate_limit', (m, a, r) => m.rateLimitReport(a, r.at)],
  ['POST /withdrawals', (_m, _a, r) => withdrawal(r.body, r.at, serial++)],
  ['POST /withdrawals/push', () => ({ id: serial++ })],
  ['POST /wallet/transfers', () => ({ tx_id: serial++ })],
  ['POST /wallet/sub_account_to_sub_account', () => ({ tx_id: serial++ })],
  [
    'GET /account/detail',
    (_m, a) => ({ user_id: uidOf(a), ip_whitelist: [], currency_pairs: [], key: { mode: 1 }, tier: 0 }),
  ],
]);

/** The public endpoints (market data), answered alike for every caller. */
export const PUBLIC_ROUTES = new Map<string, PublicHandler>([
  ['GET /futures/{settle}/contracts', (m, r) => m.trading.contractsJson(r.c.settle!, r.at)],
  [
    'GET /futures/{settle}/contracts/{contract}',
    (m, r) => m.trading.contractJson(r.c.settle!, r.c.instrument ?? '', r.at),
  ],
  ['GET /futures/{settle}/tickers', (m, r) => contractsNamed(m, r).map((c) => m.data.futuresTicker(c, r.at))],
  [
    'GET /futures/{settle}/order_book',
    (m, r) =>
      m.data.futuresBook(
        m.trading.contract(r.c.settle!, r.query.get('contract')),
        r.at,
        depth(r.query, 100),
        r.query.get('with_id') === 'true',
      ),
  ],
  [
    'GET /futures/{settle}/trades',
    (m, r) =>
      m.data.futuresTrades(m.trading.contract(r.c.settle!, r.query.get('contract')), r.at, listed(r.query, 100, 1000)),
  ],
  [
    'GET /futures/{settle}/candlesticks',
    (m, r) => m.data.futuresCandles(m.trading.contract(r.c.settle!, r.query.get('contract')), r.at, r.query),
  ],
  ['GET /spot/currency_pairs', (m) => m.markets.pairs().map((id) => pairJson(m.markets.pair(id)!, m))],
  ['GET /spot/currency_pairs/{currency_pair}', (m, r) => pairJson(m.trading.pair(r.c.instrument), m)],
  [
    'GET /spot/tickers',
    (m, r) =>
      (r.query.get('currency_pair') === null ? m.markets.pairs() : [r.query.get('currency_pair')]).map((p) =>
        m.data.spotTicker(m.trading.pair(p), r.at),
      ),
  ],
  [
    'GET /spot/order_book',
    (m, r) =>
      m.data.spotBook(
        m.trading.pair(r.query.get('currency_pair')),
        r.at,
        depth(r.query, 100),
        r.query.get('with_id') === 'true',
      ),
  ],
  [
    'GET /spot/trades',
    (m, r) => m.data.spotTrades(m.trading.pair(r.query.get('currency_pair')), r.at, listed(r.query, 100, 1000)),
  ],
  ['GET /spot/candlesticks', (m, r) => m.data.spotCandles(m.trading.pair(r.query.get('currency_pair')), r.at, r.query)],
  ['GET /spot/time', (m) => ({ server_time: Math.floor(m.now()) })],
  ['GET /spot/currencies', (m) => currenciesJson(m.markets)],
  // What the model does not trade: listed empty, as an exchange with none of them would.
  ['GET /margin/currency_pairs', () => []],
  ['GET /delivery/{settle}/contracts', () => []],
  ['GET /options/underlyings', () => []],
]);

/** The contract a ticker query names, or every contract of the settlement currency. */
function contractsNamed(m: ModelExchange, r: Admitted) {
  const named = r.query.get('contract');
  return named === null ? m.markets.contracts(r.c.settle!) : [m.trading.contract(r.c.settle!, named)];
}

/** An order book's depth: `limit` levels a side. */
function depth(query: URLSearchParams, most: number): number {
  const raw = query.get('limit');
  return raw === null ? 10 : whole(raw, 'limit', 1, most);
}

/** A list's length: `limit`, or `fallback`. */
function listed(query: URLSearchParams, fallback: number, most: number): number {
  const raw = query.get('limit');
  return raw === null ? fallback : whole(raw, 'limit', 1, most);
}

/** A currency pair as `GET /spot/currency_pairs` answers it: precision and limits. */
function pairJson(p: Pair, m: ModelExchange): unknown {
  return {
    id: p.name,
    base: p.base,
    base_name: p.base,
    quote: p.quote,
    quote_name: p.quote,
    fee: '0.2',
    min_base_amount: m.data.minBase(p).toString(),
    min_quote_amount: p.minQuote.toString(),
    max_base_amount: '',
    max_quote_amount: '',
    amount_precision: p.amountPrecision,
    precision: Math.max(0, p.tick.decimalPlaces()),
    trade_status: 'tradable',
    sell_start: 0,
    buy_start: 0,
    delisting_time: 0,
    type: 'normal',
    trade_url: '',
    st_tag: false,
  };
}

/** The currencies of the pairs and contracts traded, as `GET /spot/currencies` lists them. */
function currenciesJson(markets: Markets): unknown[] {
  const names = new Set<string>();
  for (const pair of markets.pairs()) for (const c of pair.split('_')) names.add(c);
  for (const settle of ['usdt', 'btc', 'usd'])
    for (const c of markets.contracts(settle)) for (const x of c.name.split('_')) names.add(x);
  return [...names].sort().map((currency) => ({
    currency,
    name: currency,
    delisted: false,
    withdraw_disabled: false,
    withdraw_delayed: false,
    deposit_disabled: false,
    trade_disabled: false,
    fixed_rate: '',
    chain: currency,
    chains: [],
  }));
}

/** Every route the model answers (`GET /futures/{settle}/contracts`, ...), public ones first: what docs/model-exchange.md lists. */
export function answeredRoutes(): { readonly public: readonly string[]; readonly private: readonly string[] } {
  return { public: [...PUBLIC_ROUTES.keys()], private: [...ROUTES.keys()] };
}

/** Every path the model answers, with its methods: a path it answers with other methods is refused with 405, any other with 404. */
const ANSWERED = new Map<string, string[]>();
for (const name of [...ROUTES.keys(), ...PUBLIC_ROUTES.keys()]) {
  const [method, endpoint] = name.split(' ') as [string, string];
  ANSWERED.set(endpoint, [...(ANSWERED.get(endpoint) ?? []), method]);
}
