import { InvalidInputError } from '../errors.js';
import { Dec, ZERO } from '../internal/decimal.js';
import { parseNonNegativeDecimal } from '../internal/parse.js';
import type { Contract } from './markets.js';

/**
 * An account's starting balances in the accounts file: spot currencies, and the futures account
 * of each settlement currency (`usdt` in USDT, `btc` in BTC, `usd` in USD).
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0, accounts: { families: [{ id: 'desk', accounts: [
 *   { id: 'A', role: 'main', keys: [{ key: 'a-key', secret: 'a-secret' }], balances: { spot: { USDT: '5000', BTC: '0.1' }, futures: { usdt: '2000' } } },
 * ] }] } })
 * const spot = await (await fetch(`${exchange.url}/api/v4/spot/accounts?currency=USDT`, { headers: { KEY: 'a-key' } })).json()
 * spot // [{ currency: 'USDT', available: '5000', locked: '0', update_id: 0 }]
 * const futures = await (await fetch(`${exchange.url}/api/v4/futures/usdt/accounts`, { headers: { KEY: 'a-key' } })).json()
 * futures.total // '2000'
 * await exchange.close()
 * ```
 */
export interface StartingBalances {
  /** Spot balances by currency. */
  readonly spot?: Readonly<Record<string, string>>;
  /** Futures account balances by settlement currency. */
  readonly futures?: Readonly<Record<string, string>>;
}

/** The balances of an account with none in the accounts file. */
export const DEFAULT_BALANCES: StartingBalances = Object.freeze({
  spot: { USDT: '1000000', BTC: '10', ETH: '100', SOL: '1000', DOGE: '1000000' },
  futures: { usdt: '1000000', btc: '10', usd: '1000000' },
});

/** Reads an account's starting balances, naming the field of a bad one. */
export function readBalances(value: unknown, field: string): StartingBalances {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidInputError(
      field,
      value,
      'an object { "spot"?: { "USDT": "1000" }, "futures"?: { "usdt": "1000" } }',
    );
  const b = value as Record<string, unknown>;
  for (const k of Object.keys(b))
    if (k !== 'spot' && k !== 'futures') throw new InvalidInputError(`a key of ${field}`, k, '"spot" or "futures"');
  const table = (t: unknown, where: string, keys?: readonly string[]): Record<string, string> => {
    if (t === undefined) return {};
    if (typeof t !== 'object' || t === null || Array.isArray(t))
      throw new InvalidInputError(where, t, 'an object of amounts by currency');
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(t)) {
      if (keys !== undefined && !keys.includes(k))
        throw new InvalidInputError(`a key of ${where}`, k, keys.map((x) => `"${x}"`).join(', '));
      out[k] = parseNonNegativeDecimal(v, `${where}.${k}`).toString();
    }
    return out;
  };
  return {
    spot: table(b.spot, `${field}.spot`),
    futures: table(b.futures, `${field}.futures`, ['usdt', 'btc', 'usd']),
  };
}

/** A futures position of one contract: signed size in contracts, its average entry price, what closing it realised. */
export interface Position {
  readonly contract: Contract;
  size: Dec;
  entry: Dec;
  realised: Dec;
  /** When it was last changed (ms). */
  updatedAt: number;
  openedAt: number;
}

/** The futures account of one settlement currency. */
export interface FuturesAccount {
  /** Starting balance plus realised profit and loss (fees are 0). */
  total: Dec;
  readonly positions: Map<string, Position>;
}

/** Leverage the model reports and margins positions at. */
export const LEVERAGE = 10;

/**
 * An account's funds as the model's fills move them: spot balances by currency (fees 0), and per
 * settlement currency a futures account and its positions. The model limits requests, not funds:
 * an order is never refused for lack of them, and a balance may go below zero where the exchange
 * would have refused the order.
 */
export class Funds {
  readonly spot = new Map<string, Dec>();
  readonly futures = new Map<string, FuturesAccount>();

  constructor(start: StartingBalances) {
    for (const [currency, amount] of Object.entries(start.spot ?? {})) this.spot.set(currency, new Dec(amount));
    for (const [settle, amount] of Object.entries(start.futures ?? {}))
      this.futures.set(settle, { total: new Dec(amount), positions: new Map() });
  }

  /** A spot fill: `amount` of the base bought (or sold) at `price` in the quote. */
  spotFill(base: string, quote: string, side: 'buy' | 'sell', amount: Dec, price: Dec): void {
    const value = amount.times(price);
    const sign = side === 'buy' ? 1 : -1;
    this.spot.set(base, (this.spot.get(base) ?? ZERO).plus(amount.times(sign)));
    this.spot.set(quote, (this.spot.get(quote) ?? ZERO).minus(value.times(sign)));
  }

  /** The futures account of a settlement currency (opened with 0 on first use, as a transfer would). */
  account(settle: string): FuturesAccount {
    let a = this.futures.get(settle);
    if (a === undefined) this.futures.set(settle, (a = { total: ZERO, positions: new Map() }));
    return a;
  }

  /** A futures fill: `size` contracts (negative sells) at `price`; the position and the realised profit follow. */
  futuresFill(contract: Contract, size: Dec, price: Dec, at: number): void {
    const account = this.account(contract.settle);
    let p = account.positions.get(contract.name);
    if (p === undefined)
      account.positions.set(
        contract.name,
        (p = { contract, size: ZERO, entry: ZERO, realised: ZERO, updatedAt: at, openedAt: at }),
      );
    const held = p.size;
    if (held.isZero()) {
      // Opening the position: the entry is the fill's price.
      p.entry = price;
      p.openedAt = at;
    } else if (held.isNegative() === size.isNegative()) {
      // Adding to the position: the entry is the size-weighted mean, which a fill at the entry's
      // own price leaves as it is (the mean of equal prices, without the division).
      if (!p.entry.eq(price)) {
        const heldAbs = held.abs();
        const sizeAbs = size.abs();
        p.entry = heldAbs.times(p.entry).plus(sizeAbs.times(price)).div(heldAbs.plus(sizeAbs));
      }
    } else {
      const heldAbs = held.abs();
      const sizeAbs = size.abs();
      const closed = Dec.min(heldAbs, sizeAbs);
      const pnl = profit(contract, closed.times(held.isNegative() ? -1 : 1), p.entry, price);
      p.realised = p.realised.plus(pnl);
      account.total = account.total.plus(pnl);
      // Past flat, the rest opens a position the other way at this price.
      if (sizeAbs.gt(heldAbs)) {
        p.entry = price;
        p.openedAt = at;
      }
    }
    p.size = held.plus(size);
    if (p.size.isZero()) p.entry = ZERO;
    p.updatedAt = at;
  }
}

/**
 * Profit of `size` contracts (signed: long positive) bought at `entry` and valued at `price`, in
 * the settlement currency: size × multiplier × (price − entry) for a direct contract, size ×
 * multiplier × (1/entry − 1/price) for an inverse one.
 */
export function profit(c: Contract, size: Dec, entry: Dec, price: Dec): Dec {
  if (size.isZero() || entry.isZero()) return ZERO;
  return c.inverse
    ? size.times(c.multiplier).times(new Dec(1).div(entry).minus(new Dec(1).div(price)))
    : size.times(c.multiplier).times(price.minus(entry));
}

/** The value of a position at `price` in the settlement currency (positive). */
export function positionValue(c: Contract, size: Dec, price: Dec): Dec {
  return c.inverse ? size.abs().times(c.multiplier).div(price) : size.abs().times(c.multiplier).times(price);
}
