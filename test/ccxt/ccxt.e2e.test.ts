// One engine saturates futures placement on a tier-4 account (250 per second) with cancels mixed
// in, through ccxt's gate against the model exchange: limited by traderatio, and with ccxt's own
// throttle beside it; then across an 08:00 raise and across an abuse throttle at 09:00. What
// depends on the machine's speed (answers 429, the share of the limit used, the cancels' wait) is
// printed, not asserted; test/fetch/controlled-delay.test.ts asserts it where the delay is controlled.
import ccxt from 'ccxt';
import { describe, expect, it } from 'vitest';
import { AccountLimiter, type AccountLimiterOptions } from '../../src/account/limiter.js';
import { limitCcxt } from '../../src/ccxt/index.js';
import { isRefusedError } from '../../src/errors.js';
import { startModelExchange } from '../../src/model-exchange/index.js';
import type { Clock } from '../../src/schedule/clock.js';
import { closeAfterEach } from '../e2e/harness.js';
import { gateAt } from './helpers.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const BTC = 'BTC/USDT:USDT';

/** The machine's clock moved so that it reads `hour` UTC today plus `ms` now. */
function clockAt(hour: number, ms = 0): Clock {
  const offset = Math.floor(Date.now() / DAY) * DAY + hour * HOUR + ms - Date.now();
  return {
    now: () => performance.now(),
    wall: () => Date.now() + offset,
    setTimer: (fn, delay) => setTimeout(fn, Math.max(0, delay)),
    clearTimer: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
  };
}

const dayOf = (clock: Clock, days: number) => new Date(clock.wall() + days * DAY).toISOString().slice(0, 10);
// Ratio 9: tier 4 (250 per second). Nothing traded: ratio 0, tier 1 (100 per second).
const tier4 = { contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 };
const tier1 = { contract: 'BTC_USDT', makerVolume: '0', place: 100_000 };
// After a day of tier1: 1,800,000 over the two days' 200,000 requests, ratio 9 again.
const tier4After1 = { contract: 'BTC_USDT', makerVolume: '1800000', place: 100_000 };

const live = closeAfterEach();

interface Outcome {
  /** Answers 429 (ccxt's RateLimitExceeded) to placements and cancels. */
  readonly tooMany: number;
  /** Other refusals: a cancel of an order already finished. */
  readonly refused: number;
  /** Placements the model accepted, and the most it counted in any window. */
  readonly accepted: number;
  readonly most: number;
  /** p99 of the time from asking for a cancel to ccxt handing it to its HTTP layer, ms. */
  readonly p99CancelWait: number;
  readonly cancels: number;
}

/**
 * 32 workers place for `ms` while a canceller cancels the latest order every 10 ms, all through
 * one ccxt instance; what the engine and the model saw. `giveUp`, called at the end, refuses the
 * requests still waiting for the limiter (behind a throttle of 10 per 10 s they would take minutes).
 */
async function saturate(gate: InstanceType<typeof ccxt.gate>, ms: number, giveUp?: () => void): Promise<Outcome> {
  const deleteSent: number[] = [];
  const send = gate.fetch;
  gate.fetch = function (url: string, method = 'GET', headers?: Record<string, string>, body?: unknown) {
    if (method === 'DELETE') deleteSent.push(performance.now());
    return send.call(this, url, method, headers, body);
  };
  await gate.loadMarkets();
  const end = performance.now() + ms;
  const stop = giveUp === undefined ? undefined : setTimeout(giveUp, ms);
  let tooMany = 0;
  let refused = 0;
  let lastId: string | undefined;
  const cancelWaits: number[] = [];
  const counted = (e: unknown) => {
    if (e instanceof ccxt.RateLimitExceeded) tooMany++;
    else if (e instanceof ccxt.ExchangeError) refused++;
    else if (!(isRefusedError(e) && e.reason === 'closed')) throw e;
  };
  const worker = async () => {
    while (performance.now() < end) {
      try {
        lastId = (await gate.createOrder(BTC, 'limit', 'buy', 1, 60000)).id;
      } catch (e) {
        counted(e);
      }
    }
  };
  const canceller = async () => {
    while (performance.now() < end) {
      await new Promise((r) => setTimeout(r, 10));
      if (lastId === undefined) continue;
      const asked = performance.now();
      const before = deleteSent.length;
      try {
        await gate.cancelOrder(lastId, BTC);
      } catch (e) {
        counted(e);
      }
      if (deleteSent.length > before) cancelWaits.push(deleteSent[before]! - asked);
    }
  };
  await Promise.all([...Array.from({ length: 32 }, worker), canceller()]);
  clearTimeout(stop);
  gate.fetch = send;
  const stats = live.exchange!.stats().accounts.find((a) => a.account === 'main')!;
  cancelWaits.sort((a, b) => a - b);
  const place = stats.limits.find((l) => l.key === 'futures.place')!;
  return {
    tooMany,
    refused,
    accepted: place.accepted,
    most: place.most,
    p99CancelWait: cancelWaits[Math.floor(cancelWaits.length * 0.99)] ?? 0,
    cancels: cancelWaits.length,
  };
}

/** The model and a limited gate instance on `clock`, both seeded with `history`. */
async function limitedGate(
  clock: Clock,
  history: { activity: object[]; hours?: object[] },
  options: Partial<AccountLimiterOptions> = {},
) {
  live.exchange = await startModelExchange({
    port: 0,
    clock,
    history,
    fills: { maker: 0, taker: 0 },
    ...(options.abuse === undefined ? {} : { abuse: options.abuse }),
  });
  live.limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, ...options });
  live.limiter.seed({
    days: history.activity as never,
    ...(history.hours === undefined ? {} : { hours: history.hours as never }),
  });
  const gate = gateAt(live.exchange);
  // Signed on the model's clock, which the test moved.
  gate.nonce = () => Math.floor(clock.wall());
  limitCcxt(live.limiter, gate, { account: 'main' });
  return gate;
}

describe('ccxt gate against the model exchange', () => {
  it("keeps the model's window within the tier-4 placement limit; ccxt's own throttle beside it", async () => {
    const RUN_MS = 5_000;
    const LIMIT = 250;
    // The first window's 250 come on top of RUN_MS at 250 per second.
    const possible = LIMIT * (RUN_MS / 1000) + LIMIT;
    const clock = clockAt(9);
    const history = { activity: [{ account: 'main', day: dayOf(clock, -1), contracts: [tier4] }] };
    const gate = await limitedGate(clock, history);
    expect(live.limiter!.limitNow('main').limit).toBe(LIMIT);
    const through = await saturate(gate, RUN_MS);
    live.limiter!.close();
    live.limiter = undefined;
    await live.exchange!.close();

    live.exchange = await startModelExchange({ port: 0, clock, history, fills: { maker: 0, taker: 0 } });
    const throttled = gateAt(live.exchange, { enableRateLimit: true });
    throttled.nonce = () => Math.floor(clock.wall());
    const own = await saturate(throttled, RUN_MS);

    const line = (name: string, o: Outcome) =>
      `${name}: ${o.tooMany} x 429, ${o.accepted} placements accepted (${((100 * o.accepted) / possible).toFixed(1)}% of ${LIMIT}/s over ${RUN_MS} ms and the first window), p99 cancel wait ${o.p99CancelWait.toFixed(2)} ms over ${o.cancels} cancels`;
    console.log(line('ccxt through traderatio', through));
    console.log(line('ccxt, enableRateLimit', own));
    expect(through.most).toBeLessThanOrEqual(LIMIT);
    expect(through.accepted).toBeGreaterThan(0);
    expect(own.most).toBeLessThanOrEqual(LIMIT);
  }, 120_000);

  it('follows the 08:00 raise from tier 1 to tier 4', async () => {
    const clock = clockAt(8, -3_000);
    // Yesterday's ratio raises the tier at 08:00; the day before it had none.
    const history = {
      activity: [
        { account: 'main', day: dayOf(clock, -2), contracts: [tier1] },
        { account: 'main', day: dayOf(clock, -1), contracts: [tier4After1] },
      ],
    };
    const gate = await limitedGate(clock, history);
    expect(live.limiter!.limitNow('main').limit).toBe(100);
    const run = await saturate(gate, 6_000);
    const stats = live.exchange!.stats().accounts[0]!;
    console.log(
      `08:00 raise: ${run.tooMany} x 429, ${run.accepted} placements accepted in 3 s at 100/s then 3 s at 250/s`,
    );
    expect(stats.limit).toBe(250);
    expect(live.limiter!.limitNow('main').limit).toBe(250);
    expect(run.most).toBeLessThanOrEqual(250);
  }, 60_000);

  it('follows an abuse throttle at 09:00', async () => {
    // 08:59:49, 86,400 requests already this hour and nothing traded: the run's own requests make
    // it more than 86,400, and the check at 09:00 limits placement to 10 per 10 s (the limiter from
    // 08:59:50, one window before it: see docs/rules.md#r15).
    const clock = clockAt(9, -11_000);
    const history = {
      activity: [{ account: 'main', day: dayOf(clock, -1), contracts: [tier4] }],
      hours: [
        {
          account: 'main',
          hour: new Date(Math.floor(clock.wall() / HOUR) * HOUR).toISOString(),
          requests: 86_400,
          traded: '0',
        },
      ],
    };
    const gate = await limitedGate(clock, history);
    expect(live.limiter!.limitNow('main').throttle).toBeNull();
    const run = await saturate(gate, 14_000, () => live.limiter!.scheduler.close());
    const stats = live.exchange!.stats().accounts[0]!;
    console.log(
      `abuse throttle at 09:00: ${run.tooMany} x 429, ${run.accepted} placements accepted; model refused ${JSON.stringify(stats.refused)}`,
    );
    expect(live.limiter!.limitNow('main').throttle).toMatchObject({ limit: 10 });
    const throttle = stats.limits.find((l) => l.key === 'abuse-throttle')!;
    expect(throttle.limit).toBe(10);
  }, 60_000);
});
