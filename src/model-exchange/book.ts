import type { Dec } from '../internal/decimal.js';

/** A futures order as the model keeps it. */
export interface FuturesOrder {
  readonly id: number;
  readonly market: 'futures';
  readonly account: string;
  readonly settle: string;
  readonly contract: string;
  /** Signed: positive buys, negative sells (the API's convention). */
  size: Dec;
  left: Dec;
  price: Dec;
  readonly tif: string;
  readonly text: string;
  readonly createdAt: number;
  status: 'open' | 'finished';
  finishAs: '' | 'filled' | 'cancelled' | 'ioc';
  finishedAt: number | null;
  fillPrice: Dec | null;
  /** The size was sent as text: it is answered as text (`X-Service-Size-Decimal`), else as a number. */
  readonly sizeAsText: boolean;
}

/** A spot order as the model keeps it. */
export interface SpotOrder {
  readonly id: string;
  readonly market: 'spot';
  readonly account: string;
  readonly pair: string;
  readonly side: 'buy' | 'sell';
  readonly type: string;
  readonly accountType: string;
  amount: Dec;
  left: Dec;
  price: Dec;
  readonly tif: string;
  readonly text: string;
  readonly createdAt: number;
  status: 'open' | 'closed' | 'cancelled';
  finishAs: '' | 'filled' | 'cancelled' | 'ioc';
  finishedAt: number | null;
  fillPrice: Dec | null;
}

/**
 * A fill of one of the account's orders: what `my_trades` returns. A fill takes its order whole
 * at placement (the fill model's rule), so the order gives the rest: instrument, size, price,
 * side, text. Four fields per fill keep the last 10,000 light for the garbage collector.
 */
export interface Trade {
  readonly id: number;
  readonly at: number;
  readonly role: 'maker' | 'taker';
  readonly order: FuturesOrder | SpotOrder;
}

/** Orders kept finished per account, and fills kept, before the oldest are dropped. */
const FINISHED_KEPT = 10_000;
const TRADES_KEPT = 10_000;
/** Open orders an account may hold at once (the futures label TOO_MANY_ORDERS past it). */
export const MAX_OPEN_ORDERS = 100_000;

/**
 * One account's orders and fills, in memory bounded by {@link MAX_OPEN_ORDERS} open orders and the
 * last 10,000 finished orders and 10,000 fills.
 */
export class Book {
  /**
   * The orders by the number of their id (ids are whole numbers, a spot order's written as text):
   * a map of small integers costs half what one of their texts does on every placement. Read an
   * order by the id a request names with {@link Book.order}.
   */
  readonly orders = new Map<number, FuturesOrder | SpotOrder>();
  /** The keys in `orders` of the finished orders kept, oldest first. */
  private readonly finished: number[] = [];
  private finishedHead = 0;
  open = 0;
  readonly trades: Trade[] = [];

  /** The order named by `id` as a request gives it (a number, or text read as `String(id)`), or undefined. */
  order(id: unknown): FuturesOrder | SpotOrder | undefined {
    if (typeof id === 'number') return this.orders.get(id);
    const text = String(id);
    const n = Number(text);
    // Only an id's own text names it: `05`, ` 5` and `5.0` name no order.
    return String(n) === text ? this.orders.get(n) : undefined;
  }

  add(order: FuturesOrder | SpotOrder): void {
    const key = keyOf(order);
    this.orders.set(key, order);
    if (order.status === 'open') this.open++;
    else this.retire(key);
  }

  /** Marks an order finished: it is kept among the last finished ones. */
  finish(order: FuturesOrder | SpotOrder): void {
    this.open--;
    this.retire(keyOf(order));
  }

  addTrade(trade: Trade): void {
    this.trades.push(trade);
    if (this.trades.length > TRADES_KEPT * 2) this.trades.splice(0, this.trades.length - TRADES_KEPT);
  }

  private retire(key: number): void {
    this.finished.push(key);
    if (this.finished.length - this.finishedHead > FINISHED_KEPT)
      this.orders.delete(this.finished[this.finishedHead++]!);
    if (this.finishedHead > FINISHED_KEPT) {
      this.finished.splice(0, this.finishedHead);
      this.finishedHead = 0;
    }
  }
}

/** An order's key in its book: the number of its id. */
function keyOf(order: FuturesOrder | SpotOrder): number {
  return order.market === 'futures' ? order.id : Number(order.id);
}
