import { afterEach, describe, expect, it } from 'vitest';
import { AccountLimiter, type LimiterEvent } from '../../src/account/limiter.js';
import type { RunningModelExchange } from '../../src/model-exchange/index.js';
import { type LimitedFetch, limitedFetch } from '../../src/fetch/index.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { model } from '../model-exchange/helpers.js';

let exchange: RunningModelExchange | undefined;
afterEach(async () => {
  await exchange?.close();
  exchange = undefined;
});

// Ratio 9 yesterday on the model: tier 4 (250 per second) since 08:00. The limiter has no history: tier 1.
const history = {
  activity: [
    {
      account: 'main',
      day: '2026-11-20',
      contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }],
    },
  ],
};

async function setup(fetchReport?: (account: string) => unknown) {
  const { ex, clock } = await model('2026-11-21T10:00:00Z', { history });
  exchange = ex;
  const polled: string[] = [];
  // The poll goes through the limiter it feeds, as an engine's requests do.
  let send: LimitedFetch | undefined;
  const fromModel = async (account: string) => {
    polled.push(account);
    return (await send!(`${ex.url}/api/v4/account/rate_limit`, { headers: { KEY: 'main-key' } })).json();
  };
  const limiter = new AccountLimiter({
    accounts: [{ id: 'main', role: 'main' }],
    clock,
    reconcile: { everyMs: 60_000, fetch: fetchReport ?? fromModel },
  });
  // The poll is what this file tests: the adapter's own ask as it attaches is left out.
  send = limitedFetch(limiter, { account: 'main', askRateLimit: false });
  const events: LimiterEvent[] = [];
  let told: (() => void) | undefined;
  limiter.on((e) => {
    events.push(e);
    told?.();
  });
  /** Resolves once `n` events have been told. */
  const heard = (n: number) =>
    new Promise<void>((resolve) => {
      told = () => events.length >= n && resolve();
      told();
    });
  return { clock, limiter, polled, events, heard };
}

describe('AccountLimiter reconcile (see docs/rules.md#r16)', () => {
  it("polls GET /account/rate_limit of the model every everyMs and adopts its tier, telling both figures and the report's age", async () => {
    const { clock, limiter, polled, events, heard } = await setup();
    expect(limiter.limitNow('main').limit).toBe(100);
    await clock.advance(59_999);
    expect(polled).toEqual([]);
    await clock.advance(1);
    await heard(2);
    expect(polled).toEqual(['main']);
    expect(events).toMatchObject([
      { type: 'limit', account: 'main', from: 100, to: 250, reason: 'report' },
      {
        type: 'report',
        local: { tier: 1, limit: 100 },
        reported: { tier: 4, limit: 250, ratio: '9', updatedAt: Date.parse('2026-11-21T00:00:00Z') },
        reportAgeMs: 10 * 3_600_000 + 60_000,
        stale: false,
        policy: 'adopt',
        inForce: { tier: 4, limit: 250 },
        source: 'report',
      },
    ]);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 250, reason: 'report' });
    // A minute later it asks again; the same report changes nothing more.
    await clock.advance(60_000);
    await heard(3);
    expect(polled).toEqual(['main', 'main']);
    expect(events.slice(2).map((e) => e.type)).toEqual(['report']);
    limiter.close();
  });

  it('reports a failed poll or a refused answer as an error event, and goes on polling', async () => {
    let calls = 0;
    const { clock, limiter, events, heard } = await setup(() =>
      ++calls === 1 ? Promise.reject(new Error('503')) : { not: 'a report' },
    );
    await clock.advance(60_000);
    await heard(1);
    await clock.advance(60_000);
    await heard(2);
    expect(events.map((e) => e.type === 'error' && [e.source, String(e.error)])).toEqual([
      ['reconcile', 'Error: 503'],
      ['reconcile', expect.stringContaining('InvalidInputError')],
    ]);
    expect(limiter.limitNow('main').limit).toBe(100);
    limiter.close();
  });

  it('refuses a bad reconcile option naming it', () => {
    const clock = new VirtualClock({ wallStart: Date.parse('2026-11-21T10:00:00Z') });
    expect(
      () => new AccountLimiter({ accounts: [{ id: 'main' }], clock, reconcile: { everyMs: 0, fetch: () => [] } }),
    ).toThrow('Expected `reconcile`');
    expect(
      () => new AccountLimiter({ accounts: [{ id: 'main' }], clock, reconcile: { everyMs: 1000 } as never }),
    ).toThrow('Expected `reconcile`');
  });
});
