import { InvalidInputError } from '../errors.js';
import { type AbuseOptions, type HourlyActivity, resolveAbuseOptions } from '../rules/abuse.js';
import { coefficientOf, normalizeContract } from '../rules/contracts.js';
import { Dec, type DecimalInput } from '../rules/decimal.js';
import { type AccountActivity, type FamilyConfig, type FamilyOptions, type RatioBasis, FAMILY_OPTION_FIELDS, rateFamily, readFamilyOptions } from '../rules/family.js';
import { toDec } from '../rules/fixed.js';
import { accountMargins } from '../rules/margins.js';
import { parseCount, parseId, parseNonNegativeDecimal, readOptions } from '../rules/parse.js';
import { type RatioResult, compareRatio } from '../rules/ratio.js';
import { type SpotFillOptions, resolveSpotFillOptions } from '../rules/spot-fill.js';
import { type Tier, tierOfRatio } from '../rules/tiers.js';
import { TIERED_VIP_LEVEL, isTieredVip, parseVipLevel, tierInForce } from '../rules/vip.js';
import { type PairCount, isHeavy, withAccountApart, withAmends, withHeavyMoved, withMakerAdded, withMakerShare, withRequestsDropped } from './edits.js';
import { type ThrottleNearMiss, throttleNearMisses } from './throttles.js';

/**
 * What the advisor reads: a family's 7-day activity, and what a request log adds to it.
 *
 * @example
 * ```ts
 * import { type AdviceInput, advise } from 'traderatio'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * const input: AdviceInput = { accounts, pairs: [{ account: 'A', contract: 'BTC_USDT', pairs: 30 }] }
 * advise(input).findings.find((f) => f.kind === 'amend-pairs')?.change // 'send 30 cancel + place pairs as one amend each'
 * ```
 */
export interface AdviceInput {
  /** Each account's activity over the 7-day window, per contract (as {@link rateFamily} takes it). */
  readonly accounts: readonly AccountActivity[];
  /** Cancel + place pairs that could have been amends, per account and contract, inside the same window. @default [] */
  readonly pairs?: readonly PairCount[];
  /** Hourly activity per account: futures order requests (R9) and spot order requests (R14), with the USDT traded. @default [] */
  readonly hours?: readonly { readonly account: string; readonly market: 'futures' | 'spot'; readonly hours: readonly HourlyActivity[] }[];
}

/**
 * Options of {@link advise}: those of the family's ratios and limits, and the shares the findings try.
 *
 * @example
 * ```ts
 * import { type AdviseOptions, advise } from 'traderatio'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * const options: AdviseOptions = { takerShare: '1' } // try all taker volume as maker
 * advise(accounts, options).findings.find((f) => f.kind === 'taker-to-maker')?.figures // { share: '1', movedVolume: '100', numeratorGain: '10' }
 * ```
 */
export interface AdviseOptions extends FamilyOptions {
  /** The family's VIP level (R4). @default 14 */
  readonly vipLevel?: number;
  /** Share of taker volume tried as maker volume, 0 to 1. @default "0.5" */
  readonly takerShare?: DecimalInput;
  /** Share of the requests on heavy contracts tried on a contract of the default coefficient, 0 to 1. @default "0.5" */
  readonly heavyShare?: DecimalInput;
  /** How close to tripping a 24-hour throttle counts as a near miss: the share of requests more. @default "0.1" */
  readonly nearMiss?: DecimalInput;
  /** The abuse throttle (R9). @default the published one */
  readonly abuse?: AbuseOptions;
  /** The spot low-fill throttle (R14). @default the published one */
  readonly spotFill?: SpotFillOptions;
  /**
   * Advise one account of the family: findings about an account are made for it alone, and all
   * are ranked by the limit they give it (then by the family's). @default every account
   */
  readonly account?: string;
}

/**
 * An account's rating in an outcome.
 *
 * @example
 * ```ts
 * import { type AccountOutcome, advise } from 'traderatio'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * const a: AccountOutcome | undefined = advise(accounts).now.accounts[0]
 * a?.tier.limit // 250
 * a?.basis // 'aggregated'
 * ```
 */
export interface AccountOutcome {
  readonly account: string;
  readonly own: RatioResult;
  readonly effective: RatioResult;
  readonly basis: RatioBasis;
  readonly tier: Tier;
  /** The tier's limit minus the limit now, requests per second. */
  readonly gain: number;
}

/**
 * A family rated by the rules (R1-R4, R7).
 *
 * @example
 * ```ts
 * import { type Outcome, advise } from 'traderatio'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * const now: Outcome = advise(accounts).now
 * now.aggregatedTier.limit // 250
 * now.gain // 0
 * ```
 */
export interface Outcome {
  readonly aggregated: RatioResult;
  readonly aggregatedTier: Tier;
  readonly accounts: readonly AccountOutcome[];
  /** The sum of the accounts' gains, requests per second. */
  readonly gain: number;
}

/**
 * What a finding changes.
 *
 * @example
 * ```ts
 * import { type FindingKind, advise } from 'traderatio'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * const kinds: FindingKind[] = advise(accounts).findings.map((f) => f.kind)
 * kinds // ['next-tier-maker', 'next-tier-requests', 'heavy-contracts', 'taker-to-maker']
 * ```
 */
export type FindingKind =
  | 'amend-pairs' | 'heavy-contracts' | 'taker-to-maker' | 'family-apart' | 'family-threshold' | 'family-broker'
  | 'next-tier-maker' | 'next-tier-requests';

/**
 * One change to the order flow, with what it alone would give.
 *
 * @example
 * ```ts
 * import { type Finding, advise } from 'traderatio'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * const best: Finding | undefined = advise(accounts).findings[0]
 * best?.change // 'A: 410 USDT more maker volume for tier 5 (300 r/s)'
 * best?.outcome.accounts[0]?.tier.limit // 300
 * ```
 */
export interface Finding {
  readonly kind: FindingKind;
  /** The rules it rests on (`R1`, `R2`, `R3`, `R7`). */
  readonly rules: readonly string[];
  /** What to change, in a sentence. */
  readonly change: string;
  /** The account it is about, or `null` for the whole family. */
  readonly account: string | null;
  /** True when it depends on the engine's strategy (where it quotes, which accounts it groups) rather than on how it sends orders. */
  readonly informational: boolean;
  /** Its figures: counts as numbers, amounts as exact decimal strings. */
  readonly figures: Readonly<Record<string, number | string>>;
  /** The family rated with this change alone. */
  readonly outcome: Outcome;
}

/**
 * The advice for a family.
 *
 * @example
 * ```ts
 * import { type Advice, advise } from 'traderatio'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * const advice: Advice = advise(accounts)
 * advice.combination?.kinds // ['taker-to-maker', 'heavy-contracts']
 * advice.throttles // []
 * ```
 */
export interface Advice {
  readonly vipLevel: number;
  /** The family as it is. */
  readonly now: Outcome;
  /** Findings ranked by the limit they add (to `account`, or summed over accounts), then by the aggregated ratio they give. */
  readonly findings: readonly Finding[];
  /** The changes to how orders are sent made together (amends, maker instead of taker, quoting off the heavy contracts), or `null` when there is none. */
  readonly combination: { readonly kinds: readonly FindingKind[]; readonly activity: readonly AccountActivity[]; readonly outcome: Outcome } | null;
  /** Hourly checks of the 24-hour throttles that tripped or came within the margin (R9, R14). */
  readonly throttles: readonly ThrottleNearMiss[];
}

interface Resolved {
  readonly family: FamilyConfig;
  readonly vipLevel: number;
  readonly takerShare: Dec;
  readonly heavyShare: Dec;
  readonly nearMiss: Dec;
  readonly abuse: ReturnType<typeof resolveAbuseOptions>;
  readonly spotFill: ReturnType<typeof resolveSpotFillOptions>;
  readonly account: string | null;
}

function share(value: DecimalInput | undefined, fallback: string, field: string): Dec {
  const d = parseNonNegativeDecimal(value ?? fallback, field);
  if (d.greaterThan(1)) throw new InvalidInputError(field, value, 'a share from 0 to 1');
  return d;
}

/** The fields of {@link AdviseOptions}. */
const ADVISE_OPTION_FIELDS: readonly string[] = [...FAMILY_OPTION_FIELDS, 'vipLevel', 'takerShare', 'heavyShare', 'nearMiss', 'abuse', 'spotFill', 'account'];

function resolve(options: AdviseOptions): Resolved {
  const o = readOptions(options, 'the advise options');
  return {
    family: readFamilyOptions(o, ADVISE_OPTION_FIELDS, 'the advise options'),
    vipLevel: parseVipLevel(o.vipLevel ?? TIERED_VIP_LEVEL),
    takerShare: share(o.takerShare, '0.5', '`takerShare`'),
    heavyShare: share(o.heavyShare, '0.5', '`heavyShare`'),
    nearMiss: parseNonNegativeDecimal(o.nearMiss ?? '0.1', '`nearMiss`'),
    abuse: resolveAbuseOptions(o.abuse),
    spotFill: resolveSpotFillOptions(o.spotFill),
    account: o.account === undefined ? null : parseId(o.account, '`account`'),
  };
}

/** Rates `activity` with the rules, and each account's gain over `now`. */
function outcomeOf(activity: readonly AccountActivity[], r: Resolved, now: Outcome | null, family: FamilyConfig = r.family): Outcome {
  const rating = rateFamily(activity, family, r.vipLevel);
  const aggregatedTier = tierInForce(r.vipLevel, tierOfRatio(rating.aggregated, family.tiers), family.tiers);
  const accounts = rating.accounts.map((a) => {
    const before = now?.accounts.find((b) => b.account === a.account)?.tier.limit ?? a.tier.limit;
    return { account: a.account, own: a.own, effective: a.effective, basis: a.basis, tier: a.tier, gain: a.tier.limit - before };
  });
  return { aggregated: rating.aggregated, aggregatedTier, accounts, gain: accounts.reduce((s, a) => s + a.gain, 0) };
}

/** Two outcomes of parts of the family as one: the accounts of both, in the family's order. */
function joined(order: readonly AccountActivity[], a: Outcome, b: Outcome): Outcome {
  const accounts = order.map((x) => a.accounts.find((y) => y.account === x.account) ?? b.accounts.find((y) => y.account === x.account)!);
  return { aggregated: a.aggregated, aggregatedTier: a.aggregatedTier, accounts, gain: accounts.reduce((s, x) => s + x.gain, 0) };
}

/** Reads the input: every account and contract validated by the rules, pairs and hours checked against it. */
function readInput(input: AdviceInput | readonly AccountActivity[]): Required<AdviceInput> {
  const given = Array.isArray(input) ? { accounts: input as readonly AccountActivity[] } : readOptions(input as AdviceInput, 'the advice input', ['accounts', 'pairs', 'hours']);
  if (!Array.isArray(given.accounts) || given.accounts.length === 0) throw new InvalidInputError('`accounts`', given.accounts, 'a non-empty array of account activity');
  const pairs = given.pairs ?? [];
  if (!Array.isArray(pairs)) throw new InvalidInputError('`pairs`', pairs, 'an array of { account, contract, pairs }');
  pairs.forEach((p, i) => {
    const account = parseId(p?.account, `\`pairs[${i}].account\``);
    const contract = normalizeContract(p.contract, `\`pairs[${i}].contract\``);
    const n = parseCount(p.pairs, `\`pairs[${i}].pairs\``);
    const entry = given.accounts.find((a) => a.account === account)?.contracts.find((c) => normalizeContract(c.contract) === contract);
    const most = Math.min(entry?.place ?? 0, entry?.cancel ?? 0);
    if (n > most) throw new InvalidInputError(`\`pairs[${i}].pairs\``, n, `at most the placements and the cancels of ${account} on ${contract} (${most})`);
  });
  const hours = given.hours ?? [];
  if (!Array.isArray(hours)) throw new InvalidInputError('`hours`', hours, 'an array of { account, market, hours }');
  hours.forEach((h, i) => {
    parseId(h?.account, `\`hours[${i}].account\``);
    if (h.market !== 'futures' && h.market !== 'spot') throw new InvalidInputError(`\`hours[${i}].market\``, h.market, '"futures" or "spot"');
  });
  return { accounts: given.accounts, pairs, hours };
}

/**
 * The ratio advisor: the changes to a family's order flow that would raise its ratios, each with
 * the exact ratios, tiers and limits it alone would give, ranked by the limit it adds, and all of
 * the order-flow changes together. Every figure comes from the rules run on the changed activity:
 * - `amend-pairs` (R1): cancel + place pairs sent as one amend, one counted request saved per pair
 *   (none when cancels are not counted);
 * - `heavy-contracts` (R2): the split of requests between heavy contracts and the others, and a
 *   share of the heavy contracts' requests sent on a contract of the default coefficient;
 * - `taker-to-maker` (R1): a share of taker volume filled as maker (0.1 more per USDT by default);
 * - `family-apart`, `family-threshold`, `family-broker` (R7): an account whose own ratio pulls the
 *   aggregated ratio down, rated apart; an account under the own-volume threshold whose own ratio
 *   beats the aggregated one, with the volume that takes it over; the family as a broker family;
 * - `next-tier-maker`, `next-tier-requests` (R3): per account, the maker volume to add or the
 *   requests to drop for the next tier, over every path of R7 (the margins `plan` gives).
 * With `account`, the findings about an account are made for it alone and ranked by what they give it.
 * With hourly activity, the checks of the 24-hour throttles (R9, R14) that tripped or came within
 * `nearMiss` of tripping, with the fill volume that would have kept each clear.
 *
 * @example
 * ```ts
 * import { advise } from 'traderatio'
 * import { WORKED_EXAMPLE } from 'traderatio/rules'
 *
 * const advice = advise(WORKED_EXAMPLE, { ownVolumeThreshold: '0' })
 * const a = advice.findings.find((f) => f.kind === 'next-tier-maker' && f.account === 'A')
 * a?.figures.makerVolume                                              // '122'
 * a?.outcome.accounts.find((x) => x.account === 'A')?.tier.limit      // 300
 * ```
 */
export function advise(activity: AdviceInput | readonly AccountActivity[], options: AdviseOptions = {}): Advice {
  const r = resolve(options);
  const input = readInput(activity);
  if (r.account !== null && !input.accounts.some((a) => a.account === r.account)) {
    throw new InvalidInputError('`account`', r.account, `an account of the activity (${input.accounts.map((a) => a.account).join(', ')})`);
  }
  const advised = (a: { readonly account: string }): boolean => r.account === null || a.account === r.account;
  const ratio = r.family.ratio;
  const now = outcomeOf(input.accounts, r, null);
  const findings: Finding[] = [];
  const add = (f: Omit<Finding, 'outcome'>, edited: readonly AccountActivity[]): void => {
    findings.push({ ...f, outcome: outcomeOf(edited, r, now) });
  };
  const edits: { kind: FindingKind; edit: (a: readonly AccountActivity[]) => AccountActivity[] }[] = [];

  // R1: cancel + place pairs as amends.
  const pairs = input.pairs.filter((p) => p.pairs > 0);
  if (pairs.length > 0) {
    const edit = (a: readonly AccountActivity[]) => withAmends(a, pairs);
    const outcome = outcomeOf(edit(input.accounts), r, now);
    const count = pairs.reduce((s, p) => s + p.pairs, 0);
    findings.push({
      kind: 'amend-pairs', rules: ['R1'], account: null, informational: false,
      change: `send ${count} cancel + place pair${count === 1 ? '' : 's'} as one amend each`,
      figures: { pairs: count, requestsSaved: now.aggregated.requests - outcome.aggregated.requests },
      outcome,
    });
    edits.push({ kind: 'amend-pairs', edit });
  }

  // R1: taker volume filled as maker.
  const taker = now.aggregated.takerVolume;
  if (!taker.isZero() && !r.takerShare.isZero() && ratio.makerWeight !== ratio.takerWeight) {
    const edit = (a: readonly AccountActivity[]) => withMakerShare(a, r.takerShare);
    const moved = taker.times(r.takerShare);
    add({
      kind: 'taker-to-maker', rules: ['R1'], account: null, informational: false,
      change: `fill ${r.takerShare.times(100).toString()}% of taker volume (${moved.toString()} USDT) as maker`,
      figures: { share: r.takerShare.toString(), movedVolume: moved.toString(), numeratorGain: toDec(ratio.makerWeight).minus(toDec(ratio.takerWeight)).times(moved).toString() },
    }, edit(input.accounts));
    edits.push({ kind: 'taker-to-maker', edit });
  }

  // R2: requests on the heavy contracts.
  const split = (heavy: boolean) => rateFamily(input.accounts.map((a) => ({ account: a.account, contracts: a.contracts.filter((c) => isHeavy(c.contract, ratio) === heavy) })), r.family).aggregated;
  const heavy = split(true);
  const light = split(false);
  if (heavy.requests > 0 && !r.heavyShare.isZero()) {
    const edit = (a: readonly AccountActivity[]) => withHeavyMoved(a, r.heavyShare, ratio);
    add({
      kind: 'heavy-contracts', rules: ['R2'], account: null, informational: true,
      change: `send ${r.heavyShare.times(100).toString()}% of the requests on heavy contracts (coefficient above ${ratio.coefficients.fallback.toString()}) on a contract of coefficient ${ratio.coefficients.fallback.toString()}`,
      figures: {
        heavyRequests: heavy.requests, heavyWeighted: heavy.denominator.toString(), otherRequests: light.requests, otherWeighted: light.denominator.toString(),
        share: r.heavyShare.toString(),
      },
    }, edit(input.accounts));
    edits.push({ kind: 'heavy-contracts', edit });
  }

  // R7: the family.
  if (input.accounts.length > 1 && r.family.familyKind === 'standard') {
    for (const a of now.accounts) {
      if (compareRatio(a.own, now.aggregated) >= 0) continue;
      const { rest, alone } = withAccountApart(input.accounts, a.account);
      const outcome = joined(input.accounts, outcomeOf(rest, r, now), outcomeOf(alone, r, now));
      findings.push({
        kind: 'family-apart', rules: ['R7'], account: a.account, informational: true,
        change: `${a.account}'s own ratio (${a.own.ratio?.toFixed(4) ?? 'none'}) pulls the aggregated ratio down: rated apart from the family`,
        figures: { ownRatio: a.own.ratio?.toString() ?? 'none', aggregatedWithout: outcome.aggregated.ratio?.toString() ?? 'none' },
        outcome,
      });
    }
    const threshold = toDec(r.family.ownVolumeThreshold);
    for (const a of now.accounts.filter(advised)) {
      if (a.basis !== 'aggregated' || compareRatio(a.own, now.aggregated) <= 0 || tierOfRatio(a.own, r.family.tiers).limit <= a.tier.limit) continue;
      const more = threshold.minus(a.own.volume);
      add({
        kind: 'family-threshold', rules: ['R7'], account: a.account, informational: true,
        change: `${a.account} trades ${a.own.volume.toString()} USDT, under the ${threshold.toString()} USDT threshold, with an own ratio above the aggregated one: ${more.toString()} USDT more (as maker) takes it over, to max(own, aggregated)`,
        figures: { volume: a.own.volume.toString(), threshold: threshold.toString(), makerVolume: more.toString() },
      }, withMakerAdded(input.accounts, a.account, more));
    }
    const broker = readFamilyOptions({ ...options, kind: 'broker' }, ADVISE_OPTION_FIELDS, 'the advise options');
    findings.push({
      kind: 'family-broker', rules: ['R7'], account: null, informational: true,
      change: 'rate the family as a broker family (every account by its own ratio)', figures: {},
      outcome: outcomeOf(input.accounts, r, now, broker),
    });
  }

  // R3: the next tier, per account.
  if (isTieredVip(r.vipLevel)) {
    for (const a of now.accounts.filter(advised)) {
      const heaviest = input.accounts.find((x) => x.account === a.account)!.contracts
        .map((c) => coefficientOf(ratio.coefficients, normalizeContract(c.contract))).reduce((m, c) => Dec.max(m, c), new Dec(0));
      // Every path of R7 at once: the aggregated ratio, the own ratio, the own-volume threshold.
      const up = accountMargins(a.own, now.aggregated, r.family, heaviest.isZero() ? {} : { coefficient: heaviest }).up;
      if (up === null) continue;
      const fewer = up.fewerRequests ?? Infinity;
      add({
        kind: 'next-tier-maker', rules: ['R1', 'R3'], account: a.account, informational: false,
        change: `${a.account}: ${up.makerVolume.toString()} USDT more maker volume for tier ${up.tier.tier} (${up.tier.limit} r/s)`,
        figures: { makerVolume: up.makerVolume.toString(), tier: up.tier.tier, limit: up.tier.limit },
      }, withMakerAdded(input.accounts, a.account, up.makerVolume));
      const dropped = fewer === Infinity ? null : withRequestsDropped(input.accounts, a.account, fewer, heaviest, ratio);
      if (dropped !== null) {
        add({
          kind: 'next-tier-requests', rules: ['R1', 'R3'], account: a.account, informational: false,
          change: `${a.account}: ${fewer} requests fewer on contracts of coefficient ${heaviest.toString()} for tier ${up.tier.tier} (${up.tier.limit} r/s)`,
          figures: { fewerRequests: fewer, coefficient: heaviest.toString(), tier: up.tier.tier, limit: up.tier.limit },
        }, dropped);
      }
    }
  }

  const gainOf = (o: Outcome): number => (r.account === null ? o.gain : o.accounts.find((a) => a.account === r.account)!.gain);
  findings.sort((x, y) => gainOf(y.outcome) - gainOf(x.outcome) || y.outcome.gain - x.outcome.gain || compareRatio(y.outcome.aggregated, x.outcome.aggregated));

  let combination: Advice['combination'] = null;
  if (edits.length > 0) {
    const combined = edits.reduce((a, e) => e.edit(a), input.accounts as AccountActivity[]);
    combination = { kinds: edits.map((e) => e.kind), activity: combined, outcome: outcomeOf(combined, r, now) };
  }

  const throttles = input.hours.filter(advised).flatMap((h) => throttleNearMisses(h.account, h.market, h.hours, r.nearMiss, r));
  return { vipLevel: r.vipLevel, now, findings, combination, throttles };
}
