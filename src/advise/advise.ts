import { InvalidInputError } from '../errors.js';
import { parseCount, parseId, readOptions } from '../internal/parse.js';
import type { HourlyActivity } from '../rules/abuse.js';
import { type AccountActivity, type RatioBasis, rateFamily } from '../rules/family.js';
import { type ContractActivity, type RatioResult, compareRatio } from '../rules/ratio.js';
import type { Tier } from '../rules/tiers.js';
import type { PairCount } from './edits.js';
import { type AdviceScope, FINDERS } from './finders.js';
import { type AdviseOptions, type Resolved, resolve } from './options.js';
import { outcomeOf } from './outcome.js';
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
  /** Hourly activity per account: futures order requests (see docs/rules.md#r9) and spot order requests (see docs/rules.md#r14), with the USDT traded. @default [] */
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
 * A family rated by the rules (see docs/rules.md#r1 to #r4, #r7).
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
  /** The rules it rests on, by the rulebook's ids (Gate's `R1`, `R2`, `R3`, `R7`; OKX's `O2`, `O3`, `O4`, `O6`: see docs/rules.md and docs/okx.md). */
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
  /** Hourly checks of the 24-hour throttles that tripped or came within the margin (see docs/rules.md#r9, #r14). */
  readonly throttles: readonly ThrottleNearMiss[];
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
 * - `amend-pairs` (see docs/rules.md#r1): cancel + place pairs sent as one amend, one counted request saved per pair
 *   (none when cancels are not counted);
 * - `heavy-contracts` (see docs/rules.md#r2): the split of requests between heavy contracts and the others, and a
 *   share of the heavy contracts' requests sent on a contract of the default coefficient;
 * - `taker-to-maker` (see docs/rules.md#r1): a share of taker volume filled as maker (0.1 more per USDT by default);
 * - `family-apart`, `family-threshold`, `family-broker` (see docs/rules.md#r7): an account whose own ratio pulls the
 *   aggregated ratio down, rated apart; an account under the own-volume threshold whose own ratio
 *   beats the aggregated one, with the volume that takes it over; the family as a broker family;
 * - `next-tier-maker`, `next-tier-requests` (see docs/rules.md#r3): per account, the maker volume to add or the
 *   requests to drop for the next tier, over every path of the family rules (see docs/rules.md#r7) (the margins `plan` gives).
 * With `account`, the findings about an account are made for it alone and ranked by what they give it.
 * With hourly activity, the checks of the 24-hour throttles (see docs/rules.md#r9, #r14) that tripped or came within
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
  const now = outcomeOf(input.accounts, r, null);
  const gainOf = (o: Outcome): number =>
    r.account === null ? o.gain : o.accounts.find((a) => a.account === r.account)!.gain;
  const scope: AdviceScope = {
    r,
    options,
    input,
    now,
    advised,
    trades: (a) => a.own.requests > 0 || !a.own.volume.isZero(),
    finding: (f) => ({ ...f, informational: f.cost === 'informational', gain: gainOf(f.outcome) }),
  };
  const found = FINDERS.map((find) => find(scope));
  const findings = found.flatMap((f) => f.findings);
  findings.sort(
    (x, y) =>
      COST_ORDER[x.cost] - COST_ORDER[y.cost] ||
      y.gain - x.gain ||
      y.outcome.gain - x.outcome.gain ||
      compareRatio(y.outcome.aggregated, x.outcome.aggregated),
  );
  const edits = found.flatMap((f) => (f.edit === undefined ? [] : [f.edit]));
  const combined = edits.reduce((a, e) => e.edit(a), input.accounts as AccountActivity[]);
  const combination: Advice['combination'] =
    edits.length === 0
      ? null
      : { kinds: edits.map((e) => e.kind), activity: combined, outcome: outcomeOf(combined, r, now) };
  const throttles = input.hours
    .filter(advised)
    .flatMap((h) => throttleNearMisses(h.account, h.market, h.hours, r.nearMiss, r));
  return { vipLevel: r.vipLevel, now, findings, combination, throttles };
}
