import { InvalidInputError } from '../errors.js';
import type { HourlyActivity } from '../rules/abuse.js';
import { Dec } from '../internal/decimal.js';
import {
  type AccountActivity,
  type FamilyConfig,
  type RatioBasis,
  rateFamily,
  readFamilyOptions,
} from '../rules/family.js';
import { toDec } from '../internal/fixed.js';
import { accountMargins } from '../rules/margins.js';
import { parseCount, parseId, readOptions } from '../internal/parse.js';
import { type ContractActivity, type RatioResult, compareRatio } from '../rules/ratio.js';
import { type Tier, tierOfRatio } from '../rules/tiers.js';
import { isTieredVip, tierInForce } from '../rules/vip.js';
import {
  type PairCount,
  isHeavy,
  requestsToDrop,
  withAccountApart,
  withAmends,
  heavyQuoting,
  withHeavyMoved,
  withMakerAdded,
  withMakerShare,
  withRequestsDroppedFrom,
} from './edits.js';
import { type AdviseOptions, type Resolved, adviseOptionFields, resolve } from './options.js';
import { type ThrottleNearMiss, throttleNearMisses } from './throttles.js';

/**
 * What the advisor reads: a family's 7-day activity, and what a request log adds to it.
 *
 * @example
 * ```ts
 * import { type AdviceInput, advise } from 'traderatio/advise'
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
  readonly hours?: readonly {
    readonly account: string;
    readonly market: 'futures' | 'spot';
    readonly hours: readonly HourlyActivity[];
  }[];
}

/**
 * An account's rating in an outcome.
 *
 * @example
 * ```ts
 * import { type AccountOutcome, advise } from 'traderatio/advise'
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
 * import { type Outcome, advise } from 'traderatio/advise'
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
 * import { type FindingKind, advise } from 'traderatio/advise'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * const kinds: FindingKind[] = advise(accounts).findings.map((f) => f.kind)
 * kinds // ['next-tier-maker', 'next-tier-requests', 'taker-to-maker', 'heavy-contracts']
 * ```
 */
export type FindingKind =
  | 'amend-pairs'
  | 'heavy-contracts'
  | 'taker-to-maker'
  | 'family-apart'
  | 'family-threshold'
  | 'family-broker'
  | 'next-tier-maker'
  | 'next-tier-requests';

/**
 * What a finding asks of the desk, the first key of the ranking: `free`, a change to how orders are
 * sent that costs nothing (cancel + place pairs sent as amends); `volume`, a change in what is
 * traded or requested (maker volume, taker volume filled as maker, requests dropped, the volume
 * over the own-volume threshold); `informational`, a choice of strategy or of how the family is
 * set up, ranked apart.
 *
 * @example
 * ```ts
 * import { type FindingCost, advise } from 'traderatio/advise'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * const costs: FindingCost[] = advise({ accounts, pairs: [{ account: 'A', contract: 'BTC_USDT', pairs: 30 }] }).findings.map((f) => f.cost)
 * costs[0] // 'free'
 * costs.at(-1) // 'informational'
 * ```
 */
export type FindingCost = 'free' | 'volume' | 'informational';

/** The order of the costs in the ranking. */
const COST_ORDER: Readonly<Record<FindingCost, number>> = { free: 0, volume: 1, informational: 2 };

/**
 * One change to the order flow, with what it alone would give.
 *
 * @example
 * ```ts
 * import { type Finding, advise } from 'traderatio/advise'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * const best: Finding | undefined = advise(accounts).findings[0]
 * best?.change // 'A: 410 USDT more maker volume for tier 5 (300 r/s)'
 * best?.outcome.accounts[0]?.tier.limit // 300
 * ```
 */
export interface Finding {
  readonly kind: FindingKind;
  /** The rules it rests on, by the rulebook's ids (Gate's `R1`, `R2`, `R3`, `R7`; OKX's `O2`, `O3`, `O4`, `O6`). */
  readonly rules: readonly string[];
  /** What to change, in a sentence. */
  readonly change: string;
  /** The account it is about, or `null` for the whole family. */
  readonly account: string | null;
  /** True when it depends on the engine's strategy (where it quotes, which accounts it groups) rather than on how it sends orders. */
  readonly informational: boolean;
  /** What it asks of the desk: the first key of the ranking. */
  readonly cost: FindingCost;
  /** The limit it adds, requests per second: to `account` when advising one, else summed over the accounts. */
  readonly gain: number;
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
 * import { type Advice, advise } from 'traderatio/advise'
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
  /**
   * Findings ranked by what they ask (free changes, then changes in volume, then informational
   * ones), then by the limit they add (to `account`, or summed over accounts), then by the
   * aggregated ratio they give.
   */
  readonly findings: readonly Finding[];
  /** The changes to how orders are sent made together (amends, maker instead of taker, quoting off the heavy contracts), or `null` when there is none. */
  readonly combination: {
    readonly kinds: readonly FindingKind[];
    readonly activity: readonly AccountActivity[];
    readonly outcome: Outcome;
  } | null;
  /** Hourly checks of the 24-hour throttles that tripped or came within the margin (R9, R14). */
  readonly throttles: readonly ThrottleNearMiss[];
}

/** Rates `activity` with the rules, and each account's gain over `now`. */
function outcomeOf(
  activity: readonly AccountActivity[],
  r: Resolved,
  now: Outcome | null,
  family: FamilyConfig = r.family,
): Outcome {
  const rating = rateFamily(activity, family, r.vipLevel);
  const aggregatedTier = tierInForce(
    r.vipLevel,
    tierOfRatio(rating.aggregated, family.tiers),
    family.tiers,
    r.rulebook.tieredVipLevel,
  );
  const accounts = rating.accounts.map((a) => {
    const before = now?.accounts.find((b) => b.account === a.account)?.tier.limit ?? a.tier.limit;
    return {
      account: a.account,
      own: a.own,
      effective: a.effective,
      basis: a.basis,
      tier: a.tier,
      gain: a.tier.limit - before,
    };
  });
  return { aggregated: rating.aggregated, aggregatedTier, accounts, gain: accounts.reduce((s, a) => s + a.gain, 0) };
}

/** Two outcomes of parts of the family as one: the accounts of both, in the family's order. */
function joined(order: readonly AccountActivity[], a: Outcome, b: Outcome): Outcome {
  const accounts = order.map(
    (x) => a.accounts.find((y) => y.account === x.account) ?? b.accounts.find((y) => y.account === x.account)!,
  );
  return {
    aggregated: a.aggregated,
    aggregatedTier: a.aggregatedTier,
    accounts,
    gain: accounts.reduce((s, x) => s + x.gain, 0),
  };
}

/**
 * Reads the input: every account and contract validated by the rules, pairs and hours checked
 * against it; instrument names as the exchange writes them, so that every edit finds them.
 */
function readInput(input: AdviceInput | readonly AccountActivity[], r: Resolved): Required<AdviceInput> {
  const given = Array.isArray(input)
    ? { accounts: input as readonly AccountActivity[] }
    : readOptions(input as AdviceInput, 'the advice input', ['accounts', 'pairs', 'hours']);
  if (!Array.isArray(given.accounts) || given.accounts.length === 0)
    throw new InvalidInputError('`accounts`', given.accounts, 'a non-empty array of account activity');
  const weights = r.family.ratio.weights;
  // Validated as the rules validate it, each bad value named; then each name as the exchange writes it.
  rateFamily(given.accounts, r.family, r.vipLevel);
  const accounts = (given.accounts as readonly AccountActivity[]).map((a) => ({
    ...a,
    contracts: a.contracts.map((c: ContractActivity) => ({ ...c, contract: weights.nameOf(c.contract) ?? c.contract })),
  }));
  const pairs = given.pairs ?? [];
  if (!Array.isArray(pairs)) throw new InvalidInputError('`pairs`', pairs, 'an array of { account, contract, pairs }');
  pairs.forEach((p, i) => {
    const account = parseId(p?.account, `\`pairs[${i}].account\``);
    const contract = weights.read({ contract: p.contract }, `\`pairs[${i}].contract\``);
    const n = parseCount(p.pairs, `\`pairs[${i}].pairs\``);
    const entry = accounts.find((a) => a.account === account)?.contracts.find((c) => c.contract === contract);
    const most = Math.min(entry?.place ?? 0, entry?.cancel ?? 0);
    if (n > most)
      throw new InvalidInputError(
        `\`pairs[${i}].pairs\``,
        n,
        `at most the placements and the cancels of ${account} on ${contract} (${most})`,
      );
  });
  const hours = given.hours ?? [];
  if (!Array.isArray(hours)) throw new InvalidInputError('`hours`', hours, 'an array of { account, market, hours }');
  hours.forEach((h, i) => {
    parseId(h?.account, `\`hours[${i}].account\``);
    if (h.market !== 'futures' && h.market !== 'spot')
      throw new InvalidInputError(`\`hours[${i}].market\``, h.market, '"futures" or "spot"');
    if ((h.market === 'futures' ? r.abuse : r.spotFill) === null)
      throw new InvalidInputError(
        `\`hours[${i}].market\``,
        h.market,
        `a market with an hourly throttle under ${r.rulebook.title} (${r.rulebook.name} has none)`,
      );
  });
  return {
    accounts,
    pairs: pairs.map((p) => ({ ...p, contract: weights.nameOf(p.contract) ?? p.contract })),
    hours,
  };
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
 * import { WORKED_EXAMPLE } from 'traderatio/rules'
 * import { advise } from 'traderatio/advise'
 *
 * const advice = advise(WORKED_EXAMPLE, { ownVolumeThreshold: '0' })
 * const a = advice.findings.find((f) => f.kind === 'next-tier-maker' && f.account === 'A')
 * a?.figures.makerVolume                                              // '122'
 * a?.outcome.accounts.find((x) => x.account === 'A')?.tier.limit      // 300
 * ```
 */
export function advise(activity: AdviceInput | readonly AccountActivity[], options: AdviseOptions = {}): Advice {
  const r = resolve(options);
  const input = readInput(activity, r);
  if (r.account !== null && !input.accounts.some((a) => a.account === r.account)) {
    throw new InvalidInputError(
      '`account`',
      r.account,
      `an account of the activity (${input.accounts.map((a) => a.account).join(', ')})`,
    );
  }
  const advised = (a: { readonly account: string }): boolean => r.account === null || a.account === r.account;
  // An account without futures activity (a spot-only one) is no subject of a futures finding.
  const trades = (a: AccountOutcome): boolean => a.own.requests > 0 || !a.own.volume.isZero();
  const ratio = r.family.ratio;
  const now = outcomeOf(input.accounts, r, null);
  const gainOf = (o: Outcome): number =>
    r.account === null ? o.gain : o.accounts.find((a) => a.account === r.account)!.gain;
  const findings: Finding[] = [];
  const push = (f: Omit<Finding, 'gain' | 'informational'>): void => {
    findings.push({ ...f, informational: f.cost === 'informational', gain: gainOf(f.outcome) });
  };
  const add = (f: Omit<Finding, 'outcome' | 'gain' | 'informational'>, edited: readonly AccountActivity[]): void =>
    push({ ...f, outcome: outcomeOf(edited, r, now) });
  const edits: { kind: FindingKind; edit: (a: readonly AccountActivity[]) => AccountActivity[] }[] = [];

  // R1: cancel + place pairs as amends.
  const pairs = input.pairs.filter((p) => p.pairs > 0);
  if (pairs.length > 0) {
    const edit = (a: readonly AccountActivity[]) => withAmends(a, pairs);
    const outcome = outcomeOf(edit(input.accounts), r, now);
    const count = pairs.reduce((s, p) => s + p.pairs, 0);
    push({
      kind: 'amend-pairs',
      rules: [r.rulebook.ruleIds.ratio],
      account: null,
      cost: 'free',
      change: `send ${count} cancel + place pair${count === 1 ? '' : 's'} as one amend each`,
      figures: { pairs: count, requestsSaved: now.aggregated.requests - outcome.aggregated.requests },
      outcome,
    });
    edits.push({ kind: 'amend-pairs', edit });
  }

  // R1: taker volume filled as maker: the least share that takes an account to its next tier.
  const taker = now.aggregated.takerVolume;
  const weightGain = toDec(ratio.makerWeight).minus(toDec(ratio.takerWeight));
  if (!taker.isZero() && !r.takerShare.isZero() && weightGain.greaterThan(0)) {
    // Below VIP 14 no share reaches a tier (R4): the default share is tried.
    const reaching =
      r.takerShareGiven || !isTieredVip(r.vipLevel, r.rulebook.tieredVipLevel)
        ? null
        : takerShareToNextTier(now, r, weightGain, (a) => advised(a) && trades(a));
    const takerShare = reaching?.share ?? r.takerShare;
    const edit = (a: readonly AccountActivity[]) => withMakerShare(a, takerShare);
    const moved = taker.times(takerShare);
    const reach =
      reaching === null
        ? ''
        : `: ${reaching.account} reaches tier ${reaching.tier.tier} (${reaching.tier.limit} ${r.unit})`;
    add(
      {
        kind: 'taker-to-maker',
        rules: [r.rulebook.ruleIds.ratio],
        account: null,
        cost: 'volume',
        change: `fill ${takerShare.times(100).toString()}% of taker volume (${moved.toString()} USDT) as maker${reach}`,
        figures: {
          share: takerShare.toString(),
          movedVolume: moved.toString(),
          numeratorGain: weightGain.times(moved).toString(),
          ...(reaching === null
            ? {}
            : { reaches: reaching.account, tier: reaching.tier.tier, limit: reaching.tier.limit }),
        },
      },
      edit(input.accounts),
    );
    edits.push({ kind: 'taker-to-maker', edit });
  }

  // R2: requests on the heavy contracts.
  const split = (heavy: boolean) =>
    rateFamily(
      input.accounts.map((a) => ({
        account: a.account,
        contracts: a.contracts.filter((c) => isHeavy(c.contract, ratio) === heavy),
      })),
      r.family,
    ).aggregated;
  const heavy = split(true);
  const light = split(false);
  if (heavy.requests > 0 && !r.heavyShare.isZero()) {
    const edit = (a: readonly AccountActivity[]) => withHeavyMoved(a, r.heavyShare, ratio);
    add(
      {
        kind: 'heavy-contracts',
        rules: [r.rulebook.ruleIds.weights],
        account: null,
        cost: 'informational',
        change: `${heavyQuoting(ratio)} for ${r.heavyShare.times(100).toString()}% of their requests and fills`,
        figures: {
          heavyRequests: heavy.requests,
          heavyWeighted: heavy.denominator.toString(),
          otherRequests: light.requests,
          otherWeighted: light.denominator.toString(),
          share: r.heavyShare.toString(),
        },
      },
      edit(input.accounts),
    );
    edits.push({ kind: 'heavy-contracts', edit });
  }

  // R7: the family.
  if (input.accounts.length > 1 && r.family.familyKind === 'standard') {
    for (const a of now.accounts) {
      if (!trades(a) || a.own.ratio === null || compareRatio(a.own, now.aggregated) >= 0) continue;
      const { rest, alone } = withAccountApart(input.accounts, a.account);
      const outcome = joined(input.accounts, outcomeOf(rest, r, now), outcomeOf(alone, r, now));
      push({
        kind: 'family-apart',
        rules: [r.rulebook.ruleIds.family],
        account: a.account,
        cost: 'informational',
        change: `${a.account}'s own ratio (${a.own.ratio.toFixed(4)}) pulls the aggregated ratio down: rated apart from the family`,
        figures: { ownRatio: ratioFigure(a.own), aggregatedWithout: ratioFigure(outcome.aggregated) },
        outcome,
      });
    }
    const threshold = toDec(r.family.ownVolumeThreshold);
    for (const a of now.accounts.filter(advised)) {
      if (
        !trades(a) ||
        a.basis !== 'aggregated' ||
        compareRatio(a.own, now.aggregated) <= 0 ||
        tierOfRatio(a.own, r.family.tiers).limit <= a.tier.limit
      )
        continue;
      const more = threshold.minus(a.own.volume);
      // The gain of crossing the threshold alone: the account rated by max(own, aggregated) on the
      // ratios it has, not on the ratios the volume that takes it over would give it.
      const over = readFamilyOptions(
        { ...options, ownVolumeThreshold: a.own.volume.toFixed() },
        adviseOptionFields(r.rulebook),
        'the advise options',
        r.rulebook,
      );
      const crossed = outcomeOf(input.accounts, r, now, over).accounts.find((x) => x.account === a.account)!;
      // Below VIP 14 every account is at tier 1 whatever its ratio (R4): crossing gives nothing.
      if (crossed.tier.limit <= a.tier.limit) continue;
      const accounts = now.accounts.map((x) => (x.account === a.account ? crossed : x));
      push({
        kind: 'family-threshold',
        rules: [r.rulebook.ruleIds.family],
        account: a.account,
        cost: 'volume',
        change: `${a.account} trades ${a.own.volume.toString()} USDT, under the ${threshold.toString()} USDT threshold: ${more.toString()} USDT more takes it over, where its own ratio (${ratioText4(a.own)}) rates it: tier ${crossed.tier.tier} (${crossed.tier.limit} ${r.unit})`,
        figures: {
          volume: a.own.volume.toString(),
          threshold: threshold.toString(),
          makerVolume: more.toString(),
          tier: crossed.tier.tier,
          limit: crossed.tier.limit,
        },
        outcome: { ...now, accounts, gain: accounts.reduce((sum, x) => sum + x.gain, 0) },
      });
    }
    const broker = readFamilyOptions(
      { ...options, kind: 'broker' },
      adviseOptionFields(r.rulebook),
      'the advise options',
      r.rulebook,
    );
    push({
      kind: 'family-broker',
      rules: [r.rulebook.ruleIds.family],
      account: null,
      cost: 'informational',
      change: 'rate the family as a broker family (every account by its own ratio)',
      figures: {},
      outcome: outcomeOf(input.accounts, r, now, broker),
    });
  }

  // R3: the next tier, per account, over every path of R7 (the margins plan gives).
  if (isTieredVip(r.vipLevel, r.rulebook.tieredVipLevel)) {
    for (const a of now.accounts.filter((x) => advised(x) && trades(x))) {
      const up = accountMargins(a.own, now.aggregated, r.family).up;
      if (up === null) continue;
      add(
        {
          kind: 'next-tier-maker',
          rules: [r.rulebook.ruleIds.ratio, r.rulebook.ruleIds.tiers],
          account: a.account,
          cost: 'volume',
          change: `${a.account}: ${up.makerVolume.toString()} USDT more maker volume for tier ${up.tier.tier} (${up.tier.limit} ${r.unit})${up.makerPath === 'aggregated' ? '' : `, by its own ratio${up.makerPath === 'threshold' ? ' over the threshold' : ''}`}`,
          figures: {
            makerVolume: up.makerVolume.toString(),
            path: up.makerPath,
            tier: up.tier.tier,
            limit: up.tier.limit,
          },
        },
        withMakerAdded(input.accounts, a.account, up.makerVolume),
      );
      if (up.requestWeight === null) continue;
      // The fewest requests that weigh enough: the heaviest contracts first, then the others.
      const drops = requestsToDrop(
        input.accounts.find((x) => x.account === a.account)!.contracts,
        up.requestWeight,
        ratio,
      );
      if (drops === null) continue;
      const edited = withRequestsDroppedFrom(input.accounts, a.account, drops, ratio);
      const outcome = outcomeOf(edited, r, now);
      if (outcome.accounts.find((x) => x.account === a.account)!.tier.tier < up.tier.tier) continue;
      const fewer = drops.reduce((sum, d) => sum + d.count, 0);
      const where = drops.map((d) => `${d.count} on ${d.contract}`).join(', ');
      push({
        kind: 'next-tier-requests',
        rules: [r.rulebook.ruleIds.ratio, r.rulebook.ruleIds.tiers],
        account: a.account,
        cost: 'volume',
        change: `${a.account}: ${fewer} requests fewer (${where}) for tier ${up.tier.tier} (${up.tier.limit} ${r.unit})`,
        figures: {
          fewerRequests: fewer,
          byContract: where,
          path: up.requestPath!,
          tier: up.tier.tier,
          limit: up.tier.limit,
        },
        outcome,
      });
    }
  }

  findings.sort(
    (x, y) =>
      COST_ORDER[x.cost] - COST_ORDER[y.cost] ||
      y.gain - x.gain ||
      y.outcome.gain - x.outcome.gain ||
      compareRatio(y.outcome.aggregated, x.outcome.aggregated),
  );

  let combination: Advice['combination'] = null;
  if (edits.length > 0) {
    const combined = edits.reduce((a, e) => e.edit(a), input.accounts as AccountActivity[]);
    combination = { kinds: edits.map((e) => e.kind), activity: combined, outcome: outcomeOf(combined, r, now) };
  }

  const throttles = input.hours
    .filter(advised)
    .flatMap((h) => throttleNearMisses(h.account, h.market, h.hours, r.nearMiss, r));
  return { vipLevel: r.vipLevel, now, findings, combination, throttles };
}

/** A ratio as a figure: 8 decimals, or "none" when no request was counted. */
function ratioFigure(r: RatioResult): string {
  return r.ratio === null ? 'none' : r.ratio.toFixed(8);
}

/** A ratio for a sentence: 4 decimals. */
function ratioText4(r: RatioResult): string {
  return r.ratio === null ? 'none' : r.ratio.toFixed(4);
}

/**
 * The least share of every account's taker volume that, filled as maker instead, takes one of the
 * `eligible` accounts to its next tier (R1, R3, R7): by the aggregated ratio, or by its own where
 * its own ratio rates it (over the threshold, or in a broker family). Rounded up to 0.0001; null
 * when no share up to all of it does.
 */
function takerShareToNextTier(
  now: Outcome,
  r: Resolved,
  weightGain: Dec,
  eligible: (a: AccountOutcome) => boolean,
): { share: Dec; account: string; tier: Tier } | null {
  const tiers = r.family.tiers;
  const agg = now.aggregated;
  const broker = r.family.familyKind === 'broker';
  const threshold = toDec(r.family.ownVolumeThreshold);
  let best: { share: Dec; account: string; tier: Tier } | null = null;
  for (const a of now.accounts.filter(eligible)) {
    const next = tiers[a.tier.tier];
    if (next === undefined) continue;
    const b = next.minRatio;
    // The numerator a share s adds: weightGain x s x the taker volume it moves.
    const needed = (x: RatioResult, takerVolume: Dec): Dec | null =>
      x.denominator.isZero() || takerVolume.isZero()
        ? null
        : b.times(x.denominator).minus(x.numerator).dividedBy(weightGain.times(takerVolume));
    const shares = [
      broker ? null : needed(agg, agg.takerVolume),
      broker || a.own.volume.greaterThanOrEqualTo(threshold) ? needed(a.own, a.own.takerVolume) : null,
    ]
      .filter((x) => x !== null)
      .filter((x) => x.lessThanOrEqualTo(1));
    if (shares.length === 0) continue;
    const share = Dec.max(0, Dec.min(...shares)).toDecimalPlaces(4, Dec.ROUND_UP);
    if (best === null || share.lessThan(best.share))
      best = { share: Dec.min(share, 1), account: a.account, tier: next };
  }
  return best;
}
