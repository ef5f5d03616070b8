// ccxt's okx behind an account limiter under OKX's rules, against the model exchange on OKX.
import assert from 'node:assert/strict';
import ccxt from 'ccxt';
import { AccountLimiter } from 'traderatio';
import { VirtualClock } from 'traderatio/testing';
import { limitCcxt } from 'traderatio/ccxt';
import { startModelExchange } from 'traderatio/model-exchange';

// The model exchange stands in for www.okx.com: one main account at VIP 5 (1,000 new and amend
// orders per 2 s for the sub-account, 60 placements per 2 s per instrument), key main-key, on a
// virtual clock that the example moves (ccxt signs with the machine's); its orders rest (none fills).
// Against the exchange: no clock (the limiter reads the machine's), and the URLs as they are.
const clock = new VirtualClock({ wallStart: Date.now() });
const exchange = await startModelExchange({ exchange: 'okx', port: 0, clock, fills: { maker: 0, taker: 0 } });
const okx = new ccxt.okx({ apiKey: 'main-key', secret: 'main-secret', password: 'main-pass' });
const api = okx.urls['api'] as Record<string, string>;
for (const name of Object.keys(api)) api[name] = exchange.url;
okx.options['fetchMarkets'] = { types: ['spot', 'swap'] }; // the kinds the model trades

// One line: every request of this instance now waits on the limits of its endpoint, instrument
// and sub-account, on the limit the exchange reports (GET /api/v5/trade/account-rate-limit, asked
// as it attaches, with GET /api/v5/public/time for the exchange's clock).
const limiter = new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main', role: 'main' }], clock });
const limited = limitCcxt(limiter, okx, { account: 'main' });
assert.equal(okx.enableRateLimit, false); // ccxt's own throttle is off

await okx.loadMarkets();
// 80 placements on one swap at once: 60 leave now, 20 when the clock has moved 2 s.
const placing = Array.from({ length: 80 }, () => okx.createOrder('SOL/USDT:USDT', 'limit', 'buy', 1, 10));
const first = await Promise.all(placing.slice(0, 60));
// A cancel does not wait behind the 20 placements: it has its own limit, and goes first.
const cancelled = await okx.cancelOrder(first[0]!.id!, 'SOL/USDT:USDT');
assert.equal(cancelled.id, first[0]!.id);
await clock.advance(2_000);
await Promise.all(placing);

// The exchange refused nothing: no 50011 (an instrument's limit), no 50061 (the sub-account's).
const account = exchange.stats().accounts[0]!;
assert.deepEqual(account.refused, {});
assert.equal(account.limits.find((l) => l.key === '/api/v5/trade/order:SOL-USDT-SWAP')!.most, 60);
assert.equal(limiter.limitNow('main').source, 'exchange');

limited.detach(); // the instance as it was, its throttle on again
assert.equal(okx.enableRateLimit, true);
limiter.close();
await exchange.close();
console.log('okx-ccxt: 80 placements and a cancel, none refused; the instance restored');
