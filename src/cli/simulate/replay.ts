import { type Catalog, type Classification } from '../../catalog/catalog.js';
import type { FillRole } from '../../account/tracker.js';
import { type Account, type CountedLimit, ExchangeCore, type Party, SPOT_THROTTLE_KEY, THROTTLE_KEY } from '../../exchange/core.js';
import { SlidingCount } from '../../exchange/sliding-count.js';
import { UNTHROTTLED } from '../../rules/abuse.js';
import { HOUR_MS, utcHourStart } from '../../rules/calendar.js';
import type { FamilyConfig } from '../../rules/family.js';
import { WindowLimit } from '../../schedule/window.js';
import { InputFileError } from '../input.js';
import type { LogRows, LogSummary } from './log-reader.js';
import { Histogram } from './histogram.js';

/** The log's accounts form one family. */
const FAMILY = 'log';

/** What a replay found. */
export interface SimulationReport {
  readonly lines: number;
  readonly requests: number;
  readonly fills: number;
  readonly from: number | null;
  readonly to: number | null;
  /** The log as sent: what the exchange would have refused with 429, by the limit that refused. */
  readonly exchange: {
    readonly refused: number;
    readonly byLimit: Readonly<Record<string, number>>;
    /** The first refused requests: line, instant and limit. */
    readonly examples: readonly { readonly line: number; readonly at: number; readonly account: string; readonly limit: string }[];
  };
  /** The log sent through the scheduler: the delays it added, and what the exchange would refuse then. */
  readonly scheduler: {
    readonly delayed: number;
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly maxMs: number;
    /** Requests heavier than a limit could ever take (refused by the scheduler). */
    readonly tooHeavy: number;
    /** Requests the exchange would refuse at their scheduled instants: 0 when the schedule is right. */
    readonly refusedByExchange: number;
  };
}

/** One limit as the scheduler side of the replay sees it. */
interface Side {
  readonly key: string;
  /** The scheduler's limit (N and W in force), and the last instant it dispatched at. */
  readonly scheduled: WindowLimit;
  last: number;
  /** The schedule checked against the rules. */
  readonly check: SlidingCount;
}

/** An account (or the log's one IP, for public requests) on both sides of the replay. */
interface PartyState {
  /** As the exchange counts it. */
  readonly party: Party;
  readonly sides: Map<string, Side>;
  /** The sides each (cached) classification draws on. */
  readonly byClass: Map<Classification, Side[]>;
}

interface AccountState extends PartyState {
  readonly party: Account;
  readonly place: Side;
  readonly throttle: Side;
  readonly spotThrottle: Side;
}

/**
 * The two sides of a replay, handed the rows of a log: the exchange's (what it admits and refuses)
 * and the scheduler's (the delays it adds, and its schedule checked against the rules).
 */
export class Replay implements LogRows<AccountState> {
  /** The exchange's side: what it admits and refuses, and the activity it counts. */
  private readonly core: ExchangeCore;
  private readonly accounts = new Map<string, AccountState>();
  private readonly publicState: PartyState;
  private nextRefresh = -Infinity;
  private refused = 0;
  private readonly byLimit: Record<string, number> = {};
  private readonly examples: { line: number; at: number; account: string; limit: string }[] = [];
  private readonly delays = new Histogram();
  private delayed = 0;
  private tooHeavy = 0;
  private refusedLater = 0;

  constructor(
    private readonly file: string,
    private readonly family: FamilyConfig,
    private readonly catalog: Catalog,
    vipLevel: number,
  ) {
    this.core = new ExchangeCore([{ id: FAMILY, accounts: [], vipLevel, options: family }]);
    this.publicState = { party: this.core.ip(''), sides: new Map(), byClass: new Map() };
  }

  time(at: number): void {
    while (at >= this.nextRefresh) this.refresh(this.nextRefresh === -Infinity ? utcHourStart(at) : this.nextRefresh);
  }

  fill(at: number, state: AccountState, market: 'futures' | 'spot', contract: string, role: FillRole, volume: string): void {
    this.core.recordFill(state.party, market, contract, role, volume, at);
  }

  request(at: number, state: AccountState, c: Classification, contract: string, no: number): void {
    const party = c.market === 'public' ? this.publicState : state;
    // As sent: the exchange refuses with 429 when any limit is full, and counts the request.
    const refused: CountedLimit | null = this.core.admit(party.party, c, at, contract);
    if (refused !== null) {
      this.refused++;
      this.byLimit[refused.key] = (this.byLimit[refused.key] ?? 0) + 1;
      if (this.examples.length < 5) this.examples.push({ line: no, at, account: state.party.id, limit: refused.key });
    }
    const sides = this.sidesOf(party, c);
    // Through the scheduler: first in, first out on every limit it shares, at the earliest
    // instant all of its limits allow.
    let d = at;
    for (const s of sides) if (s.last > d) d = s.last;
    for (;;) {
      let wait = 0;
      for (const s of sides) {
        const w = s.scheduled.waitFor(c.weight, d);
        if (w > wait) wait = w;
      }
      if (wait === 0) break;
      if (wait === Infinity) {
        this.tooHeavy++;
        return;
      }
      d += wait;
    }
    for (const s of sides) {
      s.scheduled.take(c.weight, d);
      s.last = d;
      if (s.scheduled.limit < UNTHROTTLED) {
        if (!s.check.fits(d, c.weight, s.scheduled.limit, s.scheduled.windowMs)) this.refusedLater++;
        s.check.add(d, c.weight);
      }
    }
    if (d > at) this.delayed++;
    this.delays.add(d - at);
  }

  /** The scheduler's sides of the limits the exchange counts `c` on, in the same order. */
  private sidesOf(state: PartyState, c: Classification): Side[] {
    const known = state.byClass.get(c);
    if (known !== undefined) return known;
    const out: Side[] = [];
    for (const l of this.core.limitsOf(state.party, c)) {
      if (l.key === 'futures.place') out.push((state as AccountState).place);
      else if (l.key === THROTTLE_KEY) out.push((state as AccountState).throttle);
      else if (l.key === SPOT_THROTTLE_KEY) out.push((state as AccountState).spotThrottle);
      else {
        let s = state.sides.get(l.key);
        if (s === undefined) state.sides.set(l.key, (s = side(l.key, l.n, l.w)));
        out.push(s);
      }
    }
    if (state.byClass.size < 10_000) state.byClass.set(c, out);
    return out;
  }

  /** The scheduler's tiers and throttles at the whole hour `at`: what the exchange has in force (R3-R9, R14). */
  private refresh(at: number): void {
    this.nextRefresh = at + HOUR_MS;
    for (const s of this.accounts.values()) {
      const f = this.core.inForce(s.party, at);
      if (f.limit !== s.place.scheduled.limit) s.place.scheduled.update({ limit: f.limit });
      const n = f.throttle?.limit ?? UNTHROTTLED;
      if (n !== s.throttle.scheduled.limit) s.throttle.scheduled.update({ limit: n });
      const spot = f.spotThrottle?.limit ?? UNTHROTTLED;
      if (spot !== s.spotThrottle.scheduled.limit) s.spotThrottle.scheduled.update({ limit: spot });
    }
  }

  account(id: string, no: number): AccountState {
    if (this.accounts.size >= 10_000) throw new InputFileError(this.file, no, 'more than 10,000 accounts in one log');
    const place = this.catalog.limits['futures.place']!;
    const abuse = this.core.abuse;
    const party: Account = this.core.addAccount(FAMILY, { id });
    const state: AccountState = {
      party,
      sides: new Map(),
      byClass: new Map(),
      place: side('futures.place', this.family.tiers[0]!.limit, place.windowMs, this.family.tiers.at(-1)!.limit),
      throttle: side(THROTTLE_KEY, UNTHROTTLED, Math.max(abuse.noFillLimit.windowMs, abuse.lowFillLimit.windowMs),
        Math.max(abuse.noFillLimit.limit, abuse.lowFillLimit.limit)),
      spotThrottle: side(SPOT_THROTTLE_KEY, UNTHROTTLED, this.core.spotFill.limit.windowMs, this.core.spotFill.limit.limit),
    };
    this.accounts.set(id, state);
    this.refresh(this.nextRefresh - HOUR_MS);
    return state;
  }

  report(log: LogSummary): SimulationReport {
    return {
      lines: log.lines,
      requests: log.requests,
      fills: log.fills,
      from: log.from,
      to: log.to,
      exchange: { refused: this.refused, byLimit: { ...this.byLimit }, examples: [...this.examples] },
      scheduler: {
        delayed: this.delayed,
        p50Ms: this.delays.quantile(0.5),
        p99Ms: this.delays.quantile(0.99),
        maxMs: this.delays.max,
        tooHeavy: this.tooHeavy,
        refusedByExchange: this.refusedLater,
      },
    };
  }
}

function side(key: string, limit: number, windowMs: number, most = limit): Side {
  return { key, scheduled: new WindowLimit({ name: key, limit, windowMs }), last: -Infinity, check: new SlidingCount(most) };
}
