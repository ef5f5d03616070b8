import type { Dec } from '../internal/decimal.js';

/**
 * How an exchange names its instruments and weighs their requests in the ratio's denominator:
 * Gate's contract coefficients (see docs/rules.md#r2), OKX's symbol multipliers by instrument kind
 * (see docs/okx.md#o3). A part of a rulebook; the ratio asks it, never which exchange it serves.
 *
 * @example
 * ```ts
 * import { GATE, type InstrumentBook, OKX } from 'traderatio/rules'
 *
 * const book: InstrumentBook = OKX.ratio.instruments
 * book.optionFields // ['multipliers']
 * GATE.ratio.instruments.optionFields // ['coefficients', 'defaultCoefficient']
 * ```
 */
export interface InstrumentBook {
  /** The ratio options this book reads (Gate: `coefficients`, `defaultCoefficient`; OKX: `multipliers`). */
  readonly optionFields: readonly string[];
  /** The fields an activity entry may have (OKX adds `kind`). */
  readonly activityFields: readonly string[];
  /** The weights the options give: the book's own table where they give none. */
  resolve(options: Readonly<Record<string, unknown>>): InstrumentWeights;
}

/**
 * An instrument book's weights, resolved and validated once.
 *
 * @example
 * ```ts
 * import { type InstrumentWeights, OKX } from 'traderatio/rules'
 *
 * const weights: InstrumentWeights = OKX.ratio.instruments.resolve({})
 * weights.weightOf('ETH-USD-250328').toString() // '0.3'
 * weights.nameOf('eth-usdt-swap') // 'ETH-USDT-SWAP'
 * ```
 */
export interface InstrumentWeights {
  /** What an instrument name looks like, for messages: `a contract name such as "BTC_USDT"`. */
  readonly expected: string;
  /** The name as the exchange writes it, or `undefined` when it is none (the quick path: no error made). */
  nameOf(name: unknown): string | undefined;
  /**
   * The instrument of an activity entry as the exchange writes it; a bad name (or kind) is refused
   * naming `field`, which names the entry's instrument field in its list.
   */
  read(entry: { readonly contract: unknown; readonly kind?: unknown }, field: string): string;
  /** The weight of an instrument (a name as {@link nameOf} gives it). */
  weightOf(name: string): Dec;
  /** The weight an instrument of the same kind has when the table lists it under no name of its own. */
  defaultWeightOf(name: string): Dec;
  /** Whether the table gives the instrument a weight of its own (by its name or its family). */
  isListed(name: string): boolean;
  /** The greatest weight any instrument can have. */
  readonly heaviest: Dec;
  /** The weights of instruments the table lists under no name of their own, each once: Gate's 0.4; OKX's 0.2 and 0.1. */
  readonly defaultWeights: readonly Dec[];
  /** What the exchange calls a weight: `coefficient` (Gate), `multiplier` (OKX). */
  readonly weightName: string;
  /**
   * An instrument of the same kind as `name` that the table lists under no name of its own and
   * that `taken` does not hold: where quoting moves off a heavy instrument.
   */
  unlistedLike(name: string, taken: (name: string) => boolean): string;
}
