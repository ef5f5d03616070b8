// A simulated exchange behind a simulated network, on a virtual clock (see docs/rules.md#r13): each request's way
// there and its answer's way back are drawn from a `Network`, the exchange counts arrivals and
// answers with its gateway times, and every arrival instant is kept for the test to count.
import type { AccountLimiter } from '../../src/account/limiter.js';
import { SlidingCount } from '../../src/model-exchange/sliding-count.js';
import type { Clock } from '../../src/schedule/clock.js';
import type { Network } from '../arbitraries.js';

/** The way there of the `i`th request sent (0 to 100 ms), as `net`'s runs draw it. */
export function forwardDelay(net: Network, i: number): number {
  const total = net.runs.reduce((s, r) => s + r.requests, 0);
  let k = i % total;
  for (const run of net.runs) {
    if (k < run.requests) {
      const draw = net.draws[i % net.draws.length]!;
      return Math.min(100, Math.max(0, run.level + (draw - 0.5) * run.spread));
    }
    k -= run.requests;
  }
  return 0;
}

/** The most arrivals the exchange counted in any window of `windowMs`, as the model exchange counts them. */
export function mostInAnyWindow(arrivals: readonly number[], windowMs: number): number {
  const count = new SlidingCount(arrivals.length);
  for (const at of [...arrivals].sort((a, b) => a - b)) {
    count.used(at, windowMs);
    count.add(at, 1);
  }
  return count.most;
}

/** What one simulation saw: every arrival at the exchange, and the requests answered. */
export interface Simulated {
  readonly arrivals: number[];
  answered: number;
}

/** A spot placement: 10 per second per account and market (see docs/rules.md#r10). */
export const PLACE = { method: 'POST', path: '/spot/orders', body: { currency_pair: 'BTC_USDT', amount: '1' } };

/**
 * Starts `workers` loops on each limiter, each sending spot placements one after another through
 * a round trip until `untilMs` on `clock`, over `net`. Resolves when every loop has ended (the
 * caller moves the clock).
 */
export function saturate(
  limiters: readonly AccountLimiter[],
  clock: Clock,
  net: Network,
  workers: number,
  untilMs: number,
): { readonly seen: Simulated; readonly done: Promise<unknown> } {
  const seen: Simulated = { arrivals: [], answered: 0 };
  let sent = 0;
  const one = (limiter: AccountLimiter): Promise<void> =>
    limiter.roundTrip('main', PLACE).run(
      (t) =>
        new Promise<void>((resolve) => {
          const i = sent++;
          const forward = forwardDelay(net, i);
          const gateway = net.gateway[i % net.gateway.length]!;
          const back = net.back[i % net.back.length]!;
          const wall = clock.wall() - clock.now();
          const arrival = clock.now() + forward;
          seen.arrivals.push(arrival);
          clock.setTimer(
            () => {
              const inTime = Math.round((wall + arrival) * 1000);
              t.answered({
                status: 201,
                headers: { 'X-In-Time': String(inTime), 'X-Out-Time': String(inTime + Math.round(gateway * 1000)) },
              });
              seen.answered++;
              resolve();
            },
            forward + gateway + back,
          );
        }),
    );
  const loops: Promise<void>[] = [];
  for (const limiter of limiters)
    for (let w = 0; w < workers; w++)
      loops.push(
        (async () => {
          while (clock.now() < untilMs) await one(limiter);
        })(),
      );
  return { seen, done: Promise.all(loops) };
}

/**
 * A way there 100 ms long for `n` requests (a window's worth), then none at all: the arrival
 * estimate measures the second window's requests against the slow quickest and counts the first
 * window's only until their send plus W, so both windows' arrivals meet at the exchange.
 */
export function quicker(n: number): Network {
  return {
    runs: [
      { requests: n, level: 100, spread: 0 },
      { requests: 1000, level: 0, spread: 0 },
    ],
    draws: [0.5],
    back: [1],
    gateway: [0.5],
  };
}
