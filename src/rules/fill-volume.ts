import type { Dec } from '../internal/decimal.js';

/**
 * USDT traded by a futures fill (see docs/rules.md#r1): |size| x multiplier x price, the multiplier
 * being the contract's `quanto_multiplier`. An inverse contract's |size| x multiplier is already
 * USD, which counts as USDT. Exact: no rounding.
 */
export function futuresFillVolume(size: Dec, multiplier: Dec, price: Dec, inverse = false): Dec {
  const notional = size.abs().times(multiplier);
  return inverse ? notional : notional.times(price);
}
