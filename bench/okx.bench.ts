/**
 * The ccxt okx recipe of docs/integrations.md against the model exchange on OKX (in a worker
 * thread of its own), side by side with ccxt's own throttle (`enableRateLimit: true`, nothing in
 * front of it), each for `seconds` (default 10): 32 loops placing limit orders over 20 swaps in
 * turn as fast as answers come back and a cancel every 10 ms, on a VIP 5 account at tier 1 (1,000
 * new orders per 2 s); then over 5 swaps only, where each swap's 60 places per 2 s bind first
 * (150 a second in all). Reported per engine: refusals for the rate (50061, 50011), new orders the
 * model accepted per second from the second second on, their share of the tier's rate (500 a
 * second; for 5 swaps, of their 150), the same over whole pairs of seconds from the third (a
 * saturated window sends its N in a burst), and each second's count. Run: npm run bench:okx [seconds].
 */
import { type OkxThrottle, runOkxRecipe } from '../test/integrations/okx-recipe.js';
import { printTable } from './measure.js';

const seconds = Number(process.argv[2] ?? 10);
if (!Number.isFinite(seconds) || seconds < 3)
  throw new Error(`seconds: a number of at least 3, got ${process.argv[2]}`);

const rows: Record<string, string | number>[] = [];
for (const instruments of [20, 5]) {
  for (const throttle of ['limiter', 'ccxt'] as const satisfies readonly OkxThrottle[]) {
    const run = await runOkxRecipe({ throttle, runMs: seconds * 1000, limit: 1000, instruments });
    const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
    const perSecond = mean(run.perSecond.slice(1));
    // A saturated 2 s window sends its N in a burst: whole pairs of seconds from the third read it whole.
    const pairs = run.perSecond.slice(2, 2 + 2 * Math.floor((run.perSecond.length - 2) / 2));
    // Over 5 swaps, the instruments' 60 per 2 s each bind before the tier.
    const cap = Math.min(500, instruments * 30);
    rows.push({
      swaps: instruments,
      engine: throttle === 'limiter' ? 'recipe (AccountLimiter)' : 'ccxt enableRateLimit',
      refused: run.refused,
      'code 50061': run.refusedByCode['50061'] ?? 0,
      'code 50011': run.refusedByCode['50011'] ?? 0,
      'accepted/s from 2nd s': perSecond.toFixed(1),
      '% of what fits': `${((perSecond / cap) * 100).toFixed(1)}% of ${cap}`,
      'over whole 2 s from 3rd s': `${((mean(pairs) / cap) * 100).toFixed(1)}%`,
      'each second': run.perSecond.join(' '),
    });
    console.error(`${throttle}, ${instruments} swaps: done`);
  }
}
printTable(`ccxt okx on the model exchange on OKX, tier 1 (1,000 new orders per 2 s), ${seconds} s each`, rows);
process.exit(0);
