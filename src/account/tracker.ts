import { InvalidInputError } from '../errors.js';
import type { HourlyActivity } from '../rules/abuse.js';
import { DAY_MS, HOUR_MS, formatUtcDay, formatUtcInstant } from '../rules/calendar.js';
import { contractName, normalizeContract } from '../rules/contracts.js';
import { type DecimalInput } from '../rules/decimal.js';
import { type Fixed, FixedSum, fixedFromDec, toDec } from '../rules/fixed.js';
import { parseId, parseInstant, parseNonNegativeDecimal } from '../rules/parse.js';
import type { ContractActivity } from '../rules/ratio.js';
import type { DailyActivity } from '../rules/timeline.js';

/** An order action the tracker counts (R1, R9). */
export type CountedAction = 'place' | 'amend' | 'cancel';

/** Whether a fill was as maker or taker. */
export type FillRole = 'maker' | 'taker';

/** Days kept: the 7-day window, the day in progress and the day before (R5 needs two snapshots). */
const DAYS_KEPT = 9;
/** Hours kept: the 24-hour window and the hour in progress (R9). */
const HOURS_KEPT = 25;

class ContractDay {
  place = 0;
  amend = 0;
  cancel = 0;
  readonly maker = new FixedSum();
  readonly taker = new FixedSum();
}

class Day {
  readonly contracts = new Map<string, ContractDay>();
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

/** The tracker's state as plain, versioned JSON data. */
export interface TrackerState {
  readonly latest: number | null;
  readonly days: readonly {
    readonly account: string;
    readonly day: string;
    readonly contracts: readonly { readonly contract: string; readonly makerVolume: string; readonly takerVolume: string; readonly place: number; readonly amend: number; readonly cancel: number }[];
  }[];
  readonly hours: readonly { readonly account: string; readonly hour: string; readonly requests: number; readonly traded: string }[];
}

/**
 * Counts an account's own order requests and fills as they happen (R1, R9): per contract and UTC
 * day for the 7-day trade ratio, per UTC hour for the 24-hour abuse window. Memory grows with
 * contracts x days kept, not with events. Instants must not go back; one that does is refused and
 * counts nothing.
 *
 * @example
 * ```ts
 * const t = new Tracker()
 * t.recordRequest('main', 'BTC_USDT', 'place', Date.now())
 * t.recordFill('main', 'BTC_USDT', 'maker', '1250.5', Date.now())
 * ```
 */
export class Tracker {
  private readonly accounts = new Map<string, AccountCounters>();
  private latest = -Infinity;
  private lastAccount = '';
  private lastCounters: AccountCounters | null = null;

  /**
   * Records `orders` order requests (a batch counts once per order) of `action` on `contract` at
   * `at`. Failed requests count too: call it whatever the outcome.
   */
  recordRequest(account: string, contract: string, action: CountedAction, at: number, orders = 1): void {
    if (typeof at !== 'number' || !(at >= this.latest) || !Number.isFinite(at)) this.refuseInstant(at);
    if (typeof orders !== 'number' || !Number.isSafeInteger(orders) || orders <= 0) {
      throw new InvalidInputError('`orders`', orders, 'a positive integer');
    }
    if (action !== 'place' && action !== 'cancel' && action !== 'amend') throw new InvalidInputError('`action`', action, '"place", "amend" or "cancel"');
    const a = account === this.lastAccount && this.lastCounters !== null ? this.lastCounters : (this.accounts.get(account) ?? this.addAccount(account));
    const day = a.day;
    let c: ContractDay;
    if (contract === a.lastContract && a.lastCounters !== null && day !== null && at - day.start < DAY_MS && at >= day.start) {
      c = a.lastCounters;
    } else {
      const name = contractName(contract) ?? normalizeContract(contract);
      c = this.dayOf(a, at).contract(name);
      a.lastContract = contract;
      a.lastCounters = c;
    }
    this.lastAccount = account;
    this.lastCounters = a;
    if (action === 'place') c.place += orders;
    else if (action === 'cancel') c.cancel += orders;
    else c.amend += orders;
    this.hourOf(a, at).requests += orders;
    this.latest = at;
  }

  /** Records a fill: `volume` USDT traded on `contract` as maker or taker at `at`. */
  recordFill(account: string, contract: string, role: FillRole, volume: DecimalInput, at: number): void {
    if (typeof at !== 'number' || !(at >= this.latest) || !Number.isFinite(at)) this.refuseInstant(at);
    if (role !== 'maker' && role !== 'taker') throw new InvalidInputError('`role`', role, '"maker" or "taker"');
    const name = normalizeContract(contract);
    const amount = readVolume(volume);
    const a = this.accounts.get(account) ?? this.addAccount(account);
    const c = this.dayOf(a, at).contract(name);
    (role === 'maker' ? c.maker : c.taker).add(amount);
    this.hourOf(a, at).traded.add(amount);
    this.latest = at;
  }

  /** The latest instant recorded, or -Infinity. */
  get lastInstant(): number {
    return this.latest;
  }

  /** Accounts seen. */
  get accountIds(): readonly string[] {
    return [...this.accounts.keys()];
  }

  /** Daily activity per account and contract, as the timeline takes it (R5). */
  dailyActivity(): DailyActivity[] {
    const out: DailyActivity[] = [];
    for (const [account, a] of this.accounts) {
      for (const d of a.days) {
        const contracts: ContractActivity[] = [];
        for (const [contract, c] of d.contracts) {
          contracts.push({ contract, makerVolume: text(c.maker.value()), takerVolume: text(c.taker.value()), place: c.place, amend: c.amend, cancel: c.cancel });
        }
        out.push({ account, day: d.start, contracts });
      }
    }
    return out;
  }

  /** An account's activity per contract over [from, to) in whole UTC days (R1 windows). */
  activityBetween(account: string, from: number, to: number): ContractActivity[] {
    const sums = new Map<string, { place: number; amend: number; cancel: number; maker: FixedSum; taker: FixedSum }>();
    for (const d of this.accounts.get(account)?.days ?? []) {
      if (d.start < from || d.start >= to) continue;
      for (const [contract, c] of d.contracts) {
        let s = sums.get(contract);
        if (s === undefined) sums.set(contract, (s = { place: 0, amend: 0, cancel: 0, maker: new FixedSum(), taker: new FixedSum() }));
        s.place += c.place;
        s.amend += c.amend;
        s.cancel += c.cancel;
        s.maker.add(c.maker.value());
        s.taker.add(c.taker.value());
      }
    }
    return [...sums].map(([contract, s]) => ({
      contract, makerVolume: text(s.maker.value()), takerVolume: text(s.taker.value()), place: s.place, amend: s.amend, cancel: s.cancel,
    }));
  }

  /** An account's hourly activity, as the abuse timeline takes it (R9). */
  hourlyActivity(account: string): HourlyActivity[] {
    return (this.accounts.get(account)?.hours ?? []).map((h) => ({ hour: h.start, requests: h.requests, traded: text(h.traded.value()) }));
  }

  /** The state as plain data. */
  snapshot(): TrackerState {
    const days: TrackerState['days'][number][] = [];
    const hours: TrackerState['hours'][number][] = [];
    for (const [account, a] of this.accounts) {
      for (const d of a.days) {
        days.push({
          account,
          day: formatUtcDay(d.start),
          contracts: [...d.contracts].map(([contract, c]) => ({
            contract, makerVolume: text(c.maker.value()), takerVolume: text(c.taker.value()), place: c.place, amend: c.amend, cancel: c.cancel,
          })),
        });
      }
      for (const h of a.hours) hours.push({ account, hour: formatUtcInstant(h.start), requests: h.requests, traded: text(h.traded.value()) });
    }
    return { latest: this.latest === -Infinity ? null : this.latest, days, hours };
  }

  /** A tracker in the state `snapshot()` gave. Throws {@link InvalidInputError} naming what is wrong. */
  static restore(state: TrackerState): Tracker {
    if (typeof state !== 'object' || state === null || !Array.isArray(state.days) || !Array.isArray(state.hours)) {
      throw new InvalidInputError('the tracker state', state, 'an object { latest, days, hours }');
    }
    const t = new Tracker();
    state.days.forEach((d, i) => {
      const account = parseId(d?.account, `\`days[${i}].account\``);
      const start = Date.parse(`${String(d.day)}T00:00:00Z`);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(String(d.day)) || !Number.isFinite(start)) throw new InvalidInputError(`\`days[${i}].day\``, d.day, 'a UTC day "YYYY-MM-DD"');
      const a = t.accounts.get(account) ?? t.addAccount(account);
      if (a.days.some((x) => x.start >= start)) throw new InvalidInputError(`\`days[${i}].day\``, d.day, 'days of an account in increasing order, each once');
      const day = new Day(start);
      if (!Array.isArray(d.contracts)) throw new InvalidInputError(`\`days[${i}].contracts\``, d.contracts, 'an array');
      for (const [j, c] of d.contracts.entries()) {
        const where = `\`days[${i}].contracts[${j}]\``;
        const cd = day.contract(normalizeContract(c?.contract, `${where}.contract`));
        cd.maker.add(fixedFromDec(parseNonNegativeDecimal(c.makerVolume, `${where}.makerVolume`)));
        cd.taker.add(fixedFromDec(parseNonNegativeDecimal(c.takerVolume, `${where}.takerVolume`)));
        for (const k of ['place', 'amend', 'cancel'] as const) {
          const v = c[k];
          if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new InvalidInputError(`${where}.${k}`, v, 'a non-negative integer');
          cd[k] = v;
        }
      }
      a.days.push(day);
      a.day = day;
    });
    state.hours.forEach((h, i) => {
      const account = parseId(h?.account, `\`hours[${i}].account\``);
      const start = Date.parse(String(h.hour));
      if (!Number.isFinite(start) || start % HOUR_MS !== 0) throw new InvalidInputError(`\`hours[${i}].hour\``, h.hour, 'a whole UTC hour in ISO form');
      const a = t.accounts.get(account) ?? t.addAccount(account);
      if (a.hours.some((x) => x.start >= start)) throw new InvalidInputError(`\`hours[${i}].hour\``, h.hour, 'hours of an account in increasing order, each once');
      if (typeof h.requests !== 'number' || !Number.isSafeInteger(h.requests) || h.requests < 0) {
        throw new InvalidInputError(`\`hours[${i}].requests\``, h.requests, 'a non-negative integer');
      }
      const hour = new Hour(start);
      hour.requests = h.requests;
      hour.traded.add(fixedFromDec(parseNonNegativeDecimal(h.traded, `\`hours[${i}].traded\``)));
      a.hours.push(hour);
      a.hour = hour;
    });
    if (state.latest !== null) t.latest = parseInstant(state.latest, '`latest`');
    return t;
  }

  /** Adds seeded daily activity (history fetched from the exchange) for days before any recorded. */
  seedDay(account: string, day: number, contracts: readonly ContractActivity[]): void {
    const a = this.accounts.get(account) ?? this.addAccount(account);
    if (a.days.some((d) => d.start >= day)) throw new InvalidInputError('`day` of seeded history', formatUtcDay(day), `a day before any already counted for ${account}`);
    const d = new Day(day);
    for (const c of contracts) {
      const cd = d.contract(normalizeContract(c.contract));
      cd.place += c.place ?? 0;
      cd.amend += c.amend ?? 0;
      cd.cancel += c.cancel ?? 0;
      if (c.makerVolume !== undefined) cd.maker.add(readVolume(c.makerVolume));
      if (c.takerVolume !== undefined) cd.taker.add(readVolume(c.takerVolume));
    }
    a.days.push(d);
    a.day = d;
    a.lastCounters = null;
    if (day + DAY_MS - 1 > this.latest) this.latest = Math.max(this.latest, day);
  }

  /** Adds a seeded hour (history fetched from the exchange). */
  seedHour(account: string, hour: number, requests: number, traded: DecimalInput): void {
    const a = this.accounts.get(account) ?? this.addAccount(account);
    if (a.hours.some((h) => h.start >= hour)) throw new InvalidInputError('`hour` of seeded history', formatUtcInstant(hour), `an hour before any already counted for ${account}`);
    const h = new Hour(hour);
    h.requests = requests;
    h.traded.add(readVolume(traded));
    a.hours.push(h);
    a.hour = h;
    this.latest = Math.max(this.latest, hour);
  }

  private addAccount(account: string): AccountCounters {
    parseId(account, '`account`');
    const a = new AccountCounters();
    this.accounts.set(account, a);
    return a;
  }

  private dayOf(a: AccountCounters, at: number): Day {
    const start = at - (at % DAY_MS);
    if (a.day !== null && a.day.start === start) return a.day;
    const d = new Day(start);
    a.days.push(d);
    while (a.days.length > 0 && a.days[0]!.start <= start - DAYS_KEPT * DAY_MS) a.days.shift();
    a.day = d;
    a.lastCounters = null;
    return d;
  }

  private hourOf(a: AccountCounters, at: number): Hour {
    const start = at - (at % HOUR_MS);
    if (a.hour !== null && a.hour.start === start) return a.hour;
    const h = new Hour(start);
    a.hours.push(h);
    while (a.hours.length > 0 && a.hours[0]!.start <= start - HOURS_KEPT * HOUR_MS) a.hours.shift();
    a.hour = h;
    return h;
  }

  private refuseInstant(at: unknown): never {
    throw new InvalidInputError('`at`', at, `an instant at or after the last one recorded (${this.latest === -Infinity ? 'none yet' : formatUtcInstant(this.latest)})`);
  }
}

function readVolume(volume: DecimalInput): Fixed {
  return fixedFromDec(parseNonNegativeDecimal(volume, '`volume`'));
}

function text(f: Fixed): string {
  return toDec(f).toFixed();
}
