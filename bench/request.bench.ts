/**
 * The CPU an account limiter spends on each request it sends (`limiter.request`): 100,000
 * placements queued at once on a tier-1 account, sent as a virtual clock lets them, each task
 * answering at once. Run: npm run bench:request [dist ...] — each build directory given (the
 * package's own dist/ when none) loaded in this one process and run in turn, round after round,
 * so that two builds are compared side by side on the same machine at the same moment.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, printTable } from './measure.js';

const COUNT = 100_000;
const ROUNDS = 7;
const body = { contract: 'BTC_USDT', size: 1, price: '60000' };

interface Build {
  readonly name: string;
  readonly AccountLimiter: typeof import('../dist/index.js').AccountLimiter;
  readonly VirtualClock: typeof import('../dist/testing.js').VirtualClock;
}

async function load(dir: string): Promise<Build> {
  const root = pathToFileURL(`${resolve(dir)}/`).href;
  const { AccountLimiter } = (await import(`${root}index.js`)) as typeof import('../dist/index.js');
  const { VirtualClock } = (await import(`${root}testing.js`)) as typeof import('../dist/testing.js');
  return { name: dir, AccountLimiter, VirtualClock };
}

/** CPU microseconds per request, one round. */
async function round(b: Build): Promise<number> {
  const clock = new b.VirtualClock({ start: 0, wallStart: Date.parse('2026-11-01T10:00:00Z') });
  const limiter = new b.AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
  const cpu = process.cpuUsage();
  const sent: Promise<number>[] = [];
  for (let i = 0; i < COUNT; i++)
    sent.push(limiter.request('main', 'POST', '/futures/usdt/orders', () => Promise.resolve(i), { body }));
  // Tier 1: 100 placements a second.
  await clock.advance(COUNT * 10 + 1000);
  await Promise.all(sent);
  const used = process.cpuUsage(cpu);
  limiter.close();
  return (used.user + used.system) / COUNT;
}

const dirs = process.argv.slice(2);
const builds = await Promise.all((dirs.length > 0 ? dirs : ['dist']).map(load));
const runs = new Map<Build, number[]>(builds.map((b) => [b, []]));
for (const b of builds) await round(b); // warm-up
for (let r = 0; r < ROUNDS; r++) for (const b of builds) runs.get(b)!.push(await round(b));
printTable(
  `limiter.request: CPU per request, ${COUNT.toLocaleString('en')} placements, ${ROUNDS} rounds in turn`,
  builds.map((b) => {
    const us = runs.get(b)!;
    return {
      build: b.name,
      'CPU µs per request (median)': median(us).toFixed(2),
      rounds: us.map((x) => x.toFixed(2)).join(' '),
    };
  }),
);
