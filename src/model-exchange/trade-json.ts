import type { Book, FuturesOrder, SpotOrder, Trade } from './book.js';
import { whole } from './market-data.js';
import { apiSeconds } from './order-json.js';
import { listLimit, seconds } from './request-fields.js';

// An account's fills as the API answers them: the rows of `my_trades` (REST) and of the
// user-trades channels (WebSocket), read from the account's book.

type Json = Record<string, unknown>;

/** GET /futures/{settle}/my_trades: the account's futures fills, newest first, of `contract` when named. */
export function futuresTradesJson(book: Book, contract: string | null, query: URLSearchParams): Json[] {
  return tradesOf(book, 'futures', contract, query).map(({ id, at, role, order: o }) => {
    const f = o as FuturesOrder;
    return {
      id,
      create_time: apiSeconds(at),
      contract: f.contract,
      order_id: String(f.id),
      size: f.sizeAsText ? f.size.toString() : f.size.toNumber(),
      price: f.price.toString(),
      role,
      text: f.text,
      fee: '0',
      point_fee: '0',
    };
  });
}

/**
 * GET /futures/{settle}/my_trades_timerange: the fills of `from` to `to` (Unix seconds, both
 * optional), newest first, each id written `trade_id` and each size a string, as the API does.
 */
export function futuresTradesTimerangeJson(book: Book, contract: string | null, query: URLSearchParams): Json[] {
  const from = seconds(query.get('from'), -Infinity);
  const to = seconds(query.get('to'), Infinity);
  return tradesOf(book, 'futures', contract, query, (at) => at >= from && at <= to).map(
    ({ id, at, role, order: o }) => {
      const f = o as FuturesOrder;
      return {
        trade_id: String(id),
        create_time: apiSeconds(at),
        contract: f.contract,
        order_id: String(f.id),
        size: f.size.toString(),
        close_size: '0',
        price: f.price.toString(),
        role,
        text: f.text,
        fee: '0',
        point_fee: '0',
      };
    },
  );
}

/** GET /spot/my_trades: the account's spot fills of `from` to `to`, newest first, of `pair` when named. */
export function spotTradesJson(book: Book, pair: string | null, query: URLSearchParams): Json[] {
  const from = seconds(query.get('from'), -Infinity);
  const to = seconds(query.get('to'), Infinity);
  return tradesOf(book, 'spot', pair, query, (at) => at >= from && at <= to).map(({ id, at, role, order: o }) => {
    const s = o as SpotOrder;
    return {
      id: String(id),
      create_time: String(Math.floor(at / 1000)),
      create_time_ms: at.toFixed(3),
      currency_pair: s.pair,
      side: s.side,
      role,
      amount: s.amount.toString(),
      price: s.price.toString(),
      order_id: s.id,
      fee: '0',
      fee_currency: s.pair.split('_')[1] ?? '',
      point_fee: '0',
      gt_fee: '0',
      text: s.text,
    };
  });
}

/**
 * The account's fills of `market` after the fill `afterId`, oldest first, as the WebSocket
 * user-trades channels push them (the rows of `my_trades`), and the id of the last one.
 */
export function tradesAfter(
  book: Book,
  market: 'futures' | 'spot',
  afterId: number,
): { readonly rows: Json[]; readonly last: number } {
  const rows: Json[] = [];
  let last = afterId;
  for (const t of book.trades) {
    if (t.id <= afterId || t.order.market !== market) continue;
    last = Math.max(last, t.id);
    const o = t.order;
    rows.push(
      o.market === 'futures'
        ? {
            id: t.id,
            create_time: apiSeconds(t.at),
            create_time_ms: t.at,
            contract: o.contract,
            order_id: String(o.id),
            size: o.size.toNumber(),
            price: o.price.toString(),
            role: t.role,
            text: o.text,
            fee: '0',
            point_fee: '0',
          }
        : {
            id: String(t.id),
            create_time: Math.floor(t.at / 1000),
            create_time_ms: t.at.toFixed(3),
            currency_pair: o.pair,
            side: o.side,
            role: t.role,
            amount: o.amount.toString(),
            price: o.price.toString(),
            order_id: o.id,
            fee: '0',
            fee_currency: o.pair.split('_')[1] ?? '',
            point_fee: '0',
            gt_fee: '0',
            text: o.text,
          },
    );
  }
  return { rows, last };
}

/** The account's fills, newest first: of one instrument when named, at instants `when` takes, past `offset`, at most `limit`. */
function tradesOf(
  book: Book,
  market: 'futures' | 'spot',
  instrument: string | null,
  query: URLSearchParams,
  when: (at: number) => boolean = () => true,
): Trade[] {
  const limit = listLimit(query);
  const offset = query.get('offset') === null ? 0 : whole(query.get('offset')!, 'offset', 0, 1_000_000);
  const out: Trade[] = [];
  let skipped = 0;
  const all = book.trades;
  for (let i = all.length - 1; i >= 0 && out.length < limit; i--) {
    const t = all[i]!;
    const o = t.order;
    if (o.market !== market || (instrument !== null && (o.market === 'futures' ? o.contract : o.pair) !== instrument))
      continue;
    if (!when(t.at)) continue;
    if (skipped++ < offset) continue;
    out.push(t);
  }
  return out;
}
