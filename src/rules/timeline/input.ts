// Reading a timeline's input (see docs/rules.md#r5 to #r8): the family's accounts, the VIP changes
// and the daily activity, each checked and named by its field.
import { InvalidInputError } from '../../errors.js';
import { formatUtcInstant, parseUtcDay, utcDayStart } from '../calendar.js';
import type { FamilyConfig } from '../family.js';
import { checkFields, parseId, parseInstant } from '../../internal/parse.js';
import { type ActivityTotals, type ContractActivity, totalsOf } from '../ratio.js';
import { parseVipLevel } from '../vip.js';

/**
 * An account of the family.
 *
 * @example
 * ```ts
 * import { type TimelineAccount, buildTimeline } from 'traderatio/rules'
 *
 * const bot: TimelineAccount = { id: 'bot', createdAt: Date.parse('2026-11-05T10:00:00Z') }
 * const timeline = buildTimeline({ accounts: [{ id: 'main', role: 'main' }, bot], activity: [] })
 * timeline.limitAt('bot', '2026-11-05T12:00:00Z').since?.reason // 'new-sub-account'
 * ```
 */
export interface TimelineAccount {
  /** The account's id. */
  readonly id: string;
  /** `main` for the main account (at most one). @default "sub" */
  readonly role?: 'main' | 'sub';
  /**
   * When a sub-account was created (epoch ms; {@link buildTimeline} also reads a Date or ISO text,
   * see {@link InstantInput}). It is at tier 1 from then until 08:00 UTC of the next day (see
   * docs/rules.md#r8). Omit for accounts that existed before the timeline starts.
   */
  readonly createdAt?: number;
}

/**
 * One account's activity on one UTC day.
 *
 * @example
 * ```ts
 * import { type DailyActivity, buildTimeline } from 'traderatio/rules'
 *
 * const day: DailyActivity = { account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }
 * const timeline = buildTimeline({ accounts: [{ id: 'main', role: 'main' }], activity: [day] })
 * timeline.limitAt('main', '2026-11-02T08:00:00Z').limit // 250
 * ```
 */
export interface DailyActivity {
  readonly account: string;
  /** The UTC day: `YYYY-MM-DD` or epoch ms at 00:00 UTC. */
  readonly day: string | number;
  readonly contracts: readonly ContractActivity[];
}

/**
 * A change of the family's VIP level (the main account's; sub-accounts share it; see
 * docs/rules.md#r4).
 *
 * @example
 * ```ts
 * import { type VipChange, buildTimeline } from 'traderatio/rules'
 *
 * const drop: VipChange = { at: Date.parse('2026-11-06T00:00:00Z'), level: 13 }
 * const timeline = buildTimeline({ accounts: [{ id: 'main', role: 'main' }], activity: [], vipChanges: [drop] })
 * timeline.vipLevelAt('2026-11-05T23:59:59Z') // 14
 * timeline.vipLevelAt('2026-11-06T00:00:00Z') // 13
 * ```
 */
export interface VipChange {
  /** Epoch ms ({@link buildTimeline} also reads a Date or ISO text, see {@link InstantInput}). */
  readonly at: number;
  readonly level: number;
}

/**
 * Everything the timeline is computed from. Arrays may come in any order.
 *
 * @example
 * ```ts
 * import { type TimelineInput, buildTimeline } from 'traderatio/rules'
 *
 * const input: TimelineInput = {
 *   accounts: [{ id: 'main', role: 'main' }],
 *   activity: [{ account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }],
 *   vipLevel: 13,
 * }
 * buildTimeline(input).limitAt('main', '2026-11-02T08:00:00Z').limit // 100
 * ```
 */
export interface TimelineInput {
  readonly accounts: readonly TimelineAccount[];
  /** Daily activity. One entry per account and day; a repeat is refused. */
  readonly activity: readonly DailyActivity[];
  /** The VIP level before the first change. @default the rulebook's tiered level: Gate 14, OKX 5 */
  readonly vipLevel?: number;
  /** VIP changes; two at the same instant are refused. @default [] */
  readonly vipChanges?: readonly VipChange[];
}

export const TIMELINE_INPUT_FIELDS: readonly string[] = ['accounts', 'activity', 'vipLevel', 'vipChanges'];
const DAILY_ACTIVITY_FIELDS: readonly string[] = ['account', 'day', 'contracts'];

export interface ReadAccount {
  readonly id: string;
  readonly createdAt: number | undefined;
}

/** The family's accounts by id, each checked (one main account, a sub-account's creation; see docs/rules.md#r7, #r8). */
export function readAccounts(list: unknown): Map<string, ReadAccount> {
  if (!Array.isArray(list) || list.length === 0) throw new InvalidInputError('`accounts`', list, 'a non-empty array');
  const out = new Map<string, ReadAccount>();
  let main: string | undefined;
  for (const [i, a] of (list as TimelineAccount[]).entries()) {
    if (typeof a !== 'object' || a === null)
      throw new InvalidInputError(`\`accounts[${i}]\``, a, 'an object { id, role?, createdAt? }');
    checkFields(a, ['id', 'role', 'createdAt'], `\`accounts[${i}]\``);
    const id = parseId(a.id, `\`accounts[${i}].id\``);
    if (out.has(id)) throw new InvalidInputError(`\`accounts[${i}].id\``, id, 'an id listed once');
    const role = a.role ?? 'sub';
    if (role !== 'main' && role !== 'sub')
      throw new InvalidInputError(`\`accounts[${i}].role\``, a.role, '"main" or "sub"');
    if (role === 'main') {
      if (main !== undefined)
        throw new InvalidInputError(`\`accounts[${i}].role\``, role, `"sub" (${main} is the main account)`);
      main = id;
    }
    let createdAt: number | undefined;
    if (a.createdAt !== undefined) {
      if (role === 'main')
        throw new InvalidInputError(
          `\`accounts[${i}].createdAt\``,
          a.createdAt,
          'absent for the main account (a creation instant is for sub-accounts)',
        );
      createdAt = parseInstant(a.createdAt, `\`accounts[${i}].createdAt\``);
    }
    out.set(id, { id, createdAt });
  }
  return out;
}

/**
 * The VIP changes in time order, one per instant (see docs/rules.md#r6), each level at most
 * `highest` (Gate's 16 unless given).
 */
export function readVipChanges(list: unknown, highest?: number): VipChange[] {
  if (!Array.isArray(list)) throw new InvalidInputError('`vipChanges`', list, 'an array');
  const out = (list as VipChange[]).map((v, i) => {
    if (typeof v !== 'object' || v === null)
      throw new InvalidInputError(`\`vipChanges[${i}]\``, v, 'an object { at, level }');
    checkFields(v, ['at', 'level'], `\`vipChanges[${i}]\``);
    return {
      at: parseInstant(v.at, `\`vipChanges[${i}].at\``),
      level: parseVipLevel(v.level, `\`vipChanges[${i}].level\``, highest),
    };
  });
  out.sort((a, b) => a.at - b.at);
  for (let i = 1; i < out.length; i++) {
    if (out[i]!.at === out[i - 1]!.at) {
      throw new InvalidInputError(
        '`vipChanges[].at`',
        out[i]!.at,
        `one VIP change per instant (two at ${formatUtcInstant(out[i]!.at)})`,
      );
    }
  }
  return out;
}

/**
 * Checks that no account gives the same hour twice (the hours of the throttles; see
 * docs/rules.md#r9, #r14); `where(i)` names the i-th hour's place in the file for the message, and
 * `written(i)` its value as the file writes it (by default the hour as ISO text).
 */
export function checkHoursOnce(
  hours: readonly { readonly account: string; readonly hour: number }[],
  where: (i: number) => string,
  written: (i: number) => unknown = (i) => formatUtcInstant(hours[i]!.hour),
): void {
  const seen = new Map<string, number>();
  hours.forEach((h, i) => {
    const key = `${h.account}\u0000${h.hour}`;
    const first = seen.get(key);
    if (first !== undefined)
      throw new InvalidInputError(
        where(i),
        written(i),
        `each hour of account ${h.account} once (first as ${where(first)})`,
      );
    seen.set(key, i);
  });
}

/** Each account's daily totals (by index), and the first and last day with any. */
export interface ReadActivity {
  readonly byAccount: readonly Map<number, ActivityTotals>[];
  readonly first: number | undefined;
  readonly last: number | undefined;
}

/** The daily activity, as each account's exact totals by day (one entry per account and day). */
export function readActivity(
  list: unknown,
  accounts: ReadonlyMap<string, ReadAccount>,
  index: ReadonlyMap<string, number>,
  config: FamilyConfig,
): ReadActivity {
  if (!Array.isArray(list)) throw new InvalidInputError('`activity`', list, 'an array');
  const byAccount = [...index.keys()].map(() => new Map<number, ActivityTotals>());
  let first: number | undefined;
  let last: number | undefined;
  // Many entries name the same day: read each day's text once.
  const dayTexts = new Map<string, number>();
  const entries = list as DailyActivity[];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (typeof entry !== 'object' || entry === null)
      throw new InvalidInputError(`\`activity[${i}]\``, entry, 'an object { account, day, contracts }');
    checkFields(entry, DAILY_ACTIVITY_FIELDS, () => `\`activity[${i}]\``);
    const account = accounts.get(entry.account);
    if (account === undefined) {
      throw new InvalidInputError(
        `\`activity[${i}].account\``,
        entry.account,
        `an account listed in \`accounts\` (${[...accounts.keys()].join(', ')})`,
      );
    }
    const raw = entry.day;
    let day: number;
    if (typeof raw === 'string' && dayTexts.has(raw)) day = dayTexts.get(raw)!;
    else {
      day = parseUtcDay(raw, `\`activity[${i}].day\``);
      if (typeof raw === 'string') dayTexts.set(raw, day);
    }
    if (account.createdAt !== undefined && day < utcDayStart(account.createdAt)) {
      throw new InvalidInputError(
        `\`activity[${i}].day\``,
        entry.day,
        `a day on or after ${account.id} was created (${formatUtcInstant(account.createdAt)})`,
      );
    }
    const own = byAccount[index.get(account.id)!]!;
    if (own.has(day)) {
      throw new InvalidInputError(
        `\`activity[${i}]\``,
        `${account.id} on ${String(entry.day)}`,
        'one entry per account and day (this one repeats)',
      );
    }
    own.set(
      day,
      totalsOf(entry.contracts, config.ratio, () => ` in \`activity[${i}]\` (${account.id}, ${String(entry.day)})`),
    );
    if (first === undefined || day < first) first = day;
    if (last === undefined || day > last) last = day;
  }
  return { byAccount, first, last };
}
