import { type Dec, ZERO } from '../../internal/decimal.js';
import { type Funds, LEVERAGE, positionValue, profit } from '../funds.js';
import type { MarketData } from '../market-data.js';
import { swapId } from './instruments.js';

// OKX's account endpoints from an account's funds at the price walk's prices: one trading
// account (OKX's unified account) holding every currency, spot balances and each futures
// account's balance in its settlement currency together.

type Json = Record<string, unknown>;

/**
 * GET /api/v5/account/balance: each currency's cash, equity and profit, optionally only those of
 * `ccy` (comma-separated).
 */
export function balanceJson(funds: Funds, data: MarketData, ccy: string | null, at: number): Json[] {
  const cash = new Map<string, Dec>();
  const upl = new Map<string, Dec>();
  const add = (m: Map<string, Dec>, c: string, v: Dec) => m.set(c, (m.get(c) ?? ZERO).plus(v));
  for (const [c, v] of funds.spot) add(cash, c, v);
  for (const [settle, a] of funds.futures) {
    const c = settle.toUpperCase();
    add(cash, c, a.total);
    for (const p of a.positions.values())
      add(upl, c, profit(p.contract, p.size, p.entry, data.contractPrice(p.contract, at)));
  }
  const only = ccy === null || ccy === '' ? null : new Set(ccy.split(','));
  const ts = String(Math.floor(at));
  const details = [...cash.keys()]
    .filter((c) => only === null || only.has(c))
    .sort()
    .map((c) => {
      const bal = cash.get(c)!;
      const u = upl.get(c) ?? ZERO;
      const eq = bal.plus(u).toString();
      return {
        ccy: c,
        eq,
        cashBal: bal.toString(),
        uTime: ts,
        isoEq: '0',
        availEq: eq,
        disEq: eq,
        availBal: bal.toString(),
        frozenBal: '0',
        ordFrozen: '0',
        liab: '0',
        upl: u.toString(),
        uplLiab: '0',
        crossLiab: '0',
        isoLiab: '0',
        mgnRatio: '',
        interest: '0',
        twap: '0',
        maxLoan: '',
        eqUsd: '',
        notionalLever: '0',
        stgyEq: '0',
        isoUpl: '0',
      };
    });
  return [
    {
      uTime: ts,
      totalEq: '',
      isoEq: '0',
      adjEq: '',
      ordFroz: '0',
      imr: '',
      mmr: '',
      notionalUsd: '',
      mgnRatio: '',
      details,
    },
  ];
}

/** GET /api/v5/account/positions: the swaps held (size not 0), optionally of `instId` only. */
export function positionsJson(funds: Funds, data: MarketData, instId: string | null, at: number): Json[] {
  const out: Json[] = [];
  for (const a of funds.futures.values()) {
    for (const p of a.positions.values()) {
      const id = swapId(p.contract);
      if (id === null || p.size.isZero() || (instId !== null && instId !== id)) continue;
      const mark = data.contractPrice(p.contract, at);
      const margin = positionValue(p.contract, p.size, p.entry).div(LEVERAGE).toString();
      out.push({
        instType: 'SWAP',
        instId: id,
        mgnMode: 'cross',
        posId: `${id}-net`,
        posSide: 'net',
        pos: p.size.toString(),
        posCcy: '',
        availPos: '',
        avgPx: p.entry.toString(),
        markPx: mark.toString(),
        upl: profit(p.contract, p.size, p.entry, mark).toString(),
        uplRatio: '0',
        lever: String(LEVERAGE),
        liqPx: '',
        imr: margin,
        margin: '',
        mgnRatio: '',
        mmr: '0',
        notionalUsd: positionValue(p.contract, p.size, mark).toString(),
        ccy: p.contract.settle.toUpperCase(),
        realizedPnl: p.realised.toString(),
        adl: '1',
        last: mark.toString(),
        cTime: String(Math.floor(p.openedAt)),
        uTime: String(Math.floor(p.updatedAt)),
      });
    }
  }
  return out;
}
