// limitedFetch in front of Node's fetch against the model exchange: one engine saturating futures
// placement on a tier-4 account (250 per second) with cancels mixed in, Node's fetch bare beside
// it; then an 08:00 raise and an abuse throttle during a run. What depends on the machine's speed
// (answers 429 when a busy machine delays requests by more than any margin, the share of the limit
// used, the cancels' wait) is printed, not asserted; test/fetch/controlled-delay.test.ts asserts
// no 429 and full use where the delay is under the test's control.
import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { limitedFetch, type FetchFunction } from '../../src/fetch/index.js';
import type { Clock } from '../../src/schedule/clock.js';
import {
  DAY,
  HOUR,
  SECOND,
  type Engine,
  clockAt,
  closeAfterEach,
  day,
  describeRun,
  model,
  saturate,
} from '../e2e/harness.js';

const RUN_MS = 5_000;
const live = closeAfterEach();

/** Node's fetch, noting when each cancel went out. */
function transport() {
  let cancelSent = 0;
  const send: FetchFunction = (input, init) => {
    if (init?.method === 'DELETE') cancelSent = performance.now();
    return globalThis.fetch(input, init);
  };
  return { send, sentCancel: () => cancelSent };
}

/** Placements of one BTC_USDT contract and cancels by id, through `fetch`. */
function engine(fetch: FetchFunction, url: string): Engine {
  const headers = { KEY: 'main-key', 'Content-Type': 'application/json' };
  const body = JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' });
  return {
    async place(signal) {
      const res = await fetch(`${url}/api/v4/futures/usdt/orders`, { method: 'POST', headers, body, signal });
      const answer = (await res.json()) as { id?: number };
      return { status: res.status, ...(res.ok && answer.id !== undefined ? { id: answer.id } : {}) };
    },
    async cancel(id, signal) {
      const res = await fetch(`${url}/api/v4/futures/usdt/orders/${id}`, {
        method: 'DELETE',
        headers,
        signal,
        contract: 'BTC_USDT',
      } as RequestInit);
      await res.arrayBuffer();
      return { status: res.status };
    },
  };
}

/** A limiter on `clock` seeded with the model's history (days before today, hours of today). */
function limiterFor(
  clock: Clock & { today: number },
  history: {
    activity: ReturnType<typeof day>[];
    hours?: { account: string; hour: number; requests: number; traded?: string }[];
  },
) {
  const l = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
  l.seed({
    days: history.activity.map((d) => ({ ...d, day: new Date(clock.today + d.day * DAY).toISOString().slice(0, 10) })),
    hours: (history.hours ?? []).map((h) => ({ ...h, hour: Math.floor(clock.wall() / HOUR) * HOUR + h.hour * HOUR })),
  });
  return l;
}

describe('limitedFetch against the model exchange', () => {
  it("keeps the model's window within the tier-4 placement limit; bare fetch beside it", async () => {
    // 09:00 UTC: yesterday's ratio of 9 is in force since 08:00 (tier 4, 250 per second).
    const clock = clockAt(9 * HOUR);
    const history = { activity: [day(1, '900000', 100_000)] };
    live.limiter = limiterFor(clock, history);
    expect(live.limiter.limitNow('main').limit).toBe(250);
    live.exchange = await model(clock, history);
    const t = transport();
    const through = await saturate(
      engine(limitedFetch(live.limiter, { account: 'main', fetch: t.send }), live.exchange.url),
      live.exchange,
      { runMs: RUN_MS, limit: 250, sentCancel: t.sentCancel },
    );
    live.limiter.close();
    await live.exchange.close();

    live.exchange = await model(clock, history);
    const b = transport();
    const bare = await saturate(engine(b.send, live.exchange.url), live.exchange, {
      runMs: RUN_MS,
      limit: 250,
      sentCancel: b.sentCancel,
    });
    console.log(describeRun('through traderatio', through));
    console.log(describeRun('bare fetch', bare));
    expect(through.most).toBeLessThanOrEqual(250);
    expect(through.accepted).toBeGreaterThan(0);
    expect(bare.most).toBeLessThanOrEqual(250);
  }, 60_000);

  it('follows an 08:00 raise', async () => {
    // 07:59:57: tier 4 in force; today's snapshot (ratio 15 over the two days) raises it to 300 at 08:00.
    const clock = clockAt(8 * HOUR - 3 * SECOND);
    const history = { activity: [day(2, '900000', 100_000), day(1, '2100000', 100_000)] };
    live.limiter = limiterFor(clock, history);
    expect(live.limiter.limitNow('main').limit).toBe(250);
    live.exchange = await model(clock, history);
    const t = transport();
    const run = await saturate(
      engine(limitedFetch(live.limiter, { account: 'main', fetch: t.send }), live.exchange.url),
      live.exchange,
      { runMs: 6 * SECOND, limit: 250, sentCancel: t.sentCancel },
    );
    console.log(describeRun('08:00 raise', run));
    expect(live.limiter.limitNow('main').limit).toBe(300);
    expect(live.exchange.stats().accounts.find((a) => a.account === 'main')!.limit).toBe(300);
    expect(run.most).toBeLessThanOrEqual(300);
  }, 60_000);

  it('follows an abuse throttle at 09:00', async () => {
    // 08:59:49, 86,400 requests already this hour and nothing traded: the run's own requests make
    // it more than 86,400, and the check at 09:00 limits placement to 10 per 10 s (the limiter from
    // 08:59:50, one window before it: see docs/rules.md#r15).
    const clock = clockAt(9 * HOUR - 11 * SECOND);
    const history = {
      activity: [day(1, '900000', 100_000)],
      hours: [{ account: 'main', hour: 0, requests: 86_400, traded: '0' }],
    };
    live.limiter = limiterFor(clock, history);
    expect(live.limiter.limitNow('main').throttle).toBeNull();
    live.exchange = await model(clock, history);
    const t = transport();
    const run = await saturate(
      engine(limitedFetch(live.limiter, { account: 'main', fetch: t.send }), live.exchange.url),
      live.exchange,
      { runMs: 14 * SECOND, limit: 250, sentCancel: t.sentCancel },
    );
    console.log(describeRun('abuse throttle at 09:00', run));
    expect(live.limiter.limitNow('main').throttle).toMatchObject({ limit: 10 });
    const throttle = live.exchange
      .stats()
      .accounts.find((a) => a.account === 'main')!
      .limits.find((l) => l.key === 'abuse-throttle')!;
    console.log(`abuse throttle at 09:00: ${throttle.refused} refused by the throttle`);
    expect(throttle.limit).toBe(10);
  }, 60_000);
});
