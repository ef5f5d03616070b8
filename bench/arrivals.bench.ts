/**
 * What bounding arrivals by answers costs (R13): one engine saturating futures placement on a
 * tier-4 account (250 per second) with a cancel for every five placements, on a virtual clock
 * (nothing else running on the machine changes a figure), for `seconds` (default 1000) per setting.
 * Run: npm run bench:arrivals [seconds].
 *
 * The way to the exchange takes a constant `d` (0.5, 15 and 50 ms) and the answer's way back as
 * long; the gateway spends 0.25 ms on each request and says so in `X-In-Time` and `X-Out-Time`.
 * The exchange counts arrivals over a sliding second and answers 429 (TOO_MANY_REQUESTS) to a
 * placement past 250 in one, or a cancel past 200. 64 requests in flight, each through the
 * account limiter's round trip.
 *
 * Side by side: the default (`arrivals: 'answers'`: a request counts from its send until one
 * window after its answer, less the gateway's time) and the arrival estimate (`arrivals:
 * 'estimate'`: until one window after its arrival as estimated from the gateway times against
 * the quickest way there). Reported: answers 429, the share of the placement limit used (the
 * placements the exchange took over what 250 per second allows), and a cancel's wait in the
 * limiter (p50 and p99, ms). A saturated limit sends in cycles (a window and what counts past it
 * per cycle), and the run counts whole cycles: the share is within 0.1% at 1000 s.
 */
import { AccountLimiter } from '../src/account/limiter.js';
import { SlidingCount } from '../src/model-exchange/sliding-count.js';
import { VirtualClock } from '../src/testing/virtual-clock.js';
import { printTable } from './measure.js';

const seconds = Number(process.argv[2] ?? 1000);
if (!Number.isFinite(seconds) || seconds < 5)
  throw new Error(`seconds: a number of at least 5, got ${process.argv[2]}`);
const runMs = seconds * 1000;
const WALL = Date.parse('2026-11-02T09:00:00Z');
const N = 250;
// Binary fractions of a millisecond: no instant of the virtual clock is ever rounded.
const GATEWAY_MS = 0.25;
const delays = (process.env['ARRIVALS_DELAYS'] ?? '0.5,15,50').split(',').map(Number);

const pct = (xs: readonly number[], p: number) =>
  xs.length === 0 ? 0 : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

/** One setting: the engine for `runMs` with a way there of `d` ms each way. */
async function run(d: number, arrivals: 'answers' | 'estimate') {
  const clock = new VirtualClock({ start: 0, wallStart: WALL });
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, arrivals });
  limiter.reportRateLimit('main', [
    { type: 'futures', tier: '4', ratio: '8.19', main_ratio: '8.19', updated_at: String(Math.floor(WALL / 1000)) },
  ]);
  const placements = new SlidingCount(N);
  const cancels = new SlidingCount(200);
  let accepted = 0;
  let tooMany = 0;
  const cancelWaits: number[] = [];
  const place = { method: 'POST', path: '/futures/usdt/orders', body: { contract: 'BTC_USDT', size: 1 } };
  const cancel = { method: 'DELETE', path: '/futures/usdt/orders/1', contract: 'BTC_USDT' };
  let n = 0;
  const one = async (): Promise<void> => {
    const isCancel = n++ % 6 === 5;
    const trip = limiter.roundTrip('main', isCancel ? cancel : place);
    await trip.run(
      (t) =>
        new Promise<void>((resolve) => {
          const arrival = clock.now() + d;
          clock.setTimer(() => {
            const count = isCancel ? cancels : placements;
            const fits = count.fits(arrival, 1, isCancel ? 200 : N, 1000);
            if (fits) count.add(arrival, 1);
            if (fits && !isCancel && arrival < runMs) accepted++;
            if (!fits) tooMany++;
            const inTime = Math.round((WALL + arrival) * 1000);
            const headers = { 'X-In-Time': String(inTime), 'X-Out-Time': String(inTime + GATEWAY_MS * 1000) };
            clock.setTimer(() => {
              t.answered(
                fits
                  ? { status: 201, headers }
                  : { status: 429, headers, body: { label: 'TOO_MANY_REQUESTS', message: 'too many' } },
              );
              resolve();
            }, GATEWAY_MS + d);
          }, d);
        }),
    );
    if (isCancel) cancelWaits.push(trip.report().waitedMs ?? 0);
  };
  const workers = Array.from({ length: 64 }, async () => {
    while (clock.now() < runMs) await one();
  });
  await clock.advanceTo(runMs + 2000);
  await Promise.all(workers);
  limiter.close();
  return { accepted, tooMany, cancelWaits };
}

const rows: Record<string, string | number>[] = [];
for (const d of delays) {
  for (const arrivals of ['answers', 'estimate'] as const) {
    const r = await run(d, arrivals);
    const allowed = (N * runMs) / 1000;
    rows.push({
      'way there (and back)': `${d} ms`,
      arrivals: arrivals === 'answers' ? 'bounded by answers (default)' : 'estimate (option)',
      'answers 429': r.tooMany,
      'placement limit used': `${((100 * r.accepted) / allowed).toFixed(2)}%`,
      "cancels' wait p50 / p99": `${pct(r.cancelWaits, 0.5).toFixed(1)} / ${pct(r.cancelWaits, 0.99).toFixed(1)} ms`,
    });
  }
}
printTable(
  `A constant way to the exchange, ${seconds} s per setting on a virtual clock: tier 4 (250 per second), 64 requests in flight, a cancel for every five placements`,
  rows,
);
