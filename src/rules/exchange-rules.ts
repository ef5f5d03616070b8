import { InvalidInputError } from '../errors.js';
import type { DecimalInput } from '../internal/decimal.js';
import { checkFields, parseCount, parseNonNegativeDecimal, parsePositiveInteger } from '../internal/parse.js';
import { type AbuseOptions, resolveAbuseOptions } from './abuse.js';
import { DAY_MS } from './calendar.js';
import {
  type AccountActivity,
  type FamilyOptions,
  type FamilyRating,
  rateFamily,
  resolveFamilyOptions,
} from './family.js';
import { GATE } from './gate/rulebook.js';
import { type TierMargins, tierMargins } from './margins.js';
import { OKX } from './okx/rulebook.js';
import {
  type ContractActivity,
  type RatioOptions,
  type RatioResult,
  resolveRatioOptions,
  tradeRatio,
} from './ratio.js';
import type { ReportedTier } from './report.js';
import type { Rulebook } from './rulebook.js';
import { type SpotFillOptions, resolveSpotFillOptions } from './spot-fill.js';
import { type Tier, type TierRow, type TierTable, tierFor, tierOfRatio, tierTableOf } from './tiers.js';
import { type Timeline, type TimelineInput, buildTimeline } from './timeline/timeline.js';
import { isTieredVip, parseVipLevel } from './vip.js';

/**
 * The pure rules of one exchange, built from its rulebook ({@link rulesOf}): the functions of
 * `traderatio/rules` with the rulebook's tables, weights, eligibility and timing as their
 * defaults. Options given to each still override a default, as they do on Gate's functions.
 *
 * @example
 * ```ts
 * import { type ExchangeRules, okx } from 'traderatio/rules'
 *
 * const rules: ExchangeRules = okx
 * rules.tierFor('3.01').limit // 1750
 * rules.isTieredVip(4) // false
 * ```
 */
export interface ExchangeRules {
  /** The rulebook the rules are built from. */
  readonly rulebook: Rulebook;
  /** Its tier table, validated. */
  readonly tiers: TierTable;
  /** The trade (fill) ratio of some activity. */
  tradeRatio(activity: readonly ContractActivity[], options?: RatioOptions): RatioResult;
  /** The tier of a ratio (`null`: none counted) in the rulebook's table, or in `tiers`. */
  tierFor(ratio: DecimalInput | null, tiers?: TierTable | readonly TierRow[]): Tier;
  /** The tier of a computed ratio, decided on its exact fraction. */
  tierOfRatio(ratio: RatioResult, tiers?: TierTable | readonly TierRow[]): Tier;
  /** Whether an account at this VIP level is tiered by its ratio. */
  isTieredVip(level: number): boolean;
  /** A family's ratios, tiers and limits at one snapshot; `vipLevel` defaults to the tiered level. */
  rateFamily(accounts: readonly AccountActivity[], options?: FamilyOptions, vipLevel?: number): FamilyRating;
  /** A family's limit timeline, by the rulebook's timing. */
  buildTimeline(input: TimelineInput, options?: FamilyOptions): Timeline;
  /** The margins of a ratio to the tiers around it. */
  tierMargins(
    ratio: RatioResult,
    options?: {
      readonly tiers?: TierTable | readonly TierRow[];
      readonly makerWeight?: DecimalInput;
      readonly coefficient?: DecimalInput;
    },
  ): TierMargins;
  /** Reads the answer of the exchange's report endpoint (`rulebook.report.endpoint`). */
  readReport(answer: unknown): readonly ReportedTier[];
}

const built = new WeakMap<Rulebook, ExchangeRules>();

/**
 * The rules of a rulebook: Gate's ({@link GATE}), OKX's ({@link OKX}) or a variant of one. The
 * rulebook is validated once, each field named where it is wrong.
 *
 * @example
 * ```ts
 * import { OKX, rulesOf } from 'traderatio/rules'
 *
 * // OKX's rules with lowerings at once, as Gate lowers (see docs/okx.md#o7).
 * const atOnce = rulesOf({ ...OKX, timing: { ...OKX.timing, lowering: 'at-snapshot' } })
 * atOnce.rulebook.timing.lowering // 'at-snapshot'
 * ```
 */
export function rulesOf(rulebook: Rulebook): ExchangeRules {
  const known = built.get(rulebook);
  if (known !== undefined) return known;
  checkRulebook(rulebook);
  const tiers = tierTableOf(rulebook);
  const rules: ExchangeRules = Object.freeze({
    rulebook,
    tiers,
    tradeRatio: (activity: readonly ContractActivity[], options?: RatioOptions) =>
      tradeRatio(activity, resolveRatioOptions(options, rulebook.ratio)),
    tierFor: (ratio: DecimalInput | null, table: TierTable | readonly TierRow[] = tiers) => tierFor(ratio, table),
    tierOfRatio: (ratio: RatioResult, table: TierTable | readonly TierRow[] = tiers) => tierOfRatio(ratio, table),
    isTieredVip: (level: number) => isTieredVip(level, rulebook.tieredVipLevel),
    rateFamily: (accounts: readonly AccountActivity[], options?: FamilyOptions, vipLevel?: number) =>
      rateFamily(accounts, resolveFamilyOptions(options, rulebook), vipLevel),
    buildTimeline: (input: TimelineInput, options?: FamilyOptions) =>
      buildTimeline(input, resolveFamilyOptions(options, rulebook)),
    tierMargins: (ratio: RatioResult, options: Parameters<ExchangeRules['tierMargins']>[1] = {}) =>
      // Options that are no object go as given, to be refused as Gate's function refuses them.
      tierMargins(
        ratio,
        typeof options === 'object' && options !== null
          ? { tiers, makerWeight: rulebook.ratio.makerWeight, ...options }
          : options,
      ),
    readReport: (answer: unknown) => rulebook.report.read(answer, tiers),
  });
  built.set(rulebook, rules);
  return rules;
}

/** The rulebooks by name: what `--exchange` takes. */
const RULEBOOKS: readonly Rulebook[] = [GATE, OKX];

/**
 * The names of the rulebooks {@link rulebookNamed} knows.
 *
 * @example
 * ```ts
 * import { RULEBOOK_NAMES } from 'traderatio/rules'
 *
 * RULEBOOK_NAMES // ['gate', 'okx']
 * ```
 */
export const RULEBOOK_NAMES: readonly string[] = Object.freeze(RULEBOOKS.map((b) => b.name));

/**
 * A rulebook by the exchange's name (`gate`, `okx`, any case); another name is refused, naming
 * `field` and the names known.
 *
 * @example
 * ```ts
 * import { rulebookNamed } from 'traderatio/rules'
 *
 * rulebookNamed('OKX').tieredVipLevel // 5
 * let refused: unknown
 * try { rulebookNamed('binance', '--exchange') } catch (e) { refused = e }
 * (refused as Error).message // 'Expected --exchange to be one of gate, okx, got "binance"'
 * ```
 */
export function rulebookNamed(name: unknown, field = '`exchange`'): Rulebook {
  const book = typeof name === 'string' ? RULEBOOKS.find((b) => b.name === name.toLowerCase()) : undefined;
  if (book === undefined) throw new InvalidInputError(field, name, `one of ${RULEBOOK_NAMES.join(', ')}`);
  return book;
}

const RULEBOOK_FIELDS = [
  'name',
  'title',
  'limited',
  'ratio',
  'tiers',
  'tieredVipLevel',
  'highestVipLevel',
  'ruleIds',
  'family',
  'timing',
  'throttles',
  'report',
];

/** Checks every field of a rulebook, naming the first that is wrong. */
function checkRulebook(book: Rulebook): void {
  const at = (path: string): string => `\`rulebook.${path}\``;
  const object = (value: unknown, path: string, fields: readonly string[]): Record<string, unknown> => {
    if (typeof value !== 'object' || value === null) throw new InvalidInputError(at(path), value, 'an object');
    checkFields(value, fields, at(path));
    return value as Record<string, unknown>;
  };
  const text = (value: unknown, path: string): void => {
    if (typeof value !== 'string' || value.length === 0)
      throw new InvalidInputError(at(path), value, 'a non-empty string');
  };
  const oneOf = (value: unknown, path: string, values: readonly string[]): void => {
    if (!values.includes(value as string)) {
      throw new InvalidInputError(at(path), value, values.map((v) => `"${v}"`).join(' or '));
    }
  };
  if (typeof book !== 'object' || book === null) throw new InvalidInputError('the rulebook', book, 'a rulebook');
  checkFields(book, RULEBOOK_FIELDS, 'the rulebook');
  text(book.name, 'name');
  text(book.title, 'title');
  text(book.limited, 'limited');
  const ratio = object(book.ratio, 'ratio', [
    'makerWeight',
    'takerWeight',
    'countCancels',
    'countsRefused',
    'withoutRequests',
    'instruments',
  ]);
  parseNonNegativeDecimal(ratio['makerWeight'], at('ratio.makerWeight'));
  parseNonNegativeDecimal(ratio['takerWeight'], at('ratio.takerWeight'));
  for (const flag of ['countCancels', 'countsRefused']) {
    if (typeof ratio[flag] !== 'boolean') throw new InvalidInputError(at(`ratio.${flag}`), ratio[flag], 'a boolean');
  }
  if (ratio['withoutRequests'] !== null) {
    const without = object(ratio['withoutRequests'], 'ratio.withoutRequests', ['withVolume', 'withoutVolume']);
    parseNonNegativeDecimal(without['withVolume'], at('ratio.withoutRequests.withVolume'));
    parseNonNegativeDecimal(without['withoutVolume'], at('ratio.withoutRequests.withoutVolume'));
  }
  const instruments = object(ratio['instruments'], 'ratio.instruments', ['optionFields', 'activityFields', 'resolve']);
  if (typeof instruments['resolve'] !== 'function') {
    throw new InvalidInputError(at('ratio.instruments.resolve'), instruments['resolve'], 'a function');
  }
  const tiers = object(book.tiers, 'tiers', ['rows', 'windowMs']);
  parsePositiveInteger(tiers['windowMs'], at('tiers.windowMs'));
  tierTableOf(book);
  const highest = parseCount(book.highestVipLevel, at('highestVipLevel'));
  const ids = object(book.ruleIds, 'ruleIds', ['ratio', 'weights', 'tiers', 'family']);
  for (const id of ['ratio', 'weights', 'tiers', 'family']) text(ids[id], `ruleIds.${id}`);
  parseVipLevel(book.tieredVipLevel, at('tieredVipLevel'), highest);
  const family = object(book.family, 'family', ['ownVolumeThreshold']);
  parseNonNegativeDecimal(family['ownVolumeThreshold'], at('family.ownVolumeThreshold'));
  const timing = object(book.timing, 'timing', ['raiseAfterMs', 'lowering', 'vipChanges', 'newSubAccountDays']);
  const raise = parseCount(timing['raiseAfterMs'], at('timing.raiseAfterMs'));
  if (raise >= DAY_MS) throw new InvalidInputError(at('timing.raiseAfterMs'), raise, 'less than a day (86400000)');
  oneOf(timing['lowering'], 'timing.lowering', ['at-snapshot', 'after-grace']);
  oneOf(timing['vipChanges'], 'timing.vipChanges', ['at-once', 'at-snapshot']);
  parsePositiveInteger(timing['newSubAccountDays'], at('timing.newSubAccountDays'));
  const throttles = object(book.throttles, 'throttles', ['abuse', 'spotFill']);
  if (throttles['abuse'] !== null) resolveAbuseOptions(throttles['abuse'] as AbuseOptions);
  if (throttles['spotFill'] !== null) resolveSpotFillOptions(throttles['spotFill'] as SpotFillOptions);
  const report = object(book.report, 'report', ['endpoint', 'read']);
  text(report['endpoint'], 'report.endpoint');
  if (typeof report['read'] !== 'function')
    throw new InvalidInputError(at('report.read'), report['read'], 'a function');
}

/**
 * Gate's rules built from its rulebook: the same as the functions of `traderatio/rules`.
 *
 * @example
 * ```ts
 * import { gate, tierFor } from 'traderatio/rules'
 *
 * gate.tierFor('8.19').limit === tierFor('8.19').limit // true
 * ```
 */
export const gate: ExchangeRules = rulesOf(GATE);

/**
 * OKX's rules built from its rulebook (see docs/okx.md).
 *
 * @example
 * ```ts
 * import { OKX_WORKED_EXAMPLE, okx } from 'traderatio/rules'
 *
 * okx.tradeRatio(OKX_WORKED_EXAMPLE[0]!.contracts).ratio?.toDecimalPlaces(2).toString() // '10.43'
 * okx.rateFamily(OKX_WORKED_EXAMPLE).accounts.map((a) => a.tier.limit) // [1750, 1750, 1750]
 * ```
 */
export const okx: ExchangeRules = rulesOf(OKX);
