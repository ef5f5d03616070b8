// The arrival window (see docs/rules.md#r13):across processes: whatever the network does, never more than N arrivals at the exchange in
// any W, with several processes sharing one account through Redis. Each grant counts until one
// window after the latest instant its permits can have reached the exchange (their answers), and
// on while one is not answered. Simulated on a virtual clock (Redis runs its scripts at the
// clock's instants), the network as in test/account/arrivals.prop.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { RedisStore } from '../../src/redis/store.js';
import { type Network, network } from '../arbitraries.js';
import { mostInAnyWindow, quicker, saturate } from '../account/simulated-network.js';
import { redisForFile } from './file-prefixes.js';
import { settleOn, VirtualRedis } from './virtual.js';

const { client, prefixFor } = redisForFile();
const N = 10;
const W = 1000;

/** The most arrivals in any W when `processes` limiters on one Redis prefix send for `runMs` over `net`. */
async function mostArrivals(net: Network, arrivals: 'answers' | 'estimate', processes: number, runMs = 3000) {
  const prefix = prefixFor('arrivals');
  const v = new VirtualRedis(client, 1_000_000, Date.parse('2026-11-02T09:20:00Z'));
  await v.warm(prefix);
  const stores = Array.from({ length: processes }, () => new RedisStore(v.options(prefix)));
  const limiters = stores.map(
    (store) => new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock: v.clock, store, arrivals }),
  );
  const start = v.clock.now();
  const { seen, done } = saturate(limiters, v.clock, net, 2, start + runMs);
  await settleOn(v, [done], 120_000);
  for (const l of limiters) l.close();
  await Promise.all(stores.map((s) => s.close()));
  return { most: mostInAnyWindow(seen.arrivals, W), sent: seen.arrivals.length };
}

const faster = quicker(N);

describe('arrivals bounded by answers, processes sharing one account through Redis', () => {
  it('never has more than N arrive in any W, whatever the way there does', async () => {
    await fc.assert(
      fc.asyncProperty(network, fc.integer({ min: 2, max: 3 }), async (net, processes) => {
        const { most, sent } = await mostArrivals(net, 'answers', processes);
        expect(sent).toBeGreaterThan(0);
        expect(most).toBeLessThanOrEqual(N);
      }),
      { numRuns: 12, examples: [[faster, 3]] },
    );
  }, 300_000);

  it('sends N again once the answers of the last N are a window old: it does not stall', async () => {
    const { most, sent } = await mostArrivals(faster, 'answers', 3, 3000);
    expect(most).toBe(N);
    expect(sent).toBeGreaterThanOrEqual(3 * N);
  }, 120_000);

  it('with the arrival estimate, puts more than N in one W when the way there gets quicker than any seen', async () => {
    expect((await mostArrivals(faster, 'estimate', 3)).most).toBeGreaterThan(N);
  }, 120_000);
});
