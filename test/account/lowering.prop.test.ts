// A lowering with requests in flight (see docs/rules.md#r15): OKX's sub-account limit falls from
// 2,500 to 1,750 per 2 s at 08:00 (its report's forecast), while the engine keeps it saturated.
// A request sent just before 08:00 may reach the exchange just after it; the limiter applies the
// lowering one window (2 s) before 08:00, and counts each request from its send until one window
// after its answer. Whatever the way there does, no 2 s window of the exchange that ends at or
// after 08:00 holds more than 1,750 arrivals, unless more than 1,750 requests sent before 07:59:58
// were still unanswered then (counted here, and never the case: a few hundred are in flight).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { type Network, network } from '../arbitraries.js';
import { forwardDelay } from './simulated-network.js';

const T = Date.parse('2026-11-20T08:00:00Z');
const DAY = 86_400_000;
const W = 2000;
const BEFORE = 2500;
const AFTER = 1750;
/** 50 swaps: their 60 per 2 s each (3,000) above both tiers, so that the tier binds. */
const SWAPS = Array.from({ length: 50 }, (_, i) => `S${i}-USDT-SWAP`);
const OK = { code: '0', msg: '', data: [{ ordId: '1', sCode: '0', sMsg: '' }] };

interface Sent {
  readonly sentAt: number;
  readonly arrival: number;
  readonly answeredAt: number;
}

/** `workers` loops place orders one after another from 08:00 less 6 s to 08:00 plus 4 s over `net`. */
async function across(net: Network, workers: number): Promise<Sent[]> {
  const clock = new VirtualClock({ start: 0, wallStart: T - 6000 });
  const limiter = new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main', role: 'main' }], clock });
  const ts = String(T - DAY);
  limiter.reportRateLimit('main', {
    code: '0',
    msg: '',
    data: [{ accRateLimit: String(BEFORE), fillRatio: '12', mainFillRatio: '12', nextAccRateLimit: String(AFTER), ts }],
  });
  expect(limiter.limitNow('main').limit).toBe(BEFORE);
  const sent: Sent[] = [];
  let i = 0;
  let asked = 0;
  const one = (): Promise<void> => {
    const swap = SWAPS[asked++ % SWAPS.length]!;
    return limiter
      .roundTrip('main', {
        method: 'POST',
        path: '/api/v5/trade/order',
        body: { instId: swap, tdMode: 'cross', side: 'buy', ordType: 'limit', sz: '1', px: '1' },
      })
      .run(
        (t) =>
          new Promise<void>((resolve) => {
            const k = i++;
            const forward = forwardDelay(net, k);
            const back = net.back[k % net.back.length]!;
            const sentAt = clock.now();
            sent.push({ sentAt, arrival: sentAt + forward, answeredAt: sentAt + forward + back });
            clock.setTimer(() => {
              t.answered({ status: 200, headers: {}, body: OK });
              resolve();
            }, forward + back);
          }),
      );
  };
  const loops = Array.from({ length: workers }, async () => {
    while (clock.now() < 10_000) await one();
  });
  await clock.advanceTo(12_000);
  await Promise.all(loops);
  expect(limiter.limitNow('main').limit).toBe(AFTER);
  limiter.close();
  return sent;
}

/** The most arrivals in any window (t - W, t] that ends at or after `from` (instants on the clock). */
function mostEndingFrom(arrivals: readonly number[], from: number): number {
  const a = [...arrivals].sort((x, y) => x - y);
  let most = 0;
  let i = 0;
  for (let j = 0; j < a.length; j++) {
    while (a[i]! <= a[j]! - W) i++;
    if (a[j]! >= from) most = Math.max(most, j - i + 1);
  }
  return most;
}

describe('a lowering with requests in flight, OKX at its tier', () => {
  // The virtual clock starts 6 s before 08:00: 08:00 is 6,000 on it.
  const eight = 6000;

  it('puts no more than the new N in a window of the exchange that ends past the lowering', async () => {
    // A slow way there (100 ms) with quick answers, the case where most land after their send.
    const slow: Network = { runs: [{ requests: 1, level: 100, spread: 0 }], draws: [0.5], back: [1], gateway: [0.5] };
    await fc.assert(
      fc.asyncProperty(network, fc.integer({ min: 200, max: 300 }), async (net, workers) => {
        const sent = await across(net, workers);
        // What the one case left would need: more than the new N sent before 07:59:58 and unanswered then.
        const lead = eight - W;
        const unanswered = sent.filter((s) => s.sentAt < lead && s.answeredAt > lead).length;
        expect(unanswered).toBeLessThan(AFTER);
        expect(
          mostEndingFrom(
            sent.map((s) => s.arrival),
            eight,
          ),
        ).toBeLessThanOrEqual(AFTER);
        // The old tier was used before the lowering, and the new one after it: no stall.
        expect(
          mostEndingFrom(
            sent.filter((s) => s.sentAt < lead).map((s) => s.arrival),
            0,
          ),
        ).toBeGreaterThan(AFTER);
        expect(sent.filter((s) => s.sentAt >= eight + W).length).toBeGreaterThan(AFTER / 2);
      }),
      { numRuns: 6, examples: [[slow, 300]] },
    );
  }, 300_000);
});
