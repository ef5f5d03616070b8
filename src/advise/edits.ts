import { Dec, type DecimalInput } from '../internal/decimal.js';
import type { AccountActivity } from '../rules/family.js';
import type { ContractActivity, RatioConfig } from '../rules/ratio.js';

/**
 * Changes to a family's activity that the advisor rates with the rules themselves: each takes
 * validated activity and gives new activity, leaving the input untouched. Names come as the
 * exchange writes them (the advisor reads them so), so that every edit finds a contract.
 */

/** One contract of one account, as plain numbers and exact amounts. */
interface Entry {
  readonly contract: string;
  maker: Dec;
  taker: Dec;
  place: number;
  amend: number;
  cancel: number;
}

/** Activity as mutable entries, copied from `activity`. */
type Draft = { readonly account: string; readonly entries: Entry[] }[];

function draft(activity: readonly AccountActivity[]): Draft {
  return activity.map((a) => ({
    account: a.account,
    entries: a.contracts.map((c) => ({
      contract: c.contract,
      maker: new Dec(c.makerVolume ?? 0),
      taker: new Dec(c.takerVolume ?? 0),
      place: c.place ?? 0,
      amend: c.amend ?? 0,
      cancel: c.cancel ?? 0,
    })),
  }));
}

function done(d: Draft): AccountActivity[] {
  return d.map((a) => ({
    account: a.account,
    contracts: a.entries.map(
      (e): ContractActivity => ({
        contract: e.contract,
        makerVolume: e.maker.toString(),
        takerVolume: e.taker.toString(),
        place: e.place,
        amend: e.amend,
        cancel: e.cancel,
      }),
    ),
  }));
}

/**
 * Cancel + place pairs of one account on one contract.
 *
 * @example
 * ```ts
 * import { type PairCount, advise } from 'traderatio/advise'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * const pairs: PairCount[] = [{ account: 'A', contract: 'BTC_USDT', pairs: 30 }]
 * advise({ accounts, pairs }).findings.find((f) => f.kind === 'amend-pairs')?.figures // { pairs: 30, requestsSaved: 30 }
 * ```
 */
export interface PairCount {
  readonly account: string;
  readonly contract: string;
  readonly pairs: number;
}

/** Each pair made one amend: a placement and a cancel fewer, an amend more (see docs/rules.md#r1). */
export function withAmends(activity: readonly AccountActivity[], pairs: readonly PairCount[]): AccountActivity[] {
  const d = draft(activity);
  for (const p of pairs) {
    const e = d.find((a) => a.account === p.account)?.entries.find((x) => x.contract === p.contract);
    if (e === undefined) continue;
    e.place -= p.pairs;
    e.cancel -= p.pairs;
    e.amend += p.pairs;
  }
  return done(d);
}

/** `share` (0 to 1) of every contract's taker volume filled as maker instead (see docs/rules.md#r1). */
export function withMakerShare(activity: readonly AccountActivity[], share: Dec): AccountActivity[] {
  const d = draft(activity);
  for (const a of d) {
    for (const e of a.entries) {
      const moved = e.taker.times(share);
      e.taker = e.taker.minus(moved);
      e.maker = e.maker.plus(moved);
    }
  }
  return done(d);
}

/** Whether a contract weighs more than the default coefficient (see docs/rules.md#r2: BTC_USDT and ETH_USDT by default). */
export function isHeavy(contract: string, config: RatioConfig): boolean {
  const name = config.weights.read({ contract }, '`contract`');
  return config.weights.weightOf(name).greaterThan(config.weights.defaultWeightOf(name));
}

/**
 * The advice to quote on lighter contracts, as words: Gate's one default coefficient named
 * ("a contract of coefficient 0.4"), or each kind's default where there are several.
 */
export function heavyQuoting(config: RatioConfig): string {
  const w = config.weights.weightName;
  const [only, ...more] = config.weights.defaultWeights;
  return more.length === 0 && only !== undefined
    ? `quote on a contract of ${w} ${only.toString()} instead of the heavy contracts (${w} above ${only.toString()})`
    : `quote on an instrument of its kind's default ${w} instead of the heavy ones (${w} above that default)`;
}

/** Whether a contract weighs exactly the default weight of its kind. */
function weighsDefault(contract: string, config: RatioConfig): boolean {
  const name = config.weights.read({ contract }, '`contract`');
  return config.weights.weightOf(name).equals(config.weights.defaultWeightOf(name));
}

/**
 * `share` (0 to 1) of each heavy contract's quoting moved to a contract of the default coefficient
 * instead: the account's busiest such contract, or a name no coefficient lists. Its requests
 * (rounded down) and its fills go together, as they would; only the requests change the ratio
 * (see docs/rules.md#r2: the numerator does not weigh contracts).
 */
export function withHeavyMoved(
  activity: readonly AccountActivity[],
  share: Dec,
  config: RatioConfig,
): AccountActivity[] {
  const d = draft(activity);
  for (const a of d) {
    const light = a.entries.filter((e) => weighsDefault(e.contract, config));
    light.sort((x, y) => y.place + y.amend + y.cancel - (x.place + x.amend + x.cancel));
    let target = light[0];
    for (const e of a.entries.filter((x) => isHeavy(x.contract, config))) {
      const move = (n: number): number => share.times(n).floor().toNumber();
      const [place, amend, cancel] = [move(e.place), move(e.amend), move(e.cancel)];
      if (place + amend + cancel === 0) continue;
      if (target === undefined) {
        target = {
          contract: config.weights.unlistedLike(e.contract, (name) => a.entries.some((x) => x.contract === name)),
          maker: new Dec(0),
          taker: new Dec(0),
          place: 0,
          amend: 0,
          cancel: 0,
        };
        a.entries.push(target);
      }
      const maker = e.maker.times(share);
      const taker = e.taker.times(share);
      e.maker = e.maker.minus(maker);
      e.taker = e.taker.minus(taker);
      target.maker = target.maker.plus(maker);
      target.taker = target.taker.plus(taker);
      e.place -= place;
      e.amend -= amend;
      e.cancel -= cancel;
      target.place += place;
      target.amend += amend;
      target.cancel += cancel;
    }
  }
  return done(d);
}

/** `volume` USDT more maker volume for `account`, on its first contract, or on BTC_USDT when it has none (see docs/rules.md#r1: the numerator does not weigh contracts). */
export function withMakerAdded(
  activity: readonly AccountActivity[],
  account: string,
  volume: DecimalInput,
): AccountActivity[] {
  const d = draft(activity);
  const a = d.find((x) => x.account === account);
  if (a === undefined) return done(d);
  const e = a.entries[0];
  if (e !== undefined) e.maker = e.maker.plus(volume);
  // An account that trades no futures yet: the volume goes on a contract of its own.
  else
    a.entries.push({ contract: 'BTC_USDT', maker: new Dec(volume), taker: new Dec(0), place: 0, amend: 0, cancel: 0 });
  return done(d);
}

/** Requests of one contract to drop. */
export interface RequestDrop {
  readonly contract: string;
  readonly count: number;
}

/**
 * The fewest counted requests of an account's `contracts` that weigh at least `weight` (see docs/rules.md#r1, #r2):
 * the heaviest contracts first (a request of coefficient 1 weighs as much as 2.5 of 0.4), the
 * busiest first among equals. Null when all of them weigh less.
 */
export function requestsToDrop(
  contracts: readonly ContractActivity[],
  weight: Dec,
  config: RatioConfig,
): RequestDrop[] | null {
  const counted = contracts
    .map((c) => ({
      contract: config.weights.read(c, '`contract`'),
      coefficient: config.weights.weightOf(config.weights.read(c, '`contract`')),
      requests: (c.place ?? 0) + (c.amend ?? 0) + (config.countCancels ? (c.cancel ?? 0) : 0),
    }))
    .filter((c) => c.requests > 0);
  counted.sort((x, y) => y.coefficient.comparedTo(x.coefficient) || y.requests - x.requests);
  const drops: RequestDrop[] = [];
  let left = weight;
  for (const c of counted) {
    if (left.lessThanOrEqualTo(0)) break;
    const count = Math.min(c.requests, left.dividedBy(c.coefficient).ceil().toNumber());
    drops.push({ contract: c.contract, count });
    left = left.minus(c.coefficient.times(count));
  }
  return left.greaterThan(0) ? null : drops;
}

/** Counted requests fewer for `account` on each contract of `drops`: placements first, then amendments, then cancels (when they count). */
export function withRequestsDroppedFrom(
  activity: readonly AccountActivity[],
  account: string,
  drops: readonly RequestDrop[],
  config: RatioConfig,
): AccountActivity[] {
  const d = draft(activity);
  const entries = d.find((x) => x.account === account)?.entries ?? [];
  for (const drop of drops) {
    const e = entries.find((x) => x.contract === drop.contract);
    if (e === undefined) continue;
    let left = drop.count;
    for (const field of ['place', 'amend', 'cancel'] as const) {
      if (field === 'cancel' && !config.countCancels) continue;
      const n = Math.min(left, e[field]);
      e[field] -= n;
      left -= n;
    }
  }
  return done(d);
}

/** The family without `account`, and `account` as a family of its own. */
export function withAccountApart(
  activity: readonly AccountActivity[],
  account: string,
): { readonly rest: AccountActivity[]; readonly alone: AccountActivity[] } {
  return { rest: activity.filter((a) => a.account !== account), alone: activity.filter((a) => a.account === account) };
}
