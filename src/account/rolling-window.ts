import { nextThrottleCheck, throttleWindow } from '../rules/throttle-window.js';
import { Dec } from '../internal/decimal.js';
import { type SpotFillConfig, spotFillClearance } from '../rules/spot-fill.js';
import type { HourlyCounts } from './in-force.js';

/** Order requests and USDT traded in a window. */
export interface TradedWindow {
  readonly requests: number;
  readonly traded: Dec;
}

/** The window of the spot low-fill throttle's next hourly check (see docs/rules.md#r14) so far, with the room it leaves (see `spotFillClearance`). */
export interface SpotWindow extends TradedWindow {
  /** Spot requests that still fit before the check would throttle (negative: it would). */
  readonly remaining: number;
  /** USDT still to trade on spot before the check to avoid it. */
  readonly needed: Dec;
}

/**
 * The rolling window of the hourly throttles (see docs/rules.md#r9 on futures counts, #r14 on spot) at `now`: the
 * window of the next hourly check ({@link throttleWindow} of {@link nextThrottleCheck}), the 23
 * whole hours before this one and this one so far.
 */
export function rollingDay(counts: HourlyCounts, account: string, now: number): TradedWindow {
  const { from, to } = throttleWindow(nextThrottleCheck(now));
  let requests = 0;
  let traded = new Dec(0);
  for (const h of counts.hourlyActivity(account)) {
    const start = h.hour as number;
    if (start < from || start >= to) continue;
    requests += h.requests;
    traded = traded.plus(h.traded ?? '0');
  }
  return { requests, traded };
}

/**
 * The window the next hourly check of the spot low-fill throttle (see docs/rules.md#r14) looks at, so far, with the spot requests that still
 * fit before it would throttle (negative: it would) and the USDT still to trade to avoid it.
 */
export function spotWindow(spot: HourlyCounts, account: string, now: number, spotFill: SpotFillConfig): SpotWindow {
  const w = rollingDay(spot, account, now);
  return { ...w, ...spotFillClearance(w, spotFill) };
}
