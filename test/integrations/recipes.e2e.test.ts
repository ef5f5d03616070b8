// Each recipe of docs/integrations.md as an engine would run it, against the model exchange: the
// limiter and the one line in front of the client, nothing added (no seed, no report call). On a
// tier-5 account it learns the tier from the exchange and no placement is refused; on a tier-1
// account the limiter was seeded to think tier 4, the exchange's figure wins before the first
// placement goes; fills the client fetches once are counted exactly. The placements per second
// reached are printed here and measured side by side by `npm run bench:recipes`.
import { describe, expect, it } from 'vitest';
import { startModelExchange } from '../../src/model-exchange/index.js';
import { OKX_RECIPES, okxEngineOf, saturateOkx } from './okx-recipes.js';
import { RECIPES, engineOf, runRecipe } from './recipes.js';

describe.each(RECIPES)('the %s recipe against the model exchange', (recipe) => {
  it("on a tier-5 account, with no seed and no report call: no answer 429, the limit the exchange's", async () => {
    const run = await runRecipe(recipe, { exchangeMakerVolume: '1000000', limit: 300, runMs: 4_000 });
    console.log(
      `${recipe}, tier 5: ${run.tooMany} x 429; placements per second ${run.perSecond.join(', ')}; ${(run.utilization * 100).toFixed(1)}% of 300 from the second second on`,
    );
    expect(run.tooMany).toBe(0);
    // The exchange's figure was in force; how many placements a loaded machine sends is printed above.
    expect(run.status).toEqual({ limit: 300, source: 'exchange' });
  }, 60_000);

  it('on a tier-1 account the limiter was seeded to think tier 4: no answer 429', async () => {
    const run = await runRecipe(recipe, {
      exchangeMakerVolume: '0',
      limiterMakerVolume: '900000',
      limit: 100,
      runMs: 3_000,
    });
    console.log(
      `${recipe}, tier 1 (the limiter's history says 4): ${run.tooMany} x 429; placements per second ${run.perSecond.join(', ')}`,
    );
    expect(run.tooMany).toBe(0);
    expect(run.status).toEqual({ limit: 100, source: 'exchange' });
  }, 60_000);

  it('counts the maker and taker volume of the fills its client fetches once, exactly', async () => {
    const ex = await startModelExchange({ port: 0, fills: { seed: 3, maker: 0.4, taker: 0.4 } });
    const engine = await engineOf(recipe, ex);
    try {
      for (let i = 0; i < 20; i++) await engine.place();
      await engine.myTrades();
      // What the exchange reports, summed here: |size| x 0.0001 x price per fill, by role.
      const rows = (await (
        await fetch(`${ex.url}/api/v4/futures/usdt/my_trades?contract=BTC_USDT`, { headers: { KEY: 'main-key' } })
      ).json()) as { size: number; price: string; role: string }[];
      const sum = (role: string) =>
        rows.filter((r) => r.role === role).reduce((n, r) => n + Math.abs(r.size) * Number(r.price), 0) / 10_000;
      expect(rows.length).toBeGreaterThan(0);
      const counted = engine.limiter
        .snapshot()
        .tracker.days.flatMap((d) => d.contracts)
        .find((c) => c.contract === 'BTC_USDT')!;
      expect({ maker: counted.makerVolume, taker: counted.takerVolume }).toEqual({
        maker: String(sum('maker')),
        taker: String(sum('taker')),
      });
    } finally {
      await engine.close();
      await ex.close();
    }
  }, 60_000);
});

describe.each(OKX_RECIPES)('the %s recipe against the model exchange on OKX', (recipe) => {
  it("holds the sub-account's 1,000 orders per 2 s and each instrument's limits in real time: no answer 50011 or 50061", async () => {
    const ex = await startModelExchange({
      exchange: 'okx',
      port: 0,
      verifySignatures: true,
      fills: { maker: 0, taker: 0 },
    });
    const engine = await okxEngineOf(recipe, ex);
    try {
      const run = await saturateOkx(engine, ex, 3_000);
      console.log(
        `${recipe}: orders by code ${JSON.stringify(run.codes)}; the most on the sub-account's limit in 2 s: ${run.mostSubAccount} of 1000`,
      );
      expect(ex.stats().accounts[0]!.refused).toEqual({});
      expect(run.mostSubAccount).toBeLessThanOrEqual(1000);
      expect(run.cancels).toBeGreaterThan(0);
      expect(engine.limiter.limitNow('main').source).toBe('exchange');
    } finally {
      engine.close();
      await ex.close();
    }
  }, 60_000);
});
