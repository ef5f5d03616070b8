// An engine that is not Node, through the proxy: the Python engine of examples/proxy (standard
// library only, signing as section 5 says) with 32 threads placing and cancelling for 10 s on a
// tier-4 account (250 placements a second) of the model exchange, which verifies every signature;
// then the same engine straight at the model, beside it. The share of the limit used is measured
// by `npm run bench:proxy`, not asserted here: it depends on the machine.
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/index.js';
import { type RunningProxy, startProxy } from '../../src/proxy/server.js';
import { ACCOUNTS, type EngineRun, TIER4_HISTORY, runEngine } from './helpers.js';

const SECONDS = 10;
let exchange: RunningModelExchange | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await exchange?.close();
  proxy = exchange = undefined;
});

const model = () =>
  startModelExchange({
    port: 0,
    accounts: ACCOUNTS,
    history: TIER4_HISTORY,
    verifySignatures: true,
    fills: { maker: 0, taker: 0 },
  });

function describeRun(name: string, run: EngineRun, ex: RunningModelExchange): string {
  const place = ex.stats().accounts[0]!.limits.find((l) => l.key === 'futures.place')!;
  return `${name}: ${run.statuses['429'] ?? 0} x 429, ${place.accepted} placements accepted (${((place.accepted / (250 * SECONDS)) * 100).toFixed(1)}% of 250/s, at most ${place.most} in a window), ${run.cancels} cancels; answers ${JSON.stringify(run.statuses)}`;
}

describe('a Python engine through traderatio proxy', () => {
  it('gets no 429 on a tier-4 account; straight at the model beside it', async () => {
    exchange = await model();
    proxy = await startProxy({ upstream: exchange.url, accounts: ACCOUNTS, history: TIER4_HISTORY });
    expect(proxy.limiters.get('desk')!.limitNow('main').limit).toBe(250);
    const through = await runEngine(proxy.url, SECONDS);
    const throughLine = describeRun('through the proxy', through, exchange);
    const refused = exchange.stats().accounts[0]!.refused;
    await proxy.close();
    await exchange.close();
    proxy = undefined;

    exchange = await model();
    const straight = await runEngine(exchange.url, SECONDS);
    console.log(throughLine);
    console.log(describeRun('straight at the model', straight, exchange));
    expect(through.statuses['429'] ?? 0).toBe(0);
    expect(refused).toEqual({});
    // Signed as the description says: the model verified every signature and refused none.
    expect(Object.keys(through.statuses)).toEqual(['200']);
  }, 120_000);
});
