import { InvalidInputError } from '../errors.js';
import { type Instrument, type InstrumentKind, readInstrument } from '../rules/okx/instruments.js';
import type { Action, Catalog, Classification, EndpointLimit, Market } from './catalog.js';
import { OKX } from '../rules/okx/rulebook.js';
import type { WindowSpec } from '../rules/window-spec.js';

/**
 * One endpoint of OKX's API v5 as a request log names it, with the limit of its own it draws on
 * (see docs/okx.md#o5): per user id and instrument id for order requests (by family for options),
 * per user id for the other private endpoints, per IP for public ones.
 */
export interface OkxEndpoint {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly action: Action;
  /** Whether the body is a batch, each order counting once on every limit it draws on. */
  readonly batch: boolean;
  /** N per W, and what it counts per: `instrument` (its id, or family for options), `account` (the user id) or `ip`. */
  readonly limit: { readonly limit: number; readonly windowMs: number; readonly per: 'instrument' | 'account' | 'ip' };
  /** For a batch: the endpoint whose limit a batch of one order draws on instead. */
  readonly single?: string;
  /** Where OKX states the figure. */
  readonly source: string;
}

const order = (path: string, action: Action, limit: number, source: string, single?: string): OkxEndpoint => ({
  method: 'POST',
  path,
  action,
  batch: single !== undefined,
  limit: { limit, windowMs: 2000, per: 'instrument' },
  ...(single === undefined ? {} : { single }),
  source,
});

const read = (path: string, limit: number, per: 'account' | 'ip', source: string, windowMs = 2000): OkxEndpoint => ({
  method: 'GET',
  path,
  action: 'other',
  batch: false,
  limit: { limit, windowMs, per },
  source,
});

/**
 * OKX's endpoints a request log may name (API v5, the figures of each endpoint's "Rate Limit"
 * line): order requests per instrument (place, amend and cancel independent; a batch counts per
 * order, a batch of one on the single-order limit), and the reads an engine makes.
 */
export const OKX_ENDPOINTS: readonly OkxEndpoint[] = Object.freeze([
  order('/api/v5/trade/order', 'place', 60, 'POST / Place order: 60 requests per 2 seconds (User ID + Instrument ID)'),
  order(
    '/api/v5/trade/batch-orders',
    'place',
    300,
    'POST / Place multiple orders: 300 orders per 2 seconds (User ID + Instrument ID); one order counts on Place order',
    '/api/v5/trade/order',
  ),
  order(
    '/api/v5/trade/amend-order',
    'amend',
    60,
    'POST / Amend order: 60 requests per 2 seconds (User ID + Instrument ID)',
  ),
  order(
    '/api/v5/trade/amend-batch-orders',
    'amend',
    300,
    'POST / Amend multiple orders: 300 orders per 2 seconds (User ID + Instrument ID); one order counts on Amend order',
    '/api/v5/trade/amend-order',
  ),
  order(
    '/api/v5/trade/cancel-order',
    'cancel',
    60,
    'POST / Cancel order: 60 requests per 2 seconds (User ID + Instrument ID)',
  ),
  order(
    '/api/v5/trade/cancel-batch-orders',
    'cancel',
    300,
    'POST / Cancel multiple orders: 300 orders per 2 seconds (User ID + Instrument ID); one order counts on Cancel order',
    '/api/v5/trade/cancel-order',
  ),
  read('/api/v5/trade/order', 60, 'account', 'GET / Order details: 60 requests per 2 seconds'),
  read('/api/v5/trade/orders-pending', 60, 'account', 'GET / Order List: 60 requests per 2 seconds'),
  read('/api/v5/trade/orders-history', 40, 'account', 'GET / Order history (last 7 days): 40 requests per 2 seconds'),
  read('/api/v5/trade/fills', 60, 'account', 'GET / Transaction details (last 3 days): 60 requests per 2 seconds'),
  read(
    '/api/v5/trade/fills-history',
    10,
    'account',
    'GET / Transaction details (last 3 months): 10 requests per 2 seconds',
  ),
  read('/api/v5/trade/account-rate-limit', 1, 'account', 'GET / Account rate limit: 1 request per second', 1000),
  read('/api/v5/account/balance', 10, 'account', 'GET / Balance: 10 requests per 2 seconds'),
  read('/api/v5/account/positions', 10, 'account', 'GET / Positions: 10 requests per 2 seconds'),
  read('/api/v5/asset/currencies', 6, 'account', 'GET / Get currencies: 6 requests per second', 1000),
  read('/api/v5/public/instruments', 20, 'ip', 'GET / Instruments: 20 requests per 2 seconds'),
  read('/api/v5/public/time', 10, 'ip', 'GET / System time: 10 requests per 2 seconds'),
  read('/api/v5/market/ticker', 20, 'ip', 'GET / Ticker: 20 requests per 2 seconds'),
  read('/api/v5/market/tickers', 20, 'ip', 'GET / Tickers: 20 requests per 2 seconds'),
  read('/api/v5/market/books', 40, 'ip', 'GET / Order book: 40 requests per 2 seconds'),
]);

/**
 * The sub-account limit of new and amend orders (see docs/okx.md#o1, #o4): its key, what it
 * counts, and the instrument kinds exempt from it (they still count in the fill ratio). Its N is
 * the tier in force, its window the rulebook's.
 */
export const OKX_SUB_ACCOUNT_LIMIT = Object.freeze({
  key: 'sub-account',
  actions: Object.freeze(['place', 'amend'] as const),
  exempt: Object.freeze(['SPOT', 'MARGIN'] as readonly InstrumentKind[]),
});

/** The market of an instrument kind, as the rest of the library groups requests. */
const MARKETS: Readonly<Record<InstrumentKind, Market>> = {
  SPOT: 'spot',
  MARGIN: 'margin',
  SWAP: 'futures',
  FUTURES: 'futures',
  OPTION: 'options',
};

/** The error codes of OKX's refusals (see docs/okx.md#o8): the sub-account limit's, and every other limit's. */
export const OKX_REFUSAL_CODES = Object.freeze({ subAccount: '50061', other: '50011' });

/**
 * Classifies a request to OKX's API v5 as a log names it: method, path (`/api/v5/...`, with or
 * without a query) and, for order requests, a body naming the instrument (`instId`), an array for
 * a batch. An order request draws on its endpoint's limit for its instrument (its family for an
 * option) and, for new and amend orders outside spot and margin, on the sub-account limit, both
 * weighted by its orders; a batch is read under its first order's instrument (see
 * {@link classifyOkxOrders} for each instrument apart). A path that is none of
 * {@link OKX_ENDPOINTS}, or an order request without an OKX instrument id, is refused, naming it.
 */
export function classifyOkx(
  method: string,
  path: string,
  body: unknown,
  subAccountLimit: EndpointLimit,
): Classification {
  const { e, endpoint } = endpointOf(method, path);
  if (e.limit.per !== 'instrument') return readClassification(e);
  const orders = e.batch ? batchSize(e, body) : 1;
  const first = Array.isArray(body) ? body[0] : body;
  return orderClassification(e, endpoint, instIdOf(e, first), orders, orders, subAccountLimit);
}

/** The orders of a request on one instrument, and what they draw on together. */
export interface OkxOrderGroup {
  /** The orders' places in the body (0 for a request of one order), in the body's order. */
  readonly orders: readonly number[];
  readonly c: Classification;
}

/**
 * Classifies a request to OKX's API v5 order by order: the orders of a batch grouped by
 * instrument (each instrument's limit counts its own orders; the sub-account limit counts them
 * all), one group for a request of one order or a read. Whether the batch limit or the
 * single-order limit applies is the whole request's size (see docs/okx.md#o5). Refused as {@link classifyOkx}.
 */
export function classifyOkxOrders(
  method: string,
  path: string,
  body: unknown,
  subAccountLimit: EndpointLimit,
): readonly OkxOrderGroup[] {
  const { e, endpoint } = endpointOf(method, path);
  if (e.limit.per !== 'instrument') return [{ orders: [0], c: readClassification(e) }];
  if (!e.batch) return [{ orders: [0], c: orderClassification(e, endpoint, instIdOf(e, body), 1, 1, subAccountLimit) }];
  const all = batchSize(e, body);
  const byId = new Map<string, number[]>();
  (body as unknown[]).forEach((o, i) => {
    const id = instIdOf(e, o, i).id;
    const list = byId.get(id);
    if (list === undefined) byId.set(id, [i]);
    else list.push(i);
  });
  return [...byId].map(([id, orders]) => ({
    orders,
    c: orderClassification(e, endpoint, readInstrument(id), orders.length, all, subAccountLimit),
  }));
}

function endpointOf(method: string, path: string): { e: OkxEndpoint; endpoint: string } {
  const m = typeof method === 'string' ? method.toUpperCase() : method;
  const endpoint = typeof path === 'string' ? path.split('?')[0]!.split('#')[0]! : path;
  const e = OKX_ENDPOINTS.find((x) => x.method === m && x.path === endpoint);
  if (e === undefined) {
    const known = OKX_ENDPOINTS.map((x) => `${x.method} ${x.path}`).join(', ');
    throw new InvalidInputError(
      '`method` and `path`',
      `${String(method)} ${String(path)}`,
      `an OKX endpoint (${known})`,
    );
  }
  return { e, endpoint };
}

/** A read: its own limit, per user id or per IP. */
function readClassification(e: OkxEndpoint): Classification {
  const market: Market = e.limit.per === 'ip' ? 'public' : 'other';
  const key = `${e.method} ${e.path}`;
  return {
    method: e.method,
    endpoint: e.path,
    market,
    action: 'other',
    orders: 1,
    weight: 1,
    limits: [{ key, scope: e.limit.per === 'ip' ? 'ip' : 'account', limit: e.limit.limit, windowMs: e.limit.windowMs }],
  };
}

/** The instrument an order names (`instId`), refused naming the order when it names none. */
function instIdOf(e: OkxEndpoint, order: unknown, index?: number): Instrument {
  const id = typeof order === 'object' && order !== null ? (order as { instId?: unknown }).instId : undefined;
  const where = index === undefined ? '' : `[${index}]`;
  return readInstrument(
    id,
    undefined,
    `\`instId\`${where === '' ? '' : ` of order ${where}`} of ${e.method} ${e.path}`,
  );
}

/**
 * `orders` orders on one instrument, of a request of `all` orders: the endpoint's limit for the
 * instrument (the single-order endpoint's for a batch of one order, O5) and the sub-account limit
 * where it counts them.
 */
function orderClassification(
  batchEndpoint: OkxEndpoint,
  endpoint: string,
  instrument: Instrument,
  orders: number,
  all: number,
  subAccountLimit: EndpointLimit,
): Classification {
  const e =
    batchEndpoint.single !== undefined && all === 1
      ? OKX_ENDPOINTS.find((x) => x.method === 'POST' && x.path === batchEndpoint.single)!
      : batchEndpoint;
  const per = instrument.kind === 'OPTION' ? instrument.family : instrument.id;
  const limits: EndpointLimit[] = [];
  const s = OKX_SUB_ACCOUNT_LIMIT;
  if ((s.actions as readonly Action[]).includes(e.action) && !s.exempt.includes(instrument.kind))
    limits.push(subAccountLimit);
  limits.push({ key: `${e.path}:${per}`, scope: 'account', limit: e.limit.limit, windowMs: e.limit.windowMs });
  return {
    method: e.method,
    endpoint,
    market: MARKETS[instrument.kind],
    action: e.action,
    orders,
    weight: orders,
    instrument: instrument.id,
    limits,
  };
}

function batchSize(e: OkxEndpoint, body: unknown): number {
  const route = `${e.method} ${e.path}`;
  if (!Array.isArray(body))
    throw new InvalidInputError(`the body of ${route}`, body, 'an array of orders (a batch counts once per order)');
  if (body.length === 0) throw new InvalidInputError(`the body of ${route}`, body, 'at least one order');
  return body.length;
}

/** The sub-account limit as a request draws on it: its N the base tier's, replaced by the tier in force. */
export const BASE_SUB_ACCOUNT_LIMIT: EndpointLimit = Object.freeze({
  key: OKX_SUB_ACCOUNT_LIMIT.key,
  scope: 'account',
  limit: OKX.tiers.rows[0]!.limit,
  windowMs: OKX.tiers.windowMs,
});

/**
 * The WebSocket order operations (see docs/okx.md#o11) and the REST endpoint each stands for: they
 * draw on the same limits. A batch operation's `args` is the batch; a single one's, one order.
 */
const OKX_WEBSOCKET_OPS: ReadonlyMap<string, { readonly path: string; readonly batch: boolean }> = new Map([
  ['order', { path: '/api/v5/trade/order', batch: false }],
  ['batch-orders', { path: '/api/v5/trade/batch-orders', batch: true }],
  ['amend-order', { path: '/api/v5/trade/amend-order', batch: false }],
  ['batch-amend-orders', { path: '/api/v5/trade/amend-batch-orders', batch: true }],
  ['cancel-order', { path: '/api/v5/trade/cancel-order', batch: false }],
  ['batch-cancel-orders', { path: '/api/v5/trade/cancel-batch-orders', batch: true }],
]);

/**
 * The order operations of OKX's WebSocket API an account limiter on OKX reads
 * (`AccountLimiter.requestWebSocket`): each draws on the limits of its REST endpoint.
 *
 * @example
 * ```ts
 * import { OKX_WEBSOCKET_ORDER_OPS } from 'traderatio/catalog'
 *
 * OKX_WEBSOCKET_ORDER_OPS // ['order', 'batch-orders', 'amend-order', 'batch-amend-orders', 'cancel-order', 'batch-cancel-orders']
 * ```
 */
export const OKX_WEBSOCKET_ORDER_OPS: readonly string[] = Object.freeze([...OKX_WEBSOCKET_OPS.keys()]);

/**
 * The catalogue of OKX's API v5 (see docs/okx.md#o4, #o5, #o11), as an account limiter on OKX
 * reads requests: a path from `/api/v5/` on (or a full URL of any host, its query left aside)
 * with the body as sent (parsed JSON; an array for a batch). Order requests draw on the
 * sub-account limit (key `sub-account`, new and amend orders outside spot and margin, weighted
 * by their orders; its N the base tier's, replaced by the tier in force) and on the limit of their
 * endpoint for each instrument a batch names, with the whole request's weight (a batch over
 * several instruments takes all its orders from each: more than OKX counts, never less). Reads
 * draw on their endpoint's limit. `classifyChannel` reads a WebSocket order operation (`order`,
 * `batch-orders`, ...) with its `args` as its REST twin.
 *
 * @example
 * ```ts
 * import { createOkxCatalog } from 'traderatio/catalog'
 *
 * const c = createOkxCatalog().classify('POST', 'https://www.okx.com/api/v5/trade/order', { instId: 'BTC-USDT-SWAP', sz: '1' })
 * c.limits.map((l) => `${l.key} ${l.limit}/${l.windowMs}`) // ['sub-account 1000/2000', '/api/v5/trade/order:BTC-USDT-SWAP 60/2000']
 * ```
 */
export function createOkxCatalog(): Catalog {
  const limits: Readonly<Record<string, WindowSpec>> = Object.freeze({
    [OKX_SUB_ACCOUNT_LIMIT.key]: { limit: BASE_SUB_ACCOUNT_LIMIT.limit, windowMs: BASE_SUB_ACCOUNT_LIMIT.windowMs },
  });
  const catalog: Catalog = {
    limits,
    classify(method: string, path: string | URL, body?: unknown): Classification {
      const groups = classifyOkxOrders(method, apiPath(path), body, BASE_SUB_ACCOUNT_LIMIT);
      if (groups.length === 1) return groups[0]!.c;
      // A batch over several instruments: every limit of every group, with the whole weight.
      const first = groups[0]!.c;
      const orders = groups.reduce((n, g) => n + g.orders.length, 0);
      const seen = new Set<string>();
      const all: EndpointLimit[] = [];
      for (const g of groups)
        for (const l of g.c.limits) {
          if (seen.has(l.key)) continue;
          seen.add(l.key);
          all.push(l);
        }
      return { ...first, orders, weight: orders, limits: all };
    },
    classifyWebSocket(): readonly EndpointLimit[] {
      // OKX's WebSocket orders have no limits of their own: those of their REST endpoints (O11).
      return [];
    },
    classifyChannel(op: string, args?: unknown): Classification {
      const spec = typeof op === 'string' ? OKX_WEBSOCKET_OPS.get(op) : undefined;
      if (spec === undefined)
        throw new InvalidInputError(
          'the operation',
          op,
          `an OKX order operation (${OKX_WEBSOCKET_ORDER_OPS.join(', ')})`,
        );
      if (spec.batch) return catalog.classify('POST', spec.path, args);
      const order = Array.isArray(args) && args.length === 1 ? args[0] : args;
      if (Array.isArray(order))
        throw new InvalidInputError(`\`args\` of ${op}`, args, 'one order (an object, or a list of one)');
      return catalog.classify('POST', spec.path, order);
    },
  };
  return catalog;
}

/** The path of a request from `/api/v5/` on, with its query: a full URL of any host, or a path. */
function apiPath(path: string | URL): string {
  if (path instanceof URL) return `${path.pathname}${path.search}`;
  if (typeof path !== 'string') return path;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    try {
      const url = new URL(path);
      return `${url.pathname}${url.search}`;
    } catch {
      return path;
    }
  }
  return path;
}
