// ccxt's gate behind an account limiter, against the model exchange on localhost.
import assert from 'node:assert/strict';
import ccxt from 'ccxt';
import { AccountLimiter } from 'traderatio';
import { limitCcxt } from 'traderatio/ccxt';
import { startExchange } from 'traderatio/exchange';

// The model exchange stands in for api.gateio.ws: one main account at tier 1 (100 placements per
// second), key main-key. Against the exchange, leave the URLs as they are.
const exchange = await startExchange({ port: 0 });
const gate = new ccxt.gate({ apiKey: 'main-key', secret: 'main-secret' });
const api = gate.urls['api'] as Record<string, Record<string, string>>;
for (const urls of Object.values(api)) for (const type of Object.keys(urls)) urls[type] = `${exchange.url}/api/v4`;

// One line: every request of this instance now waits on the limits of its endpoint and action,
// on the tier the exchange reports (GET /account/rate_limit, asked as it attaches).
// A few milliseconds of margin (R13): a request may reach the exchange a little quicker than any
// answered yet (a connection already open), and the exchange counts arrivals.
const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], marginMs: 5 });
const limited = limitCcxt(limiter, gate, { account: 'main' });
assert.equal(gate.enableRateLimit, false); // ccxt's own throttle is off

await gate.loadMarkets();
const first = await gate.createOrder('BTC/USDT:USDT', 'limit', 'buy', 1, 60000);
// 150 more at once: 99 go now, the rest as the window frees. A cancel does not wait behind them.
const orders = Array.from({ length: 150 }, () => gate.createOrder('BTC/USDT:USDT', 'limit', 'buy', 1, 60000));
const cancelled = await gate.cancelOrder(first.id!, 'BTC/USDT:USDT');
assert.equal(cancelled.status, 'canceled');
await Promise.all(orders);

// The exchange refused nothing.
const account = exchange.stats().accounts[0]!;
assert.deepEqual(account.refused, {});
assert.equal(account.limits.find((l) => l.key === 'futures.place')!.accepted, 151);
assert.equal(limiter.limitNow('main').source, 'exchange');

// The fills fetchMyTrades reads feed the trade ratio (R1), once per trade id.
const trades = await gate.fetchMyTrades('BTC/USDT:USDT');

limited.detach(); // the instance as it was, its throttle on again
assert.equal(gate.enableRateLimit, true);
limiter.close();
await exchange.close();
console.log(`ccxt: 151 placements and a cancel, none refused; ${trades.length} fills, ${limiter.abuseHeadroom('main').traded} USDT counted; the instance restored`);
