import type { Dec } from '../internal/decimal.js';

/**
 * Whether the fill rate, USDT `traded` per request, is below `threshold` (see docs/rules.md#r9,
 * #r14): decided exactly as traded < threshold x requests, without dividing. A rate exactly at the
 * threshold is not below it; with no request nothing is below (0 < 0 is false). Both throttles ask
 * this one test.
 */
export function isFillRateBelow(traded: Dec, requests: number, threshold: Dec): boolean {
  return traded.lessThan(threshold.times(requests));
}

/**
 * The fill rate, USDT `traded` per request (see docs/rules.md#r9, #r14), or `null` with no request.
 */
export function fillRateOf(traded: Dec, requests: number): Dec | null {
  return requests === 0 ? null : traded.dividedBy(requests);
}
