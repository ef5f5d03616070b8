// What the end-to-end tests share: the model exchange started on a clock set to a chosen time of
// today (UTC), with a chosen history, and an engine saturating futures placement with cancels
// mixed in, measured from the model's counts and from when each cancel went out.
import { setMaxListeners } from 'node:events';
import { afterEach } from 'vitest';
import type { AccountLimiter } from '../../src/account/limiter.js';
import { startModelExchange, type RunningModelExchange } from '../../src/model-exchange/index.js';
import type { ModelExchangeOptions } from '../../src/model-exchange/server.js';
import type { Clock } from '../../src/schedule/clock.js';

export const SECOND = 1000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** The model exchange and the limiter a test started, if any. */
export interface Live {
  exchange?: RunningModelExchange | undefined;
  limiter?: AccountLimiter | undefined;
}

/**
 * Where a file's tests keep the model exchange and limiter they start: after each test, the
 * limiter is closed (requests still waiting for it are given up), then the exchange, and both forgotten.
 */
export function closeAfterEach(): Live {
  const live: Live = {};
  afterEach(async () => {
    live.limiter?.close();
    await live.exchange?.close();
    live.limiter = undefined;
    live.exchange = undefined;
  });
  return live;
}

/** The machine's clock, its wall moved so that it reads `timeOfDay` (ms after 00:00 UTC) today now. */
export function clockAt(timeOfDay: number): Clock & { readonly today: number } {
  const now = performance.timeOrigin + performance.now();
  const today = Math.floor(now / DAY) * DAY;
  const offset = today + timeOfDay - now;
  return {
    today,
    now: () => performance.now(),
    wall: () => performance.timeOrigin + performance.now() + offset,
    setTimer: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
    clearTimer: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
  };
}

/** Futures activity of `account` on the day `daysAgo` before today, in the history format. */
export function day(daysAgo: number, makerVolume: string, place: number, account = 'main') {
  return { account, day: -daysAgo, contracts: [{ contract: 'BTC_USDT', makerVolume, place }] };
}

/** The model exchange on `clock`, filling nothing unless told. */
export function model(
  clock: Clock,
  history: unknown,
  options: ModelExchangeOptions = {},
): Promise<RunningModelExchange> {
  return startModelExchange({ port: 0, clock, history, fills: { maker: 0, taker: 0 }, ...options });
}

/**
 * What an engine does: one placement, one cancel of an order id; each resolves to the HTTP status.
 * `signal` aborts at the end of the run: a request still waiting for the limiter is given up.
 */
export interface Engine {
  place(signal: AbortSignal): Promise<{ readonly status: number; readonly id?: string | number }>;
  cancel(id: string | number, signal: AbortSignal): Promise<{ readonly status: number }>;
}

export interface SaturationResult {
  /** Answers 429 (placements and cancels). */
  readonly tooMany: number;
  /** Placements the model accepted, and the most it counted in any window. */
  readonly accepted: number;
  readonly most: number;
  /** Accepted placements over what the limit allows in the run (`limit` per second). */
  readonly utilization: number;
  /** Cancels sent, and the 99th percentile of how long each waited before it went out (ms). */
  readonly cancels: number;
  readonly cancelWaitP99: number;
}

/**
 * `workers` placing as fast as answers come back and a cancel of the latest order every
 * `cancelEveryMs`, for `runMs`. `sentCancel()` must give the instant (performance.now()) the
 * latest cancel went out, as the transport saw it: the wait is measured to it.
 */
export async function saturate(
  engine: Engine,
  exchange: RunningModelExchange,
  options: {
    readonly runMs: number;
    readonly limit: number;
    readonly sentCancel: () => number;
    readonly workers?: number;
    readonly cancelEveryMs?: number;
    readonly account?: string;
  },
): Promise<SaturationResult> {
  const end = performance.now() + options.runMs;
  const stop = new AbortController();
  // Every request of the run listens to it: thousands at once is the point, not a leak.
  setMaxListeners(0, stop.signal);
  const timer = setTimeout(() => stop.abort(), options.runMs);
  // A request given up at the end of the run is not an answer.
  const given = <T>(p: Promise<T>) =>
    p.catch((e: unknown) => {
      if (stop.signal.aborted) return undefined;
      throw e;
    });
  let tooMany = 0;
  let lastId: string | number = 1;
  const waits: number[] = [];
  const worker = async () => {
    while (performance.now() < end) {
      const r = await given(engine.place(stop.signal));
      if (r === undefined) break;
      if (r.status === 429) tooMany++;
      else if (r.id !== undefined) lastId = r.id;
    }
  };
  const canceller = async () => {
    while (performance.now() < end) {
      await new Promise((r) => setTimeout(r, options.cancelEveryMs ?? 10));
      const asked = performance.now();
      const r = await given(engine.cancel(lastId, stop.signal));
      if (r === undefined) break;
      waits.push(options.sentCancel() - asked);
      if (r.status === 429) tooMany++;
    }
  };
  await Promise.all([...Array.from({ length: options.workers ?? 32 }, worker), canceller()]);
  clearTimeout(timer);
  const stats = exchange.stats().accounts.find((a) => a.account === (options.account ?? 'main'))!;
  const place = stats.limits.find((l) => l.key === 'futures.place')!;
  waits.sort((a, b) => a - b);
  return {
    tooMany,
    accepted: place.accepted,
    most: place.most,
    utilization: place.accepted / ((options.limit * options.runMs) / SECOND),
    cancels: waits.length,
    cancelWaitP99: waits[Math.floor(waits.length * 0.99)] ?? 0,
  };
}

/** One line of figures for the test's output. */
export function describeRun(name: string, r: SaturationResult): string {
  return `${name}: ${r.tooMany} x 429, ${r.accepted} placements accepted (${(r.utilization * 100).toFixed(1)}% of the limit, at most ${r.most} in a window), ${r.cancels} cancels, p99 cancel wait ${r.cancelWaitP99.toFixed(2)} ms`;
}
