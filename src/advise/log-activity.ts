import { ContractDay as TrackedDay } from '../account/tracker.js';
import type { Classification } from '../catalog/catalog.js';
import { type ExchangeApi, GATE_API } from '../catalog/exchange-api.js';
import { InvalidInputError } from '../errors.js';
import type { HourlyActivity } from '../rules/abuse.js';
import { DAY_MS, HOUR_MS } from '../rules/calendar.js';
import { contractName, normalizeContract } from '../rules/contracts.js';
import type { AccountActivity } from '../rules/family.js';
import { FixedSum, fixedFromDec, toDec } from '../internal/fixed.js';
import { parseNonNegativeDecimal } from '../internal/parse.js';
import type { ContractActivity } from '../rules/ratio.js';
import type { AdviceInput } from './advise.js';
import type { PairCount } from './edits.js';

/** One contract's counts on one UTC day. */
class ContractDay extends TrackedDay {
  /** Placements that followed a cancel on the same contract within the window. */
  pairs = 0;
}

/** An hour's order requests and USDT traded. */
class Hour {
  requests = 0;
  readonly traded = new FixedSum();
}

/** Cancels not yet followed by a placement, oldest first: instants in a growing array with a head. */
class Pending {
  at: number[] = [];
  head = 0;
}

/** One account of the log. */
export class LogAccount {
  readonly days = new Map<number, Map<string, ContractDay>>();
  readonly futuresHours = new Map<number, Hour>();
  readonly spotHours = new Map<number, Hour>();
  readonly pending = new Map<string, Pending>();
  // The day and contract counted last, as written and as found: consecutive rows mostly share them.
  private dayStart = -1;
  private day: Map<string, ContractDay> | null = null;
  private lastContract = '';
  private lastCounts: ContractDay | null = null;
  private hourStart = -1;
  private hour: Hour | null = null;
  constructor(readonly id: string) {}

  counts(contract: string, at: number): ContractDay {
    if (at - this.dayStart >= DAY_MS || this.day === null) {
      this.dayStart = at - (at % DAY_MS);
      this.day = this.days.get(this.dayStart) ?? null;
      if (this.day === null) this.days.set(this.dayStart, (this.day = new Map()));
      this.lastCounts = null;
    } else if (contract === this.lastContract && this.lastCounts !== null) {
      return this.lastCounts;
    }
    const name = contractName(contract) ?? normalizeContract(contract);
    let c = this.day.get(name);
    if (c === undefined) this.day.set(name, (c = new ContractDay()));
    this.lastContract = contract;
    this.lastCounts = c;
    return c;
  }

  futuresHour(at: number): Hour {
    if (at - this.hourStart >= HOUR_MS || this.hour === null) {
      this.hourStart = at - (at % HOUR_MS);
      this.hour = this.futuresHours.get(this.hourStart) ?? null;
      if (this.hour === null) this.futuresHours.set(this.hourStart, (this.hour = new Hour()));
    }
    return this.hour;
  }
}

function hourRows(hours: ReadonlyMap<number, Hour>): HourlyActivity[] {
  return [...hours].map(([hour, h]) => ({ hour, requests: h.requests, traded: toDec(h.traded.value()).toString() }));
}

/**
 * A family's activity gathered from a request log, row by row in constant memory per day and
 * account: futures order requests and fills per account, contract and UTC day (see docs/rules.md#r1), the cancel +
 * place pairs within `pairWindowMs` on the same contract from the same account, and hourly counts
 * of futures (see docs/rules.md#r9) and spot (see docs/rules.md#r14) order requests and fills. A futures request without a contract
 * counts under BTC_USDT, as the exchange model counts it. What counts where, and under which
 * name, is the exchange's API's (`api`): on OKX every order request and fill counts in the ratio,
 * under its instrument id, and no hour is kept (OKX has no hourly throttle).
 */
export class LogActivity {
  private readonly accounts: LogAccount[] = [];
  /** Which hours the advice reads: those of a market whose throttle the rulebook has. */
  private readonly hourly: { readonly futures: boolean; readonly spot: boolean };

  constructor(
    private readonly pairWindowMs: number,
    private readonly api: ExchangeApi = GATE_API,
  ) {
    const { abuse, spotFill } = api.rulebook.throttles;
    this.hourly = { futures: abuse !== null, spot: spotFill !== null };
    if (!Number.isSafeInteger(pairWindowMs) || pairWindowMs < 0)
      throw new InvalidInputError('the pair window', pairWindowMs, 'a non-negative whole number of milliseconds');
  }

  /** A new account. */
  account(id: string): LogAccount {
    if (this.accounts.length >= 10_000)
      throw new InvalidInputError('the accounts', this.accounts.length + 1, 'at most 10,000 accounts in one log');
    const a = new LogAccount(id);
    this.accounts.push(a);
    return a;
  }

  /** A request row. */
  request(at: number, a: LogAccount, c: Classification, contract: string): void {
    const action = c.action;
    if (action === 'other') return;
    const tracked = this.api.requestTracked(c, contract);
    if (tracked === null) return;
    if (tracked.tracker === 'spot') {
      const hour = at - (at % HOUR_MS);
      let h = a.spotHours.get(hour);
      if (h === undefined) a.spotHours.set(hour, (h = new Hour()));
      h.requests += c.orders;
      return;
    }
    const name = tracked.name;
    const counts = a.counts(name, at);
    const n = c.orders;
    a.futuresHour(at).requests += n;
    if (action === 'cancel') {
      counts.cancel += n;
      const p = this.pending(a, name);
      this.expire(p, at);
      for (let i = 0; i < n; i++) p.at.push(at);
    } else if (action === 'place') {
      counts.place += n;
      const p = a.pending.get(name);
      if (p === undefined) return;
      this.expire(p, at);
      const matched = Math.min(n, p.at.length - p.head);
      p.head += matched;
      counts.pairs += matched;
    } else {
      counts.amend += n;
    }
  }

  /** Drops the cancels older than the window at `at`: they can pair with nothing from now on, so the queue holds one window at most. */
  private expire(p: Pending, at: number): void {
    while (p.head < p.at.length && at - p.at[p.head]! > this.pairWindowMs) p.head++;
    if (p.head === p.at.length) {
      p.at.length = 0;
      p.head = 0;
    } else if (p.head > 1024 && p.head * 2 > p.at.length) {
      p.at = p.at.slice(p.head);
      p.head = 0;
    }
  }

  private pending(a: LogAccount, name: string): Pending {
    let p = a.pending.get(name);
    if (p === undefined) a.pending.set(name, (p = new Pending()));
    return p;
  }

  /** A fill row: `volume` USDT, validated as the exchange model validates it. */
  fill(
    at: number,
    a: LogAccount,
    market: 'futures' | 'spot',
    contract: string,
    role: 'maker' | 'taker',
    volume: string,
  ): void {
    const tracked = this.api.fillTracked(market, contract);
    normalizeContract(tracked.name);
    const hour = at - (at % HOUR_MS);
    if (tracked.tracker === 'spot') {
      let h = a.spotHours.get(hour);
      if (h === undefined) a.spotHours.set(hour, (h = new Hour()));
      add(h.traded, volume);
      return;
    }
    const counts = a.counts(tracked.name, at);
    add(role === 'maker' ? counts.maker : counts.taker, volume);
    add(a.futuresHour(at).traded, volume);
  }

  /** The UTC days the log has futures activity on, in order. */
  days(): number[] {
    const days = new Set<number>();
    for (const a of this.accounts) for (const d of a.days.keys()) days.add(d);
    return [...days].sort((x, y) => x - y);
  }

  /**
   * The advisor's input for the 7 UTC days ending with `lastDay` (the window of the snapshot taken
   * at the next 00:00 UTC, see docs/rules.md#r5): each account's activity and pairs in it, and, with `hours`, every
   * hour of the log.
   */
  window(lastDay: number, hours: boolean): Required<AdviceInput> {
    const from = lastDay - 6 * DAY_MS;
    const accounts: AccountActivity[] = [];
    const pairs: PairCount[] = [];
    for (const a of this.accounts) {
      const sums = new Map<
        string,
        { place: number; amend: number; cancel: number; pairs: number; maker: FixedSum; taker: FixedSum }
      >();
      for (const [day, contracts] of a.days) {
        if (day < from || day > lastDay) continue;
        for (const [contract, c] of contracts) {
          let s = sums.get(contract);
          if (s === undefined)
            sums.set(
              contract,
              (s = { place: 0, amend: 0, cancel: 0, pairs: 0, maker: new FixedSum(), taker: new FixedSum() }),
            );
          s.place += c.place;
          s.amend += c.amend;
          s.cancel += c.cancel;
          s.pairs += c.pairs;
          s.maker.add(c.maker.value());
          s.taker.add(c.taker.value());
        }
      }
      const contracts: ContractActivity[] = [];
      const nameOf = this.api.activityName;
      for (const [name, s] of sums) {
        const contract = nameOf === null ? name : nameOf(name);
        contracts.push({
          contract,
          makerVolume: toDec(s.maker.value()).toString(),
          takerVolume: toDec(s.taker.value()).toString(),
          place: s.place,
          amend: s.amend,
          cancel: s.cancel,
        });
        // A pair whose cancel fell the day before the window counts no cancel in it.
        const n = Math.min(s.pairs, s.place, s.cancel);
        if (n > 0) pairs.push({ account: a.id, contract, pairs: n });
      }
      accounts.push({ account: a.id, contracts });
    }
    const hourly = !hours
      ? []
      : this.accounts.flatMap((a) => [
          ...(this.hourly.futures && a.futuresHours.size > 0
            ? [{ account: a.id, market: 'futures' as const, hours: hourRows(a.futuresHours) }]
            : []),
          ...(this.hourly.spot && a.spotHours.size > 0
            ? [{ account: a.id, market: 'spot' as const, hours: hourRows(a.spotHours) }]
            : []),
        ]);
    return { accounts, pairs, hours: hourly };
  }
}

/** Adds a fill's volume: plain text the fast way, anything else validated as the rules validate it. */
function add(sum: FixedSum, volume: string): void {
  if (!sum.addText(volume)) sum.add(fixedFromDec(parseNonNegativeDecimal(volume, '`volume`')));
}
