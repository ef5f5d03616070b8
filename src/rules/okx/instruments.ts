import { InvalidInputError } from '../../errors.js';
import { Dec, type DecimalInput } from '../../internal/decimal.js';
import { checkFields, parsePositiveDecimal } from '../../internal/parse.js';
import type { InstrumentBook, InstrumentWeights } from '../instruments.js';

/**
 * The kinds of OKX instruments (OKX's `instType`). Margin orders trade spot instruments and weigh
 * as spot; a margin instrument's id reads as spot, so `MARGIN` is only ever given.
 *
 * @example
 * ```ts
 * import { type InstrumentKind, readInstrument } from 'traderatio/rules'
 *
 * const kind: InstrumentKind = readInstrument('BTC-USDT-250328').kind
 * kind // 'FUTURES'
 * ```
 */
export type InstrumentKind = 'SPOT' | 'MARGIN' | 'SWAP' | 'FUTURES' | 'OPTION';

/** The kinds, in the order messages list them. */
export const INSTRUMENT_KINDS: readonly InstrumentKind[] = Object.freeze([
  'SPOT',
  'MARGIN',
  'SWAP',
  'FUTURES',
  'OPTION',
]);

/**
 * An OKX instrument as its id reads: the id, its kind and its family (`BTC-USDT` for
 * `BTC-USDT-SWAP`, `BTC-USDT-250328` and `BTC-USDT-250328-60000-C`; a spot pair is its own family).
 *
 * @example
 * ```ts
 * import { type Instrument, readInstrument } from 'traderatio/rules'
 *
 * const option: Instrument = readInstrument('btc-usd-250328-60000-c')
 * option // { id: 'BTC-USD-250328-60000-C', kind: 'OPTION', family: 'BTC-USD' }
 * ```
 */
export interface Instrument {
  readonly id: string;
  readonly kind: InstrumentKind;
  readonly family: string;
}

const PART = '[A-Z0-9]+';
const EXPIRY = '(\\d{2})(\\d{2})(\\d{2})';
const SHAPES: readonly { readonly kind: InstrumentKind; readonly pattern: RegExp }[] = [
  { kind: 'SWAP', pattern: new RegExp(`^(${PART}-${PART})-SWAP$`) },
  { kind: 'FUTURES', pattern: new RegExp(`^(${PART}-${PART})-${EXPIRY}$`) },
  { kind: 'OPTION', pattern: new RegExp(`^(${PART}-${PART})-${EXPIRY}-\\d+(\\.\\d+)?-[CP]$`) },
  { kind: 'SPOT', pattern: new RegExp(`^(${PART}-${PART})$`) },
];

/** What an OKX instrument id looks like, for messages. */
const EXPECTED_ID =
  'an OKX instrument id whose kind can be read: a swap ("BTC-USDT-SWAP"), an expiry future ("BTC-USDT-250328"), an option ("BTC-USD-250328-60000-C") or a spot pair ("BTC-USDT")';

/** Reads an id without an error: the instrument, or `undefined` when no kind's shape fits it. */
function instrumentOf(id: string): Instrument | undefined {
  const upper = id.toUpperCase();
  for (const { kind, pattern } of SHAPES) {
    const m = pattern.exec(upper);
    if (m === null) continue;
    // An expiry is a date: month 01-12, day 01-31.
    if ((kind === 'FUTURES' || kind === 'OPTION') && !isExpiry(m[3]!, m[4]!)) return undefined;
    return { id: upper, kind, family: m[1]! };
  }
  return undefined;
}

function isExpiry(month: string, day: string): boolean {
  const mm = Number(month);
  const dd = Number(day);
  return mm >= 1 && mm <= 12 && dd >= 1 && dd <= 31;
}

/**
 * Reads an OKX instrument id (see docs/okx.md#o3): its kind from its shape (a `-SWAP` suffix, an
 * expiry date `YYMMDD`, an option's strike and `C` or `P`, or a spot pair), or as given in `kind`,
 * which must agree with the id (`MARGIN` for a spot pair). Lower case is read as upper case. A
 * Gate contract name (`BTC_USDT`), an id no kind's shape fits or an unknown kind is refused,
 * naming the field and the value.
 *
 * @example
 * ```ts
 * import { readInstrument } from 'traderatio/rules'
 *
 * readInstrument('ETH-USDT-SWAP').family // 'ETH-USDT'
 * readInstrument('BTC-USDT', 'MARGIN').kind // 'MARGIN'
 * let refused: unknown
 * try { readInstrument('BTC_USDT') } catch (e) { refused = e }
 * (refused as Error).message.startsWith('Expected `contract` to be an OKX instrument id') // true
 * ```
 */
export function readInstrument(id: unknown, kind?: unknown, field = '`contract`'): Instrument {
  const read = typeof id === 'string' ? instrumentOf(id) : undefined;
  if (read === undefined) throw new InvalidInputError(field, id, EXPECTED_ID);
  if (kind === undefined) return read;
  const name = `\`kind\` of ${read.id}`;
  if (typeof kind !== 'string' || !(INSTRUMENT_KINDS as readonly string[]).includes(kind.toUpperCase())) {
    throw new InvalidInputError(name, kind, `one of ${INSTRUMENT_KINDS.join(', ')}`);
  }
  const given = kind.toUpperCase() as InstrumentKind;
  if (given === read.kind) return read;
  if (given === 'MARGIN' && read.kind === 'SPOT') return { ...read, kind: 'MARGIN' };
  throw new InvalidInputError(
    name,
    kind,
    read.kind === 'SPOT' ? '"SPOT" or "MARGIN", as its id reads' : `"${read.kind}", as its id reads`,
  );
}

/**
 * How one kind's requests weigh (see docs/okx.md#o3): by instrument id or by family, the
 * multipliers of the ids or families listed, and the multiplier of every other one.
 *
 * @example
 * ```ts
 * import { type MultiplierRule, OKX_MULTIPLIERS } from 'traderatio/rules'
 *
 * const swaps: MultiplierRule = OKX_MULTIPLIERS.SWAP
 * swaps.other // '0.2'
 * ```
 */
export interface MultiplierRule {
  /** Whether the listed names are instrument ids or families. */
  readonly by: 'instrument' | 'family';
  /** The listed ids or families and their multipliers. */
  readonly listed: Readonly<Record<string, DecimalInput>>;
  /** The multiplier of every id or family not listed. */
  readonly other: DecimalInput;
}

/**
 * A symbol multiplier table: one rule per kind (margin weighs as spot). Replaced as a whole.
 *
 * @example
 * ```ts
 * import { type MultiplierTable, OKX_MULTIPLIERS, okx } from 'traderatio/rules'
 *
 * const multipliers: MultiplierTable = { ...OKX_MULTIPLIERS, OPTION: { by: 'family', listed: { 'BTC-USD': '0.2' }, other: '0.1' } }
 * okx.tradeRatio([{ contract: 'BTC-USD-250328-60000-C', place: 10 }], { multipliers }).denominator.toString() // '2'
 * ```
 */
export interface MultiplierTable {
  readonly SPOT: MultiplierRule;
  readonly SWAP: MultiplierRule;
  readonly FUTURES: MultiplierRule;
  readonly OPTION: MultiplierRule;
}

/**
 * OKX's symbol multipliers (see docs/okx.md#o3): swaps by id (BTC and ETH against USDT and USD 1,
 * others 0.2), expiry futures by family (the same four 0.3, others 0.1), spot by id (BTC-USDT and
 * ETH-USDT 0.5, others 0.1), options 0.1.
 *
 * @example
 * ```ts
 * import { OKX_MULTIPLIERS } from 'traderatio/rules'
 *
 * OKX_MULTIPLIERS.FUTURES.listed['BTC-USD'] // '0.3'
 * OKX_MULTIPLIERS.SPOT.other // '0.1'
 * ```
 */
export const OKX_MULTIPLIERS: MultiplierTable = Object.freeze({
  SWAP: Object.freeze({
    by: 'instrument',
    listed: Object.freeze({ 'BTC-USDT-SWAP': '1', 'BTC-USD-SWAP': '1', 'ETH-USDT-SWAP': '1', 'ETH-USD-SWAP': '1' }),
    other: '0.2',
  }),
  FUTURES: Object.freeze({
    by: 'family',
    listed: Object.freeze({ 'BTC-USDT': '0.3', 'BTC-USD': '0.3', 'ETH-USDT': '0.3', 'ETH-USD': '0.3' }),
    other: '0.1',
  }),
  SPOT: Object.freeze({
    by: 'instrument',
    listed: Object.freeze({ 'BTC-USDT': '0.5', 'ETH-USDT': '0.5' }),
    other: '0.1',
  }),
  OPTION: Object.freeze({ by: 'family', listed: Object.freeze({}), other: '0.1' }),
}) as MultiplierTable;

const TABLE_KINDS = ['SPOT', 'SWAP', 'FUTURES', 'OPTION'] as const;
type TableKind = (typeof TABLE_KINDS)[number];

interface ResolvedRule {
  readonly by: 'instrument' | 'family';
  readonly listed: ReadonlyMap<string, Dec>;
  readonly other: Dec;
}

/** Validates a multiplier table: every kind's rule, names of that kind, positive multipliers. */
function resolveMultipliers(table: unknown): Readonly<Record<TableKind, ResolvedRule>> {
  if (typeof table !== 'object' || table === null || Array.isArray(table)) {
    throw new InvalidInputError('`multipliers`', table, 'a table { SPOT, SWAP, FUTURES, OPTION } of multiplier rules');
  }
  checkFields(table, TABLE_KINDS, '`multipliers`');
  const out = {} as Record<TableKind, ResolvedRule>;
  for (const kind of TABLE_KINDS) {
    const field = `\`multipliers.${kind}\``;
    const rule = (table as Record<string, unknown>)[kind];
    if (typeof rule !== 'object' || rule === null) {
      throw new InvalidInputError(field, rule, 'a rule { by, listed, other } (the table is replaced as a whole)');
    }
    checkFields(rule, ['by', 'listed', 'other'], field);
    const r = rule as Partial<MultiplierRule>;
    if (r.by !== 'instrument' && r.by !== 'family') {
      throw new InvalidInputError(`${field.slice(0, -1)}.by\``, r.by, '"instrument" or "family"');
    }
    const listedField = `${field.slice(0, -1)}.listed\``;
    if (typeof r.listed !== 'object' || r.listed === null) {
      throw new InvalidInputError(listedField, r.listed, 'an object of names and multipliers');
    }
    const listed = new Map<string, Dec>();
    for (const [name, value] of Object.entries(r.listed)) {
      const key = listedName(name, kind, r.by, listedField);
      if (listed.has(key))
        throw new InvalidInputError(listedField, name, `a name listed once (${key} is already listed)`);
      listed.set(key, parsePositiveDecimal(value, `${listedField.slice(0, -1)}.${name}\``));
    }
    out[kind] = { by: r.by, listed, other: parsePositiveDecimal(r.other, `${field.slice(0, -1)}.other\``) };
  }
  return out;
}

/** A listed name, checked against its kind: an id of that kind, or a family (`BASE-QUOTE`). */
function listedName(name: string, kind: TableKind, by: 'instrument' | 'family', field: string): string {
  const read = instrumentOf(name);
  if (by === 'family') {
    if (read?.kind === 'SPOT') return read.id;
    throw new InvalidInputError(field, name, `an instrument family such as "BTC-USDT" (${kind} is listed by family)`);
  }
  if (read?.kind === kind) return read.id;
  throw new InvalidInputError(field, name, `an instrument id of kind ${kind} (${kind} is listed by instrument id)`);
}

/**
 * OKX's instruments as an instrument book (see docs/okx.md#o3): ids as OKX writes them, each
 * weighing the multiplier of its kind's rule, {@link OKX_MULTIPLIERS} unless the options give
 * `multipliers`. An activity entry may give its `kind`.
 */
export const OKX_INSTRUMENTS: InstrumentBook = Object.freeze({
  optionFields: Object.freeze(['multipliers']),
  activityFields: Object.freeze(['contract', 'kind', 'makerVolume', 'takerVolume', 'place', 'amend', 'cancel']),
  resolve(options: Readonly<Record<string, unknown>>): InstrumentWeights {
    return multiplierWeights(resolveMultipliers(options['multipliers'] ?? OKX_MULTIPLIERS));
  },
});

function multiplierWeights(table: Readonly<Record<TableKind, ResolvedRule>>): InstrumentWeights {
  const ruleOf = (i: Instrument): ResolvedRule => table[i.kind === 'MARGIN' ? 'SPOT' : i.kind];
  const keyOf = (i: Instrument, rule: ResolvedRule): string => (rule.by === 'instrument' ? i.id : i.family);
  const known = new Map<string, Instrument>();
  const instrument = (name: string): Instrument => {
    let i = known.get(name);
    if (i === undefined) known.set(name, (i = readInstrument(name)));
    return i;
  };
  let heaviest = new Dec(0);
  const defaultWeights: Dec[] = [];
  for (const rule of Object.values(table)) {
    heaviest = Dec.max(heaviest, rule.other);
    for (const m of rule.listed.values()) heaviest = Dec.max(heaviest, m);
    if (!defaultWeights.some((w) => w.equals(rule.other))) defaultWeights.push(rule.other);
  }
  return {
    expected: 'an OKX instrument id such as "BTC-USDT-SWAP"',
    nameOf: (name) => (typeof name === 'string' ? instrumentOf(name)?.id : undefined),
    read: (entry, field) => readInstrument(entry.contract, entry.kind, field).id,
    weightOf(name) {
      const i = instrument(name);
      const rule = ruleOf(i);
      return rule.listed.get(keyOf(i, rule)) ?? rule.other;
    },
    defaultWeightOf: (name) => ruleOf(instrument(name)).other,
    isListed(name) {
      const i = instrument(name);
      const rule = ruleOf(i);
      return rule.listed.has(keyOf(i, rule));
    },
    heaviest,
    defaultWeights,
    weightName: 'multiplier',
    unlistedLike(name, taken) {
      const i = instrument(name);
      // The id's base replaced: OTHER-USDT-SWAP for BTC-USDT-SWAP, OTHER-USDT-250328 for BTC-USDT-250328.
      const rest = i.id.slice(i.id.indexOf('-'));
      for (let k = 1; ; k++) {
        const other = instrument(`OTHER${k === 1 ? '' : k}${rest}`);
        const rule = ruleOf(other);
        if (!rule.listed.has(keyOf(other, rule)) && !taken(other.id)) return other.id;
      }
    },
  };
}
