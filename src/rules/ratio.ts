import { InvalidInputError } from '../errors.js';
import { type CoefficientTable, coefficientOf, normalizeContract, resolveCoefficients } from './contracts.js';
import { Dec, type DecimalInput, ZERO } from './decimal.js';
import { addCounts, parseCount, parseNonNegativeDecimal } from './parse.js';

/**
 * One contract's activity over some period: USDT volumes as maker and taker, and the order
 * requests sent for it. Volumes are decimal strings as the API sends them (numbers and Decimals
 * are accepted too); counts are integers. A batch request counts once per order in it (R1).
 */
export interface ContractActivity {
  /** Contract name as the API writes it (`BTC_USDT`); `BTC-USDT` and lower case are read as the same (R2). */
  readonly contract: string;
  /** USDT notional filled as maker. @default "0" */
  readonly makerVolume?: DecimalInput;
  /** USDT notional filled as taker. @default "0" */
  readonly takerVolume?: DecimalInput;
  /** Order placement requests (failed ones included). @default 0 */
  readonly place?: number;
  /** Order amendment requests. @default 0 */
  readonly amend?: number;
  /** Order cancellation requests. @default 0 */
  readonly cancel?: number;
}

/** Options of the trade ratio (R1, R2). */
export interface RatioOptions {
  /** Weight of maker volume in the numerator. @default "1" */
  readonly makerWeight?: DecimalInput;
  /** Weight of taker volume in the numerator. @default "0.9" */
  readonly takerWeight?: DecimalInput;
  /** Coefficient per contract. @default { BTC_USDT: "1", ETH_USDT: "1" } */
  readonly coefficients?: Readonly<Record<string, DecimalInput>>;
  /** Coefficient of every contract not in `coefficients`. @default "0.4" */
  readonly defaultCoefficient?: DecimalInput;
  /**
   * Count cancels in the denominator. The interface description counts place, amend and cancel;
   * the exchange's own formula text counts only new and modified orders (`false`). @default true
   */
  readonly countCancels?: boolean;
}

/** {@link RatioOptions} resolved and validated once. */
export interface RatioConfig {
  readonly kind: 'ratio-config';
  readonly makerWeight: Dec;
  readonly takerWeight: Dec;
  readonly coefficients: CoefficientTable;
  readonly countCancels: boolean;
}

/**
 * Validates ratio options into their complete form. Pass the result wherever options are taken
 * to skip validating them again.
 *
 * @example
 * ```ts
 * const config = resolveRatioOptions({ countCancels: false })
 * ```
 */
export function resolveRatioOptions(options: RatioOptions | RatioConfig = {}): RatioConfig {
  if ('kind' in options && options.kind === 'ratio-config') return options;
  const o = options as RatioOptions;
  if (o.countCancels !== undefined && typeof o.countCancels !== 'boolean') {
    throw new InvalidInputError('`countCancels`', o.countCancels, 'a boolean');
  }
  return {
    kind: 'ratio-config',
    makerWeight: parseNonNegativeDecimal(o.makerWeight ?? '1', '`makerWeight`'),
    takerWeight: parseNonNegativeDecimal(o.takerWeight ?? '0.9', '`takerWeight`'),
    coefficients: resolveCoefficients(o.coefficients, o.defaultCoefficient),
    countCancels: o.countCancels ?? true,
  };
}

/**
 * Additive totals of activity: everything the ratio needs, and nothing it does not. Totals of two
 * periods or two accounts add up ({@link addTotals}), which is how windows and families are summed.
 */
export interface ActivityTotals {
  /** Sum of maker volume, USDT. */
  readonly maker: Dec;
  /** Sum of taker volume, USDT. */
  readonly taker: Dec;
  /** Sum over contracts of counted requests times coefficient: the ratio's denominator. */
  readonly weightedRequests: Dec;
  /** Counted requests, unweighted. */
  readonly requests: number;
}

/** Totals of no activity. */
export const EMPTY_TOTALS: ActivityTotals = Object.freeze({ maker: ZERO, taker: ZERO, weightedRequests: ZERO, requests: 0 });

/** Adds two totals. */
export function addTotals(a: ActivityTotals, b: ActivityTotals): ActivityTotals {
  if (b.requests === 0 && b.maker.isZero() && b.taker.isZero()) return a;
  if (a.requests === 0 && a.maker.isZero() && a.taker.isZero()) return b;
  return {
    maker: a.maker.plus(b.maker),
    taker: a.taker.plus(b.taker),
    weightedRequests: a.weightedRequests.plus(b.weightedRequests),
    requests: addCounts(a.requests, b.requests, 'counted requests'),
  };
}

/** Subtracts totals `b` (a part of `a`) from `a`. */
export function subtractTotals(a: ActivityTotals, b: ActivityTotals): ActivityTotals {
  if (b.requests === 0 && b.maker.isZero() && b.taker.isZero()) return a;
  return {
    maker: a.maker.minus(b.maker),
    taker: a.taker.minus(b.taker),
    weightedRequests: a.weightedRequests.minus(b.weightedRequests),
    requests: a.requests - b.requests,
  };
}

/**
 * Validates one list of contract activity and sums it. Each contract may appear once per list
 * (after name normalisation); a repeat is refused rather than merged, since it is far more often
 * a mistake (a row pasted twice) than two halves of one figure. `where` names the list in errors.
 */
export function totalsOf(activity: readonly ContractActivity[], config: RatioConfig, where = ''): ActivityTotals {
  if (!Array.isArray(activity)) throw new InvalidInputError(`\`contracts\`${where}`, activity, 'an array');
  const seen = new Set<string>();
  let maker = ZERO;
  let taker = ZERO;
  let requests = 0;
  // Requests are integers: sum them per coefficient and multiply once per coefficient, which is
  // exact and far cheaper than one decimal product per contract.
  const perCoefficient = new Map<Dec, number>();
  for (const entry of activity) {
    if (typeof entry !== 'object' || entry === null) {
      throw new InvalidInputError(`a contract entry${where}`, entry, 'an object');
    }
    const contract = normalizeContract(entry.contract, `\`contract\`${where}`);
    const of = ` of ${contract}${where}`;
    if (seen.has(contract)) {
      throw new InvalidInputError(`\`contract\`${where}`, entry.contract, `each contract once per list (${contract} appears twice)`);
    }
    seen.add(contract);
    const m = entry.makerVolume === undefined ? ZERO : parseNonNegativeDecimal(entry.makerVolume, `\`makerVolume\`${of}`);
    const t = entry.takerVolume === undefined ? ZERO : parseNonNegativeDecimal(entry.takerVolume, `\`takerVolume\`${of}`);
    const place = entry.place === undefined ? 0 : parseCount(entry.place, `\`place\`${of}`);
    const amend = entry.amend === undefined ? 0 : parseCount(entry.amend, `\`amend\`${of}`);
    const cancel = entry.cancel === undefined ? 0 : parseCount(entry.cancel, `\`cancel\`${of}`);
    if (!m.isZero()) maker = maker.plus(m);
    if (!t.isZero()) taker = taker.plus(t);
    const counted = addCounts(addCounts(place, amend, `requests${of}`), config.countCancels ? cancel : 0, `requests${of}`);
    if (counted > 0) {
      const coefficient = coefficientOf(config.coefficients, contract);
      perCoefficient.set(coefficient, addCounts(perCoefficient.get(coefficient) ?? 0, counted, `requests${where}`));
      requests = addCounts(requests, counted, `requests${where}`);
    }
  }
  let weightedRequests = ZERO;
  for (const [coefficient, count] of perCoefficient) weightedRequests = weightedRequests.plus(coefficient.times(count));
  return { maker, taker, weightedRequests, requests };
}

/** A trade ratio with everything it was made of, all exact. */
export interface RatioResult {
  /**
   * numerator / denominator, or `null` when no request was counted (the ratio is undefined and
   * the account sits at the lowest tier; R1). Rounded to 80 significant digits where the quotient
   * does not terminate: compare tiers with {@link compareRatio}, which is exact.
   */
  readonly ratio: Dec | null;
  /** makerWeight x maker volume + takerWeight x taker volume. */
  readonly numerator: Dec;
  /** Sum of counted requests times contract coefficient. */
  readonly denominator: Dec;
  /** Maker volume, USDT. */
  readonly makerVolume: Dec;
  /** Taker volume, USDT. */
  readonly takerVolume: Dec;
  /** Maker + taker volume, unweighted, USDT (the R7 threshold compares this). */
  readonly volume: Dec;
  /** Counted requests, unweighted. */
  readonly requests: number;
}

/** The ratio of summed totals (R1). */
export function ratioOfTotals(totals: ActivityTotals, config: RatioConfig): RatioResult {
  const numerator = config.makerWeight.times(totals.maker).plus(config.takerWeight.times(totals.taker));
  const denominator = totals.weightedRequests;
  return {
    ratio: denominator.isZero() ? null : numerator.dividedBy(denominator),
    numerator,
    denominator,
    makerVolume: totals.maker,
    takerVolume: totals.taker,
    volume: totals.maker.plus(totals.taker),
    requests: totals.requests,
  };
}

/**
 * The trade ratio of one account's (or any set of) contract activity (R1, R2):
 * (makerWeight x maker volume + takerWeight x taker volume) / sum of counted requests x coefficient.
 *
 * @example
 * ```ts
 * const r = tradeRatio([
 *   { contract: 'BTC_USDT', makerVolume: '100', takerVolume: '200', place: 30 },
 *   { contract: 'SOL_USDT', makerVolume: '20', takerVolume: '20', place: 35 },
 * ])
 * r.numerator.toString()   // '318'
 * r.denominator.toString() // '44'
 * ```
 */
export function tradeRatio(activity: readonly ContractActivity[], options: RatioOptions | RatioConfig = {}): RatioResult {
  const config = resolveRatioOptions(options);
  return ratioOfTotals(totalsOf(activity, config), config);
}

/**
 * Compares two ratios exactly, by cross-multiplying their fractions. An undefined ratio (no
 * counted request) sorts below every defined one. Returns -1, 0 or 1.
 */
export function compareRatio(a: RatioResult, b: RatioResult): -1 | 0 | 1 {
  const aNone = a.denominator.isZero();
  const bNone = b.denominator.isZero();
  if (aNone || bNone) return aNone && bNone ? 0 : aNone ? -1 : 1;
  return a.numerator.times(b.denominator).comparedTo(b.numerator.times(a.denominator)) as -1 | 0 | 1;
}
