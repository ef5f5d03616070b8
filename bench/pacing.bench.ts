/**
 * Pacing (the account limiter's `pacing` option) under saturation: one engine saturating futures
 * placement on a tier-4 account (250 per second) through limitedFetch against the model exchange,
 * 32 placements in flight and a cancel every 10 ms, for `seconds` (default 10) per setting, in
 * this process. Run: npm run bench:pacing [seconds].
 *
 * Reported per setting: answers 429, placements accepted against what the limit allows in the run,
 * the most placements sent in any 100 ms, and a cancel's wait from the engine asking for it to
 * fetch sending it (the limiter's) and to its answer (the HTTP client and the network: what a
 * burst of placements holds it up by).
 *
 * First, the same engine on a virtual clock (nothing else running can change it): 64 placements
 * in flight, each answered 5 ms after it is sent, the exchange counting arrivals over a sliding
 * second, 60 s per setting: placements accepted and the most in any 100 ms, exact.
 */
import { AccountLimiter } from '../src/account/limiter.js';
import { SlidingCount } from '../src/model-exchange/sliding-count.js';
import { VirtualClock } from '../src/testing/virtual-clock.js';
import { limitedFetch, type FetchFunction } from '../src/fetch/index.js';
import { DAY, HOUR, clockAt, day, model } from '../test/e2e/harness.js';
import { median, printTable } from './measure.js';

const seconds = Number(process.argv[2] ?? 10);
if (!Number.isFinite(seconds) || seconds < 3)
  throw new Error(`seconds: a number of at least 3, got ${process.argv[2]}`);
const runMs = seconds * 1000;
const settings = (process.env['PACING'] ?? '1,5,10,20').split(',').map(Number);

/** The most instants of `sorted` in any `ms`. */
function mostIn(sorted: readonly number[], ms: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

const pct = (xs: number[], p: number) =>
  xs.length === 0 ? 0 : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

/** The engine on a virtual clock: placements accepted, answers 429 and the most sent in any 100 ms. */
async function virtualRun(pacing: number, ms: number) {
  const WALL = Date.parse('2026-11-02T09:00:00Z');
  const clock = new VirtualClock({ start: 0, wallStart: WALL });
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, pacing });
  limiter.reportRateLimit('main', [
    { type: 'futures', tier: '4', ratio: '8.19', main_ratio: '8.19', updated_at: String(Math.floor(WALL / 1000)) },
  ]);
  const exchange = new SlidingCount(250);
  const sent: number[] = [];
  let tooMany = 0;
  const body = { contract: 'BTC_USDT', size: 1 };
  const workers = Array.from({ length: 64 }, async () => {
    while (clock.now() < ms) {
      const at = await limiter.request(
        'main',
        'POST',
        '/futures/usdt/orders',
        () => {
          sent.push(clock.now());
          return new Promise<number>((resolve) => clock.setTimer(() => resolve(clock.now()), 5));
        },
        { body },
      );
      if (exchange.fits(at, 1, 250, 1000)) exchange.add(at, 1);
      else tooMany++;
    }
  });
  await clock.advanceTo(ms + 1000);
  await Promise.all(workers);
  limiter.close();
  return { accepted: sent.filter((t) => t < ms).length, tooMany, most: mostIn(sent, 100) };
}

const virtualMs = 60_000;
const virtualRows: Record<string, string | number>[] = [];
for (const pacing of settings) {
  const r = await virtualRun(pacing, virtualMs);
  virtualRows.push({
    pacing: pacing === 1 ? '1 (unpaced, the default)' : `${pacing} (${250 / pacing} per ${1000 / pacing} ms)`,
    'answers 429': r.tooMany,
    'placements sent': `${r.accepted} of ${250 * (virtualMs / 1000)} (${((100 * r.accepted) / (250 * (virtualMs / 1000))).toFixed(2)}%)`,
    'most sent in 100 ms': r.most,
  });
}
printTable(
  `On a virtual clock: 64 placements in flight at tier 4 (250 per second), answered in 5 ms, ${virtualMs / 1000} s per setting`,
  virtualRows,
);

const rows: Record<string, string | number>[] = [];
for (const pacing of settings) {
  // 09:00 UTC: yesterday's ratio of 9 is in force since 08:00 (tier 4, 250 per second).
  const clock = clockAt(9 * HOUR);
  const history = { activity: [day(1, '900000', 100_000)] };
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, pacing });
  limiter.seed({
    days: history.activity.map((d) => ({ ...d, day: new Date(clock.today + d.day * DAY).toISOString().slice(0, 10) })),
  });
  const exchange = await model(clock, history);
  const placed: number[] = [];
  let cancelSent = 0;
  const send: FetchFunction = (input, init) => {
    if (init?.method === 'DELETE') cancelSent = performance.now();
    else placed.push(performance.now());
    return globalThis.fetch(input, init);
  };
  const fetch = limitedFetch(limiter, { account: 'main', fetch: send });
  const headers = { KEY: 'main-key', 'Content-Type': 'application/json' };
  const body = JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' });
  const url = `${exchange.url}/api/v4/futures/usdt/orders`;
  const stop = new AbortController();
  const end = performance.now() + runMs;
  setTimeout(() => stop.abort(), runMs);
  let tooMany = 0;
  let lastId = 1;
  const waits: number[] = [];
  const answers: number[] = [];
  const worker = async () => {
    while (performance.now() < end) {
      const res = await fetch(url, { method: 'POST', headers, body, signal: stop.signal }).catch(() => undefined);
      if (res === undefined) break;
      const answer = (await res.json()) as { id?: number };
      if (res.status === 429) tooMany++;
      else if (answer.id !== undefined) lastId = answer.id;
    }
  };
  const canceller = async () => {
    while (performance.now() < end) {
      await new Promise((r) => setTimeout(r, 10));
      const asked = performance.now();
      const res = await fetch(`${url}/${lastId}`, {
        method: 'DELETE',
        headers,
        signal: stop.signal,
        contract: 'BTC_USDT',
      } as RequestInit).catch(() => undefined);
      if (res === undefined) break;
      await res.arrayBuffer();
      waits.push(cancelSent - asked);
      answers.push(performance.now() - asked);
      if (res.status === 429) tooMany++;
    }
  };
  await Promise.all([...Array.from({ length: 32 }, worker), canceller()]);
  const place = exchange.stats().accounts[0]!.limits.find((l) => l.key === 'futures.place')!;
  limiter.close();
  await exchange.close();
  rows.push({
    pacing: pacing === 1 ? '1 (unpaced, the default)' : `${pacing} (${250 / pacing} per ${1000 / pacing} ms)`,
    'answers 429': tooMany,
    'placements accepted': `${place.accepted} of ${250 * seconds} (${((100 * place.accepted) / (250 * seconds)).toFixed(1)}%)`,
    'most sent in 100 ms': mostIn(placed, 100),
    'cancel wait p50 / p99 ms': `${median(waits).toFixed(2)} / ${pct(waits, 0.99).toFixed(2)}`,
    'cancel answered p50 / p99 ms': `${median(answers).toFixed(2)} / ${pct(answers, 0.99).toFixed(2)}`,
  });
  console.error(`pacing ${pacing}: done`);
}
printTable(
  `One engine saturating tier-4 futures placement (250 per second) through limitedFetch, ${seconds} s per setting`,
  rows,
);
