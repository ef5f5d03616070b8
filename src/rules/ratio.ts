import { InvalidInputError } from '../errors.js';
import type { Dec, DecimalInput } from '../internal/decimal.js';
import {
  type Fixed,
  FIXED_ZERO,
  FixedSum,
  fixedAdd,
  fixedCmp,
  fixedFromDec,
  fixedMul,
  fixedMulInt,
  toDec,
} from '../internal/fixed.js';
import { addCounts, checkFields, parseCount, parseNonNegativeDecimal, resolveOptions } from '../internal/parse.js';
import { GATE } from './gate/rulebook.js';
import type { InstrumentWeights } from './instruments.js';
import type { MultiplierTable } from './okx/instruments.js';
import type { RatioRules } from './rulebook.js';

/**
 * One contract's activity over some period: USDT volumes as maker and taker, and the order requests
 * sent for it. Volumes are decimal strings as the API sends them (numbers and Decimals are accepted
 * too); counts are integers. A batch request counts once per order in it (see docs/rules.md#r1).
 *
 * @example
 * ```ts
 * import { tradeRatio, type ContractActivity } from 'traderatio/rules'
 *
 * const btc: ContractActivity = { contract: 'btc-usdt', makerVolume: '900', takerVolume: '100', place: 80, cancel: 20 }
 * tradeRatio([btc]).ratio?.toString() // '9.9'
 * ```
 */
export interface ContractActivity {
  /**
   * The instrument, as the exchange's API writes it: a Gate contract (`BTC_USDT`; `BTC-USDT` and
   * lower case are read as the same, see docs/rules.md#r2), an OKX instrument id (`BTC-USDT-SWAP`,
   * see docs/okx.md#o3).
   */
  readonly contract: string;
  /**
   * OKX only: the instrument's kind (`SPOT`, `MARGIN`, `SWAP`, `FUTURES`, `OPTION`), where it is
   * given rather than read from the id; it must agree with the id. Gate's rules refuse it.
   */
  readonly kind?: string;
  /** USDT notional filled as maker. @default "0" */
  readonly makerVolume?: DecimalInput;
  /** USDT notional filled as taker. @default "0" */
  readonly takerVolume?: DecimalInput;
  /** Order placement requests (Gate counts failed ones, OKX only successful ones). @default 0 */
  readonly place?: number;
  /** Order amendment requests. @default 0 */
  readonly amend?: number;
  /** Order cancellation requests. @default 0 */
  readonly cancel?: number;
}

/** The fields of a {@link ContractActivity} under Gate's rules. */
export const CONTRACT_ACTIVITY_FIELDS: readonly string[] = GATE.ratio.instruments.activityFields;

/**
 * Options of the trade ratio (see docs/rules.md#r1, #r2).
 *
 * @example
 * ```ts
 * import { tradeRatio, type RatioOptions } from 'traderatio/rules'
 *
 * const options: RatioOptions = { countCancels: false, coefficients: { SOL_USDT: '0.5' } }
 * tradeRatio([{ contract: 'SOL_USDT', makerVolume: '90', place: 10, cancel: 10 }], options).ratio?.toString() // '18'
 * ```
 */
export interface RatioOptions {
  /** Weight of maker volume in the numerator. @default the rulebook's: Gate "1", OKX "1" */
  readonly makerWeight?: DecimalInput;
  /** Weight of taker volume in the numerator. @default the rulebook's: Gate "0.9", OKX "1" */
  readonly takerWeight?: DecimalInput;
  /** Gate: coefficient per contract. @default { BTC_USDT: "1", ETH_USDT: "1" } */
  readonly coefficients?: Readonly<Record<string, DecimalInput>>;
  /** Gate: coefficient of every contract not in `coefficients`. @default "0.4" */
  readonly defaultCoefficient?: DecimalInput;
  /** OKX: the symbol multiplier table, replaced as a whole. @default OKX_MULTIPLIERS */
  readonly multipliers?: MultiplierTable;
  /**
   * Count cancels in the denominator. Gate's interface description counts place, amend and
   * cancel; the exchange's own formula text counts only new and modified orders (`false`). OKX
   * counts new and amend only. @default the rulebook's: Gate true, OKX false
   */
  readonly countCancels?: boolean;
}

/** The fields of {@link RatioOptions} under a rulebook's ratio rules: Gate's by default. */
export function ratioOptionFields(rules: RatioRules = GATE.ratio): readonly string[] {
  return ['makerWeight', 'takerWeight', ...rules.instruments.optionFields, 'countCancels'];
}

/** The fields of {@link RatioOptions} under Gate's rules. */
export const RATIO_OPTION_FIELDS: readonly string[] = Object.freeze(ratioOptionFields());

/** {@link RatioOptions} resolved and validated once. Opaque: build it with {@link resolveRatioOptions}. */
export interface RatioConfig {
  readonly kind: 'ratio-config';
  readonly makerWeight: Fixed;
  readonly takerWeight: Fixed;
  /** The instruments: how they are named and what each request on one weighs. */
  readonly weights: InstrumentWeights;
  /** The weight of an instrument (named as `weights.nameOf` names it), exact. */
  readonly weightOf: (name: string) => Fixed;
  readonly countCancels: boolean;
  /** The fields an activity entry may have. */
  readonly activityFields: readonly string[];
  /** The ratio with no counted request, by whether there is volume; `null`: undefined. */
  readonly withoutRequests: { readonly withVolume: Fixed; readonly withoutVolume: Fixed } | null;
}

/**
 * Validates ratio options into their complete form, the defaults and the instruments being those
 * of `rules` (Gate's unless given). Pass the result wherever options are taken to skip validating
 * them again. Leave the options out for the defaults: `null` is refused with an
 * {@link InvalidInputError}, as it is by every function that takes these options.
 */
export function resolveRatioOptions(options?: RatioOptions | RatioConfig, rules: RatioRules = GATE.ratio): RatioConfig {
  return resolveOptions<RatioOptions, RatioConfig>(
    options,
    'ratio-config',
    ratioOptionFields(rules),
    'the ratio options',
    (o) => ratioConfigOf(o, rules),
  );
}

/** Resolves ratio options whose fields have been checked (the family options add their own). */
export function ratioConfigOf(o: RatioOptions, rules: RatioRules = GATE.ratio): RatioConfig {
  if (o.countCancels !== undefined && typeof o.countCancels !== 'boolean') {
    throw new InvalidInputError('`countCancels`', o.countCancels, 'a boolean');
  }
  const makerWeight = fixedFromDec(parseNonNegativeDecimal(o.makerWeight ?? rules.makerWeight, '`makerWeight`'));
  const takerWeight = fixedFromDec(parseNonNegativeDecimal(o.takerWeight ?? rules.takerWeight, '`takerWeight`'));
  const weights = rules.instruments.resolve(o as Readonly<Record<string, unknown>>);
  // Instruments of one weight share one Fixed: the denominator is summed per distinct weight.
  const byWeight = new Map<Dec, Fixed>();
  const without = rules.withoutRequests;
  return {
    kind: 'ratio-config',
    makerWeight,
    takerWeight,
    weights,
    weightOf: (name) => {
      const d = weights.weightOf(name);
      let w = byWeight.get(d);
      if (w === undefined) byWeight.set(d, (w = fixedFromDec(d)));
      return w;
    },
    countCancels: o.countCancels ?? rules.countCancels,
    activityFields: rules.instruments.activityFields,
    withoutRequests:
      without === null
        ? null
        : {
            withVolume: fixedFromDec(parseNonNegativeDecimal(without.withVolume, '`withoutRequests.withVolume`')),
            withoutVolume: fixedFromDec(
              parseNonNegativeDecimal(without.withoutVolume, '`withoutRequests.withoutVolume`'),
            ),
          },
  };
}

/**
 * Additive totals of activity: everything the ratio needs, and nothing it does not. Totals of two
 * periods or two accounts add up ({@link addTotals}), which is how windows and families are summed.
 * Amounts are exact {@link Fixed} decimals.
 */
export interface ActivityTotals {
  /** Sum of maker volume, USDT. */
  readonly maker: Fixed;
  /** Sum of taker volume, USDT. */
  readonly taker: Fixed;
  /** Sum over contracts of counted requests times coefficient: the ratio's denominator. */
  readonly weightedRequests: Fixed;
  /** Counted requests, unweighted. */
  readonly requests: number;
}

/** Totals of no activity. */
export const EMPTY_TOTALS: ActivityTotals = Object.freeze({
  maker: FIXED_ZERO,
  taker: FIXED_ZERO,
  weightedRequests: FIXED_ZERO,
  requests: 0,
});

/** Adds two totals. */
export function addTotals(a: ActivityTotals, b: ActivityTotals): ActivityTotals {
  if (b === EMPTY_TOTALS) return a;
  if (a === EMPTY_TOTALS) return b;
  return {
    maker: fixedAdd(a.maker, b.maker),
    taker: fixedAdd(a.taker, b.taker),
    weightedRequests: fixedAdd(a.weightedRequests, b.weightedRequests),
    requests: addCounts(a.requests, b.requests, 'counted requests'),
  };
}

/**
 * Validates one list of contract activity and sums it. Each contract may appear once per list
 * (after name normalisation); a repeat is refused rather than merged, since it is far more often
 * a mistake (a row pasted twice) than two halves of one figure. `where` names the list in errors.
 */
export function totalsOf(
  activity: readonly ContractActivity[],
  config: RatioConfig,
  place: string | (() => string) = '',
): ActivityTotals {
  if (!Array.isArray(activity)) throw new InvalidInputError(`\`contracts\`${where(place)}`, activity, 'an array');
  if (activity.length === 0) return EMPTY_TOTALS;
  // A timeline sums tens of thousands of short lists: the accumulators are reused, not made anew
  // (unless a getter in the input calls back in here while they are in use).
  const s = scratch.busy ? newScratch() : scratch;
  s.busy = true;
  try {
    return sumList(activity, config, place, s);
  } finally {
    s.busy = false;
  }
}

interface Scratch {
  busy: boolean;
  readonly maker: FixedSum;
  readonly taker: FixedSum;
  readonly seen: string[];
  readonly coefficients: Fixed[];
  readonly counts: number[];
}
const newScratch = (): Scratch => ({
  busy: false,
  maker: new FixedSum(),
  taker: new FixedSum(),
  seen: [],
  coefficients: [],
  counts: [],
});
const scratch = newScratch();

/** The list's name for an error message, built only when one is thrown. */
function where(place: string | (() => string)): string {
  return typeof place === 'string' ? place : place();
}

function sumList(
  activity: readonly ContractActivity[],
  config: RatioConfig,
  place: string | (() => string),
  s: Scratch,
): ActivityTotals {
  // Short lists (the common case: a few contracts a day) find repeats by scanning, long ones by a
  // Set.
  const seen: string[] | Set<string> = activity.length <= 16 ? s.seen : new Set<string>();
  s.seen.length = 0;
  s.coefficients.length = 0;
  s.counts.length = 0;
  const maker = s.maker.reset();
  const taker = s.taker.reset();
  // Requests are integers: sum them per coefficient and multiply once per coefficient.
  const { coefficients, counts } = s;
  let requests = 0;
  for (let j = 0; j < activity.length; j++) {
    const entry = activity[j]!;
    if (typeof entry !== 'object' || entry === null) {
      throw new InvalidInputError(`a contract entry${where(place)}`, entry, 'an object');
    }
    checkFields(entry, config.activityFields, () => `\`contracts[${j}]\`${where(place)}`);
    const contract =
      (entry.kind === undefined ? config.weights.nameOf(entry.contract) : undefined) ??
      config.weights.read(entry, `\`contract\`${where(place)}`);
    if (Array.isArray(seen) ? seen.includes(contract) : seen.has(contract)) {
      throw new InvalidInputError(
        `\`contract\`${where(place)}`,
        entry.contract,
        `each contract once per list (${contract} appears twice)`,
      );
    }
    if (Array.isArray(seen)) seen.push(contract);
    else seen.add(contract);
    if (entry.makerVolume !== undefined) addAmount(maker, entry.makerVolume, 'makerVolume', contract, place);
    if (entry.takerVolume !== undefined) addAmount(taker, entry.takerVolume, 'takerVolume', contract, place);
    const counted =
      count(entry.place, 'place', contract, place) +
      count(entry.amend, 'amend', contract, place) +
      (config.countCancels ? count(entry.cancel, 'cancel', contract, place) : 0);
    if (counted > 0) {
      const coefficient = config.weightOf(contract);
      const k = coefficients.indexOf(coefficient);
      if (k < 0) {
        coefficients.push(coefficient);
        counts.push(counted);
      } else {
        counts[k] = counts[k]! + counted;
      }
      requests += counted;
      if (!Number.isSafeInteger(requests))
        throw new InvalidInputError(`counted requests${where(place)}`, requests, 'a total below 2^53');
    }
  }
  let weightedRequests = FIXED_ZERO;
  for (let k = 0; k < coefficients.length; k++)
    weightedRequests = fixedAdd(weightedRequests, fixedMulInt(coefficients[k]!, counts[k]!));
  return { maker: maker.value(), taker: taker.value(), weightedRequests, requests };
}

/** Reads an optional request count; the field is named only when it is refused. */
function count(value: number | undefined, field: string, contract: string, place: string | (() => string)): number {
  if (value === undefined) return 0;
  // Counts below 2^50 keep every sum of three exact.
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value < 2 ** 50) return value;
  const name = `\`${field}\` of ${contract}${where(place)}`;
  parseCount(value, name); // refuses what is no count at all
  throw new InvalidInputError(name, value, 'a non-negative integer below 2^50');
}

/** Adds a non-negative amount: plain text the fast way, anything else validated by decimal.js. */
function addAmount(
  sum: FixedSum,
  value: DecimalInput,
  field: string,
  contract: string,
  place: string | (() => string),
): void {
  if (typeof value === 'string' && sum.addText(value)) return;
  sum.add(fixedFromDec(parseNonNegativeDecimal(value, `\`${field}\` of ${contract}${where(place)}`)));
}

/**
 * A trade ratio with everything it was made of, all exact.
 *
 * @example
 * ```ts
 * import { tradeRatio, type RatioResult } from 'traderatio/rules'
 *
 * const r: RatioResult = tradeRatio([{ contract: 'BTC_USDT', makerVolume: '100', takerVolume: '200', place: 30 }])
 * r.numerator.toString() // '280'
 * r.denominator.toString() // '30'
 * r.ratio?.toDecimalPlaces(2).toString() // '9.33'
 * tradeRatio([]).ratio // null
 * ```
 */
export interface RatioResult {
  /**
   * numerator / denominator. With no counted request: `null` under Gate's rules (the ratio is
   * undefined and the account sits at the lowest tier; see docs/rules.md#r1), OKX's report figures
   * under OKX's (9999 with volume, 0 without; see docs/okx.md#o2). Rounded to 80 significant digits
   * where the quotient does not terminate: tiers are decided on the exact fraction, never on this.
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
  /** Maker + taker volume, unweighted, USDT (what the family's own-volume threshold compares; see docs/rules.md#r7). */
  readonly volume: Dec;
  /** Counted requests, unweighted. */
  readonly requests: number;
}

/** The exact fraction behind a ratio, as the rules compare it. */
export interface Fraction {
  readonly numerator: Fixed;
  readonly denominator: Fixed;
  readonly volume: Fixed;
}

/** makerWeight x maker volume + takerWeight x taker volume, exact. */
function numeratorOf(totals: ActivityTotals, config: RatioConfig): Fixed {
  return fixedAdd(fixedMul(config.makerWeight, totals.maker), fixedMul(config.takerWeight, totals.taker));
}

const ONE: Fixed = Object.freeze({ units: 1n, scale: 0 });

/**
 * The exact fraction summed totals are rated by (see docs/rules.md#r1): the numerator over the
 * weighted requests; with no counted request, the rulebook's figure over 1 where it has one (OKX's
 * 9999 with volume, 0 without), else the undefined ratio (a zero denominator, the lowest tier).
 */
export function fractionOfTotals(totals: ActivityTotals, config: RatioConfig): Fraction {
  const volume = fixedAdd(totals.maker, totals.taker);
  const without = config.withoutRequests;
  if (totals.weightedRequests.units === 0n && without !== null) {
    return { numerator: volume.units === 0n ? without.withoutVolume : without.withVolume, denominator: ONE, volume };
  }
  return { numerator: numeratorOf(totals, config), denominator: totals.weightedRequests, volume };
}

/**
 * The exact fraction a ratio is rated by: kept for results made here, read back from the Decimals
 * otherwise (a zero denominator with a ratio given is that ratio over 1).
 */
export function fractionOf(r: RatioResult): Fraction {
  if (r instanceof ComputedRatio) return r.fraction;
  const volume = fixedFromDec(r.volume);
  if (r.denominator.isZero() && r.ratio !== null) return { numerator: fixedFromDec(r.ratio), denominator: ONE, volume };
  return { numerator: fixedFromDec(r.numerator), denominator: fixedFromDec(r.denominator), volume };
}

/**
 * A ratio whose Decimals are made when first read: a timeline rates every account every day but
 * shows few of them, and a tier never needs the quotient. Fields are getters on the prototype, so
 * copy them by name (or through `toJSON()`), not with `{ ...spread }`.
 */
class ComputedRatio implements RatioResult {
  /** The fraction the ratio is rated by. */
  readonly fraction: Fraction;
  readonly requests: number;
  private readonly totals: ActivityTotals;
  private readonly config: RatioConfig;
  private memo:
    | { ratio?: Dec | null; numerator?: Dec; denominator?: Dec; maker?: Dec; taker?: Dec; volume?: Dec }
    | undefined;

  constructor(totals: ActivityTotals, config: RatioConfig) {
    this.totals = totals;
    this.config = config;
    this.requests = totals.requests;
    this.fraction = fractionOfTotals(totals, config);
  }

  private get m() {
    return (this.memo ??= {});
  }
  get ratio(): Dec | null {
    const m = this.m;
    if (m.ratio === undefined) {
      const { numerator, denominator } = this.fraction;
      m.ratio =
        denominator.units === 0n
          ? null
          : denominator === ONE
            ? toDec(numerator)
            : this.numerator.dividedBy(this.denominator);
    }
    return m.ratio;
  }
  get numerator(): Dec {
    return (this.m.numerator ??= toDec(numeratorOf(this.totals, this.config)));
  }
  get denominator(): Dec {
    return (this.m.denominator ??= toDec(this.totals.weightedRequests));
  }
  get makerVolume(): Dec {
    return (this.m.maker ??= toDec(this.totals.maker));
  }
  get takerVolume(): Dec {
    return (this.m.taker ??= toDec(this.totals.taker));
  }
  get volume(): Dec {
    return (this.m.volume ??= toDec(this.fraction.volume));
  }
  /** In `console.log` and `util.inspect`: the fields of {@link toJSON}, not the exact sums inside. */
  [Symbol.for('nodejs.util.inspect.custom')](
    _depth: number,
    options: object,
    inspect?: (value: unknown, options: object) => string,
  ): unknown {
    const plain = this.toJSON();
    return inspect === undefined ? plain : `RatioResult ${inspect(plain, options)}`;
  }

  /** Plain JSON: decimals as strings, the ratio as a string or null. */
  toJSON(): Record<string, string | number | null> {
    return {
      ratio: this.ratio?.toString() ?? null,
      numerator: this.numerator.toString(),
      denominator: this.denominator.toString(),
      makerVolume: this.makerVolume.toString(),
      takerVolume: this.takerVolume.toString(),
      volume: this.volume.toString(),
      requests: this.requests,
    };
  }
}

/** The ratio of summed totals (see docs/rules.md#r1). */
export function ratioOfTotals(totals: ActivityTotals, config: RatioConfig): RatioResult {
  return new ComputedRatio(totals, config);
}

/**
 * The trade ratio of one account's (or any set of) contract activity (see docs/rules.md#r1, #r2):
 * (makerWeight x maker volume + takerWeight x taker volume) / sum of counted requests x coefficient.
 *
 * @example
 * ```ts
 * import { tradeRatio } from 'traderatio/rules'
 *
 * const r = tradeRatio([
 *   { contract: 'BTC_USDT', makerVolume: '100', takerVolume: '200', place: 30 },
 *   { contract: 'SOL_USDT', makerVolume: '20', takerVolume: '20', place: 35 },
 * ])
 * r.numerator.toString()   // '318'
 * r.denominator.toString() // '44'
 * ```
 */
export function tradeRatio(activity: readonly ContractActivity[], options?: RatioOptions): RatioResult;
/** @internal */
export function tradeRatio(activity: readonly ContractActivity[], options?: RatioOptions | RatioConfig): RatioResult;
export function tradeRatio(
  activity: readonly ContractActivity[],
  options: RatioOptions | RatioConfig = {},
): RatioResult {
  const config = resolveRatioOptions(options);
  return ratioOfTotals(totalsOf(activity, config), config);
}

/**
 * Compares two ratios exactly, by cross-multiplying their fractions. An undefined ratio (no
 * counted request) sorts below every defined one. Returns -1, 0 or 1.
 *
 * @example
 * ```ts
 * import { tradeRatio, compareRatio } from 'traderatio/rules'
 *
 * compareRatio(tradeRatio([{ contract: 'BTC_USDT', makerVolume: '2', place: 1 }]), tradeRatio([])) // 1
 * ```
 */
export function compareRatio(a: RatioResult, b: RatioResult): -1 | 0 | 1 {
  return compareFractions(fractionOf(a), fractionOf(b));
}

/** {@link compareRatio} on exact fractions. */
export function compareFractions(x: Fraction, y: Fraction): -1 | 0 | 1 {
  const aNone = x.denominator.units === 0n;
  const bNone = y.denominator.units === 0n;
  if (aNone || bNone) return aNone && bNone ? 0 : aNone ? -1 : 1;
  return fixedCmp(fixedMul(x.numerator, y.denominator), fixedMul(y.numerator, x.denominator));
}
