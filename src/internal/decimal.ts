import { Decimal } from 'decimal.js';

/**
 * The library's own decimal constructor: a clone of decimal.js, so that no setting of ours leaks
 * into the caller's `Decimal` and no setting of theirs changes our arithmetic. 80 significant
 * digits keep every sum and product of realistic USDT amounts exact; only a ratio's quotient is
 * ever rounded, and tier lookups compare the exact fraction instead (see docs/rules.md#r1).
 *
 * @example
 * ```ts
 * import { Dec } from 'traderatio'
 *
 * new Dec('0.1').plus('0.2').toString() // '0.3'
 * new Dec('1057').dividedBy('129').toDecimalPlaces(2).toString() // '8.19'
 * ```
 */
export const Dec = Decimal.clone({
  precision: 80,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -40,
  toExpPos: 60,
});

/** A decimal value produced by traderatio (a decimal.js `Decimal`). */
export type Dec = Decimal;

/**
 * What traderatio accepts wherever an amount goes in: a decimal string, a number or a Decimal.
 *
 * @example
 * ```ts
 * import { type DecimalInput } from 'traderatio'
 * import { tradeRatio } from 'traderatio/rules'
 *
 * const volume: DecimalInput = '1250.5'
 * tradeRatio([{ contract: 'BTC_USDT', makerVolume: volume, place: 10 }]).ratio?.toString() // '125.05'
 * ```
 */
export type DecimalInput = Decimal.Value;

/** Zero, shared. Decimals are immutable. */
export const ZERO: Dec = new Dec(0);

/**
 * `d.toNumber()`, about a quarter of its cost: decimal.js writes it as `+d`, which V8 converts
 * through its generic path to `valueOf` (the decimal's text); reading that text gives the same number.
 */
export function decimalNumber(d: Dec): number {
  return Number(d.valueOf());
}
