import type { OrderGroup } from '../../catalog/exchange-api.js';
import { OKX_REFUSAL_CODES } from '../../catalog/okx.js';
import { InvalidInputError } from '../../errors.js';
import { Dec } from '../../internal/decimal.js';
import { utcDayStart } from '../../rules/calendar.js';
import { OKX_SIGNATURE_WINDOW_MS, readOkxTimestamp } from '../../rules/okx/signature-time.js';
import { isTieredVip } from '../../rules/vip.js';
import { ApiError } from '../api-error.js';
import { sameBase64, signOkx } from '../auth.js';
import type { Account, Party } from '../core.js';
import { micros } from '../http.js';
import type { ModelExchange, RestResponse } from '../model.js';
import { balanceJson, positionsJson } from './account-json.js';
import { OKX_MESSAGES, ok, okxError, perOrder, refusal } from './answers.js';
import { booksJson, currenciesJson, instrumentsJson, tickersJson } from './market-json.js';
import { OkxOrders } from './orders.js';

// The model exchange under OKX's API v5 (docs/model-exchange.md, OKX): who is calling
// (OK-ACCESS-* headers, O10), what a request draws on (the OKX catalogue, each instrument of a
// batch apart), the core's verdict per order (see docs/okx.md#o4, #o5, #o8), and the endpoints' answers in OKX's
// shapes. REST and WebSocket orders both come through `orders`.

type Json = Record<string, unknown>;

/** A REST request as the HTTP layer hands it over, with OKX's headers. */
export interface OkxRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly key: string | undefined;
  readonly sign: string | undefined;
  readonly timestamp: string | undefined;
  readonly passphrase: string | undefined;
  readonly body: string;
  readonly ip: string;
  readonly at?: number;
}

/** What an endpoint answers with for an admitted request. */
type Reader = (v: OkxVenue, a: Account, query: URLSearchParams, at: number) => unknown[];
type PublicReader = (v: OkxVenue, query: URLSearchParams, at: number) => unknown[];
/** What an order endpoint does with one order. */
export type OrderAction = 'place' | 'amend' | 'cancel';

/** The order endpoints: what each does per order, and whether its body is a batch. */
export const ORDER_ROUTES: ReadonlyMap<string, { readonly action: OrderAction; readonly batch: boolean }> = new Map([
  ['/api/v5/trade/order', { action: 'place', batch: false }],
  ['/api/v5/trade/batch-orders', { action: 'place', batch: true }],
  ['/api/v5/trade/amend-order', { action: 'amend', batch: false }],
  ['/api/v5/trade/amend-batch-orders', { action: 'amend', batch: true }],
  ['/api/v5/trade/cancel-order', { action: 'cancel', batch: false }],
  ['/api/v5/trade/cancel-batch-orders', { action: 'cancel', batch: true }],
]);

/** The private reads the model answers. */
const READS: ReadonlyMap<string, Reader> = new Map<string, Reader>([
  ['/api/v5/trade/order', (v, a, q) => v.orders.details(a, q)],
  ['/api/v5/trade/orders-pending', (v, a, q) => v.orders.list(a, q, true)],
  ['/api/v5/trade/orders-history', (v, a, q) => v.orders.list(a, q, false)],
  ['/api/v5/trade/fills', (v, a, q) => v.orders.fills(a, q)],
  ['/api/v5/trade/fills-history', (v, a, q) => v.orders.fills(a, q)],
  ['/api/v5/trade/account-rate-limit', (v, a, _q, at) => [v.rateLimitReport(a, at)]],
  [
    '/api/v5/account/balance',
    (v, a, q, at) => balanceJson(v.model.trading.fundsOf(a.id), v.model.data, q.get('ccy'), at),
  ],
  ['/api/v5/asset/currencies', (v, _a, q) => currenciesJson(v.model.markets, q.get('ccy'))],
  [
    '/api/v5/account/positions',
    (v, a, q, at) => positionsJson(v.model.trading.fundsOf(a.id), v.model.data, q.get('instId'), at),
  ],
]);

/** The public endpoints, the same for every caller. */
const PUBLIC_READS: ReadonlyMap<string, PublicReader> = new Map<string, PublicReader>([
  ['/api/v5/public/time', (v) => [{ ts: String(Math.floor(v.model.now())) }]],
  ['/api/v5/public/instruments', (v, q, at) => instrumentsJson(v.model.markets, v.model.data, q, at)],
  ['/api/v5/market/ticker', (v, q, at) => tickersJson(v.model.markets, v.model.data, q, at)],
  ['/api/v5/market/tickers', (v, q, at) => tickersJson(v.model.markets, v.model.data, q, at)],
  ['/api/v5/market/books', (v, q, at) => booksJson(v.model.markets, v.model.data, q, at)],
]);

/**
 * Every route the model answers on OKX (`POST /api/v5/trade/order`, ...), public ones first: what
 * docs/model-exchange.md lists.
 */
export function okxAnsweredRoutes(): { readonly public: readonly string[]; readonly private: readonly string[] } {
  return {
    public: [...PUBLIC_READS.keys()].map((p) => `GET ${p}`),
    private: [...[...ORDER_ROUTES.keys()].map((p) => `POST ${p}`), ...[...READS.keys()].map((p) => `GET ${p}`)],
  };
}

/** Orders in one batch request, at most (OKX's batch endpoints). */
export const OKX_BATCH_MOST = 20;

/**
 * The model exchange's OKX face: identifies a caller by OK-ACCESS-KEY (with its passphrase,
 * timestamp and, with `verifySignatures`, signature), admits each order through the core under
 * OKX's API (the sub-account tier and each instrument's limit at once, a batch's orders apart),
 * and answers `{ code, msg, data }`.
 */
export class OkxVenue {
  readonly orders: OkxOrders;
  private readonly classified = new Map<string, readonly OrderGroup[]>();

  constructor(readonly model: ModelExchange) {
    this.orders = new OkxOrders(model.trading, model.markets);
  }

  /** Answers one REST request. */
  handle(r: OkxRequest): RestResponse {
    let party: Party | null = null;
    try {
      if (!r.path.startsWith('/api/v5/'))
        throw new ApiError(404, '404', `${r.path} is not a path of the API (they begin with /api/v5/)`);
      if (r.method !== 'GET' && r.method !== 'POST')
        throw new ApiError(405, '405', `method ${r.method} is not allowed: GET or POST`);
      let body: unknown;
      if (r.method === 'POST') {
        if (r.body.length === 0) throw okxError(400, '50000');
        try {
          body = JSON.parse(r.body);
        } catch (e) {
          throw okxError(400, '50002', (e as Error).message);
        }
      }
      const route = ORDER_ROUTES.get(r.path);
      const orders = r.method === 'POST' && route !== undefined ? orderList(body, route.batch) : null;
      const groups = this.classify(r.method, r.path, body);
      const query = new URLSearchParams(r.query);
      const at = r.at ?? this.model.now();
      const c = groups[0]!.c;
      if (c.market === 'public') {
        party = this.model.core.ip(r.ip);
        const read = PUBLIC_READS.get(r.path);
        if (read === undefined) throw notAnswered(r.method, r.path);
        const refused = this.model.core.admit(party, c, at, '');
        if (refused !== null) return tooMany(refused.label);
        return { status: 200, body: ok(okxAnswer(() => read(this, query, at))), rate: null };
      }
      const account = this.identify(r);
      party = account;
      if (orders !== null) {
        const rows = this.orderRows(account, route!.action, orders, groups, at);
        const out = { inTime: micros(at), outTime: micros(this.model.now()) };
        // One order refused by its instrument's limit: the request is refused whole, as HTTP 429 (see docs/okx.md#o8).
        if (orders.length === 1 && !route!.batch && rows[0]!.sCode === OKX_REFUSAL_CODES.other)
          return tooMany(OKX_REFUSAL_CODES.other);
        return { status: 200, body: perOrder(rows, out), rate: null };
      }
      const read = READS.get(r.path);
      if (read === undefined || r.method !== 'GET') throw notAnswered(r.method, r.path);
      const refused = this.model.core.admit(account, c, at, '');
      if (refused !== null) return tooMany(refused.label);
      return { status: 200, body: ok(okxAnswer(() => read(this, account, query, at))), rate: null };
    } catch (e) {
      if (e instanceof ApiError) {
        this.model.noteRefusal(party ?? e.account, e.label!);
        return { status: e.status, body: refusal(e), rate: null };
      }
      throw e;
    }
  }

  /**
   * Admits the orders of one request (REST or WebSocket) through the core, each instrument's
   * orders apart, and runs those admitted: one row per order, in the body's order, a refused one
   * with the code of the limit that refused it (50061 the sub-account's, 50011 an instrument's).
   */
  orderRows(
    account: Account,
    action: OrderAction,
    orders: readonly unknown[],
    groups: readonly OrderGroup[],
    at: number,
  ): Json[] {
    const verdict: (string | null)[] = new Array(orders.length).fill(null);
    for (const g of groups) {
      const { admitted, refused } = this.model.core.admitOrders(account, g.c, at, '');
      g.orders.forEach((i, k) => {
        if (k >= admitted) verdict[i] = refused!.label;
      });
    }
    return orders.map((o, i) => {
      const code = verdict[i]!;
      if (code !== null) {
        const x = (typeof o === 'object' && o !== null ? o : {}) as Json;
        return {
          ordId: typeof x.ordId === 'string' ? x.ordId : '',
          clOrdId: typeof x.clOrdId === 'string' ? x.clOrdId : '',
          tag: '',
          ts: String(Math.floor(at)),
          sCode: code,
          sMsg: OKX_MESSAGES[code] ?? '',
        };
      }
      return this.orders[action](account, o, at);
    });
  }

  /** How a request draws on the limits, each instrument of a batch apart; kept by path and instruments. */
  classify(method: string, path: string, body: unknown): readonly OrderGroup[] {
    const list = Array.isArray(body) ? body : [body];
    const ids = list.map((o) => (typeof o === 'object' && o !== null ? String((o as Json).instId) : '')).join(',');
    const key = `${method} ${path} ${Array.isArray(body) ? 'b' : 's'} ${ids}`;
    let groups = this.classified.get(key);
    if (groups === undefined) {
      try {
        groups = this.model.core.api.classifyGroups(method, path, body);
      } catch (e) {
        if (!(e instanceof InvalidInputError)) throw e;
        if (e.field === 'method and path') throw notAnswered(method, path);
        throw okxError(400, '51000', e.message);
      }
      if (this.classified.size >= 10_000) this.classified.clear();
      this.classified.set(key, groups);
    }
    return groups;
  }

  /**
   * The account of a signed REST request (see docs/okx.md#o10): each OK-ACCESS header present (50103, 50104,
   * 50106, 50107), a known key (50111), its passphrase (50105), a timestamp of ISO text (50112)
   * within 30 s of the exchange's time (50102), and with `verifySignatures` its signature (50113).
   */
  identify(r: OkxRequest): Account {
    const { key, sign, timestamp, passphrase } = r;
    if (key === undefined || key === '') throw okxError(401, '50103');
    const k = this.model.keyOf(key);
    if (passphrase === undefined || passphrase === '') throw refused(k?.account, okxError(401, '50104'));
    if (sign === undefined || sign === '') throw refused(k?.account, okxError(401, '50106'));
    if (timestamp === undefined || timestamp === '') throw refused(k?.account, okxError(401, '50107'));
    if (k === undefined) throw okxError(401, '50111', JSON.stringify(key));
    if (k.passphrase !== undefined && k.passphrase !== passphrase) throw refused(k.account, okxError(401, '50105'));
    const ts = readOkxTimestamp(timestamp) ?? Number.NaN;
    if (!Number.isFinite(ts))
      throw refused(
        k.account,
        okxError(401, '50112', `${JSON.stringify(timestamp)}: ISO 8601 in UTC with milliseconds`),
      );
    this.checkTime(k.account, ts);
    if (this.model.options.verifySignatures === true) {
      const path = r.query === '' ? r.path : `${r.path}?${r.query}`;
      if (!sameBase64(signOkx(k.secret, timestamp, r.method, path, r.body), sign))
        throw refused(k.account, okxError(401, '50113'));
    }
    return k.account;
  }

  /** A timestamp (epoch ms) within 30 s of the time requests are signed against, else 50102. */
  checkTime(account: Account, ts: number): void {
    const server = this.model.signedNow();
    if (Math.abs(ts - server) > OKX_SIGNATURE_WINDOW_MS)
      throw refused(
        account,
        okxError(
          401,
          '50102',
          `${new Date(ts).toISOString()} is more than 30 s from the server's ` +
            new Date(Math.floor(server)).toISOString(),
        ),
      );
  }

  /**
   * GET /api/v5/trade/account-rate-limit (see docs/okx.md#o9): the limit in force, the ratios of the latest
   * snapshot, and the limit the period after this one would have if the next snapshot gave no
   * more than the latest (the forecast of a pending lowering); "" for the ratios and the forecast
   * below VIP 5, whose `ts` is the moment of the answer.
   */
  rateLimitReport(account: Account, at: number): Json {
    const f = this.model.core.inForce(account, at);
    const family = this.model.core.familyInForce(account.family, at);
    const rulebook = account.family.config.rulebook;
    const tiered = isTieredVip(f.vipLevel, rulebook.tieredVipLevel);
    const ratio = (r: { readonly ratio: Dec | null } | null | undefined) =>
      (r?.ratio ?? new Dec(0)).toDecimalPlaces(8, Dec.ROUND_DOWN).toString();
    const t = Math.floor(at);
    const today = utcDayStart(t) + rulebook.timing.raiseAfterMs;
    return {
      accRateLimit: String(f.limit),
      fillRatio: tiered ? ratio(f.rating?.own) : '',
      mainFillRatio: tiered ? ratio(family.aggregated) : '',
      nextAccRateLimit: tiered ? String(f.rating?.tier.limit ?? f.limit) : '',
      ts: String(tiered ? (t >= today ? today : today - 86_400_000) : t),
    };
  }
}

/** A request refused for the rate as a whole: HTTP 429 and its code (see docs/okx.md#o8). */
function tooMany(code: string): RestResponse {
  return { status: 429, body: { code, msg: OKX_MESSAGES[code] ?? '', data: [] }, rate: null };
}

/** The body of an order request: an array of 1 to 20 orders for a batch, else one order (an object). */
function orderList(body: unknown, batch: boolean): readonly unknown[] {
  if (batch) {
    if (!Array.isArray(body) || body.length === 0 || body.length > OKX_BATCH_MOST)
      throw okxError(400, '51000', `the body of a batch is an array of 1 to ${OKX_BATCH_MOST} orders`);
    return body;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw okxError(400, '51000', 'the body is one order, an object');
  return [body];
}

/** Runs a read, the model's own refusals (Gate's labels, from shared parts) told as OKX's 51000. */
function okxAnswer(fn: () => unknown[]): unknown[] {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ApiError && !/^\d+$/.test(e.label ?? '')) throw okxError(400, '51000', e.message);
    throw e;
  }
}

function notAnswered(method: string, path: string): ApiError {
  return new ApiError(
    404,
    '404',
    `${method} ${path} is not a path the model answers (docs/model-exchange.md lists them)`,
  );
}

/** A refusal counted for the account the key names. */
function refused(account: Account | undefined, e: ApiError): ApiError {
  if (account !== undefined) e.account = account;
  return e;
}
