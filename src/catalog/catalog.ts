import { InvalidInputError } from '../errors.js';
import { readRateLimit, type WindowSpec } from '../rules/window-spec.js';
import { parsePositiveInteger, readOptions } from '../internal/parse.js';
import { type WebSocketBudget, channelRequest } from './channels.js';

/**
 * The market a request belongs to (see docs/rules.md#r10): public market data is counted per IP.
 *
 * @example
 * ```ts
 * import { type Market, createCatalog } from 'traderatio/catalog'
 *
 * const catalog = createCatalog()
 * const market: Market = catalog.classify('GET', '/futures/usdt/tickers').market
 * market // 'public'
 * catalog.classify('POST', '/wallet/transfers').market // 'wallet'
 * ```
 */
export type Market =
  | 'spot'
  | 'margin'
  | 'futures'
  | 'delivery'
  | 'options'
  | 'wallet'
  | 'sub-accounts'
  | 'unified'
  | 'public'
  | 'other';

/**
 * What a request does to orders: the rules count place, amend and cancel (see docs/rules.md#r1, #r9, #r10).
 *
 * @example
 * ```ts
 * import { type Action, createCatalog } from 'traderatio/catalog'
 *
 * const catalog = createCatalog()
 * const action: Action = catalog.classify('PUT', '/futures/usdt/orders/123').action
 * action // 'amend'
 * catalog.classify('DELETE', '/spot/orders/123').action // 'cancel'
 * catalog.classify('GET', '/spot/orders').action // 'other'
 * ```
 */
export type Action = 'place' | 'amend' | 'cancel' | 'other';

/**
 * One limit a request draws on: its key (requests with the same key share it), N and W.
 *
 * @example
 * ```ts
 * import { type EndpointLimit, createCatalog } from 'traderatio/catalog'
 *
 * const [spec] = createCatalog().classify('POST', '/spot/orders', { currency_pair: 'BTC_USDT' }).limits
 * const place: EndpointLimit = spec!
 * place // { key: 'spot.place:BTC_USDT', scope: 'account', limit: 10, windowMs: 1000 }
 * ```
 */
export interface EndpointLimit extends WindowSpec {
  /** e.g. `futures.place`, `spot.place:BTC_USDT`, `wallet:POST /wallet/transfers`. */
  readonly key: string;
  /** Who it counts for: the account (uid), or the caller's IP for public endpoints. */
  readonly scope: 'account' | 'ip';
}

/**
 * A request as the catalogue reads it.
 *
 * @example
 * ```ts
 * import { type Classification, createCatalog } from 'traderatio/catalog'
 *
 * const c: Classification = createCatalog().classify('POST', 'https://api.gateio.ws/api/v4/spot/orders?x=1', { currency_pair: 'BTC_USDT' })
 * c // { method: 'POST', endpoint: '/spot/orders', orders: 1, weight: 1, instrument: 'BTC_USDT', market: 'spot', action: 'place', limits: [{ key: 'spot.place:BTC_USDT', scope: 'account', limit: 10, windowMs: 1000 }] }
 * ```
 */
export interface Classification {
  readonly method: string;
  /** The path without `/api/v4` and query, with its variable parts named: `/futures/{settle}/orders/{order_id}`. */
  readonly endpoint: string;
  readonly market: Market;
  readonly action: Action;
  /** Orders the request carries: the size of a batch body, else 1 (see docs/rules.md#r1: a batch counts per order). */
  readonly orders: number;
  /**
   * What the request counts on each of its limits: its orders on the futures, delivery and options
   * order limits (the exchange counts each order of a batch), 1 elsewhere (a spot batch is one
   * request on the limit of each currency pair it names).
   */
  readonly weight: number;
  /** The settlement currency of a futures or delivery path. */
  readonly settle?: string;
  /** The currency pair or contract, when the path or body names one. */
  readonly instrument?: string;
  /** Every limit it draws on, all at once. */
  readonly limits: readonly EndpointLimit[];
}

/**
 * The published limits (see docs/rules.md#r10) as a catalogue; every entry can be overridden. Keys:
 * `public`, `wallet.heavy`, `wallet.other`, `withdrawals`, `withdrawals.push`, `spot.place`,
 * `spot.cancel`, `spot.other`, `futures.place`, `futures.cancel`, `futures.other`, `delivery.place`,
 * `delivery.cancel`, `delivery.other`, `options.place`, `options.cancel`, `options.other`,
 * `sub-accounts`, `unified.loans`, `private.other`, and over WebSocket `ws.futures.orders`,
 * `ws.spot.place`.
 * @example
 * ```ts
 * import { DEFAULT_LIMITS } from 'traderatio/catalog'
 *
 * DEFAULT_LIMITS['futures.place'] // { limit: 100, windowMs: 1000 }
 * DEFAULT_LIMITS['withdrawals'] // { limit: 1, windowMs: 3000 }
 * DEFAULT_LIMITS['public'] // { limit: 200, windowMs: 10000 }
 * ```
 */
export const DEFAULT_LIMITS: Readonly<Record<string, WindowSpec>> = Object.freeze({
  public: { limit: 200, windowMs: 10_000 },
  'wallet.heavy': { limit: 80, windowMs: 10_000 },
  'wallet.other': { limit: 200, windowMs: 10_000 },
  withdrawals: { limit: 1, windowMs: 3_000 },
  'withdrawals.push': { limit: 1, windowMs: 10_000 },
  'spot.place': { limit: 10, windowMs: 1_000 },
  'spot.cancel': { limit: 200, windowMs: 1_000 },
  'spot.other': { limit: 200, windowMs: 10_000 },
  'futures.place': { limit: 100, windowMs: 1_000 },
  'futures.cancel': { limit: 200, windowMs: 1_000 },
  'futures.other': { limit: 200, windowMs: 10_000 },
  'delivery.place': { limit: 500, windowMs: 10_000 },
  'delivery.cancel': { limit: 500, windowMs: 10_000 },
  'delivery.other': { limit: 200, windowMs: 10_000 },
  'options.place': { limit: 200, windowMs: 1_000 },
  'options.cancel': { limit: 200, windowMs: 1_000 },
  'options.other': { limit: 200, windowMs: 10_000 },
  'sub-accounts': { limit: 80, windowMs: 10_000 },
  'unified.loans': { limit: 15, windowMs: 10_000 },
  'private.other': { limit: 150, windowMs: 10_000 },
  'ws.futures.orders': { limit: 100, windowMs: 1_000 },
  'ws.spot.place': { limit: 10, windowMs: 1_000 },
});

const HEAVY_WALLET = new Set([
  'POST /wallet/transfers',
  'POST /wallet/sub_account_transfers',
  'POST /wallet/sub_account_to_sub_account',
  'GET /wallet/total_balance',
  'GET /wallet/sub_account_balances',
  'GET /wallet/sub_account_margin_balances',
  'GET /wallet/sub_account_futures_balances',
  'GET /wallet/sub_account_cross_margin_balances',
]);

// Market data: public, counted per IP (see docs/rules.md#r10).
const PUBLIC = [
  /^GET \/spot\/(currencies(\/[^/]+)?|currency_pairs(\/[^/]+)?|tickers|order_book|trades|candlesticks|time|insurance_history)$/,
  /^GET \/(futures|delivery)\/\{settle\}\/(contracts(\/[^/]+)?|order_book|trades|candlesticks|premium_index|tickers|funding_rate|insurance|contract_stats|index_constituents\/[^/]+|liq_orders|risk_limit_tiers)$/,
  /^GET \/options\/(underlyings|expirations|contracts(\/[^/]+)?|settlements(\/[^/]+)?|order_book|tickers|underlying\/tickers\/[^/]+|candlesticks|underlying\/candlesticks|trades)$/,
  /^GET \/margin\/(currency_pairs(\/[^/]+)?|funding_book|uni\/currency_pairs(\/[^/]+)?)$/,
  /^GET \/wallet\/currency_chains$/,
];

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Options of a catalogue.
 *
 * @example
 * ```ts
 * import { type CatalogOptions, createCatalog } from 'traderatio/catalog'
 *
 * // A futures placement limit of 250 a second (tier 4) instead of the published 100.
 * const options: CatalogOptions = { limits: { 'futures.place': { limit: 250, windowMs: 1000 } } }
 * const catalog = createCatalog(options)
 * catalog.classify('POST', '/futures/usdt/orders', { contract: 'BTC_USDT', size: 1 }).limits[0]?.limit // 250
 * catalog.limits['futures.cancel'] // { limit: 200, windowMs: 1000 }
 * ```
 */
export interface CatalogOptions {
  /** Replaces published limits by key (see {@link DEFAULT_LIMITS}). @default {} */
  readonly limits?: Readonly<Record<string, WindowSpec>>;
}

/**
 * A request catalogue: classifies requests and says which limits each draws on (see docs/rules.md#r10).
 *
 * @example
 * ```ts
 * import { type Catalog, createCatalog } from 'traderatio/catalog'
 *
 * const catalog: Catalog = createCatalog()
 * catalog.classifyWebSocket('futures', 'place') // [{ key: 'ws.futures.orders', scope: 'account', limit: 100, windowMs: 1000 }]
 * // Over WebSocket, an order draws on its WebSocket limit and the REST limit of its action (see docs/rules.md#r16).
 * catalog.classifyChannel('futures.order_place', { contract: 'BTC_USDT', size: 1 }).limits.map((l) => l.key) // ['ws.futures.orders', 'futures.place']
 * catalog.classifyChannel('futures.order_place', { contract: 'BTC_USDT', size: 1 }, { budget: 'separate' }).limits.map((l) => l.key) // ['ws.futures.place']
 * let error: unknown
 * try { catalog.classify('GET', '/nope') } catch (e) { error = e }
 * (error as Error).name // 'InvalidInputError'
 * ```
 */
export interface Catalog {
  /** The limits in force, by key. */
  readonly limits: Readonly<Record<string, WindowSpec>>;
  /**
   * Reads a request: method, path (with or without `/api/v4`; of the query only the
   * `currency_pair` of a spot request by order id, whose body names none; or the full URL an
   * HTTP client hands over, `https://api.gateio.ws/api/v4/futures/usdt/orders?x=1`, any host, a
   * `URL` too) and, for batches, the body (an array of orders or ids). Throws {@link InvalidInputError} for a method or path
   * that is not one of the API's.
   */
  classify(method: string, path: string | URL, body?: unknown): Classification;
  /**
   * The WebSocket limits an order request sent over WebSocket draws on (see docs/rules.md#r10): futures place, amend
   * and cancel share 100 per second (`ws.futures.orders`); spot place and amend 10 per second
   * (`ws.spot.place`); spot cancels are not limited there. With `budget` `separate` (see docs/rules.md#r16) futures
   * place and amend draw instead on a budget of their own whose N is the tier (see docs/rules.md#r3)
   * (`ws.futures.place`, given here with the `futures.place` entry, tier 1).
   */
  classifyWebSocket(market: 'futures' | 'spot', action: Action, budget?: WebSocketBudget): readonly EndpointLimit[];
  /**
   * Reads an order channel of the WebSocket API (`futures.order_place`, `futures.order_batch_place`,
   * `spot.order_cancel`, ...) and its `req_param` as the REST request it stands for, with every
   * limit it draws on (see docs/rules.md#r16): under `budget` `shared` (the default) its WebSocket limits and the
   * REST limits of the same request, all at once; under `separate` its WebSocket limits only.
   * Status and list channels draw on the REST limit of their endpoint. `settle` is the futures
   * connection's settlement currency.
   */
  classifyChannel(
    channel: string,
    params?: unknown,
    options?: { readonly settle?: string; readonly budget?: WebSocketBudget },
  ): Classification;
}

const LIMIT_KEYS: readonly string[] = Object.keys(DEFAULT_LIMITS);

/**
 * Makes a catalogue with the published per-endpoint limits (see docs/rules.md#r10), overridden where `options.limits` says.
 *
 * @example
 * ```ts
 * import { createCatalog } from 'traderatio/catalog'
 *
 * const c = createCatalog()
 * // A batch counts per order (see docs/rules.md#r1).
 * c.classify('POST', '/api/v4/futures/usdt/batch_orders', [{}, {}, {}]) // { method: 'POST', endpoint: '/futures/{settle}/batch_orders', orders: 3, weight: 3, settle: 'usdt', market: 'futures', action: 'place', limits: [{ key: 'futures.place', scope: 'account', limit: 100, windowMs: 1000 }] }
 * ```
 */
export function createCatalog(options?: CatalogOptions): Catalog {
  const overrides = readOptions(
    readOptions(options, 'the catalogue options', ['limits']).limits,
    '`limits`',
    LIMIT_KEYS,
  );
  // Keys come from the caller (often parsed JSON): a map without a prototype, and only its own
  // keys looked up, so that "__proto__" or "constructor" is a key like any other, and refused.
  const limits: Record<string, WindowSpec> = Object.assign(
    Object.create(null) as Record<string, WindowSpec>,
    DEFAULT_LIMITS,
  );
  for (const [key, value] of Object.entries(overrides)) {
    limits[key] = readRateLimit(value, `\`limits.${key}\``);
  }
  Object.freeze(limits);
  // One frozen limit per key and scope, made on first use: a request classified allocates none.
  const specs = new Map<string, EndpointLimit>();
  const spec = (base: string, key: string = base, scope: 'account' | 'ip' = 'account'): EndpointLimit => {
    const id = `${scope} ${base} ${key}`;
    let made = specs.get(id);
    if (made === undefined) {
      made = Object.freeze({ key, scope, ...limits[base]! });
      if (specs.size >= ROUTE_MEMO_SIZE) specs.clear();
      specs.set(id, made);
    }
    return made;
  };
  const catalog: Catalog = {
    limits,
    classifyWebSocket(
      market: 'futures' | 'spot',
      action: Action,
      budget: WebSocketBudget = 'shared',
    ): readonly EndpointLimit[] {
      if (market !== 'futures' && market !== 'spot')
        throw new InvalidInputError('`market`', market, '"futures" or "spot"');
      if (action !== 'place' && action !== 'amend' && action !== 'cancel' && action !== 'other') {
        throw new InvalidInputError('`action`', action, '"place", "amend", "cancel" or "other"');
      }
      readBudget(budget);
      if (market === 'futures') {
        if (action === 'other') return [];
        return budget === 'separate' && action !== 'cancel'
          ? [spec('futures.place', 'ws.futures.place')]
          : [spec('ws.futures.orders')];
      }
      return action === 'place' || action === 'amend' ? [spec('ws.spot.place')] : [];
    },
    classifyChannel(
      channel: string,
      params?: unknown,
      options: { readonly settle?: string; readonly budget?: WebSocketBudget } = {},
    ): Classification {
      const { settle = 'usdt', budget = 'shared' } = readOptions(options, 'the channel options', ['settle', 'budget']);
      readBudget(budget);
      const r = channelRequest(channel, params, settle);
      const rest = catalog.classify(r.method, r.path, r.body);
      const base =
        rest.instrument === undefined && r.instrument !== undefined ? { ...rest, instrument: r.instrument } : rest;
      if (r.action === 'other') return base;
      const ws = catalog.classifyWebSocket(r.market, r.action, budget);
      return { ...base, limits: budget === 'shared' ? [...ws, ...rest.limits] : ws };
    },
    classify(method: string, path: string | URL, body?: unknown): Classification {
      const { method: m, segments, query, endpoint, route } = readRoute(method, path);
      const group = segments[0]!;
      const settle = group === 'futures' || group === 'delivery' ? segments[1] : undefined;
      const orders = batchSize(route, body);
      const instrument = instrumentOf(segments, body, query);
      const base: RequestRead = { method: m, endpoint, orders, weight: 1 };
      if (settle !== undefined) base.settle = settle;
      if (instrument !== undefined) base.instrument = instrument;

      if (isPublic(route)) {
        return classified(base, 'public', 'other', [spec('public', `public:${route}`, 'ip')]);
      }
      switch (group) {
        case 'spot':
        case 'margin': {
          const market: Market = group === 'margin' || isMarginBody(body) ? 'margin' : 'spot';
          const action = orderAction(route);
          if (group === 'spot' && (action === 'place' || action === 'amend')) {
            // 10 r/s per uid and market: one limit per currency pair the request names.
            const pairs = pairsOf(segments, body, query);
            return classified(
              base,
              market,
              action,
              (pairs.length === 0 ? ['*'] : pairs).map((pair) => spec('spot.place', `spot.place:${pair}`)),
            );
          }
          if (group === 'spot' && action === 'cancel') return classified(base, market, action, [spec('spot.cancel')]);
          return classified(base, market, action, [
            spec(group === 'spot' ? 'spot.other' : 'private.other', `${group}:${route}`),
          ]);
        }
        case 'futures':
        case 'delivery':
        case 'options': {
          const action = orderAction(route);
          if (group === 'delivery' && action === 'amend')
            return classified(base, group, action, [spec(`${group}.other`, `${group}:${route}`)]);
          if (action === 'place' || action === 'amend')
            return classified(base, group, action, [spec(`${group}.place`)], orders);
          if (action === 'cancel') return classified(base, group, action, [spec(`${group}.cancel`)], orders);
          return classified(base, group, action, [spec(`${group}.other`, `${group}:${route}`)]);
        }
        case 'withdrawals': {
          const own =
            route === 'POST /withdrawals'
              ? [spec('withdrawals')]
              : route === 'POST /withdrawals/push'
                ? [spec('withdrawals.push')]
                : [];
          return classified(base, 'wallet', 'other', [...own, spec('wallet.other', `wallet:${route}`)]);
        }
        case 'wallet':
          return classified(base, 'wallet', 'other', [
            spec(HEAVY_WALLET.has(route) ? 'wallet.heavy' : 'wallet.other', `wallet:${route}`),
          ]);
        case 'sub_accounts':
          return classified(base, 'sub-accounts', 'other', [spec('sub-accounts', `sub-accounts:${route}`)]);
        case 'unified':
          return classified(base, 'unified', 'other', [
            route === 'POST /unified/loans' ? spec('unified.loans') : spec('private.other', `unified:${route}`),
          ]);
        default:
          return classified(base, 'other', 'other', [spec('private.other', `other:${route}`)]);
      }
    },
  };
  return catalog;
}

/** What `classify` reads from a request's method, path and body, before its route decides the rest. */
type RequestRead = {
  -readonly [K in keyof Omit<Classification, 'market' | 'action' | 'limits'>]: Classification[K];
};

/**
 * The classification of `request`: its weight, and the market, action and limits its route
 * decides, set on it after what the request says (the order its fields have always had). Not
 * `{ ...request, market, action, limits }`: on Node 20 a copy followed by more fields takes a slow
 * path of V8, about 2 µs a request, most of what classifying one cost.
 */
function classified(
  request: RequestRead,
  market: Market,
  action: Action,
  limits: readonly EndpointLimit[],
  weight = 1,
): Classification {
  request.weight = weight;
  return Object.assign(request, { market, action, limits });
}

function readBudget(budget: unknown): WebSocketBudget {
  if (budget !== 'shared' && budget !== 'separate')
    throw new InvalidInputError('`budget`', budget, '"shared" or "separate"');
  return budget;
}

/**
 * Checks a classification given from outside (one `classify` made, kept by the caller) before
 * limits are looked up by it: its market, action, endpoint, weight and at least one limit, each
 * with a key, a scope and N per W. Returns it as is.
 */
export function readClassification(value: unknown, field: string): Classification {
  const c = value as Partial<Classification> | null;
  if (
    typeof c !== 'object' ||
    c === null ||
    typeof c.market !== 'string' ||
    typeof c.action !== 'string' ||
    typeof c.endpoint !== 'string' ||
    !Number.isSafeInteger(c.weight) ||
    !Array.isArray(c.limits) ||
    c.limits.length === 0
  ) {
    throw new InvalidInputError(field, value, 'a classification (catalog.classify)');
  }
  c.limits.forEach((spec: EndpointLimit, i: number) => {
    const where = `\`limits[${i}]\` of ${field}`;
    if (typeof spec?.key !== 'string' || (spec.scope !== 'account' && spec.scope !== 'ip'))
      throw new InvalidInputError(where, spec, 'a limit spec');
    // A spec carries its key and scope beside N and W: those two are read as a limit's.
    parsePositiveInteger(spec.limit, `${where}.limit`);
    parsePositiveInteger(spec.windowMs, `${where}.windowMs`);
  });
  return c as Classification;
}

const GROUPS = new Set([
  'spot',
  'margin',
  'futures',
  'delivery',
  'options',
  'wallet',
  'withdrawals',
  'sub_accounts',
  'account',
  'unified',
  'earn',
  'loan',
  'flash_swap',
  'rebate',
  'otc',
  'p2p',
  'crossex',
  'tradfi',
  'alpha',
]);
const SETTLES = new Set(['btc', 'usdt', 'usd']);

/** The scheme and host of an absolute http(s) URL, as HTTP clients give it. */
const ORIGIN = /^https?:\/\/[^/?#]*/i;

function parsePath(path: unknown): { segments: string[]; query: URLSearchParams } {
  let p: string;
  if (typeof path === 'string' && path.startsWith('/')) p = path;
  else if (typeof path === 'string' && ORIGIN.test(path)) p = path.replace(ORIGIN, '') || '/';
  else if (path instanceof URL && /^https?:$/.test(path.protocol)) p = path.pathname;
  else throw new InvalidInputError('`path`', path, 'an API path starting with "/", or a full http(s) URL');
  const search = path instanceof URL ? path.search : (/\?[^#]*/.exec(p)?.[0] ?? '');
  p = p.split('?')[0]!.split('#')[0]!;
  if (p.startsWith('/api/v4/') || p === '/api/v4') p = p.slice('/api/v4'.length);
  const segments = p.split('/').filter((s) => s.length > 0);
  if (segments.length === 0 || !GROUPS.has(segments[0]!)) {
    throw new InvalidInputError('`path`', path, `a path of the API v4 (under /${[...GROUPS].join(', /')})`);
  }
  // Legacy futures paths without a settlement currency mean btc (section 9).
  if (
    (segments[0] === 'futures' || segments[0] === 'delivery') &&
    (segments.length < 2 || !SETTLES.has(segments[1]!.toLowerCase()))
  ) {
    if (segments[0] === 'delivery')
      throw new InvalidInputError(
        '`path`',
        path,
        'a delivery path with a settlement currency (/delivery/{settle}/...)',
      );
    segments.splice(1, 0, 'btc');
  }
  if (segments[0] === 'futures' || segments[0] === 'delivery') segments[1] = segments[1]!.toLowerCase();
  return { segments, query: search === '' ? NO_QUERY : new URLSearchParams(search) };
}

/** The query of a path without one, shared: it is only read. */
const NO_QUERY = new URLSearchParams();

// Names the variable segments of a path: settle, ids, currency pairs and contracts.
function template(segments: readonly string[]): string {
  const out = segments.map((s, i) => {
    if (i === 1 && (segments[0] === 'futures' || segments[0] === 'delivery')) return '{settle}';
    const prev = segments[i - 1];
    if (prev === 'orders' || prev === 'price_orders' || prev === 'amend') return '{order_id}';
    if (prev === 'currency_pairs' || prev === 'currencies' || prev === 'contracts' || prev === 'positions')
      return `{${prev === 'currencies' ? 'currency' : prev === 'currency_pairs' ? 'currency_pair' : 'contract'}}`;
    if (prev === 'sub_accounts' && i === 1) return '{user_id}';
    if (prev === 'keys' && segments[0] === 'sub_accounts') return '{key}';
    if (prev === 'withdrawals' && i === 1 && s !== 'push') return '{withdrawal_id}';
    return s;
  });
  return `/${out.join('/')}`;
}

/** How many routes (and limits) the memos below keep: the API's endpoints fit many times over; a caller naming paths without end only empties them. */
const ROUTE_MEMO_SIZE = 4096;
const publicRoutes = new Map<string, boolean>();
const routeActions = new Map<string, Action>();

/** What a request's method and path say, whatever its body. */
interface RouteRead {
  /** The method, in capitals. */
  readonly method: string;
  /** The path's segments without `/api/v4`, a futures or delivery path's with its settlement currency. */
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
  /** The path without `/api/v4` and query, with its variable parts named: `/futures/{settle}/orders/{order_id}`. */
  readonly endpoint: string;
  /** The method and endpoint: `POST /futures/{settle}/orders`. */
  readonly route: string;
}

/** The routes read from a method and a path given as text, by method as given, then by path. */
const routeReads = new Map<string, Map<string, RouteRead>>();

/** An endpoint naming a variable part other than the settlement currency: an order, a pair, a contract, an id. */
const NAMES_ONE = /\{(?!settle\})/;

/**
 * Reads a request's method and path, or throws {@link InvalidInputError} for one that is not the
 * API's. Remembered per method and path given as text, for most requests repeat a few (every
 * placement on a market sends the same); not a path that names an order, a pair or another id:
 * each of those is new, and remembering it would only push out the ones that repeat.
 */
function readRoute(method: unknown, path: unknown): RouteRead {
  const byPath = typeof method === 'string' ? routeReads.get(method) : undefined;
  const known = typeof path === 'string' ? byPath?.get(path) : undefined;
  if (known !== undefined) return known;
  const m = typeof method === 'string' ? method.toUpperCase() : method;
  if (typeof m !== 'string' || !METHODS.has(m))
    throw new InvalidInputError('`method`', method, 'one of GET, POST, PUT, PATCH, DELETE');
  const { segments, query } = parsePath(path);
  const endpoint = template(segments);
  const read: RouteRead = { method: m, segments, query, endpoint, route: `${m} ${endpoint}` };
  if (typeof method === 'string' && typeof path === 'string' && !NAMES_ONE.test(endpoint)) {
    let paths = byPath;
    if (paths === undefined) {
      paths = new Map();
      routeReads.set(method, paths);
    }
    if (paths.size >= ROUTE_MEMO_SIZE) paths.clear();
    paths.set(path, read);
  }
  return read;
}

/** Whether a route is a public endpoint's (limited per IP); remembered per route, the test being a list of expressions. */
function isPublic(route: string): boolean {
  let known = publicRoutes.get(route);
  if (known === undefined) {
    known = PUBLIC.some((re) => re.test(route));
    if (publicRoutes.size >= ROUTE_MEMO_SIZE) publicRoutes.clear();
    publicRoutes.set(route, known);
  }
  return known;
}

/** The order action of a route; remembered per route. */
function orderAction(route: string): Action {
  let known = routeActions.get(route);
  if (known === undefined) {
    known = actionOf(route);
    if (routeActions.size >= ROUTE_MEMO_SIZE) routeActions.clear();
    routeActions.set(route, known);
  }
  return known;
}

function actionOf(route: string): Action {
  const [method, path] = route.split(' ') as [string, string];
  const tail = path.replace(/^\/(spot|margin|options|futures\/\{settle\}|delivery\/\{settle\})/, '');
  if (
    method === 'POST' &&
    (tail === '/orders' || tail === '/batch_orders' || tail === '/price_orders' || tail === '/cross_liquidate_orders')
  )
    return 'place';
  if (method === 'PATCH' && tail === '/orders/{order_id}') return 'amend';
  if (method === 'POST' && (tail === '/amend_batch_orders' || tail === '/batch_amend_orders')) return 'amend';
  if (method === 'PUT' && (tail === '/orders/{order_id}' || tail === '/price_orders/amend/{order_id}')) return 'amend';
  if (
    method === 'DELETE' &&
    (tail === '/orders' ||
      tail === '/orders/{order_id}' ||
      tail === '/price_orders' ||
      tail === '/price_orders/{order_id}')
  )
    return 'cancel';
  if (method === 'POST' && (tail === '/cancel_batch_orders' || tail === '/batch_cancel_orders')) return 'cancel';
  return 'other';
}

const BATCHES = /(batch_orders|amend_batch_orders|cancel_batch_orders|batch_cancel_orders|batch_amend_orders)$/;

function batchSize(route: string, body: unknown): number {
  if (!BATCHES.test(route)) return 1;
  if (!Array.isArray(body))
    throw new InvalidInputError(`the body of ${route}`, body, 'an array of orders (a batch counts once per order)');
  if (body.length === 0) throw new InvalidInputError(`the body of ${route}`, body, 'at least one order');
  return body.length;
}

function instrumentOf(segments: readonly string[], body: unknown, query: URLSearchParams): string | undefined {
  const i = segments.indexOf('currency_pairs');
  if (i >= 0 && segments[i + 1] !== undefined) return segments[i + 1];
  // GET /futures/{settle}/contracts/{contract} names its contract in the path.
  const j = segments.indexOf('contracts');
  if (j >= 0 && segments[j + 1] !== undefined) return segments[j + 1];
  const first = Array.isArray(body) ? body[0] : body;
  if (typeof first === 'object' && first !== null) {
    const o = first as { currency_pair?: unknown; contract?: unknown };
    if (typeof o.currency_pair === 'string') return o.currency_pair;
    if (typeof o.contract === 'string') return o.contract;
  }
  return queryPair(segments, query);
}

/**
 * The currency pair a spot request by order id names in its query
 * (`PATCH /spot/orders/{order_id}?currency_pair=BTC_USDT`), when its body names none.
 */
function queryPair(segments: readonly string[], query: URLSearchParams): string | undefined {
  if (segments[0] !== 'spot') return undefined;
  const pair = query.get('currency_pair');
  return pair === null || pair === '' ? undefined : pair;
}

function pairsOf(segments: readonly string[], body: unknown, query: URLSearchParams): string[] {
  const pairs = new Set<string>();
  for (const o of Array.isArray(body) ? body : [body]) {
    if (typeof o === 'object' && o !== null && typeof (o as { currency_pair?: unknown }).currency_pair === 'string') {
      pairs.add((o as { currency_pair: string }).currency_pair);
    }
  }
  if (pairs.size === 0) {
    const i = segments.indexOf('currency_pairs');
    if (i >= 0 && segments[i + 1] !== undefined) pairs.add(segments[i + 1]!);
  }
  const named = pairs.size === 0 ? queryPair(segments, query) : undefined;
  if (named !== undefined) pairs.add(named);
  return [...pairs].sort();
}

function isMarginBody(body: unknown): boolean {
  const first = Array.isArray(body) ? body[0] : body;
  return typeof first === 'object' && first !== null && (first as { account?: unknown }).account === 'margin';
}
