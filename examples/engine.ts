/**
 * A trading engine embedding traderatio's account limiter, on a virtual clock so that a simulated
 * day and a half runs in a moment. The "exchange" here is a stub that answers at once.
 * Run: npm run example:engine
 */
import assert from 'node:assert/strict';
import { AccountLimiter, type LimiterSnapshot } from 'traderatio';
import { VirtualClock } from 'traderatio/testing';

const clock = new VirtualClock({ wallStart: Date.parse('2026-11-20T09:00:00Z') });
const limiter = new AccountLimiter({
  accounts: [{ id: 'main', role: 'main' }, { id: 'mm-bot' }],
  vipLevel: 14,
  clock,
});
limiter.on((event) => {
  if (event.type === 'limit') {
    console.log(
      `${new Date(event.at).toISOString()}  ${event.account}: ${event.from} -> ${event.to} r/s (${event.reason})`,
    );
  } else if (event.type === 'abuse-warning') {
    console.log(
      `${new Date(event.at).toISOString()}  ${event.account}: ${event.requests} requests in 24 h, the throttle trips past ${event.threshold}`,
    );
  }
});

// The last week, as fetched from the exchange, so the limiter starts with the right ratio.
limiter.seed({
  days: Array.from({ length: 7 }, (_, i) => ({
    account: 'main',
    day: Date.parse('2026-11-13T00:00:00Z') + i * 86_400_000,
    contracts: [{ contract: 'BTC_USDT', makerVolume: '450000', takerVolume: '120000', place: 40_000, cancel: 20_000 }],
  })),
});
console.log(
  `start: main at ${limiter.limitNow('main').limit} r/s, next 08:00 ${limiter.limitAtNext0800('main').limit} r/s`,
);

// A stub of the exchange's REST API.
let nextId = 1;
const exchange = {
  placeOrder: async (order: { contract: string; size: number }) => ({ id: nextId++, ...order }),
  cancelOrder: async (id: number) => ({ id, status: 'cancelled' }),
};

// Every request goes through the limiter: placements on the tier and the throttle, cancels on
// their own limit with a higher priority, and every fill is reported.
async function quoteOnce(account: string): Promise<void> {
  const body = { contract: 'BTC_USDT', size: 1 };
  const order = await limiter.request(account, 'POST', '/api/v4/futures/usdt/orders', () => exchange.placeOrder(body), {
    body,
  });
  if (order.id % 3 === 0) {
    limiter.recordFill(account, { contract: 'BTC_USDT', role: 'maker', volume: '2500' });
  } else {
    await limiter.request(
      account,
      'DELETE',
      `/api/v4/futures/usdt/orders/${order.id}`,
      () => exchange.cancelOrder(order.id),
      { contract: 'BTC_USDT' },
    );
  }
}

// Thirty hours of quoting: 60 orders a minute on each account.
let saved: LimiterSnapshot | undefined;
for (let minute = 0; minute < 30 * 60; minute++) {
  const work = [];
  for (let i = 0; i < 60; i++) work.push(quoteOnce('main'), quoteOnce('mm-bot'));
  await clock.advance(60_000);
  await Promise.all(work);
  if (minute === 12 * 60) saved = JSON.parse(JSON.stringify(limiter.snapshot())) as LimiterSnapshot;
}

const what = limiter.whatIf('main');
console.log(
  `now: main at ${limiter.limitNow('main').limit} r/s; ${
    what.up === null
      ? 'the top tier already'
      : `next tier with ${what.up.makerVolume.toFixed(2)} USDT more maker volume or ${what.up.fewerRequests} fewer requests`
  }`,
);
const headroom = limiter.abuseHeadroom('main');
console.log(
  `abuse rule: ${headroom.requests} requests and ${headroom.traded} USDT traded in 24 h; ${headroom.remaining === Infinity ? 'the fill rate keeps the throttle off' : `${headroom.remaining} more requests before the throttle`}`,
);

// A restart carries on with the same counts.
const restarted = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }, { id: 'mm-bot' }], clock });
restarted.restore(limiter.snapshot());
assert.deepEqual(restarted.abuseHeadroom('main'), limiter.abuseHeadroom('main'));
assert.ok(saved !== undefined && saved.version === 1);
console.log('restored from a snapshot: same counts');
limiter.close();
restarted.close();
