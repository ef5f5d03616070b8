import { Decimal } from 'decimal.js';

/**
 * The library's own decimal constructor: a clone of decimal.js, so that no setting of ours leaks
 * into the caller's `Decimal` and no setting of theirs changes our arithmetic. 80 significant
 * digits keep every sum and product of realistic USDT amounts exact; only a ratio's quotient is
 * ever rounded, and tier lookups compare the exact fraction instead (R1).
 */
export const Dec = Decimal.clone({
  precision: 80,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -40,
  toExpPos: 60,
});

/** A decimal value produced by traderatio (a decimal.js `Decimal`). */
export type Dec = Decimal;

/** What traderatio accepts wherever an amount goes in: a decimal string, a number or a Decimal. */
export type DecimalInput = Decimal.Value;

/** Zero, shared. Decimals are immutable. */
export const ZERO: Dec = new Dec(0);
