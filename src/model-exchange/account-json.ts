import { type Dec, ZERO } from '../internal/decimal.js';
import type { Book } from './book.js';
import type { Account } from './core.js';
import { type Funds, LEVERAGE, positionValue, profit } from './funds.js';
import type { MarketData } from './market-data.js';
import type { Contract, Markets } from './markets.js';
import { uidOf } from './order-json.js';

// What the account endpoints answer: balances and positions as the API writes them, from an
// account's funds at the price walk's prices.

type Json = Record<string, unknown>;

/** GET /spot/accounts: each currency's balance, less what open orders hold (`locked`). */
export function spotAccountsJson(funds: Funds, book: Book, markets: Markets, query: URLSearchParams): Json[] {
  const locked = new Map<string, Dec>();
  for (const o of book.orders.values()) {
    if (o.market !== 'spot' || o.status !== 'open') continue;
    const pair = markets.pair(o.pair)!;
    const [currency, amount] = o.side === 'buy' ? [pair.quote, o.left.times(o.price)] : [pair.base, o.left];
    locked.set(currency, (locked.get(currency) ?? ZERO).plus(amount));
  }
  const only = query.get('currency');
  const names = new Set([...funds.spot.keys(), ...locked.keys()]);
  if (only !== null) {
    if (!names.has(only)) return [];
    names.clear();
    names.add(only);
  }
  return [...names].sort().map((currency) => {
    const l = locked.get(currency) ?? ZERO;
    return {
      currency,
      available: (funds.spot.get(currency) ?? ZERO).minus(l).toString(),
      locked: l.toString(),
      update_id: 0,
    };
  });
}

/** GET /futures/{settle}/accounts: the balance, the positions' profit and margin at the walk's price, what is left. */
export function futuresAccountJson(funds: Funds, data: MarketData, account: Account, settle: string, at: number): Json {
  const a = funds.account(settle);
  let unrealised = ZERO;
  let margin = ZERO;
  for (const p of a.positions.values()) {
    const mark = data.contractPrice(p.contract, at);
    unrealised = unrealised.plus(profit(p.contract, p.size, p.entry, mark));
    margin = margin.plus(positionValue(p.contract, p.size, p.entry.isZero() ? mark : p.entry).div(LEVERAGE));
  }
  return {
    user: uidOf(account),
    currency: settle.toUpperCase(),
    total: a.total.toString(),
    unrealised_pnl: unrealised.toString(),
    position_margin: margin.toString(),
    order_margin: '0',
    available: a.total.plus(unrealised).minus(margin).toString(),
    point: '0',
    bonus: '0',
    in_dual_mode: false,
    enable_credit: false,
    position_initial_margin: margin.toString(),
    maintenance_margin: margin.div(2).toString(),
    cross_available: a.total.plus(unrealised).minus(margin).toString(),
    history: {
      dnw: '0',
      pnl: a.total.toString(),
      fee: '0',
      refr: '0',
      fund: '0',
      point_dnw: '0',
      point_fee: '0',
      point_refr: '0',
      bonus_dnw: '0',
      bonus_offset: '0',
    },
  };
}

/** GET /futures/{settle}/positions/{contract}: one position (size 0 when none is held). */
export function positionJson(funds: Funds, data: MarketData, account: Account, contract: Contract, at: number): Json {
  const p = funds.account(contract.settle).positions.get(contract.name);
  const size = p?.size ?? ZERO;
  const entry = p?.entry ?? ZERO;
  const mark = data.contractPrice(contract, at);
  const value = positionValue(contract, size, mark);
  return {
    user: uidOf(account),
    contract: contract.name,
    size: size.toNumber(),
    leverage: String(LEVERAGE),
    risk_limit: '1000000',
    leverage_max: '100',
    maintenance_rate: '0.005',
    value: value.toString(),
    margin: positionValue(contract, size, entry.isZero() ? mark : entry)
      .div(LEVERAGE)
      .toString(),
    entry_price: entry.toString(),
    liq_price: '0',
    mark_price: mark.toString(),
    unrealised_pnl: profit(contract, size, entry, mark).toString(),
    realised_pnl: (p?.realised ?? ZERO).toString(),
    pnl_pnl: (p?.realised ?? ZERO).toString(),
    pnl_fund: '0',
    pnl_fee: '0',
    history_pnl: (p?.realised ?? ZERO).toString(),
    last_close_pnl: '0',
    realised_point: '0',
    history_point: '0',
    adl_ranking: 5,
    pending_orders: 0,
    close_order: null,
    mode: 'single',
    cross_leverage_limit: '0',
    update_time: Math.floor((p?.updatedAt ?? at) / 1000),
    open_time: Math.floor((p?.openedAt ?? at) / 1000),
  };
}
