// ccxt's gate behind an account limiter, against the model exchange on localhost.
import assert from 'node:assert/strict';
import ccxt from 'ccxt';
import { AccountLimiter } from 'traderatio';
import { VirtualClock } from 'traderatio/testing';
import { limitCcxt } from 'traderatio/ccxt';
import { startModelExchange } from 'traderatio/model-exchange';

// The model exchange stands in for api.gateio.ws: one main account at tier 1 (100 placements per
// second), key main-key, on a virtual clock that the example moves (ccxt signs with the machine's).
// Against the exchange: no clock (the limiter reads the machine's), and the URLs as they are.
const clock = new VirtualClock({ wallStart: Date.now() });
const exchange = await startModelExchange({ port: 0, clock });
const gate = new ccxt.gate({ apiKey: 'main-key', secret: 'main-secret' });
const api = gate.urls['api'] as Record<string, Record<string, string>>;
for (const urls of Object.values(api)) for (const type of Object.keys(urls)) urls[type] = `${exchange.url}/api/v4`;

// One line: every request of this instance now waits on the limits of its endpoint and action,
// on the tier the exchange reports (GET /account/rate_limit, asked as it attaches).
// A few milliseconds of margin (R13): a request may reach the exchange a little quicker than any
// answered yet (a connection already open), and the exchange counts arrivals.
const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], marginMs: 5, clock });
const limited = limitCcxt(limiter, gate, { account: 'main' });
assert.equal(gate.enableRateLimit, false); // ccxt's own throttle is off

await gate.loadMarkets();
// 150 placements at once: 100 leave now, 50 when the clock has moved a second and the margin.
const placing = Array.from({ length: 150 }, () => gate.createOrder('BTC/USDT:USDT', 'limit', 'buy', 1, 60000));
const first = await Promise.all(placing.slice(0, 100));
// A cancel does not wait behind the 50 placements: it has its own limit, and goes first.
const cancelled = await gate.cancelOrder(first[0]!.id!, 'BTC/USDT:USDT');
assert.equal(cancelled.status, 'canceled');
await clock.advance(1_005);
await Promise.all(placing);

// The exchange refused nothing.
const account = exchange.stats().accounts[0]!;
assert.deepEqual(account.refused, {});
assert.equal(account.limits.find((l) => l.key === 'futures.place')!.accepted, 150);
assert.equal(limiter.limitNow('main').source, 'exchange');

// The fills fetchMyTrades reads feed the trade ratio (R1), once per trade id.
const trades = await gate.fetchMyTrades('BTC/USDT:USDT');

limited.detach(); // the instance as it was, its throttle on again
assert.equal(gate.enableRateLimit, true);
limiter.close();
await exchange.close();
console.log(
  `ccxt: 150 placements and a cancel, none refused; ${trades.length} fills, ${limiter.abuseHeadroom('main').traded} USDT counted; the instance restored`,
);
