import type { Classification } from '../../catalog/catalog.js';
import type { FillRole } from '../../account/tracker.js';
import {
  type Account,
  type CountedLimit,
  ModelExchangeCore,
  type Party,
  SPOT_THROTTLE_KEY,
  THROTTLE_KEY,
} from '../../model-exchange/core.js';
import type { ExchangeApi } from '../../catalog/exchange-api.js';
import { SlidingCount } from '../../model-exchange/sliding-count.js';
import { UNTHROTTLED } from '../../rules/abuse.js';
import { HOUR_MS, utcDayStart, utcHourStart } from '../../rules/calendar.js';
import { isTieredVip } from '../../rules/vip.js';
import type { FamilyConfig } from '../../rules/family.js';
import { CANCEL_PRIORITY } from '../../account/limiter-options.js';
import { VirtualClock } from '../../testing/virtual-clock.js';
import type { Submission } from '../../schedule/queue.js';
import { Scheduler } from '../../schedule/scheduler.js';
import type { SubmitRoute } from '../../schedule/submit.js';
import type { WindowLimit } from '../../schedule/window.js';
import { InputFileError } from '../input.js';
import type { LogRows, LogSummary } from './log-reader.js';
import { Histogram } from './histogram.js';
import type { ReplayHistory } from './history.js';
import {
  type AccountTally,
  type LimitChange,
  type MinuteTally,
  type StartSource,
  type StartingTier,
  type WindowPeak,
  countRefusal,
} from './tally.js';

/** The log's accounts form one family. */
const FAMILY = 'log';
const MINUTE_MS = 60_000;
/** How far past a limit's largest N the most in a window is counted. */
const PEAK_CAP = 10;

/** What a replay found. */
export interface SimulationReport {
  readonly lines: number;
  readonly requests: number;
  readonly fills: number;
  readonly from: number | null;
  readonly to: number | null;
  /**
   * The log as sent: what the exchange would have refused, by the limit that refused. Refusals are
   * requests, or orders where the exchange answers each order of a batch apart (OKX).
   */
  readonly exchange: {
    readonly refused: number;
    readonly byLimit: Readonly<Record<string, number>>;
    /**
     * By the code the exchange answers with, where it tells refusals by code (OKX: 50061 for the
     * sub-account limit, 50011 for an instrument's or endpoint's); null where every refusal is a
     * 429 (Gate).
     */
    readonly byCode: Readonly<Record<string, number>> | null;
    /** The first refused requests: line, instant and limit. */
    readonly examples: readonly {
      readonly line: number;
      readonly at: number;
      readonly account: string;
      readonly limit: string;
    }[];
  };
  /**
   * The log sent through the scheduler (the library's, on a virtual clock): the delays it added,
   * what it refused, and what the exchange would refuse at the instants it sent at.
   */
  readonly scheduler: {
    readonly delayed: number;
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly maxMs: number;
    /** Requests heavier than a limit could ever take (refused by the scheduler, never sent). */
    readonly tooHeavy: number;
    /** Requests refused because as many as the scheduler's `maxQueue` were waiting already (never sent). */
    readonly queueFull: number;
    /** Requests the exchange would refuse at their scheduled instants: 0 when the schedule is right. */
    readonly refusedByExchange: number;
  };
  /** Each account's tier and limit as it entered the replay, and where they come from. */
  readonly start: readonly StartingTier[];
  /** Each account's requests, refusals by limit and reason, and waits through the scheduler. */
  readonly accounts: readonly AccountTally[];
  /** Each minute with a request: requests and refusals by limit, in order of time. */
  readonly minutes: readonly MinuteTally[];
  /** The most requests each account sent in any one window of each of its limits, as sent. */
  readonly peaks: readonly WindowPeak[];
  /** The limits in force over the replay: each account's first, then every change, in order of time. */
  readonly limits: readonly LimitChange[];
  /** The exchange's API the log was read and replayed by, and its rulebook. */
  readonly api: ExchangeApi;
}

/** A request the exchange refused as sent. */
export interface Refusal {
  readonly line: number;
  readonly at: number;
  readonly account: string;
  /** The limit that refused it (`futures.place`, `abuse-throttle`, OKX's `sub-account`, ...). */
  readonly limit: string;
  readonly reason: string;
  /** The exchange's label of the refusal: TOO_MANY_REQUESTS or TOO_FAST on Gate, the code (50061, 50011) on OKX. */
  readonly label: string;
  /**
   * The orders of the request admitted all the same: 0, but for a batch on an exchange that answers
   * each order apart (OKX), whose first orders that fit are admitted.
   */
  readonly admitted: number;
}

/** One limit as the scheduler side of the replay sees it. */
interface Side {
  readonly key: string;
  /** The scheduler's limit (N and W in force). */
  readonly scheduled: WindowLimit;
  /** The schedule checked against the rules. */
  readonly check: SlidingCount;
  /** The log as sent, refused requests included: the most in any window. */
  readonly demand: SlidingCount;
  readonly cap: number;
  /** The window that went furthest over the N in force then (or came nearest): its count and that N. */
  peakOver: number;
  peakMost: number;
  peakN: number;
}

/** What a kind of request draws on through the scheduler: its sides, their limits, its priority. */
interface Route extends SubmitRoute {
  readonly sides: readonly Side[];
  /** The account whose waits it counts, or null for the public requests of the log's IP. */
  readonly tally: AccountTally | null;
  /** Counts a request of this kind sent now, given to the scheduler at the instant it is called with. */
  readonly sent: (at: number) => void;
}

/** An account (or the log's one IP, for public requests) on both sides of the replay. */
interface PartyState {
  /** As the exchange counts it. */
  readonly party: Party;
  /** Its part of its limits' names in the scheduler. */
  readonly name: string;
  readonly sides: Map<string, Side>;
  /** The route of each (cached) classification. */
  readonly byClass: Map<Classification, Route>;
}

interface AccountState extends PartyState {
  readonly party: Account;
  readonly tally: AccountTally;
  /** The limits in force last recorded. */
  last: LimitChange | null;
  readonly place: Side;
  readonly throttle: Side;
  readonly spotThrottle: Side;
}

/**
 * The two sides of a replay, handed the rows of a log: the exchange's (what it admits and refuses)
 * and the scheduler's (the delays it adds, and its schedule checked against the rules).
 *
 * The scheduler's side is the library's {@link Scheduler} on a {@link VirtualClock}, as an engine
 * runs it for the family: each request is given to it at its instant in the log, cancels ahead of
 * everything else, and the instant it lets the request through is the instant it is sent.
 */
export class Replay implements LogRows<AccountState> {
  /** The exchange's side: what it admits and refuses, and the activity it counts. */
  private readonly core: ModelExchangeCore;
  private readonly clock = new VirtualClock();
  private readonly scheduler: Scheduler;
  private readonly accounts = new Map<string, AccountState>();
  private readonly publicState: PartyState;
  private nextRefresh = -Infinity;
  private refused = 0;
  private readonly byLimit: Record<string, number> = {};
  private readonly byCode: Record<string, number> = {};
  private readonly examples: { line: number; at: number; account: string; limit: string }[] = [];
  private readonly delays = new Histogram();
  private delayed = 0;
  private refusedLater = 0;
  private readonly start: StartingTier[] = [];
  private readonly minutes: MinuteTally[] = [];
  private minute: MinuteTally | null = null;
  private readonly limits: LimitChange[] = [];

  constructor(
    private readonly file: string,
    private readonly family: FamilyConfig,
    private readonly api: ExchangeApi,
    vipLevel: number,
    maxQueue: number | undefined,
    private readonly history: ReplayHistory | null = null,
    private readonly onRefusal: ((r: Refusal) => void) | null = null,
  ) {
    this.scheduler = new Scheduler({ clock: this.clock, ...(maxQueue === undefined ? {} : { maxQueue }) });
    this.core = new ModelExchangeCore([{ id: FAMILY, accounts: [], vipLevel, options: family }], { api });
    this.publicState = { party: this.core.ip(''), name: 'public', sides: new Map(), byClass: new Map() };
  }

  /**
   * At the log's first instant, before anything is counted: the history's accounts, VIP changes
   * and activity, and the tier each account starts at.
   */
  private begin(at: number): void {
    const h = this.history;
    if (h === null) return;
    const history = h.read(at);
    const family = this.core.family(FAMILY);
    // What the core refuses here is the history file's (its accounts, changes and activity), not the log's.
    h.located(() => {
      for (const a of h.accounts) this.core.addAccount(FAMILY, a);
      for (const v of h.vipChanges) this.core.setVipLevel(family, v.level, v.at);
      this.core.seed(history);
    });
    for (const a of h.accounts) this.stateOf(a.id, at);
  }

  time(at: number): void {
    while (at >= this.nextRefresh) {
      if (this.nextRefresh === -Infinity) {
        this.begin(at);
        this.clock.moveTo(at);
        this.refresh(utcHourStart(at));
        continue;
      }
      // The tiers and throttles of the whole hour are in force before anything is decided at it:
      // what the scheduler's timer lets through at that instant already waits on them.
      const hour = this.nextRefresh;
      this.scheduler.setBoundary(hour, () => this.refresh(hour));
      this.clock.moveTo(hour);
      if (this.nextRefresh === hour) {
        this.scheduler.setBoundary(Infinity, null);
        this.refresh(hour);
      }
    }
    this.clock.moveTo(at);
  }

  fill(
    at: number,
    state: AccountState,
    market: 'futures' | 'spot',
    contract: string,
    role: FillRole,
    volume: string,
  ): void {
    this.core.recordFill(state.party, market, contract, role, volume, at);
  }

  request(at: number, state: AccountState, c: Classification, contract: string, no: number): void {
    const party = c.market === 'public' ? this.publicState : state;
    const route = this.routeOf(party, c);
    // As sent: the exchange refuses with 429 when any limit is full, and counts the request.
    const { admitted, refused } = this.core.admitOrders(party.party, c, at, contract);
    const weight = c.weight;
    for (const s of route.sides) {
      const n = s.scheduled.limit;
      const u = s.demand.used(at, s.scheduled.windowMs) + weight;
      s.demand.add(at, weight);
      if (u - n > s.peakOver) {
        s.peakOver = u - n;
        s.peakMost = u;
        s.peakN = n;
      }
    }
    let m = this.minute;
    if (m === null || at >= m.minute + MINUTE_MS) {
      this.minutes.push(
        (m = this.minute = { minute: at - (at % MINUTE_MS), requests: 0, refused: 0, byLimit: {}, byAccount: {} }),
      );
    }
    m.requests++;
    const tally = state.tally;
    tally.requests++;
    if (refused !== null) {
      // Where each order of a batch is answered apart (OKX), each refused order is a refusal (O8).
      const n = this.api.ordersApart ? c.orders - admitted : 1;
      this.refused += n;
      this.byLimit[refused.key] = (this.byLimit[refused.key] ?? 0) + n;
      this.byCode[refused.label] = (this.byCode[refused.label] ?? 0) + n;
      m.refused += n;
      m.byLimit[refused.key] = (m.byLimit[refused.key] ?? 0) + n;
      m.byAccount[state.party.id] = (m.byAccount[state.party.id] ?? 0) + n;
      tally.refused += n;
      const reason = this.reasonOf(state, refused);
      countRefusal(tally.byLimit, refused.key, reason, n);
      if (this.examples.length < 5) this.examples.push({ line: no, at, account: state.party.id, limit: refused.key });
      this.onRefusal?.({
        line: no,
        at,
        account: state.party.id,
        limit: refused.key,
        reason,
        label: refused.label,
        admitted,
      });
    }
    // Through the scheduler: given to it now, sent when it lets the request through.
    this.scheduler.submit(route.sent, at, route, this.submission);
  }

  /** Why a limit that refused was what it was: the tier and its reason, a throttle's reason, or an endpoint's limit (see docs/rules.md#r10). */
  private reasonOf(state: AccountState, refused: CountedLimit): string {
    const f = state.party.inForce;
    if (refused.key === THROTTLE_KEY) return f?.throttle?.reason ?? 'abuse-throttle';
    if (refused.key === SPOT_THROTTLE_KEY) return f?.spotThrottle?.reason ?? 'spot-fill-throttle';
    if (refused.fillRatio && f !== null) return `tier ${f.tier.tier} (${f.reason})`;
    return 'endpoint';
  }

  /** A request the scheduler let through now, given to it at `at`. */
  private sent(at: number, route: Route): void {
    const d = this.clock.now();
    for (const s of route.sides) {
      const l = s.scheduled;
      if (l.limit < UNTHROTTLED) {
        if (!s.check.fits(d, route.weight, l.limit, l.windowMs)) this.refusedLater++;
        s.check.add(d, route.weight);
      }
    }
    if (d > at) {
      this.delayed++;
      const t = route.tally;
      if (t !== null) {
        t.delayed++;
        t.totalWaitMs += d - at;
        if (d - at > t.maxWaitMs) t.maxWaitMs = d - at;
      }
    }
    this.delays.add(d - at);
  }

  /** What becomes of the requests given to the scheduler that it does not send. */
  private readonly submission: Submission = {
    // The scheduler counts its refusals by reason (its stats).
    refused: () => {},
    // Sending is counting, which does not throw; if it ever did, the report says so.
    failed: (error) => {
      this.failure ??= error;
    },
  };

  private failure: unknown = undefined;

  /** The scheduler's sides of the limits the exchange counts `c` on, in the same order. */
  private routeOf(state: PartyState, c: Classification): Route {
    const known = state.byClass.get(c);
    if (known !== undefined) return known;
    const sides: Side[] = [];
    for (const l of this.core.limitsOf(state.party, c)) {
      if (l.key === this.api.tierKey) sides.push((state as AccountState).place);
      else if (l.key === THROTTLE_KEY) sides.push((state as AccountState).throttle);
      else if (l.key === SPOT_THROTTLE_KEY) sides.push((state as AccountState).spotThrottle);
      else {
        let s = state.sides.get(l.key);
        if (s === undefined) state.sides.set(l.key, (s = this.side(state.name, l.key, l.n, l.w)));
        sides.push(s);
      }
    }
    const route: Route = {
      sides,
      tally: state === this.publicState ? null : (state as AccountState).tally,
      ...this.scheduler.route({
        limits: sides.map((s) => s.scheduled),
        weight: c.weight,
        priority: c.action === 'cancel' ? CANCEL_PRIORITY : 0,
      }),
      sent: (at) => this.sent(at, route),
    };
    if (state.byClass.size < 10_000) state.byClass.set(c, route);
    return route;
  }

  /** The scheduler's tiers and throttles at the whole hour `at`: what the exchange has in force (see docs/rules.md#r3 to #r9, #r14). */
  private refresh(at: number): void {
    this.nextRefresh = at + HOUR_MS;
    for (const s of this.accounts.values()) this.refreshAccount(s, at);
  }

  private refreshAccount(s: AccountState, at: number): void {
    const f = this.core.inForce(s.party, at);
    const throttle = f.throttle?.limit ?? null;
    const spotThrottle = f.spotThrottle?.limit ?? null;
    const l = s.last;
    if (
      l === null ||
      l.limit !== f.limit ||
      l.throttle !== throttle ||
      l.spotThrottle !== spotThrottle ||
      l.tier !== f.tier.tier
    ) {
      this.limits.push(
        (s.last = {
          at,
          account: s.party.id,
          limit: f.limit,
          tier: f.tier.tier,
          reason: f.reason,
          throttle,
          spotThrottle,
        }),
      );
    }
    if (f.limit !== s.place.scheduled.limit) s.place.scheduled.update({ limit: f.limit });
    const n = f.throttle?.limit ?? UNTHROTTLED;
    if (n !== s.throttle.scheduled.limit) s.throttle.scheduled.update({ limit: n });
    const spot = f.spotThrottle?.limit ?? UNTHROTTLED;
    if (spot !== s.spotThrottle.scheduled.limit) s.spotThrottle.scheduled.update({ limit: spot });
  }

  /**
   * After the log's last line: lets the scheduler send what still waits, the tiers and
   * throttles refreshed at every whole hour on the way, as they would be.
   */
  private finish(): void {
    for (let queued = this.scheduler.stats().queued; queued > 0; queued = this.scheduler.stats().queued) {
      if (this.clock.pendingTimers === 0)
        throw new Error(`the replay's scheduler holds ${queued} requests and no timer`);
      this.time(this.nextRefresh);
    }
  }

  private side(party: string, key: string, limit: number, windowMs: number, most = limit): Side {
    // Names key the scheduler's limits, each once: the party and the key as a pair, since either
    // may hold any text of the log (an account id, a spot pair).
    const cap = PEAK_CAP * most;
    return {
      key,
      scheduled: this.scheduler.limit({ name: JSON.stringify([party, key]), limit, windowMs }),
      check: new SlidingCount(most),
      demand: new SlidingCount(cap),
      cap,
      peakOver: -Infinity,
      peakMost: 0,
      peakN: limit,
    };
  }

  account(id: string, no: number): AccountState {
    if (this.accounts.size >= 10_000) throw new InputFileError(this.file, no, 'more than 10,000 accounts in one log');
    return this.stateOf(id, this.clock.now());
  }

  /** An account's state, made the first time it is named (by the history or the log) at `at`. */
  private stateOf(id: string, at: number): AccountState {
    const known = this.accounts.get(id);
    if (known !== undefined) return known;
    const abuse = this.core.abuse;
    const party: Account = this.core.findAccount(id) ?? this.core.addAccount(FAMILY, { id });
    const name = `account:${id}`;
    const state: AccountState = {
      party,
      name,
      tally: { account: id, requests: 0, refused: 0, byLimit: {}, delayed: 0, maxWaitMs: 0, totalWaitMs: 0 },
      last: null,
      sides: new Map(),
      byClass: new Map(),
      place: this.side(
        name,
        this.api.tierKey,
        this.family.tiers[0]!.limit,
        this.family.rulebook.tiers.windowMs,
        this.family.tiers.at(-1)!.limit,
      ),
      throttle: this.side(
        name,
        THROTTLE_KEY,
        UNTHROTTLED,
        Math.max(abuse.noFillLimit.windowMs, abuse.lowFillLimit.windowMs),
        Math.max(abuse.noFillLimit.limit, abuse.lowFillLimit.limit),
      ),
      spotThrottle: this.side(
        name,
        SPOT_THROTTLE_KEY,
        UNTHROTTLED,
        this.core.spotFill.limit.windowMs,
        this.core.spotFill.limit.limit,
      ),
    };
    this.accounts.set(id, state);
    // What is in force for it this hour; the others' limits are as they were.
    this.refreshAccount(state, this.nextRefresh === -Infinity ? utcHourStart(at) : this.nextRefresh - HOUR_MS);
    this.start.push(this.startOf(party, at));
    return state;
  }

  /** The tier an account enters the replay at, and where it comes from. */
  private startOf(party: Account, at: number): StartingTier {
    const f = this.core.inForce(party, at);
    const family = this.core.familyInForce(party.family, at);
    const created = party.family.accounts.find((a) => a.id === party.id)?.createdAt;
    const source: StartSource = !isTieredVip(f.vipLevel, this.family.rulebook.tieredVipLevel)
      ? 'vip'
      : created !== undefined && f.reason === 'new-sub-account'
        ? 'new-sub-account'
        : this.history !== null && f.rating !== null
          ? 'history'
          : 'assumed';
    return {
      account: party.id,
      at,
      tier: f.tier.tier,
      limit: f.limit,
      source,
      // The exchange rates the family at every 00:00: once there is a first snapshot, the latest is
      // that of the day `at` is in (the timeline takes none once no activity is left in the window,
      // but one would rate the same empty window).
      snapshotAt: family.snapshotAt === null ? null : utcDayStart(at),
      rating: f.rating,
      reason: f.reason,
    };
  }

  report(log: LogSummary): SimulationReport {
    this.finish();
    if (this.failure !== undefined) throw this.failure;
    const refusedBy = this.scheduler.stats().refused;
    return {
      lines: log.lines,
      requests: log.requests,
      fills: log.fills,
      from: log.from,
      to: log.to,
      exchange: {
        refused: this.refused,
        byLimit: { ...this.byLimit },
        byCode: this.api.codes === null ? null : { ...this.byCode },
        examples: [...this.examples],
      },
      scheduler: {
        delayed: this.delayed,
        p50Ms: this.delays.quantile(0.5),
        p99Ms: this.delays.quantile(0.99),
        maxMs: this.delays.max,
        tooHeavy: refusedBy['too-heavy'],
        queueFull: refusedBy['queue-full'],
        refusedByExchange: this.refusedLater,
      },
      start: this.start,
      accounts: [...this.accounts.values()].map((a) => a.tally),
      minutes: this.minutes,
      peaks: [...this.accounts.values()].flatMap((a) =>
        [a.place, ...a.sides.values()]
          .filter((x) => x.peakMost > 0)
          .map((x) => ({
            account: a.party.id,
            limit: x.key,
            most: x.peakMost,
            cap: x.cap,
            windowMs: x.scheduled.windowMs,
            n: x.peakN,
          })),
      ),
      limits: this.limits,
      api: this.api,
    };
  }
}
