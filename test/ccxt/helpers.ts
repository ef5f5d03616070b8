import ccxt from 'ccxt';
import type { RunningModelExchange } from '../../src/model-exchange/index.js';

/** A ccxt gate instance whose every API URL points at the model exchange; the main account's key. */
export function gateAt(
  exchange: RunningModelExchange,
  options: Record<string, unknown> = {},
): InstanceType<typeof ccxt.gate> {
  const gate = new ccxt.gate({ apiKey: 'main-key', secret: 'main-secret', ...options });
  const api = gate.urls['api'] as Record<string, Record<string, string>>;
  for (const side of Object.values(api)) for (const type of Object.keys(side)) side[type] = `${exchange.url}/api/v4`;
  return gate;
}

/** Records each request ccxt hands to its HTTP layer, after signing: method, URL, headers. */
export function recordSends(
  gate: InstanceType<typeof ccxt.gate>,
): { method: string; url: string; headers: Record<string, string> }[] {
  const sent: { method: string; url: string; headers: Record<string, string> }[] = [];
  const send = gate.fetch;
  gate.fetch = function (url: string, method = 'GET', headers?: Record<string, string>, body?: unknown) {
    sent.push({ method, url, headers: headers ?? {} });
    return send.call(this, url, method, headers, body);
  };
  return sent;
}

/**
 * A ccxt `okx` instance speaking to the model exchange on OKX: its REST URLs pointed at it, the
 * markets of the kinds the model trades (spot and swaps).
 */
export function okxAt(
  exchange: Pick<RunningModelExchange, 'url'>,
  options: Record<string, unknown> = {},
): InstanceType<typeof ccxt.okx> {
  const okx = new ccxt.okx({ apiKey: 'main-key', secret: 'main-secret', password: 'main-pass', ...options });
  const api = okx.urls['api'] as Record<string, string>;
  for (const key of Object.keys(api)) api[key] = exchange.url;
  okx.options['fetchMarkets'] = { types: ['spot', 'swap'] };
  return okx;
}

/** The model's USDT swaps as ccxt names them, and a price far below each (the orders rest). */
export const OKX_SWAPS = [
  ['BTC/USDT:USDT', 1000],
  ['ETH/USDT:USDT', 100],
  ['SOL/USDT:USDT', 10],
  ['DOGE/USDT:USDT', 0.1],
] as const;

/**
 * Batches of 20 orders on each of {@link OKX_SWAPS} through a ccxt okx instance, 15 a swap: 1,200
 * orders, more than a sub-account's 1,000 per 2 s, each swap's 300 within its batch limit.
 */
export function okxBatchesOverTier(okx: InstanceType<typeof ccxt.okx>) {
  const batch = (symbol: string, price: number) =>
    Array.from({ length: 20 }, () => ({ symbol, type: 'limit' as const, side: 'buy' as const, amount: 1, price }));
  return OKX_SWAPS.flatMap(([symbol, price]) =>
    Array.from({ length: 15 }, () => okx.createOrders(batch(symbol, price))),
  );
}
