/**
 * The recipes of docs/integrations.md as an engine runs them: for each client (fetch, ccxt,
 * gate-api, WebSocket), the engine set up exactly as its recipe shows (no seed, no report call)
 * saturates futures placement on a tier-5 account of the model exchange (300 per second, in a
 * worker thread of its own: it does not share the client's event loop) for `seconds` (default
 * 10), 32 placing loops and a cancel every 10 ms; beside it, the same client bare (nothing in
 * front of it). Reported per client: answers 429, placements the model accepted
 * per second from the second second on (the first is the limiter learning the tier) and their
 * share of 300; for the bare client, the placements it sent per second (accepted or refused):
 * what the client reaches on this machine at all. Run: npm run bench:recipes [seconds].
 */
import { RECIPES, runRecipe } from '../test/integrations/recipes.js';
import { printTable } from './measure.js';

const seconds = Number(process.argv[2] ?? 10);
if (!Number.isFinite(seconds) || seconds < 3)
  throw new Error(`seconds: a number of at least 3, got ${process.argv[2]}`);
const LIMIT = 300;

const rows: Record<string, string | number>[] = [];
for (const recipe of RECIPES) {
  const limited = await runRecipe(recipe, {
    exchangeMakerVolume: '1000000',
    limit: LIMIT,
    runMs: seconds * 1000,
    modelWorker: true,
  });
  const bare = await runRecipe(recipe, {
    exchangeMakerVolume: '1000000',
    limit: LIMIT,
    runMs: seconds * 1000,
    bare: true,
    modelWorker: true,
  });
  const later = limited.perSecond.slice(1);
  const perSecond = later.length === 0 ? 0 : later.reduce((a, b) => a + b, 0) / later.length;
  rows.push({
    client: recipe,
    'recipe: 429': limited.tooMany,
    'recipe: placed/s from 2nd s': perSecond.toFixed(1),
    'recipe: % of 300': `${(limited.utilization * 100).toFixed(1)}%`,
    'recipe: each second': limited.perSecond.join(' '),
    'bare: 429': bare.tooMany,
    'bare: sent/s': ((bare.accepted + bare.tooMany) / seconds).toFixed(1),
  });
  console.error(`${recipe}: done`);
}
printTable(`Recipes on a tier-5 account of the model exchange, ${seconds} s each (300 placements per second)`, rows);
process.exit(0);
