import { InvalidInputError } from '../errors.js';
import type { HourlyActivity } from '../rules/abuse.js';
import {
  DAY_MS,
  HOUR_MS,
  formatUtcDay,
  formatUtcInstant,
  isInUtcDay,
  parseUtcDay,
  parseUtcHour,
  utcDayStart,
  utcHourStart,
} from '../rules/calendar.js';
import { contractName, normalizeContract } from '../rules/contracts.js';
import { Dec, type DecimalInput } from '../internal/decimal.js';
import { type Fixed, FixedSum, fixedFromDec, toDec } from '../internal/fixed.js';
import {
  type InstantInput,
  isInstant,
  parseCount,
  parseId,
  parseInstant,
  parseNonNegativeDecimal,
  parsePositiveInteger,
} from '../internal/parse.js';
import type { ContractActivity } from '../rules/ratio.js';
import { RATIO_WINDOW_DAYS, ratioWindow } from '../rules/ratio-window.js';
import type { DailyActivity } from '../rules/timeline/timeline.js';

/**
 * An order action the tracker counts (see docs/rules.md#r1, #r9).
 *
 * @example
 * ```ts
 * import { type CountedAction, Tracker } from 'traderatio'
 *
 * const t = new Tracker()
 * const action: CountedAction = 'cancel'
 * t.recordRequest('main', 'BTC_USDT', action, Date.parse('2026-11-21T10:00:00Z'), 3)
 * t.dailyActivity()[0]!.contracts[0]!.cancel // 3
 * ```
 */
export type CountedAction = 'place' | 'amend' | 'cancel';

/**
 * Whether a fill was as maker or taker.
 *
 * @example
 * ```ts
 * import { type FillRole, Tracker } from 'traderatio'
 *
 * const t = new Tracker()
 * const role: FillRole = 'taker'
 * t.recordFill('main', 'BTC_USDT', role, '99.5', Date.parse('2026-11-21T10:00:00Z'))
 * t.dailyActivity()[0]!.contracts[0]!.takerVolume // '99.5'
 * ```
 */
export type FillRole = 'maker' | 'taker';

/** Days kept: the 7-day window, the day in progress and the day before (the 08:00 raise needs two snapshots, see docs/rules.md#r5). */
export const DAYS_KEPT = RATIO_WINDOW_DAYS + 2;
/** Hours kept: the 24-hour window and the hour in progress (see docs/rules.md#r9). */
export const HOURS_KEPT = 25;

/** One contract's counts in a day: order requests by action, and USDT traded by role (see docs/rules.md#r1). */
export class ContractDay {
  place = 0;
  amend = 0;
  cancel = 0;
  readonly maker = new FixedSum();
  readonly taker = new FixedSum();
}

class Day {
  readonly contracts = new Map<string, ContractDay>();
  /** The counters of each contract as requests spelled it (`btc-usdt`, `BTC_USDT`): found without normalising again. */
  readonly spelled = new Map<string, ContractDay>();
  constructor(readonly start: number) {}
  contract(name: string): ContractDay {
    let c = this.contracts.get(name);
    if (c === undefined) this.contracts.set(name, (c = new ContractDay()));
    return c;
  }
}

class Hour {
  requests = 0;
  readonly traded = new FixedSum();
  constructor(readonly start: number) {}
}

class AccountCounters {
  days: Day[] = [];
  hours: Hour[] = [];
  day: Day | null = null;
  hour: Hour | null = null;
  // The contract counted last, as given and as found: consecutive requests mostly name the same.
  lastContract = '';
  lastCounters: ContractDay | null = null;
}

/**
 * The tracker's state as plain, versioned JSON data.
 *
 * @example
 * ```ts
 * import { type TrackerState, Tracker } from 'traderatio'
 *
 * const t = new Tracker()
 * t.recordRequest('main', 'BTC_USDT', 'place', Date.parse('2026-11-21T10:00:00Z'))
 * const state: TrackerState = JSON.parse(JSON.stringify(t.snapshot()))
 * state.hours // [{ account: 'main', hour: '2026-11-21T10:00:00.000Z', requests: 1, traded: '0' }]
 * Tracker.restore(state).accountIds // ['main']
 * ```
 */
export interface TrackerState {
  readonly latest: number | null;
  readonly days: readonly {
    readonly account: string;
    readonly day: string;
    readonly contracts: readonly {
      readonly contract: string;
      readonly makerVolume: string;
      readonly takerVolume: string;
      readonly place: number;
      readonly amend: number;
      readonly cancel: number;
    }[];
  }[];
  readonly hours: readonly {
    readonly account: string;
    readonly hour: string;
    readonly requests: number;
    readonly traded: string;
  }[];
}

/**
 * Counts an account's own order requests and fills as they happen (see docs/rules.md#r1, #r9): per contract and UTC
 * day for the 7-day trade ratio, per UTC hour for the 24-hour abuse window. Memory grows with
 * contracts x days kept, not with events. Instants must not go back; one that does is refused and
 * counts nothing.
 *
 * @example
 * ```ts
 * import { Tracker } from 'traderatio'
 *
 * const t = new Tracker()
 * const at = Date.parse('2026-11-21T10:00:00Z')
 * t.recordRequest('main', 'BTC_USDT', 'place', at)
 * t.recordFill('main', 'BTC_USDT', 'maker', '1250.5', at + 1000)
 * t.hourlyActivity('main') // [{ hour: 1795255200000, requests: 1, traded: '1250.5' }]
 * ```
 */
export class Tracker {
  readonly #accounts = new Map<string, AccountCounters>();
  #latest = -Infinity;
  #lastAccount = '';
  #lastCounters: AccountCounters | null = null;

  /**
   * Records `orders` order requests (a batch counts once per order) of `action` on `contract` at
   * `at`. Failed requests count too: call it whatever the outcome.
   */
  recordRequest(account: string, contract: string, action: CountedAction, instant: InstantInput, orders = 1): void {
    const at = typeof instant === 'number' ? instant : parseInstant(instant, '`at`');
    if (!(at >= this.#latest) || !isInstant(at)) this.#refuseInstant(at);
    parsePositiveInteger(orders, '`orders`');
    if (action !== 'place' && action !== 'cancel' && action !== 'amend')
      throw new InvalidInputError('`action`', action, '"place", "amend" or "cancel"');
    let a =
      account === this.#lastAccount && this.#lastCounters !== null ? this.#lastCounters : this.#accounts.get(account);
    if (a === undefined) {
      // Every argument is read before a new account is added: a refused call leaves nothing behind.
      normalizeContract(contract);
      a = this.#addAccount(account);
    }
    const c = this.#contractDay(a, contract, at);
    this.#lastAccount = account;
    this.#lastCounters = a;
    if (action === 'place') c.place += orders;
    else if (action === 'cancel') c.cancel += orders;
    else c.amend += orders;
    this.#hourOf(a, at).requests += orders;
    this.#latest = at;
  }

  /** Records a fill: `volume` USDT traded on `contract` as maker or taker at `at`. */
  recordFill(account: string, contract: string, role: FillRole, volume: DecimalInput, instant: InstantInput): void {
    const at = typeof instant === 'number' ? instant : parseInstant(instant, '`at`');
    if (!(at >= this.#latest) || !isInstant(at)) this.#refuseInstant(at);
    if (role !== 'maker' && role !== 'taker') throw new InvalidInputError('`role`', role, '"maker" or "taker"');
    let a = this.#accounts.get(account);
    // The contract counted last was read when it was counted.
    if (a === undefined || contract !== a.lastContract) normalizeContract(contract);
    const amount = readVolume(volume, '`volume`');
    a ??= this.#addAccount(account);
    const c = this.#contractDay(a, contract, at);
    (role === 'maker' ? c.maker : c.taker).add(amount);
    this.#hourOf(a, at).traded.add(amount);
    this.#latest = at;
  }

  /** The latest instant recorded, or -Infinity. */
  get lastInstant(): number {
    return this.#latest;
  }

  /** Accounts seen. */
  get accountIds(): readonly string[] {
    return [...this.#accounts.keys()];
  }

  /** Daily activity per account and contract, as the timeline takes it (see docs/rules.md#r5). */
  dailyActivity(): DailyActivity[] {
    const out: DailyActivity[] = [];
    for (const [account, a] of this.#accounts) {
      for (const d of a.days) {
        const contracts: ContractActivity[] = [];
        for (const [contract, c] of d.contracts) contracts.push(activityOf(contract, c));
        out.push({ account, day: d.start, contracts });
      }
    }
    return out;
  }

  /** An account's activity per contract over [from, to) in whole UTC days (the ratio's windows, see docs/rules.md#r1). */
  activityBetween(account: string, from: number, to: number): ContractActivity[] {
    const sums = new Map<string, { place: number; amend: number; cancel: number; maker: FixedSum; taker: FixedSum }>();
    for (const d of this.#accounts.get(account)?.days ?? []) {
      if (d.start < from || d.start >= to) continue;
      for (const [contract, c] of d.contracts) {
        let s = sums.get(contract);
        if (s === undefined)
          sums.set(contract, (s = { place: 0, amend: 0, cancel: 0, maker: new FixedSum(), taker: new FixedSum() }));
        s.place += c.place;
        s.amend += c.amend;
        s.cancel += c.cancel;
        s.maker.add(c.maker.value());
        s.taker.add(c.taker.value());
      }
    }
    return [...sums].map(([contract, s]) => activityOf(contract, s));
  }

  /** @internal An account's activity per contract over the 7 days the rating at `ratingDay` covers (see docs/rules.md#r1, #r5; `ratioWindow`). */
  ratioWindowActivity(account: string, ratingDay: number): ContractActivity[] {
    const { from, to } = ratioWindow(ratingDay);
    return this.activityBetween(account, from, to);
  }

  /** An account's hourly activity, as the abuse timeline takes it (see docs/rules.md#r9). */
  hourlyActivity(account: string): HourlyActivity[] {
    return (this.#accounts.get(account)?.hours ?? []).map((h) => ({
      hour: h.start,
      requests: h.requests,
      traded: text(h.traded.value()),
    }));
  }

  /** The state as plain data, accounts in the order of their ids. */
  snapshot(): TrackerState {
    const days: TrackerState['days'][number][] = [];
    const hours: TrackerState['hours'][number][] = [];
    // Accounts by id: the order does not depend on which was seen first, so a restored tracker
    // gives the same snapshot.
    for (const account of [...this.#accounts.keys()].sort()) {
      const a = this.#accounts.get(account)!;
      for (const d of a.days) {
        days.push({
          account,
          day: formatUtcDay(d.start),
          contracts: [...d.contracts].map(([contract, c]) => activityOf(contract, c)),
        });
      }
      for (const h of a.hours)
        hours.push({ account, hour: formatUtcInstant(h.start), requests: h.requests, traded: text(h.traded.value()) });
    }
    return { latest: this.#latest === -Infinity ? null : this.#latest, days, hours };
  }

  /**
   * A tracker in the state `snapshot()` gave. Throws {@link InvalidInputError} naming what is
   * wrong; a state it accepts is one it can go on counting from (and snapshot again).
   */
  static restore(state: TrackerState): Tracker {
    if (typeof state !== 'object' || state === null || !Array.isArray(state.days) || !Array.isArray(state.hours)) {
      throw new InvalidInputError('the tracker state', state, 'an object { latest, days, hours }');
    }
    const t = new Tracker();
    let last = -Infinity;
    state.days.forEach((d, i) => {
      if (typeof d !== 'object' || d === null)
        throw new InvalidInputError(`\`days[${i}]\``, d, 'an object { account, day, contracts }');
      const account = parseId(d.account, `\`days[${i}].account\``);
      const day = readDay(parseUtcDay(d.day, `\`days[${i}].day\``), d.contracts, `days[${i}].contracts`);
      const a = t.#accounts.get(account) ?? t.#addAccount(account);
      if (a.days.some((x) => x.start >= day.start))
        throw new InvalidInputError(`\`days[${i}].day\``, d.day, 'days of an account in increasing order, each once');
      a.days.push(day);
      a.day = day;
      last = Math.max(last, day.start);
    });
    state.hours.forEach((h, i) => {
      if (typeof h !== 'object' || h === null)
        throw new InvalidInputError(`\`hours[${i}]\``, h, 'an object { account, hour, requests, traded }');
      const account = parseId(h.account, `\`hours[${i}].account\``);
      const hour = readHour(parseUtcHour(h.hour, `\`hours[${i}].hour\``), h.requests, h.traded, `hours[${i}].`);
      const a = t.#accounts.get(account) ?? t.#addAccount(account);
      if (a.hours.some((x) => x.start >= hour.start))
        throw new InvalidInputError(
          `\`hours[${i}].hour\``,
          h.hour,
          'hours of an account in increasing order, each once',
        );
      a.hours.push(hour);
      a.hour = hour;
      last = Math.max(last, hour.start);
    });
    if (state.latest === null) {
      if (last !== -Infinity)
        throw new InvalidInputError(
          '`latest`',
          state.latest,
          'the latest instant recorded (the state has days and hours)',
        );
    } else {
      t.#latest = parseInstant(state.latest, '`latest`');
      if (t.#latest < last)
        throw new InvalidInputError(
          '`latest`',
          state.latest,
          `an instant at or after every day and hour of the state (${formatUtcInstant(last)})`,
        );
    }
    return t;
  }

  /**
   * Adds seeded daily activity (history fetched from the exchange): `day` is a UTC day (epoch
   * milliseconds at 00:00 or "YYYY-MM-DD") after every day already counted for the account.
   * Everything is validated before anything is added.
   */
  seedDay(account: string, day: number | string, contracts: readonly ContractActivity[]): void {
    const id = parseId(account, '`account`');
    const d = readDay(parseUtcDay(day, '`day`'), contracts, 'contracts');
    const a = this.#seeded(id, 'days', d.start, '`day` of seeded history', formatUtcDay(d.start), 'a day');
    a.days.push(d);
    a.day = d;
    a.lastCounters = null;
    this.#latest = Math.max(this.#latest, d.start);
  }

  /**
   * Adds a seeded hour (history fetched from the exchange): `hour` is a whole UTC hour after every
   * hour already counted for the account, `requests` a count, `traded` USDT. Everything is
   * validated before anything is added.
   */
  seedHour(account: string, hour: number | string, requests: number, traded: DecimalInput = '0'): void {
    const id = parseId(account, '`account`');
    const h = readHour(parseUtcHour(hour, '`hour`'), requests, traded, '');
    const a = this.#seeded(id, 'hours', h.start, '`hour` of seeded history', formatUtcInstant(h.start), 'an hour');
    a.hours.push(h);
    a.hour = h;
    this.#latest = Math.max(this.#latest, h.start);
  }

  /**
   * The counters a seeded day or hour starting at `start` goes to, added for a new account; refused
   * unless it comes after every one of its kind already counted for the account.
   */
  #seeded(
    id: string,
    kind: 'days' | 'hours',
    start: number,
    field: string,
    shown: string,
    period: string,
  ): AccountCounters {
    const known = this.#accounts.get(id);
    if (known?.[kind].some((x) => x.start >= start) === true)
      throw new InvalidInputError(field, shown, `${period} after every one already counted for ${id}`);
    return known ?? this.#addAccount(id);
  }

  #addAccount(account: string): AccountCounters {
    parseId(account, '`account`');
    const a = new AccountCounters();
    this.#accounts.set(account, a);
    return a;
  }

  /**
   * The counters of `contract` as given, in the day of `at`: the one counted last, else found by
   * its spelling, else normalised (a name that is no contract's is refused before anything changes).
   */
  #contractDay(a: AccountCounters, contract: string, at: number): ContractDay {
    const day = a.day;
    const today = day !== null && isInUtcDay(at, day.start);
    if (contract === a.lastContract && a.lastCounters !== null && today) return a.lastCounters;
    let c = today ? day.spelled.get(contract) : undefined;
    if (c === undefined) {
      const name = contractName(contract) ?? normalizeContract(contract);
      const d = this.#dayOf(a, at);
      c = d.contract(name);
      // Spellings are few; a flood of them (a broken feed) is not kept.
      if (d.spelled.size < 1024) d.spelled.set(contract, c);
    }
    a.lastContract = contract;
    a.lastCounters = c;
    return c;
  }

  #dayOf(a: AccountCounters, at: number): Day {
    const start = utcDayStart(at);
    if (a.day !== null && a.day.start === start) return a.day;
    a.day = keepLatest(a.days, new Day(start), DAYS_KEPT * DAY_MS);
    a.lastCounters = null;
    return a.day;
  }

  #hourOf(a: AccountCounters, at: number): Hour {
    const start = utcHourStart(at);
    if (a.hour !== null && a.hour.start === start) return a.hour;
    a.hour = keepLatest(a.hours, new Hour(start), HOURS_KEPT * HOUR_MS);
    return a.hour;
  }

  #refuseInstant(at: unknown): never {
    parseInstant(at, '`at`');
    throw new InvalidInputError(
      '`at`',
      at,
      `an instant at or after the last one recorded (${this.#latest === -Infinity ? 'none yet' : formatUtcInstant(this.#latest)})`,
    );
  }
}

function readVolume(volume: unknown, field: string): Fixed {
  // A finite non-negative decimal of the library's own (a fill's volume) is read as it is: the
  // copy that reading makes of any other would change nothing.
  if (volume instanceof Dec && volume.constructor === Dec && volume.isFinite() && !volume.isNegative())
    return fixedFromDec(volume);
  return fixedFromDec(parseNonNegativeDecimal(volume, field));
}

/** A day's counters from a list of contract activity (each contract once), validated whole; `path` names the list. */
function readDay(start: number, contracts: unknown, path: string): Day {
  if (!Array.isArray(contracts)) throw new InvalidInputError(`\`${path}\``, contracts, 'an array of contract activity');
  const day = new Day(start);
  (contracts as ContractActivity[]).forEach((c, j) => {
    const at = (field: string): string => `\`${path}[${j}]${field}\``;
    if (typeof c !== 'object' || c === null)
      throw new InvalidInputError(at(''), c, 'an object { contract, makerVolume, takerVolume, place, amend, cancel }');
    const name = normalizeContract(c.contract, at('.contract'));
    if (day.contracts.has(name))
      throw new InvalidInputError(at('.contract'), c.contract, `each contract once per day (${name} appears twice)`);
    const cd = day.contract(name);
    // A field left out is zero; null is refused, as it is in the ratio's own lists.
    cd.place = c.place === undefined ? 0 : parseCount(c.place, at('.place'));
    cd.amend = c.amend === undefined ? 0 : parseCount(c.amend, at('.amend'));
    cd.cancel = c.cancel === undefined ? 0 : parseCount(c.cancel, at('.cancel'));
    if (c.makerVolume !== undefined) cd.maker.add(readVolume(c.makerVolume, at('.makerVolume')));
    if (c.takerVolume !== undefined) cd.taker.add(readVolume(c.takerVolume, at('.takerVolume')));
  });
  return day;
}

/** An hour's counters, validated; `prefix` names where they come from (`hours[3].`, or nothing). */
function readHour(start: number, requests: unknown, traded: unknown, prefix: string): Hour {
  const hour = new Hour(start);
  hour.requests = parseCount(requests, `\`${prefix}requests\``);
  hour.traded.add(readVolume(traded, `\`${prefix}traded\``));
  return hour;
}

function text(f: Fixed): string {
  return toDec(f).toFixed();
}

/** Adds `period` to `list` (oldest first), dropping those that started `keptMs` or more before it. */
function keepLatest<P extends { readonly start: number }>(list: P[], period: P, keptMs: number): P {
  list.push(period);
  while (list.length > 0 && list[0]!.start <= period.start - keptMs) list.shift();
  return period;
}

/** A contract's counts as the rules take them, and as the tracker's state keeps them (volumes as exact decimal text). */
type ContractCounts = TrackerState['days'][number]['contracts'][number];

/** A contract's counts as the rules take them (volumes as exact decimal text). */
function activityOf(
  contract: string,
  c: {
    readonly place: number;
    readonly amend: number;
    readonly cancel: number;
    readonly maker: FixedSum;
    readonly taker: FixedSum;
  },
): ContractCounts {
  return {
    contract,
    makerVolume: text(c.maker.value()),
    takerVolume: text(c.taker.value()),
    place: c.place,
    amend: c.amend,
    cancel: c.cancel,
  };
}
