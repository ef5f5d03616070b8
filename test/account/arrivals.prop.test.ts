// The arrival window (see docs/rules.md#r13): whatever the network does, never more than N arrivals at the exchange in any W. A request
// reaches the exchange between its send and its answer, and nothing else is known: the limiter
// counts each from its send until one window after its answer. Simulated on a virtual clock:
// each request's way there drawn anew, sudden drops and rises, overtaking, answers delayed on
// their way back independently. The arrival estimate (the option) is shown to fail.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { type Network, network } from '../arbitraries.js';
import { mostInAnyWindow, quicker, saturate } from './simulated-network.js';

const WALL = Date.parse('2026-11-02T09:20:00Z');
const N = 10;
const W = 1000;

/** The most arrivals in any W when `workers` loops send spot placements for `runMs` over `net`. */
async function mostArrivals(net: Network, arrivals: 'answers' | 'estimate', workers = 4, runMs = 4000) {
  const clock = new VirtualClock({ start: 0, wallStart: WALL });
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, arrivals });
  const { seen, done } = saturate([limiter], clock, net, workers, runMs);
  await clock.advanceTo(runMs + 2000);
  await done;
  limiter.close();
  return { most: mostInAnyWindow(seen.arrivals, W), sent: seen.arrivals.length };
}

// A way there 100 ms long for a window's worth of requests, then none at all (see `quicker`).
const faster = quicker(N);

describe('arrivals bounded by answers, one process with the memory store', () => {
  it('never has more than N arrive in any W, whatever the way there does', async () => {
    await fc.assert(
      fc.asyncProperty(network, fc.integer({ min: 1, max: 6 }), async (net, workers) => {
        const { most, sent } = await mostArrivals(net, 'answers', workers);
        expect(sent).toBeGreaterThan(0);
        expect(most).toBeLessThanOrEqual(N);
      }),
      { numRuns: 60, examples: [[faster, 4]] },
    );
  });

  it('sends N again once the answers of the last N are a window old: it does not stall', async () => {
    const { most, sent } = await mostArrivals(faster, 'answers', 4, 4000);
    expect(most).toBe(N);
    // 4 s: the first window's answers at 101.5, the next sends a window after, and so on.
    expect(sent).toBeGreaterThanOrEqual(4 * N);
  });

  it('with the arrival estimate, puts more than N in one W when the way there gets quicker than any seen', async () => {
    expect((await mostArrivals(faster, 'estimate')).most).toBeGreaterThan(N);
    // And random networks find such a case too.
    const found = await fc.check(
      fc.asyncProperty(network, async (net) => (await mostArrivals(net, 'estimate')).most <= N),
      { numRuns: 100, seed: 37 },
    );
    expect(found.failed).toBe(true);
  });
});
