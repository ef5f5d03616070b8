// The ccxt okx recipe of docs/integrations.md as an engine runs it (the limiter and the one line in
// front of the client, nothing added), against the model exchange on OKX with the real ccxt: no
// refusal for the rate at the tier, each swap's limit held, a lowering that lands at 08:00 of T+1
// on the model's clock (the limiter applies it one window, 2 s, before), the exchange's report
// adopted. How much of the tier the engine used is
// printed here and measured beside ccxt's own throttle by `npm run bench:okx`.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { okxHistory, runOkxRecipe } from './okx-recipe.js';

describe('the ccxt okx recipe against the model exchange on OKX', () => {
  it('places at a tier-1 sub-account’s 1,000 per 2 s over 20 swaps for 10 s: no refusal', async () => {
    const run = await runOkxRecipe({ throttle: 'limiter', runMs: 10_000, limit: 1000 });
    console.log(
      `okx recipe, tier 1, 20 swaps: ${run.refused} refused; accepted per second ${run.perSecond.join(', ')}; ${(run.utilization * 100).toFixed(1)}% of 500 from the second second on`,
    );
    expect(run.refused).toBe(0);
    expect(run.refusedByCode).toEqual({});
    expect(run.limitNow).toEqual({ limit: 1000, source: 'exchange' });
  }, 90_000);

  it("holds each swap's 60 places per 2 s when they bind before the tier (5 swaps)", async () => {
    const run = await runOkxRecipe({ throttle: 'limiter', runMs: 5_000, limit: 1000, instruments: 5 });
    console.log(
      `okx recipe, 5 swaps: ${run.refused} refused; accepted per second ${run.perSecond.join(', ')} (5 x 30 fit)`,
    );
    expect(run.refused).toBe(0);
    expect(run.refusedByCode).toEqual({});
  }, 90_000);

  it('lowers one window before 08:00 of T+1 on the model’s clock, from the report it asked once: no refusal', async () => {
    // The model's clock starts 8 s before 08:00 UTC of day D. Its history: ratio 12 at the
    // snapshot of D-2 (2,500 per 2 s), 4 at D-1's and D's (1,750): OKX keeps 2,500 a day more and
    // lowers at D 08:00.
    const d = Date.parse('2026-11-27T00:00:00Z');
    const startAt = d + 8 * 3_600_000 - 8_000;
    const history = okxHistory(
      [
        { before: 3, volume: '12000', requests: 5_000 },
        { before: 2, volume: '0', requests: 10_000 },
      ],
      d,
    );
    // How late this process's timers ran: the lowering's own timer is as late, on a busy machine.
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    // 50 swaps: their 60 per 2 s each (3,000) above both tiers, so that the tier binds.
    const run = await runOkxRecipe({
      throttle: 'limiter',
      runMs: 16_000,
      limit: 2500,
      history,
      startAt,
      instruments: 50,
    });
    loop.disable();
    const timersLateMs = loop.max / 1e6;
    console.log(
      `okx recipe across 08:00: ${run.refused} refused; accepted per second ${run.perSecond.join(', ')}; lowered at ${run.lowered.map((t) => new Date(t).toISOString()).join(', ')}; timers at most ${timersLateMs.toFixed(1)} ms late`,
    );
    expect(run.refused).toBe(0);
    expect(run.refusedByCode).toEqual({});
    expect(run.modelLimit).toBe(1750);
    expect(run.limitNow).toEqual({ limit: 1750, source: 'exchange' });
    // The limiter's lowering, on its estimate of the model's clock: one window (2 s) before 08:00,
    // earlier by that estimate's error (a round trip on this machine), never a whole second more
    // (see docs/rules.md#r15), and later only as its timer ran late (a busy machine). An order
    // sent under 2,500 reaches the model's windows under 1,750 only if it is still unanswered then.
    expect(run.lowered).toHaveLength(1);
    const due = d + 8 * 3_600_000 - 2_000;
    expect(run.lowered[0]!).toBeLessThanOrEqual(due + timersLateMs);
    expect(due - run.lowered[0]!).toBeLessThan(1_000);
  }, 90_000);
});
