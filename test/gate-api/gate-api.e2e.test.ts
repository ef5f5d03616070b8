// One engine saturates futures placement through the SDK's FuturesApi, with cancels mixed in,
// against the model exchange: through limitApiClient, and bare beside it. Then the placement limit
// changes during a run, raised at 08:00 and throttled for abuse at a whole hour.
// What depends on the machine's speed (answers 429 when a busy machine delays requests by more
// than any margin, the share of the limit used, the cancels' wait) is printed, not asserted;
// test/fetch/controlled-delay.test.ts asserts it where the delay is under the test's control.
import { FuturesApi } from 'gate-api';
import { afterEach, describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { isTraderatioError } from '../../src/errors.js';
import { startModelExchange, type RunningModelExchange } from '../../src/model-exchange/index.js';
import { limitApiClient } from '../../src/gate-api/index.js';
import type { Clock } from '../../src/schedule/clock.js';
import { sdkClient } from './helpers.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const order = { contract: 'BTC_USDT', size: '1', price: '60000' };

/** The machine's clock moved so that it reads `hour` (UTC, fractional) of today now. */
function clockAt(hour: number): Clock {
  const offset = Math.floor(Date.now() / DAY) * DAY + hour * HOUR - Date.now();
  return {
    now: () => performance.now(),
    wall: () => Date.now() + offset,
    setTimer: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
    clearTimer: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
  };
}

/** Ratio 9 yesterday (tier 4, 250 per second, from 08:00 today), and `hours` of the abuse window. */
function historyOf(clock: Clock, hours: { account: string; hour: string; requests: number; traded: string }[] = []) {
  const yesterday = new Date(clock.wall() - DAY).toISOString().slice(0, 10);
  return {
    activity: [
      { account: 'main', day: yesterday, contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }] },
    ],
    hours,
  };
}

let exchange: RunningModelExchange | undefined;
afterEach(async () => exchange?.close());

interface Run {
  readonly tooMany: number;
  /** Placements the model accepted, in the run and in its last second. */
  readonly accepted: number;
  readonly waits: readonly number[];
  readonly stats: ReturnType<RunningModelExchange['stats']>['accounts'][number];
}

/**
 * 32 workers placing and a canceller every 10 ms through one ApiClient, for `ms`; with a limiter,
 * through it. The cancel wait is from the call to the moment axios took the request.
 */
async function run(
  clock: Clock,
  history: ReturnType<typeof historyOf>,
  ms: number,
  limiter?: AccountLimiter,
): Promise<Run> {
  exchange = await startModelExchange({ port: 0, clock, history, fills: { maker: 0, taker: 0 } });
  const { client, sent } = sdkClient(exchange, clock);
  const limited = limiter === undefined ? undefined : limitApiClient(limiter, { account: 'main', client });
  const futures = new FuturesApi(client);
  const end = performance.now() + ms;
  let tooMany = 0;
  let lastId = '1';
  const waits: number[] = [];
  const refused = (e: unknown) => {
    if ((e as { response?: { status?: number } }).response?.status === 429) tooMany++;
    else if (!isTraderatioError(e) && (e as { response?: unknown }).response === undefined) throw e;
  };
  const worker = async () => {
    while (performance.now() < end) {
      await futures.createFuturesOrder('usdt', order).then((r) => (lastId = String(r.body.id)), refused);
    }
  };
  const canceller = async () => {
    while (performance.now() < end) {
      await new Promise((r) => setTimeout(r, 10));
      const asked = clock.now();
      const from = sent.length;
      await futures.cancelFuturesOrder('usdt', lastId).catch(refused);
      const out = sent.slice(from).find((s) => s.method === 'DELETE');
      if (out !== undefined) waits.push(out.at - asked);
    }
  };
  // Placements still waiting at the end (a throttle) are refused unsent when the limiter closes.
  const stop = setTimeout(() => limiter?.close(), ms + 50);
  await Promise.all([...Array.from({ length: 32 }, worker), canceller()]);
  clearTimeout(stop);
  limited?.detach();
  const stats = exchange.stats().accounts.find((a) => a.account === 'main')!;
  if (process.env.E2E_VERBOSE === '1') console.log(JSON.stringify(stats.limits.filter((l) => l.accepted > 0)));
  await exchange.close();
  exchange = undefined;
  return {
    tooMany,
    accepted: stats.limits.find((l) => l.key === 'futures.place')!.accepted,
    waits: [...waits].sort((a, b) => a - b),
    stats,
  };
}

const placeOf = (r: Run) => r.stats.limits.find((l) => l.key === 'futures.place')!;
const p99 = (sorted: readonly number[]) => sorted[Math.floor(sorted.length * 0.99)] ?? 0;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

describe('limitApiClient against the model exchange', () => {
  it("keeps the model's window within the tier-4 placement limit through FuturesApi; the bare SDK beside it", async () => {
    const RUN_MS = 5_000;
    const LIMIT = 250;
    const clock = clockAt(9);
    const history = historyOf(clock);
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    limiter.seed({ days: history.activity });
    expect(limiter.limitNow('main').limit).toBe(LIMIT);
    const through = await run(clock, history, RUN_MS, limiter);
    limiter.close();
    const bare = await run(clock, history, RUN_MS);
    // The first window may take a whole second's worth at once.
    const capacity = LIMIT * (RUN_MS / 1000) + LIMIT;
    const used = { through: through.accepted / capacity, bare: bare.accepted / capacity };
    console.log(
      `gate-api through traderatio: ${through.tooMany} x 429, ${through.accepted} placements accepted (${pct(used.through)} of ${LIMIT}/s over ${RUN_MS} ms and the first window), p99 cancel wait ${p99(through.waits).toFixed(2)} ms over ${through.waits.length} cancels`,
    );
    console.log(
      `gate-api bare: ${bare.tooMany} x 429, ${bare.accepted} placements accepted (${pct(used.bare)}), p99 cancel wait ${p99(bare.waits).toFixed(2)} ms over ${bare.waits.length} cancels`,
    );
    expect(through.stats.limit).toBe(LIMIT);
    expect(placeOf(through).most).toBeLessThanOrEqual(LIMIT);
    expect(through.accepted).toBeGreaterThan(0);
    expect(placeOf(bare).most).toBeLessThanOrEqual(LIMIT);
  }, 90_000);

  it('follows the 08:00 raise from 100 to 250 per second', async () => {
    const clock = clockAt(8 - 4 / 3600);
    const history = historyOf(clock);
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    limiter.seed({ days: history.activity });
    expect(limiter.limitNow('main').limit).toBe(100);
    const through = await run(clock, history, 8_000, limiter);
    const after = limiter.limitNow('main').limit;
    limiter.close();
    console.log(
      `gate-api 08:00 raise: ${through.tooMany} x 429, ${through.accepted} placements accepted (at most ${4 * 100 + 100 + 4 * 250} by the two limits)`,
    );
    expect(through.stats.limit).toBe(250);
    expect(after).toBe(250);
    expect(placeOf(through).most).toBeLessThanOrEqual(250);
  }, 60_000);

  it('follows an abuse throttle that starts at a whole hour (10 per 10 s)', async () => {
    // 08:59:48: the limiter throttles from 08:59:50, one window before 09:00 (see docs/rules.md#r15).
    const clock = clockAt(9 - 12 / 3600);
    // This hour so far: more than 86,400 order requests and nothing traded, checked at 09:00.
    const thisHour = new Date(Math.floor(clock.wall() / HOUR) * HOUR).toISOString();
    const history = historyOf(clock, [{ account: 'main', hour: thisHour, requests: 90_000, traded: '0' }]);
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    limiter.seed({ days: history.activity, hours: history.hours.map((h) => ({ ...h, hour: Date.parse(h.hour) })) });
    expect(limiter.limitNow('main').throttle).toBeNull();
    const through = await run(clock, history, 16_000, limiter);
    console.log(
      `gate-api abuse throttle: ${through.tooMany} x 429, ${through.accepted} placements accepted, throttle ${JSON.stringify(through.stats.throttle)}`,
    );
    expect(through.stats.throttle).toMatchObject({ limit: 10 });
    expect(limiter.limitNow('main').throttle).toMatchObject({ limit: 10 });
    limiter.close();
  }, 60_000);
});
