import { InvalidInputError } from '../errors.js';
import type { Dec, DecimalInput } from '../internal/decimal.js';
import { parseId, parseNonNegativeDecimal, readOptions } from '../internal/parse.js';
import { type AbuseOptions, resolveAbuseOptions } from '../rules/abuse.js';
import { rulesOf } from '../rules/exchange-rules.js';
import { type FamilyConfig, type FamilyOptions, familyOptionFields, readFamilyOptions } from '../rules/family.js';
import { GATE } from '../rules/gate/rulebook.js';
import { rateUnit } from '../rules/rate-unit.js';
import type { Rulebook } from '../rules/rulebook.js';
import { type SpotFillOptions, resolveSpotFillOptions } from '../rules/spot-fill.js';
import { parseVipLevel } from '../rules/vip.js';

// The advisor's options, read once under the rulebook they name.

/**
 * Options of {@link advise}: those of the family's ratios and limits, and the shares the findings try.
 *
 * @example
 * ```ts
 * import { type AdviseOptions, advise } from 'traderatio/advise'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * const options: AdviseOptions = { takerShare: '1' } // try all taker volume as maker
 * advise(accounts, options).findings.find((f) => f.kind === 'taker-to-maker')?.figures // { share: '1', movedVolume: '100', numeratorGain: '10' }
 * ```
 */
export interface AdviseOptions extends FamilyOptions {
  /**
   * The exchange's rules the family is rated by: instrument names and weights, tiers, the VIP
   * level tiering starts at, the throttles (OKX's `OKX` has none). @default Gate's (`GATE`)
   */
  readonly rulebook?: Rulebook;
  /** The family's VIP level (see docs/rules.md#r4). @default the rulebook's tiered level (Gate 14, OKX 5) */
  readonly vipLevel?: number;
  /**
   * Share of taker volume tried as maker volume, 0 to 1. Left out, the least share that takes an
   * account to its next tier (rounded up to 0.0001), or 0.5 when no share does. @default the share that reaches a tier
   */
  readonly takerShare?: DecimalInput;
  /** Share of the requests on heavy contracts tried on a contract of the default coefficient, 0 to 1. @default "0.5" */
  readonly heavyShare?: DecimalInput;
  /** How close to tripping a 24-hour throttle counts as a near miss: the share of requests more. @default "0.1" */
  readonly nearMiss?: DecimalInput;
  /** The abuse throttle (see docs/rules.md#r9). @default the published one */
  readonly abuse?: AbuseOptions;
  /** The spot low-fill throttle (see docs/rules.md#r14). @default the published one */
  readonly spotFill?: SpotFillOptions;
  /**
   * Advise one account of the family: findings about an account are made for it alone, and all
   * are ranked by the limit they give it (then by the family's). @default every account
   */
  readonly account?: string;
}

export interface Resolved {
  readonly rulebook: Rulebook;
  /** The unit of a tier's limit in the findings' words: `r/s`, `per 2 s`. */
  readonly unit: string;
  readonly family: FamilyConfig;
  readonly vipLevel: number;
  readonly takerShare: Dec;
  /** Whether the share was given, or is to be found (the least that reaches a tier). */
  readonly takerShareGiven: boolean;
  readonly heavyShare: Dec;
  readonly nearMiss: Dec;
  /** The throttles, `null` where the rulebook has none. */
  readonly abuse: ReturnType<typeof resolveAbuseOptions> | null;
  readonly spotFill: ReturnType<typeof resolveSpotFillOptions> | null;
  readonly account: string | null;
}

function share(value: DecimalInput | undefined, fallback: string, field: string): Dec {
  const d = parseNonNegativeDecimal(value ?? fallback, field);
  if (d.greaterThan(1)) throw new InvalidInputError(field, value, 'a share from 0 to 1');
  return d;
}

/** The fields of {@link AdviseOptions} under a rulebook (its ratio options). */
export const adviseOptionFields = (rulebook: Rulebook): readonly string[] => [
  ...familyOptionFields(rulebook),
  'rulebook',
  'vipLevel',
  'takerShare',
  'heavyShare',
  'nearMiss',
  'abuse',
  'spotFill',
  'account',
];

/** A throttle's options under a rulebook: its defaults, or none where it has no such throttle (then refused if given). */
function throttleOf<O, C>(
  given: O | undefined,
  defaults: O | null,
  resolveThrottle: (o?: O) => C,
  field: string,
  book: Rulebook,
): C | null {
  if (defaults !== null) return resolveThrottle(given);
  if (given !== undefined)
    throw new InvalidInputError(field, given, `nothing: ${book.name} has no such throttle (${book.title})`);
  return null;
}

export function resolve(options: AdviseOptions): Resolved {
  const o = readOptions(options, 'the advise options');
  const rulebook = rulesOf(o.rulebook ?? GATE).rulebook;
  return {
    rulebook,
    unit: rateUnit(rulebook),
    family: readFamilyOptions(o, adviseOptionFields(rulebook), 'the advise options', rulebook),
    vipLevel: parseVipLevel(o.vipLevel ?? rulebook.tieredVipLevel),
    takerShare: share(o.takerShare, '0.5', '`takerShare`'),
    takerShareGiven: o.takerShare !== undefined,
    heavyShare: share(o.heavyShare, '0.5', '`heavyShare`'),
    nearMiss: parseNonNegativeDecimal(o.nearMiss ?? '0.1', '`nearMiss`'),
    abuse: throttleOf(o.abuse, rulebook.throttles.abuse, resolveAbuseOptions, '`abuse`', rulebook),
    spotFill: throttleOf(o.spotFill, rulebook.throttles.spotFill, resolveSpotFillOptions, '`spotFill`', rulebook),
    account: o.account === undefined ? null : parseId(o.account, '`account`'),
  };
}
