// limitedFetch in front of Node's fetch against the model exchange, both on one virtual clock: each
// request takes a delay the test chooses on its way to the exchange, and time stands still while it
// travels over the socket. What arrives when is then the same on any machine, however busy, so the
// guarantee is asserted exactly: with the way there varying by at most the limiter's `marginMs`
// (see docs/rules.md#r13), the exchange refuses nothing the limiter let go, and the limit is used in full.
import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { startModelExchange } from '../../src/model-exchange/index.js';
import { type FetchFunction, limitedFetch } from '../../src/fetch/index.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { closeAfterEach } from '../e2e/harness.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const LIMIT = 250;
const MARGIN_MS = 5;
const WORKERS = 32;

const live = closeAfterEach();

/** Node's fetch, each request sent `delayOf(i)` ms of the virtual clock after the limiter let it go. */
function delayed(clock: VirtualClock, delayOf: (i: number) => number) {
  let sent = 0;
  let travelling = 0;
  const send: FetchFunction = async (input, init) => {
    const delay = delayOf(sent++);
    await new Promise((resolve) => clock.setTimer(() => resolve(undefined), delay));
    travelling++;
    try {
      const res = await globalThis.fetch(input, init);
      // Read here, so that the answer is in before the clock moves on.
      const body = await res.arrayBuffer();
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    } finally {
      travelling--;
    }
  };
  return { send, travelling: () => travelling };
}

/**
 * Moves the clock 1 ms at a time to `until`, each step once every request on its way has been
 * answered and every answer handled: the exchange sees each request at its send instant plus its
 * delay, and nothing else moves time.
 */
async function runTo(clock: VirtualClock, until: number, travelling: () => number): Promise<void> {
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  while (clock.now() < until) {
    // A few turns with nothing on the way: what the answers set off has run too.
    for (let quiet = 0; quiet < 3; quiet = travelling() > 0 ? 0 : quiet + 1) await turn();
    await clock.advance(1);
  }
}

describe('limitedFetch against the model exchange, the way there controlled', () => {
  it(`gets no 429 when the way there varies by up to marginMs (${MARGIN_MS} ms), and uses the whole tier-4 limit`, async () => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    // 09:00 UTC: yesterday's ratio of 9 is in force since 08:00 (tier 4, 250 per second).
    const clock = new VirtualClock({ start: 0, wallStart: today + 9 * HOUR });
    const yesterday = new Date(today - DAY).toISOString().slice(0, 10);
    const activity = [
      { account: 'main', day: yesterday, contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }] },
    ];
    live.exchange = await startModelExchange({ port: 0, clock, history: { activity }, fills: { maker: 0, taker: 0 } });
    live.limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, marginMs: MARGIN_MS });
    live.limiter.seed({ days: activity });
    expect(live.limiter.limitNow('main').limit).toBe(LIMIT);

    // From 1 to 1 + MARGIN_MS ms, slow and quick ones mixed so that a quick one follows a slow one.
    const way = delayed(clock, (i) => 1 + [MARGIN_MS, 0, 3, MARGIN_MS, 1, 0, 4, 2][i % 8]!);
    const fetch = limitedFetch(live.limiter, { account: 'main', fetch: way.send });
    const url = `${live.exchange.url}/api/v4/futures/usdt/orders`;
    const init = {
      method: 'POST',
      headers: { KEY: 'main-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' }),
    };
    const RUN_MS = 3_000;
    const statuses = new Map<number, number>();
    let running = true;
    const worker = async () => {
      while (running) {
        const res = await fetch(url, init).catch(() => null);
        if (res === null) return;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        await res.arrayBuffer();
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);
    await runTo(clock, RUN_MS, way.travelling);
    running = false;
    // The placements still waiting for the limiter are given up.
    live.limiter.close();
    await runTo(clock, RUN_MS + 100, way.travelling);
    await Promise.all(workers);

    const place = live.exchange
      .stats()
      .accounts.find((a) => a.account === 'main')!
      .limits.find((l) => l.key === 'futures.place')!;
    expect(Object.fromEntries(statuses)).toEqual({ 200: place.accepted });
    expect(place.refused).toBe(0);
    expect(place.most).toBe(LIMIT);
    // The first window's burst and then the limit each second, less what the margin holds back.
    expect(place.accepted).toBeGreaterThanOrEqual(LIMIT * (RUN_MS / 1000) * 0.95);
  }, 120_000);
});
