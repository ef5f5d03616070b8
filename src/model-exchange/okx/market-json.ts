import type { MarketData } from '../market-data.js';
import { whole } from '../market-data.js';
import type { Markets } from '../markets.js';
import { okxError, paramError } from './answers.js';
import { type OkxTraded, tradedOf, tradedOfKind } from './instruments.js';

// OKX's market data from the model's price walks: the same tickers and books as Gate's,
// written in OKX's shapes.

type Json = Record<string, unknown>;

const DAY_MS = 86_400_000;
const INST_TYPES = ['SPOT', 'MARGIN', 'SWAP', 'FUTURES', 'OPTION'];

/** The instruments of `instType` (required), optionally only `instId`, as GET /api/v5/public/instruments lists them. */
export function instrumentsJson(markets: Markets, data: MarketData, query: URLSearchParams, at: number): Json[] {
  const kind = instType(query);
  const only = query.get('instId');
  return tradedOfKind(markets, kind)
    .filter((t) => only === null || t.instId === only)
    .map((t) => instrumentJson(t, data, at));
}

function instrumentJson(t: OkxTraded, data: MarketData, at: number): Json {
  const common = { instType: t.kind, instId: t.instId, listTime: String(Math.floor(at) - DAY_MS), expTime: '' };
  if (t.kind === 'SPOT') {
    const p = t.pair;
    const lot = data.minBase(p).toString();
    return {
      ...common,
      uly: '',
      instFamily: '',
      baseCcy: p.base,
      quoteCcy: p.quote,
      settleCcy: '',
      ctVal: '',
      ctMult: '',
      ctValCcy: '',
      ctType: '',
      optType: '',
      stk: '',
      lever: '10',
      tickSz: p.tick.toString(),
      lotSz: lot,
      minSz: lot,
      maxLmtSz: '10000000',
      maxMktSz: '1000000',
      state: 'live',
      alias: '',
      category: '1',
    };
  }
  const c = t.contract;
  const [base, quote] = c.name.split('_') as [string, string];
  return {
    ...common,
    uly: `${base}-${quote}`,
    instFamily: `${base}-${quote}`,
    baseCcy: '',
    quoteCcy: '',
    settleCcy: c.inverse ? base : quote,
    ctVal: c.multiplier.toString(),
    ctMult: '1',
    ctValCcy: c.inverse ? quote : base,
    ctType: c.inverse ? 'inverse' : 'linear',
    optType: '',
    stk: '',
    lever: '100',
    tickSz: c.tick.toString(),
    lotSz: '1',
    minSz: '1',
    maxLmtSz: '1000000',
    maxMktSz: '100000',
    state: 'live',
    alias: '',
    category: '1',
  };
}

/** GET /api/v5/market/ticker (`instId`) and /market/tickers (`instType`). */
export function tickersJson(markets: Markets, data: MarketData, query: URLSearchParams, at: number): Json[] {
  const id = query.get('instId');
  const list = id === null ? tradedOfKind(markets, instType(query)) : [traded(markets, id)];
  return list.map((t) => tickerJson(t, data, at));
}

function tickerJson(t: OkxTraded, data: MarketData, at: number): Json {
  const g =
    t.kind === 'SWAP' ? data.futuresTicker(t.contract, at) : (data.spotTicker(t.pair, at) as Record<string, unknown>);
  const open = t.kind === 'SWAP' ? data.contractPrice(t.contract, at - DAY_MS) : data.pairPrice(t.pair, at - DAY_MS);
  const day = Math.floor(at / DAY_MS) * DAY_MS;
  const sod = (from: number) =>
    (t.kind === 'SWAP' ? data.contractPrice(t.contract, from) : data.pairPrice(t.pair, from)).toString();
  return {
    instType: t.kind,
    instId: t.instId,
    last: g.last,
    lastSz: t.kind === 'SWAP' ? '1' : g.lowest_size,
    askPx: g.lowest_ask,
    askSz: g.lowest_size,
    bidPx: g.highest_bid,
    bidSz: g.highest_size,
    open24h: open.toString(),
    high24h: g.high_24h,
    low24h: g.low_24h,
    volCcy24h: t.kind === 'SWAP' ? g.volume_24h_base : g.quote_volume,
    vol24h: t.kind === 'SWAP' ? g.volume_24h : g.base_volume,
    sodUtc0: sod(day),
    sodUtc8: sod(day - 8 * 3_600_000),
    ts: String(Math.floor(at)),
  };
}

/** GET /api/v5/market/books: `sz` levels a side (1 to 400, default 1), each [price, size, "0", orders]. */
export function booksJson(markets: Markets, data: MarketData, query: URLSearchParams, at: number): Json[] {
  const t = traded(markets, query.get('instId'));
  const raw = query.get('sz');
  const depth = raw === null ? 1 : whole(raw, 'sz', 1, 400);
  const g =
    t.kind === 'SWAP' ? data.futuresBook(t.contract, at, depth, false) : data.spotBook(t.pair, at, depth, false);
  const level = (l: unknown) =>
    Array.isArray(l) ? [l[0], l[1], '0', '1'] : [(l as { p: string }).p, String((l as { s: number }).s), '0', '1'];
  return [
    {
      asks: (g.asks as unknown[]).map(level),
      bids: (g.bids as unknown[]).map(level),
      ts: String(Math.floor(at)),
    },
  ];
}

function instType(query: URLSearchParams): string {
  const kind = query.get('instType');
  if (kind === null || kind === '') throw okxError(400, '50014', 'instType');
  if (!INST_TYPES.includes(kind)) throw paramError('instType', kind, INST_TYPES.join(', '));
  return kind;
}

function traded(markets: Markets, instId: string | null): OkxTraded {
  if (instId === null || instId === '') throw okxError(400, '50014', 'instId');
  const t = tradedOf(markets, instId);
  if (t === undefined) throw okxError(400, '51001', instId);
  return t;
}

/**
 * GET /api/v5/asset/currencies: the currencies of what the model trades (optionally only those of
 * `ccy`, comma-separated), each on one chain of its own name, deposits and withdrawals open.
 */
export function currenciesJson(markets: Markets, ccy: string | null): Json[] {
  const names = new Set<string>();
  for (const t of [...tradedOfKind(markets, 'SPOT'), ...tradedOfKind(markets, 'SWAP')])
    for (const c of t.instId.replace(/-SWAP$/, '').split('-')) names.add(c);
  const only = ccy === null || ccy === '' ? null : new Set(ccy.split(','));
  return [...names]
    .filter((c) => only === null || only.has(c))
    .sort()
    .map((c) => ({
      ccy: c,
      name: c,
      chain: `${c}-${c}`,
      canDep: true,
      canWd: true,
      canInternal: true,
      minDep: '0',
      minWd: '0',
      maxWd: '1000000000',
      wdTickSz: '8',
      minFee: '0',
      maxFee: '0',
      mainNet: true,
      needTag: false,
      minDepArrivalConfirm: '1',
      minWdUnlockConfirm: '1',
      depQuotaFixed: '',
      usedDepQuotaFixed: '',
      logoLink: '',
    }));
}
