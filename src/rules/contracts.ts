import { InvalidInputError } from '../errors.js';
import { Dec, type DecimalInput } from '../internal/decimal.js';
import { parsePositiveDecimal } from '../internal/parse.js';
import type { InstrumentBook, InstrumentWeights } from './instruments.js';

const CONTRACT_NAME = /^[A-Z0-9]+(_[A-Z0-9]+)+$/;

/**
 * The published contract coefficients (see docs/rules.md#r2): BTC_USDT and ETH_USDT weigh 1; every
 * other contract weighs {@link DEFAULT_COEFFICIENT}.
 *
 * @example
 * ```ts
 * import { tradeRatio, DEFAULT_COEFFICIENTS } from 'traderatio/rules'
 *
 * DEFAULT_COEFFICIENTS // { BTC_USDT: '1', ETH_USDT: '1' }
 * const coefficients = { ...DEFAULT_COEFFICIENTS, SOL_USDT: '0.5' }
 * tradeRatio([{ contract: 'SOL_USDT', place: 10 }], { coefficients }).denominator.toString() // '5'
 * ```
 */
export const DEFAULT_COEFFICIENTS: Readonly<Record<string, string>> = Object.freeze({
  BTC_USDT: '1',
  ETH_USDT: '1',
});

/**
 * The coefficient of a contract missing from the table (see docs/rules.md#r2): 0.4.
 *
 * @example
 * ```ts
 * import { tradeRatio, DEFAULT_COEFFICIENT } from 'traderatio/rules'
 *
 * DEFAULT_COEFFICIENT // '0.4'
 * tradeRatio([{ contract: 'SOL_USDT', place: 10 }]).denominator.toString() // '4'
 * ```
 */
export const DEFAULT_COEFFICIENT = '0.4';

/**
 * Normalises a contract name to the API's spelling (see docs/rules.md#r2): upper case, parts joined
 * by `_`. `btc_usdt` and `BTC-USDT` are the same contract as `BTC_USDT`; names with spaces, other
 * punctuation or a single part are refused.
 *
 * @example
 * ```ts
 * import { normalizeContract } from 'traderatio/rules'
 *
 * normalizeContract('btc-usdt') // 'BTC_USDT'
 * normalizeContract('ETH_USDT') // 'ETH_USDT'
 * ```
 */
export function normalizeContract(name: unknown, field = '`contract`'): string {
  const normal = contractName(name);
  if (normal === undefined) throw new InvalidInputError(field, name, 'a contract name such as "BTC_USDT"');
  return normal;
}

/** {@link normalizeContract} without the error: the normalised name, or undefined. */
export function contractName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  if (CONTRACT_NAME.test(name)) return name;
  const normal = name.toUpperCase().replaceAll('-', '_');
  return CONTRACT_NAME.test(normal) ? normal : undefined;
}

/** Coefficients resolved once: a table of exact decimals keyed by normalised contract name. */
export interface CoefficientTable {
  readonly byContract: ReadonlyMap<string, Dec>;
  readonly fallback: Dec;
}

/**
 * Resolves a coefficient table (see docs/rules.md#r2). Every coefficient must be a positive
 * decimal; contract names are normalised and may not repeat after normalisation.
 */
export function resolveCoefficients(
  table: Readonly<Record<string, DecimalInput>> = DEFAULT_COEFFICIENTS,
  fallback: DecimalInput = DEFAULT_COEFFICIENT,
): CoefficientTable {
  const byContract = new Map<string, Dec>();
  for (const [name, value] of Object.entries(table)) {
    const contract = normalizeContract(name, '`coefficients` key');
    if (byContract.has(contract)) {
      throw new InvalidInputError('`coefficients` key', name, `a contract listed once (${contract} is already listed)`);
    }
    byContract.set(contract, parsePositiveDecimal(value, `\`coefficients.${name}\``));
  }
  return { byContract, fallback: parsePositiveDecimal(fallback, '`defaultCoefficient`') };
}

/** The coefficient of a (normalised) contract: its table entry, or the default. */
export function coefficientOf(table: CoefficientTable, contract: string): Dec {
  return table.byContract.get(contract) ?? table.fallback;
}

/** The fields of a Gate activity entry: a contract and its volumes and requests. */
const GATE_ACTIVITY_FIELDS: readonly string[] = Object.freeze([
  'contract',
  'makerVolume',
  'takerVolume',
  'place',
  'amend',
  'cancel',
]);

/**
 * Gate's contracts as an instrument book (see docs/rules.md#r2): names as the API writes them
 * (`BTC_USDT`), each weighing its coefficient, {@link DEFAULT_COEFFICIENTS} and
 * {@link DEFAULT_COEFFICIENT} unless the options give `coefficients` and `defaultCoefficient`.
 */
export const GATE_CONTRACTS: InstrumentBook = Object.freeze({
  optionFields: Object.freeze(['coefficients', 'defaultCoefficient']),
  activityFields: GATE_ACTIVITY_FIELDS,
  resolve(options: Readonly<Record<string, unknown>>): InstrumentWeights {
    return contractWeights(
      resolveCoefficients(
        options['coefficients'] as Readonly<Record<string, DecimalInput>> | undefined,
        options['defaultCoefficient'] as DecimalInput | undefined,
      ),
    );
  },
});

/** A coefficient table as an instrument book's weights. */
function contractWeights(table: CoefficientTable): InstrumentWeights {
  let heaviest = table.fallback;
  for (const c of table.byContract.values()) heaviest = Dec.max(heaviest, c);
  return {
    expected: 'a contract name such as "BTC_USDT"',
    nameOf: contractName,
    read: (entry, field) => contractName(entry.contract) ?? normalizeContract(entry.contract, field),
    weightOf: (name) => coefficientOf(table, name),
    defaultWeightOf: () => table.fallback,
    isListed: (name) => table.byContract.has(name),
    heaviest,
    defaultWeights: [table.fallback],
    weightName: 'coefficient',
    unlistedLike(_name, taken) {
      for (let i = 1; ; i++) {
        const name = `OTHER${i === 1 ? '' : i}_USDT`;
        if (!table.byContract.has(name) && !taken(name)) return name;
      }
    },
  };
}
