// The exchange's Node SDK (gate-api) behind traderatio, against the model exchange on localhost.
import assert from 'node:assert/strict';
import { ApiClient, FuturesApi } from 'gate-api';
import { AccountLimiter } from 'traderatio';
import { VirtualClock } from 'traderatio/testing';
import { limitApiClient } from 'traderatio/gate-api';
import { startModelExchange } from 'traderatio/model-exchange';

// The model stands in for the exchange (one main account, KEY main-key, tier 1: 100 placements per
// second), on a virtual clock that the example moves; the SDK signs with the machine's clock.
// Against the exchange: no clock (the limiter reads the machine's) and `new ApiClient()`.
const clock = new VirtualClock({ wallStart: Date.now() });
const exchange = await startModelExchange({ port: 0, clock });
// A few milliseconds of margin (R13): a request may reach the exchange a little quicker than any
// answered yet (a connection already open), and the exchange counts arrivals.
const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], marginMs: 5, clock });

const client = new ApiClient(`${exchange.url}/api/v4`);
client.setApiKeySecret('main-key', 'main-secret');
// The one line: every API class built on this client now waits on the account's limits, on the
// tier the exchange reports (GET /account/rate_limit, asked as it attaches).
const { detach } = limitApiClient(limiter, { account: 'main', client });

const futures = new FuturesApi(client);
const order = { contract: 'BTC_USDT', size: '1', price: '60000' };
// 150 placements at once: 100 leave now, 50 a second and the margin later; none is refused.
const placing = Array.from({ length: 150 }, () => futures.createFuturesOrder('usdt', order));
const first = await Promise.all(placing.slice(0, 100));
// A cancel does not wait behind the 50 placements: it has its own limit, and goes first.
const cancelled = await futures.cancelFuturesOrder('usdt', String(first[0]!.body.id));
assert.equal(cancelled.body.status, 'finished');
await clock.advance(1_005);
await Promise.all(placing);

const stats = exchange.stats().accounts.find((a) => a.account === 'main')!;
assert.equal(stats.limits.find((l) => l.key === 'futures.place')?.accepted, 150);
assert.deepEqual(stats.refused, {});
assert.equal(limiter.limitNow('main').source, 'exchange');

// The fills getMyTrades reads feed the trade ratio (R1), once per trade id.
const trades = await futures.getMyTrades('usdt', { contract: 'BTC_USDT' });

detach();
limiter.close();
await exchange.close();
console.log(
  `gate-api: 150 placements and a cancel through FuturesApi, none refused; ${trades.body.length} fills, ${limiter.abuseHeadroom('main').traded} USDT counted`,
);
