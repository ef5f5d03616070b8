import type { FuturesOrder, SpotOrder } from '../book.js';
import type { Contract, Markets, Pair } from '../markets.js';

// OKX's names of what the model trades (docs/model-exchange.md, OKX): the markets are one table
// for both exchanges, named Gate's way (`BTC_USDT`), and read here under OKX's instrument ids.

/** An instrument of OKX the model trades: a perpetual swap (one of its contracts) or a spot pair. */
export type OkxTraded =
  | { readonly kind: 'SWAP'; readonly instId: string; readonly contract: Contract }
  | { readonly kind: 'SPOT'; readonly instId: string; readonly pair: Pair };

/**
 * The settlement currency of the model's markets an OKX swap's quote names: `-USDT-SWAP` is
 * linear (settled in USDT), `-USD-SWAP` inverse (settled in the base currency, the markets'
 * `btc` table).
 */
const SETTLE_OF_QUOTE: Readonly<Record<string, string>> = { USDT: 'usdt', USD: 'btc' };

/** The OKX id of a contract of the model: `BTC_USDT` of `usdt` is `BTC-USDT-SWAP`; null where OKX has no such swap. */
export function swapId(c: Contract): string | null {
  const [base, quote] = c.name.split('_') as [string, string];
  return SETTLE_OF_QUOTE[quote] === c.settle ? `${base}-${quote}-SWAP` : null;
}

/** The OKX id of a spot pair of the model: `BTC_USDT` is `BTC-USDT`. */
export const spotId = (p: Pair): string => p.name.replace('_', '-');

/** The OKX id of an order's instrument: what its fills are counted under. */
export function orderInstId(o: FuturesOrder | SpotOrder): string {
  return o.market === 'futures' ? `${o.contract.replace('_', '-')}-SWAP` : o.pair.replace('_', '-');
}

/** The instrument an OKX id names among the model's markets, or undefined (not traded, or no id). */
export function tradedOf(markets: Markets, instId: unknown): OkxTraded | undefined {
  if (typeof instId !== 'string') return undefined;
  const parts = instId.split('-');
  if (parts.length === 3 && parts[2] === 'SWAP') {
    const settle = SETTLE_OF_QUOTE[parts[1]!];
    const contract = settle === undefined ? undefined : markets.contract(settle, `${parts[0]}_${parts[1]}`);
    return contract === undefined ? undefined : { kind: 'SWAP', instId, contract };
  }
  if (parts.length === 2) {
    const pair = markets.pair(`${parts[0]}_${parts[1]}`);
    return pair === undefined ? undefined : { kind: 'SPOT', instId, pair };
  }
  return undefined;
}

/** Every instrument of a kind (`SWAP`, `SPOT`; none of the others) the model trades, in the markets' order. */
export function tradedOfKind(markets: Markets, kind: string): OkxTraded[] {
  if (kind === 'SPOT')
    return markets.pairs().map((name) => {
      const pair = markets.pair(name)!;
      return { kind: 'SPOT', instId: spotId(pair), pair };
    });
  if (kind !== 'SWAP') return [];
  const out: OkxTraded[] = [];
  for (const settle of Object.values(SETTLE_OF_QUOTE))
    for (const contract of markets.contracts(settle)) {
      const instId = swapId(contract);
      if (instId !== null) out.push({ kind: 'SWAP', instId, contract });
    }
  return out;
}
