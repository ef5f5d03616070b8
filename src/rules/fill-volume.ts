import type { Dec } from '../internal/decimal.js';

/**
 * USDT traded by a futures fill (see docs/rules.md#r1): |size| x multiplier x price, the multiplier
 * being the contract's `quanto_multiplier`. An inverse contract's |size| x multiplier is already
 * USD, which counts as USDT. Exact: no rounding.
 */
export function futuresFillVolume(size: Dec, multiplier: Dec, price: Dec, inverse = false): Dec {
  // A buy's size is its own absolute value: no copy made of it.
  const notional = (size.isNegative() ? size.abs() : size).times(multiplier);
  return inverse ? notional : notional.times(price);
}
