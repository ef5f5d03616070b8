import { checkFuturesBatch, checkSpotBatch } from '../catalog/validators.js';
import { type Dec, ZERO } from '../internal/decimal.js';
import { contractName } from '../rules/contracts.js';
import { ApiError, badRequest } from './api-error.js';
import { Book, type FuturesOrder, MAX_OPEN_ORDERS, type SpotOrder } from './book.js';
import type { Account, ModelExchangeCore } from './core.js';
import type { FillModel, FillOutcome } from './fill-model.js';
import type { Contract, Markets, Pair } from './markets.js';
import { DEFAULT_BALANCES, Funds, type StartingBalances } from './funds.js';
import type { MarketData } from './market-data.js';
import { futuresFillVolume } from '../rules/fill-volume.js';
import { type FuturesOrderJson, contractJson, futuresJson, spotJson, uidOf } from './order-json.js';
import { futuresAccountJson, positionJson, spotAccountsJson } from './account-json.js';
import { array, decimal, each, listLimit, object, orderText } from './request-fields.js';
import { futuresTradesJson, futuresTradesTimerangeJson, spotTradesJson, tradesAfter } from './trade-json.js';

type Json = Record<string, unknown>;

/** Gate's name of an order's instrument: its contract or currency pair. */
const gateName = (order: FuturesOrder | SpotOrder): string =>
  order.market === 'futures' ? order.contract : order.pair;

const TIFS = new Set(['gtc', 'ioc', 'poc', 'fok']);
const SPOT_ACCOUNTS = new Set(['spot', 'margin', 'unified', 'cross_margin']);

/**
 * The orders of every account: placing, amending and cancelling futures and spot orders, the
 * model's fills (counted in the core, see docs/rules.md#r1 and #r9; spot fills for #r14), and what the list and
 * `my_trades` endpoints return. REST and WebSocket requests both come here once admitted.
 */
export class Trading {
  private readonly books = new Map<string, Book>();
  private readonly funds = new Map<string, Funds>();
  private nextOrder = 1;
  private nextTrade = 1;

  constructor(
    private readonly core: ModelExchangeCore,
    private readonly markets: Markets,
    private readonly fills: FillModel,
    private readonly data: MarketData,
    private readonly balances: ReadonlyMap<string, StartingBalances> = new Map(),
    /** The name a fill is counted under in the core: the exchange's name of the order's instrument. @default the contract or pair */
    private readonly fillName: (order: FuturesOrder | SpotOrder) => string = gateName,
  ) {}

  /** An account's funds: its starting balances (the accounts file's, else DEFAULT_BALANCES) moved by its fills. */
  fundsOf(account: string): Funds {
    let f = this.funds.get(account);
    if (f === undefined) this.funds.set(account, (f = new Funds(this.balances.get(account) ?? DEFAULT_BALANCES)));
    return f;
  }

  book(account: string): Book {
    let b = this.books.get(account);
    if (b === undefined) this.books.set(account, (b = new Book()));
    return b;
  }

  /** The contract an order request on an existing order counts under (see docs/rules.md#r1): the order's own. */
  contractOfOrder(account: string, id: unknown): string | undefined {
    const o = this.books.get(account)?.order(id);
    return o === undefined ? undefined : o.market === 'futures' ? o.contract : o.pair;
  }

  // ---- futures

  placeFutures(account: Account, settle: string, body: unknown, at: number): FuturesOrderJson {
    const o = object(body);
    const contract = this.contract(settle, o.contract);
    const size = decimal(o.size, 'size', false);
    if (size.isZero())
      throw badRequest('INVALID_PARAM_VALUE', 'size must not be 0 (positive to buy, negative to sell)');
    const priceGiven = o.price === undefined ? '0' : o.price;
    const price = decimal(priceGiven, 'price', true);
    const tif = o.tif === undefined ? (price.isZero() ? 'ioc' : 'gtc') : o.tif;
    if (typeof tif !== 'string' || !TIFS.has(tif))
      throw badRequest('INVALID_PARAM_VALUE', `tif ${JSON.stringify(tif)}: one of gtc, ioc, poc, fok`);
    if (price.isZero() && tif !== 'ioc' && tif !== 'fok')
      throw badRequest('INVALID_PARAM_VALUE', 'a market order (price 0) takes tif ioc or fok');
    const text = orderText(o.text);
    const book = this.book(account.id);
    if (book.open >= MAX_OPEN_ORDERS)
      throw badRequest('TOO_MANY_ORDERS', `${book.open} open orders; at most ${MAX_OPEN_ORDERS}`);
    const order: FuturesOrder = {
      id: this.nextOrder++,
      market: 'futures',
      account: account.id,
      settle,
      contract: contract.name,
      size,
      left: size,
      price: price.isZero() ? this.data.contractPrice(contract, at) : price,
      tif,
      text,
      createdAt: at,
      status: 'open',
      finishAs: '',
      finishedAt: null,
      fillPrice: null,
      sizeAsText: typeof o.size === 'string',
    };
    this.arrive(account, book, order, price.isZero() ? 'taker' : this.fills.draw(contract.name), at);
    return futuresJson(order, account);
  }

  placeFuturesBatch(account: Account, settle: string, body: unknown, at: number): Json[] {
    const orders = array(body);
    const check = checkFuturesBatch(orders);
    if (!check.ok) throw badRequest(check.label, check.message);
    return orders.map((o) => each(() => ({ succeeded: true, ...this.placeFutures(account, settle, o, at) })));
  }

  amendFutures(account: Account, settle: string, id: unknown, body: unknown, at: number): FuturesOrderJson {
    const o = object(body);
    const order = this.futuresOrder(account, settle, id);
    if (order.status !== 'open') throw badRequest('ORDER_FINISHED', `order ${order.id} is finished`);
    const size = o.size === undefined ? undefined : decimal(o.size, 'size', false);
    const price = o.price === undefined ? undefined : decimal(o.price, 'price', false);
    if (size === undefined && price === undefined)
      throw badRequest('INVALID_PARAM_VALUE', 'an amendment names size or price');
    if (size !== undefined && (size.isZero() || size.isNegative() !== order.size.isNegative())) {
      throw badRequest(
        'INVALID_PARAM_VALUE',
        `size ${size.toString()}: the new size of a ${order.size.isNegative() ? 'sell' : 'buy'} order, not 0`,
      );
    }
    if (price !== undefined) order.price = price;
    if (size !== undefined) order.left = order.size = size;
    void at;
    return futuresJson(order, account);
  }

  amendFuturesBatch(account: Account, settle: string, body: unknown, at: number): Json[] {
    const list = array(body);
    const check = checkFuturesBatch(list);
    if (!check.ok) throw badRequest(check.label, check.message);
    return list.map((o) =>
      each(() => ({ succeeded: true, ...this.amendFutures(account, settle, (o as Json)?.order_id, o, at) })),
    );
  }

  cancelFutures(account: Account, settle: string, id: unknown, at: number): FuturesOrderJson {
    const order = this.futuresOrder(account, settle, id);
    if (order.status !== 'open') throw badRequest('ORDER_FINISHED', `order ${order.id} is finished`);
    this.finish(this.book(account.id), order, 'cancelled', at);
    return futuresJson(order, account);
  }

  cancelFuturesAll(account: Account, settle: string, contract: unknown, at: number): FuturesOrderJson[] {
    const c = this.contract(settle, contract);
    const book = this.book(account.id);
    const out: FuturesOrderJson[] = [];
    for (const o of book.orders.values()) {
      if (o.market === 'futures' && o.settle === settle && o.contract === c.name && o.status === 'open') {
        this.finish(book, o, 'cancelled', at);
        out.push(futuresJson(o, account));
      }
    }
    return out;
  }

  cancelFuturesBatch(account: Account, settle: string, body: unknown, at: number): Json[] {
    const ids = array(body);
    return ids.map((id) => ({
      id: String(id),
      user_id: uidOf(account),
      ...each(() => (this.cancelFutures(account, settle, id, at), { succeeded: true })),
    }));
  }

  listFutures(account: Account, settle: string, query: URLSearchParams): FuturesOrderJson[] {
    const status = query.get('status') ?? 'open';
    if (status !== 'open' && status !== 'finished')
      throw badRequest('INVALID_PARAM_VALUE', `status ${JSON.stringify(status)}: open or finished`);
    const contract = query.get('contract');
    if (contract !== null) this.contract(settle, contract);
    const limit = listLimit(query);
    const out: FuturesOrderJson[] = [];
    for (const o of [...this.book(account.id).orders.values()].reverse()) {
      if (
        o.market !== 'futures' ||
        o.settle !== settle ||
        o.status !== status ||
        (contract !== null && o.contract !== contractName(contract))
      )
        continue;
      out.push(futuresJson(o, account));
      if (out.length >= limit) break;
    }
    return out;
  }

  futuresTrades(account: Account, settle: string, query: URLSearchParams): Json[] {
    const contract = query.get('contract');
    const name = contract === null ? null : this.contract(settle, contract).name;
    return futuresTradesJson(this.book(account.id), name, query);
  }

  /** The account's fills of `market` after the fill `afterId`, as the user-trades channels push them. */
  tradesAfter(
    account: Account,
    market: 'futures' | 'spot',
    afterId: number,
  ): { readonly rows: Json[]; readonly last: number } {
    return tradesAfter(this.book(account.id), market, afterId);
  }

  /** The id of the account's latest fill (0 before any). */
  lastTradeId(account: Account): number {
    return this.book(account.id).trades.at(-1)?.id ?? 0;
  }

  futuresTradesTimerange(account: Account, settle: string, query: URLSearchParams): Json[] {
    const contract = query.get('contract');
    const name = contract === null || contract === '' ? null : this.contract(settle, contract).name;
    return futuresTradesTimerangeJson(this.book(account.id), name, query);
  }

  contractsJson(settle: string, at: number): Json[] {
    return this.markets.contracts(settle).map((c) => contractJson(c, this.data.contractPrice(c, at), at));
  }

  contractJson(settle: string, name: string, at: number): Json {
    const c = this.contract(settle, name);
    return contractJson(c, this.data.contractPrice(c, at), at);
  }

  // ---- spot

  placeSpot(account: Account, body: unknown, at: number): Json {
    const o = object(body);
    const pair = this.pair(o.currency_pair);
    const side = o.side;
    if (side !== 'buy' && side !== 'sell')
      throw badRequest(
        side === undefined ? 'MISSING_REQUIRED_PARAM' : 'INVALID_PARAM_VALUE',
        `side ${JSON.stringify(side)}: buy or sell`,
      );
    const type = o.type ?? 'limit';
    if (type !== 'limit' && type !== 'market')
      throw badRequest('INVALID_PARAM_VALUE', `type ${JSON.stringify(type)}: limit or market`);
    const amount = decimal(o.amount, 'amount', false);
    if (amount.isNegative() || amount.isZero())
      throw badRequest('INVALID_PARAM_VALUE', `amount ${JSON.stringify(o.amount)}: a positive amount`);
    const price = type === 'market' ? this.data.pairPrice(pair, at) : decimal(o.price, 'price', false);
    if (price.isNegative() || price.isZero())
      throw badRequest('INVALID_PARAM_VALUE', `price ${JSON.stringify(o.price)}: a positive price`);
    const accountType = o.account ?? 'spot';
    if (typeof accountType !== 'string' || !SPOT_ACCOUNTS.has(accountType))
      throw badRequest(
        'INVALID_PARAM_VALUE',
        `account ${JSON.stringify(accountType)}: spot, margin, unified or cross_margin`,
      );
    const tif = o.time_in_force ?? (type === 'market' ? 'ioc' : 'gtc');
    if (typeof tif !== 'string' || !TIFS.has(tif))
      throw badRequest('INVALID_PARAM_VALUE', `time_in_force ${JSON.stringify(tif)}: one of gtc, ioc, poc, fok`);
    const text = orderText(o.text);
    const book = this.book(account.id);
    if (book.open >= MAX_OPEN_ORDERS)
      throw badRequest('TOO_MANY_ORDERS', `${book.open} open orders; at most ${MAX_OPEN_ORDERS}`);
    const order: SpotOrder = {
      id: String(this.nextOrder++),
      market: 'spot',
      account: account.id,
      pair: pair.name,
      side,
      type,
      accountType,
      amount,
      left: amount,
      price,
      tif,
      text,
      createdAt: at,
      status: 'open',
      finishAs: '',
      finishedAt: null,
      fillPrice: null,
    };
    this.arrive(account, book, order, type === 'market' ? 'taker' : this.fills.draw(pair.name), at);
    return spotJson(order);
  }

  placeSpotBatch(account: Account, body: unknown, at: number): Json[] {
    const orders = array(body);
    const check = checkSpotBatch(orders as { currency_pair?: string; account?: string }[]);
    if (!check.ok) throw badRequest(check.label, check.message);
    return orders.map((o) =>
      each(() => ({ succeeded: true, ...this.placeSpot(account, o, at) }), { text: (o as Json)?.text ?? '' }),
    );
  }

  amendSpot(account: Account, id: unknown, body: unknown, query: URLSearchParams | null, at: number): Json {
    const o = object(body);
    const order = this.spotOrder(account, id, o.currency_pair ?? query?.get('currency_pair'));
    if (order.status !== 'open') throw badRequest('ORDER_CLOSED', `order ${order.id} is ${order.status}`);
    const amount = o.amount === undefined ? undefined : decimal(o.amount, 'amount', false);
    const price = o.price === undefined ? undefined : decimal(o.price, 'price', false);
    if (amount === undefined && price === undefined)
      throw badRequest('INVALID_PARAM_VALUE', 'an amendment names amount or price');
    if (amount !== undefined && (amount.isNegative() || amount.isZero()))
      throw badRequest('INVALID_PARAM_VALUE', `amount ${JSON.stringify(o.amount)}: a positive amount`);
    if (price !== undefined && (price.isNegative() || price.isZero()))
      throw badRequest('INVALID_PARAM_VALUE', `price ${JSON.stringify(o.price)}: a positive price`);
    if (amount !== undefined) order.amount = order.left = amount;
    if (price !== undefined) order.price = price;
    void at;
    return spotJson(order);
  }

  amendSpotBatch(account: Account, body: unknown, at: number): Json[] {
    return array(body).map((o) =>
      each(() => ({ succeeded: true, ...this.amendSpot(account, (o as Json)?.order_id, o, null, at) })),
    );
  }

  cancelSpot(account: Account, id: unknown, pair: unknown, at: number): Json {
    const order = this.spotOrder(account, id, pair);
    if (order.status !== 'open') throw badRequest('ORDER_CLOSED', `order ${order.id} is ${order.status}`);
    const book = this.book(account.id);
    this.close(order, 'cancelled', at);
    book.finish(order);
    return spotJson(order);
  }

  cancelSpotAll(account: Account, pair: unknown, at: number): Json[] {
    const name = pair === null || pair === undefined ? null : this.pair(pair).name;
    const book = this.book(account.id);
    const out: Json[] = [];
    for (const o of book.orders.values()) {
      if (o.market === 'spot' && o.status === 'open' && (name === null || o.pair === name)) {
        this.close(o, 'cancelled', at);
        book.finish(o);
        out.push(spotJson(o));
      }
    }
    return out;
  }

  cancelSpotBatch(account: Account, body: unknown, at: number): Json[] {
    return array(body).map((x) => {
      const o = (typeof x === 'object' && x !== null ? x : {}) as Json;
      return {
        currency_pair: o.currency_pair ?? '',
        id: String(o.id ?? ''),
        ...each(() => (this.cancelSpot(account, o.id, o.currency_pair, at), { succeeded: true })),
      };
    });
  }

  listSpot(account: Account, query: URLSearchParams): Json[] {
    const status = query.get('status') ?? 'open';
    if (status !== 'open' && status !== 'finished')
      throw badRequest('INVALID_PARAM_VALUE', `status ${JSON.stringify(status)}: open or finished`);
    const pair = query.get('currency_pair');
    const name = pair === null ? null : this.pair(pair).name;
    const limit = listLimit(query);
    const out: Json[] = [];
    for (const o of [...this.book(account.id).orders.values()].reverse()) {
      if (o.market !== 'spot' || (status === 'open') !== (o.status === 'open') || (name !== null && o.pair !== name))
        continue;
      out.push(spotJson(o));
      if (out.length >= limit) break;
    }
    return out;
  }

  spotTrades(account: Account, query: URLSearchParams): Json[] {
    const pair = query.get('currency_pair');
    return spotTradesJson(this.book(account.id), pair === null ? null : this.pair(pair).name, query);
  }

  // ---- shared

  private fill(
    account: Account,
    book: Book,
    order: FuturesOrder | SpotOrder,
    role: 'maker' | 'taker',
    at: number,
  ): void {
    const size = order.market === 'futures' ? order.left : order.left;
    const price = order.price;
    let volume: Dec;
    if (order.market === 'futures') {
      const contract = this.markets.contract(order.settle, order.contract)!;
      volume = futuresFillVolume(size, contract.multiplier, price, contract.inverse);
      order.status = 'finished';
      this.fundsOf(account.id).futuresFill(contract, size, price, at);
    } else {
      volume = size.times(price);
      order.status = 'closed';
      const pair = this.markets.pair(order.pair)!;
      this.fundsOf(account.id).spotFill(pair.base, pair.quote, order.side, size, price);
    }
    order.left = ZERO;
    order.fillPrice = price;
    order.finishAs = 'filled';
    order.finishedAt = at;
    book.addTrade({ id: this.nextTrade++, at, role, order });
    this.core.recordFill(account, order.market, this.fillName(order), role, volume, at);
  }

  /**
   * A new order meets the book: it fills as taker unless post-only, as maker unless IOC or FOK; an
   * IOC or FOK order that did not fill ends at once (IOC as `ioc`, FOK as `cancelled`). The book
   * keeps it either way.
   */
  private arrive(
    account: Account,
    book: Book,
    order: FuturesOrder | SpotOrder,
    outcome: FillOutcome,
    at: number,
  ): void {
    const { tif } = order;
    if (outcome === 'taker' && tif !== 'poc') this.fill(account, book, order, 'taker', at);
    else if (outcome === 'maker' && tif !== 'ioc' && tif !== 'fok') this.fill(account, book, order, 'maker', at);
    else if (tif === 'ioc' || tif === 'fok') {
      if (order.market === 'futures') order.status = 'finished';
      else order.status = 'cancelled';
      order.finishAs = tif === 'ioc' ? 'ioc' : 'cancelled';
      order.finishedAt = at;
    }
    book.add(order);
  }

  private finish(book: Book, order: FuturesOrder, as: 'cancelled', at: number): void {
    order.status = 'finished';
    order.finishAs = as;
    order.finishedAt = at;
    book.finish(order);
  }

  private close(order: SpotOrder, as: 'cancelled' | 'ioc', at: number): void {
    order.status = 'cancelled';
    order.finishAs = as;
    order.finishedAt = at;
  }

  futuresOrderJson(account: Account, settle: string, id: unknown): FuturesOrderJson {
    return futuresJson(this.futuresOrder(account, settle, id), account);
  }

  spotOrderJson(account: Account, id: unknown, pair: unknown): Json {
    return spotJson(this.spotOrder(account, id, pair));
  }

  /** GET /spot/open_orders: the open orders by pair. */
  spotOpenOrders(account: Account, query: URLSearchParams): Json[] {
    const limit = listLimit(query);
    const byPair = new Map<string, Json[]>();
    for (const o of [...this.book(account.id).orders.values()].reverse()) {
      if (o.market !== 'spot' || o.status !== 'open') continue;
      const list = byPair.get(o.pair) ?? [];
      if (list.length < limit) list.push(spotJson(o));
      byPair.set(o.pair, list);
    }
    return [...byPair].map(([pair, orders]) => ({ currency_pair: pair, total: orders.length, orders }));
  }

  /** GET /spot/accounts: each currency's balance, less what open orders hold (`locked`). */
  spotAccounts(account: Account, query: URLSearchParams): Json[] {
    return spotAccountsJson(this.fundsOf(account.id), this.book(account.id), this.markets, query);
  }

  /** GET /futures/{settle}/accounts: the balance, the positions' profit and margin at the walk's price, what is left. */
  futuresAccount(account: Account, settle: string, at: number): Json {
    return futuresAccountJson(this.fundsOf(account.id), this.data, account, settle, at);
  }

  /** GET /futures/{settle}/positions/{contract}: one position (size 0 when none is held). */
  positionJson(account: Account, contract: Contract, at: number): Json {
    return positionJson(this.fundsOf(account.id), this.data, account, contract, at);
  }

  /** GET /futures/{settle}/positions: every position the account has held, at the walk's price. */
  positions(account: Account, settle: string, query: URLSearchParams, at: number): Json[] {
    const holding = query.get('holding') === 'true';
    return [...this.fundsOf(account.id).account(settle).positions.values()]
      .filter((p) => !holding || !p.size.isZero())
      .map((p) => this.positionJson(account, p.contract, at));
  }

  contract(settle: string, name: unknown): Contract {
    if (name === undefined || name === null || name === '')
      throw badRequest('MISSING_REQUIRED_PARAM', 'contract is required');
    const c = this.markets.contract(settle, contractName(name) ?? '');
    if (c === undefined) {
      throw badRequest(
        'CONTRACT_NOT_FOUND',
        `contract ${JSON.stringify(name)} not found for settle ${settle} (${this.markets
          .contracts(settle)
          .map((x) => x.name)
          .join(', ')})`,
      );
    }
    return c;
  }

  pair(name: unknown): Pair {
    if (name === undefined || name === null || name === '')
      throw badRequest('MISSING_REQUIRED_PARAM', 'currency_pair is required');
    const pair = this.markets.pair(contractName(name) ?? '');
    if (pair === undefined)
      throw badRequest(
        'INVALID_CURRENCY_PAIR',
        `currency pair ${JSON.stringify(name)} not found (${this.markets.pairs().join(', ')})`,
      );
    return pair;
  }

  private futuresOrder(account: Account, settle: string, id: unknown): FuturesOrder {
    const o = this.books.get(account.id)?.order(id);
    if (o === undefined || o.market !== 'futures' || o.settle !== settle)
      throw new ApiError(404, 'ORDER_NOT_FOUND', `order ${JSON.stringify(id)} not found`);
    return o;
  }

  private spotOrder(account: Account, id: unknown, pair: unknown): SpotOrder {
    const o = this.books.get(account.id)?.order(id);
    if (
      o === undefined ||
      o.market !== 'spot' ||
      (pair !== undefined && pair !== null && contractName(pair) !== o.pair)
    ) {
      throw new ApiError(
        404,
        'ORDER_NOT_FOUND',
        `order ${JSON.stringify(id)} not found${pair === undefined || pair === null ? '' : ` for ${String(pair)}`}`,
      );
    }
    return o;
  }
}
