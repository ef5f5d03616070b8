import { ZERO } from '../../internal/decimal.js';
import { ApiError } from '../api-error.js';
import type { FuturesOrder, SpotOrder } from '../book.js';
import type { Account } from '../core.js';
import type { Markets } from '../markets.js';
import type { Trading } from '../trading.js';
import { missing, okxError, paramError } from './answers.js';
import { type OkxTraded, orderInstId, tradedOf } from './instruments.js';

// OKX's order endpoints on the model's trading (the same books, fills and funds as Gate's): each
// OKX order is placed, amended or cancelled as the model's order of its instrument, and answered
// in OKX's shapes. What OKX has and Gate's orders do not (clOrdId, tag, ordType, tdMode) is kept
// beside each order.

type Json = Record<string, unknown>;
type Order = FuturesOrder | SpotOrder;

/** OKX's fields of an order, beside the model's. */
interface OkxFields {
  readonly clOrdId: string;
  readonly tag: string;
  readonly ordType: string;
  readonly tdMode: string;
}

/** OKX's order types and the time in force each is placed with. */
const ORDER_TYPES: Readonly<Record<string, string>> = {
  limit: 'gtc',
  post_only: 'poc',
  fok: 'fok',
  ioc: 'ioc',
  optimal_limit_ioc: 'ioc',
  market: 'ioc',
};
const TRADE_MODES = new Set(['cash', 'cross', 'isolated', 'spot_isolated']);
const CLIENT_ID = /^[A-Za-z0-9]{1,32}$/;

/** Gate's labels of the model's trading refused as OKX refuses the same: by the action. */
const NOT_OPEN = new Set(['ORDER_NOT_FOUND', 'ORDER_FINISHED', 'ORDER_CLOSED']);

/**
 * OKX's orders: place, amend and cancel one order (a batch is its orders one by one), each
 * answered as a row `{ ordId, clOrdId, sCode, sMsg, ... }`; and the reads of orders and fills.
 */
export class OkxOrders {
  private readonly fields = new WeakMap<Order, OkxFields>();

  constructor(
    private readonly trading: Trading,
    private readonly markets: Markets,
  ) {}

  /** POST /api/v5/trade/order, one order: placed (sCode "0") or refused with its code. */
  place(account: Account, body: unknown, at: number): Json {
    const o = record(body);
    const clOrdId = clientId(o.clOrdId);
    const tag = typeof o.tag === 'string' ? o.tag : '';
    return row({ clOrdId, tag, ts: String(Math.floor(at)) }, 'Order placed', () => {
      const traded = this.traded(o.instId);
      const side = o.side;
      if (side !== 'buy' && side !== 'sell')
        throw side === undefined ? missing('side') : paramError('side', side, 'buy or sell');
      const ordType = o.ordType;
      if (ordType === undefined) throw missing('ordType');
      const tif = typeof ordType === 'string' && Object.hasOwn(ORDER_TYPES, ordType) ? ORDER_TYPES[ordType]! : null;
      if (tif === null) throw paramError('ordType', ordType, Object.keys(ORDER_TYPES).join(', '));
      if (o.tdMode === undefined) throw missing('tdMode');
      if (typeof o.tdMode !== 'string' || !TRADE_MODES.has(o.tdMode))
        throw paramError('tdMode', o.tdMode, [...TRADE_MODES].join(', '));
      const sz = positive(o.sz, 'sz');
      const market = ordType === 'market' || ordType === 'optimal_limit_ioc';
      const px = market ? undefined : positive(o.px, 'px');
      const order = this.gate(() => {
        if (traded.kind === 'SWAP') {
          const placed = this.trading.placeFutures(
            account,
            traded.contract.settle,
            { contract: traded.contract.name, size: side === 'buy' ? sz : `-${sz}`, price: px ?? '0', tif },
            at,
          );
          return this.order(account, placed.id);
        }
        const placed = this.trading.placeSpot(
          account,
          {
            currency_pair: traded.pair.name,
            side,
            type: market ? 'market' : 'limit',
            amount: sz,
            ...(px === undefined ? {} : { price: px }),
            time_in_force: tif,
          },
          at,
        );
        return this.order(account, placed.id as string);
      }, '51000');
      this.fields.set(order, { clOrdId, tag, ordType: ordType as string, tdMode: o.tdMode });
      return { ordId: String(order.id) };
    });
  }

  /** POST /api/v5/trade/amend-order, one order: its new size (`newSz`) or price (`newPx`). */
  amend(account: Account, body: unknown, at: number): Json {
    const o = record(body);
    const reqId = typeof o.reqId === 'string' ? o.reqId : '';
    return row({ clOrdId: clientId(o.clOrdId), ts: String(Math.floor(at)), reqId }, '', () => {
      const order = this.named(account, o, '51503');
      if (o.newSz === undefined && o.newPx === undefined) throw missing('newSz or newPx');
      const sz = o.newSz === undefined ? undefined : positive(o.newSz, 'newSz');
      const px = o.newPx === undefined ? undefined : positive(o.newPx, 'newPx');
      this.gate(() => {
        if (order.market === 'futures') {
          const size = sz === undefined ? undefined : order.size.isNegative() ? `-${sz}` : sz;
          this.trading.amendFutures(account, order.settle, order.id, { size, price: px }, at);
        } else this.trading.amendSpot(account, order.id, { amount: sz, price: px }, null, at);
      }, '51503');
      return { ordId: String(order.id), clOrdId: this.fields.get(order)?.clOrdId ?? '' };
    });
  }

  /** POST /api/v5/trade/cancel-order, one order. */
  cancel(account: Account, body: unknown, at: number): Json {
    const o = record(body);
    return row({ clOrdId: clientId(o.clOrdId), ts: String(Math.floor(at)) }, '', () => {
      const order = this.named(account, o, '51400');
      this.gate(() => {
        if (order.market === 'futures') this.trading.cancelFutures(account, order.settle, order.id, at);
        else this.trading.cancelSpot(account, order.id, undefined, at);
      }, '51400');
      return { ordId: String(order.id), clOrdId: this.fields.get(order)?.clOrdId ?? '' };
    });
  }

  /** GET /api/v5/trade/order: one order by `ordId` or `clOrdId`, on `instId`. */
  details(account: Account, query: URLSearchParams): Json[] {
    const o = Object.fromEntries(query);
    return [this.json(this.named(account, o, '51603'))];
  }

  /** GET /api/v5/trade/orders-pending (open) and orders-history (finished): newest first, filtered as OKX does. */
  list(account: Account, query: URLSearchParams, open: boolean): Json[] {
    const limit = listLimit(query);
    const out: Json[] = [];
    const orders = [...this.trading.book(account.id).orders.values()];
    for (let i = orders.length - 1; i >= 0 && out.length < limit; i--) {
      const o = orders[i]!;
      if ((o.status === 'open') !== open || !matches(o, query)) continue;
      out.push(this.json(o));
    }
    return out;
  }

  /** GET /api/v5/trade/fills: the account's fills, newest first, filtered by instType, instId and ordId. */
  fills(account: Account, query: URLSearchParams): Json[] {
    const limit = listLimit(query);
    const ordId = query.get('ordId');
    const out: Json[] = [];
    const trades = this.trading.book(account.id).trades;
    for (let i = trades.length - 1; i >= 0 && out.length < limit; i--) {
      const t = trades[i]!;
      const o = t.order;
      if (!matches(o, query) || (ordId !== null && String(o.id) !== ordId)) continue;
      const f = this.fields.get(o);
      const size = o.market === 'futures' ? o.size.abs() : o.amount;
      out.push({
        instType: o.market === 'futures' ? 'SWAP' : 'SPOT',
        instId: orderInstId(o),
        tradeId: String(t.id),
        ordId: String(o.id),
        clOrdId: f?.clOrdId ?? '',
        billId: String(t.id),
        tag: f?.tag ?? '',
        fillPx: (o.fillPrice ?? o.price).toString(),
        fillSz: size.toString(),
        side: sideOf(o),
        posSide: 'net',
        execType: t.role === 'maker' ? 'M' : 'T',
        feeCcy: o.market === 'futures' ? settleCcy(o.settle) : o.pair.split('_')[1],
        fee: '0',
        ts: String(Math.floor(t.at)),
        fillTime: String(Math.floor(t.at)),
      });
    }
    return out;
  }

  /** An order as OKX's order details write it. */
  json(o: Order): Json {
    const f = this.fields.get(o);
    const size = o.market === 'futures' ? o.size.abs() : o.amount;
    const filled = o.finishAs === 'filled' ? size : ZERO;
    const px = f?.ordType === 'market' ? '' : o.price.toString();
    const fill = o.fillPrice === null ? '' : o.fillPrice.toString();
    return {
      instType: o.market === 'futures' ? 'SWAP' : 'SPOT',
      instId: orderInstId(o),
      tgtCcy: '',
      ccy: '',
      ordId: String(o.id),
      clOrdId: f?.clOrdId ?? '',
      tag: f?.tag ?? '',
      px,
      sz: size.toString(),
      pnl: '0',
      ordType: f?.ordType ?? 'limit',
      side: sideOf(o),
      posSide: 'net',
      tdMode: f?.tdMode ?? (o.market === 'futures' ? 'cross' : 'cash'),
      accFillSz: filled.toString(),
      fillPx: fill,
      tradeId: '',
      fillSz: filled.toString(),
      fillTime: o.finishAs === 'filled' && o.finishedAt !== null ? String(Math.floor(o.finishedAt)) : '',
      avgPx: fill,
      state: stateOf(o),
      lever: o.market === 'futures' ? '10' : '',
      feeCcy: o.market === 'futures' ? settleCcy(o.settle) : o.pair.split('_')[1],
      fee: '0',
      rebateCcy: o.market === 'futures' ? settleCcy(o.settle) : o.pair.split('_')[0],
      rebate: '0',
      category: 'normal',
      reduceOnly: 'false',
      cancelSource: '',
      uTime: String(Math.floor(o.finishedAt ?? o.createdAt)),
      cTime: String(Math.floor(o.createdAt)),
    };
  }

  /** The instrument an order names among those the model trades: missing, 50014; another, 51001. */
  traded(instId: unknown): OkxTraded {
    if (instId === undefined || instId === '') throw missing('instId');
    const t = tradedOf(this.markets, instId);
    if (t === undefined) throw okxError(400, '51001', String(instId));
    return t;
  }

  private order(account: Account, id: number | string): Order {
    return this.trading.book(account.id).order(id)!;
  }

  /** The order an amendment, cancellation or query names (`ordId` or `clOrdId`, on `instId`); else `code`. */
  private named(account: Account, o: Json, code: string): Order {
    const traded = this.traded(o.instId);
    const { ordId, clOrdId } = o;
    if ((ordId === undefined || ordId === '') && (clOrdId === undefined || clOrdId === ''))
      throw missing('ordId or clOrdId');
    const book = this.trading.book(account.id);
    let order: Order | undefined;
    if (ordId !== undefined && ordId !== '') order = book.order(ordId);
    else for (const x of book.orders.values()) if (this.fields.get(x)?.clOrdId === clOrdId) order = x;
    if (order === undefined || orderInstId(order) !== traded.instId)
      throw okxError(400, code, `order ${JSON.stringify(ordId ?? clOrdId)} on ${traded.instId}`);
    return order;
  }

  /** Runs the model's trading, its refusals (Gate's labels) told as OKX's `code`. */
  private gate<T>(fn: () => T, code: string): T {
    try {
      return fn();
    } catch (e) {
      if (!(e instanceof ApiError) || /^\d+$/.test(e.label ?? '')) throw e;
      throw okxError(400, NOT_OPEN.has(e.label!) ? code : '51000', e.message);
    }
  }
}

/** One order's row: `fn`'s fields with sCode "0" and `done`, or its refusal's code and message. */
function row(base: Json, done: string, fn: () => Json): Json {
  try {
    return { ordId: '', ...base, ...fn(), sCode: '0', sMsg: done };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { ordId: '', ...base, sCode: e.label, sMsg: e.message };
  }
}

function record(body: unknown): Json {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Json) : {};
}

function clientId(v: unknown): string {
  return typeof v === 'string' && CLIENT_ID.test(v) ? v : '';
}

/** A positive decimal as text, as OKX writes sizes and prices. */
function positive(v: unknown, name: string): string {
  if (v === undefined || v === '') throw missing(name);
  const text = typeof v === 'number' ? String(v) : v;
  if (typeof text !== 'string' || !/^(\d+\.?\d*|\.\d+)$/.test(text) || !(Number(text) > 0))
    throw paramError(name, v, 'a positive decimal');
  return text;
}

function listLimit(query: URLSearchParams): number {
  const raw = query.get('limit');
  if (raw === null || raw === '') return 100;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 100) throw paramError('limit', raw, 'a whole number from 1 to 100');
  return n;
}

function matches(o: Order, query: URLSearchParams): boolean {
  const type = query.get('instType');
  const id = query.get('instId');
  return (
    (type === null || type === (o.market === 'futures' ? 'SWAP' : 'SPOT')) && (id === null || id === orderInstId(o))
  );
}

function sideOf(o: Order): 'buy' | 'sell' {
  return o.market === 'futures' ? (o.size.isNegative() ? 'sell' : 'buy') : o.side;
}

function stateOf(o: Order): string {
  if (o.status === 'open') return 'live';
  return o.finishAs === 'filled' ? 'filled' : 'canceled';
}

/** The currency a swap of the model's `settle` table settles in. */
function settleCcy(settle: string): string {
  return settle.toUpperCase();
}
