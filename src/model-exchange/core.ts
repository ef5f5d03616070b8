import { Tracker } from '../account/tracker.js';
import type { FillRole } from '../account/tracker.js';
import type { Classification, EndpointLimit } from '../catalog/catalog.js';
import { InvalidInputError } from '../errors.js';
import { type AbuseConfig, type AbuseOptions, resolveAbuseOptions } from '../rules/abuse.js';
import { formatUtcInstant, parseUtcDay, utcHourStart } from '../rules/calendar.js';
import type { DecimalInput } from '../internal/decimal.js';
import { type FamilyConfig, resolveFamilyOptions } from '../rules/family.js';
import { parseId, parseInstant } from '../internal/parse.js';
import { type SpotFillConfig, type SpotFillOptions, resolveSpotFillOptions } from '../rules/spot-fill.js';
import { spotFillLimits } from '../catalog/spot-fill.js';
import { type DailyActivity, type TimelineAccount, type VipChange, buildTimeline } from '../rules/timeline/timeline.js';
import { parseVipLevel } from '../rules/vip.js';
import { type ArrivalCount, type WindowMode, arrivalCount } from './arrival-count.js';
import type { FamilySpec } from '../family-files/accounts-file.js';
import type { HistoryHour } from '../family-files/history.js';
import { type AccountInForce, type FamilyCounts, type FamilyInForce, familyInForce } from '../account/in-force.js';
import { type ExchangeApi, GATE_API } from '../catalog/exchange-api.js';

/** Options of the exchange's core. */
export interface CoreOptions {
  /** How "N per W" is counted (see docs/rules.md#r13). @default "sliding" */
  readonly window?: WindowMode;
  /** Abuse throttle thresholds (see docs/rules.md#r9). */
  readonly abuse?: AbuseOptions | AbuseConfig;
  /** Spot low-fill throttle thresholds and scope (see docs/rules.md#r14). */
  readonly spotFill?: SpotFillOptions | SpotFillConfig;
  /**
   * The exchange's API: how requests are classified, which limit is the tier's, how refusals are
   * labelled and where requests and fills are counted. Families' options are resolved under its
   * rulebook. @default GATE_API
   */
  readonly api?: ExchangeApi;
}

/** The limit key of the abuse throttle (see docs/rules.md#r9). */
export const THROTTLE_KEY = 'abuse-throttle';
/** The limit key of the spot low-fill throttle (see docs/rules.md#r14). */
export const SPOT_THROTTLE_KEY = 'spot-fill-throttle';

/** One limit of one account (or IP) as the exchange counts it. */
export class CountedLimit {
  /** Requests it let through, and requests it refused (it was the first limit found full). */
  accepted = 0;
  refused = 0;
  constructor(
    /** The limit's key: `futures.place`, `abuse-throttle`, `spot.place:BTC_USDT`, ... */
    readonly key: string,
    /** N in force (Infinity for a throttle not in force). */
    public n: number,
    /** W in force, in milliseconds. */
    public w: number,
    readonly count: ArrivalCount,
    /** The label of a refusal: Gate's TOO_MANY_REQUESTS or TOO_FAST (see docs/rules.md#r12), OKX's code (50061, 50011). */
    readonly label: string,
    /** Whether it is the fill-ratio limit (the tier, see docs/rules.md#r3, or the abuse throttle, #r9). */
    readonly fillRatio: boolean,
  ) {}
}

/** Whoever requests are counted for: an account (uid), or an IP for public endpoints (see docs/rules.md#r10). */
export class Party {
  readonly limits = new Map<string, CountedLimit>();
  /** The limits each (cached) classification draws on. */
  readonly byClass = new Map<Classification, CountedLimit[]>();
  accepted = 0;
  /** Refused requests by the exchange's label. */
  readonly refused = new Map<string, number>();
  constructor(readonly id: string) {}
}

/** An account of a family. */
export class Account extends Party {
  inForce: AccountInForce | null = null;
  readonly tierLimits: CountedLimit[] = [];
  constructor(
    id: string,
    readonly family: Family,
    readonly throttle: CountedLimit,
    readonly spotThrottle: CountedLimit,
  ) {
    super(id);
  }
}

/** A family as the core holds it. */
export class Family {
  futures = new Tracker();
  /** Spot order requests and fills per account and hour, the activity the spot low-fill throttle reads (see docs/rules.md#r14). */
  spot = new Tracker();
  readonly vipChanges: VipChange[] = [];
  inForce: FamilyInForce | null = null;
  until = -Infinity;
  constructor(
    readonly id: string,
    public accounts: TimelineAccount[],
    public vipLevel: number,
    readonly config: FamilyConfig,
  ) {}
}

/**
 * What the exchange does with a request arriving at an instant: admit it or refuse it with the
 * label of the exchange's answer (see docs/rules.md#r12), on every limit it draws on at once (see docs/rules.md#r10, the tier of #r3 to #r8, the throttles of #r9 and #r14),
 * and count it as the rules count order requests, refused ones included (see docs/rules.md#r1, #r9). The instant is
 * passed in; nothing here reads a clock. `simulate` replays logs through it; the model exchange
 * serves HTTP and WebSocket in front of it.
 */
export class ModelExchangeCore {
  readonly window: WindowMode;
  readonly abuse: AbuseConfig;
  readonly spotFill: SpotFillConfig;
  readonly api: ExchangeApi;
  private readonly families = new Map<string, Family>();
  private readonly accounts = new Map<string, Account>();
  private readonly ips = new Map<string, Party>();
  private latest = -Infinity;

  constructor(families: readonly FamilySpec[], options: CoreOptions = {}) {
    if (options.window !== undefined && options.window !== 'sliding' && options.window !== 'fixed') {
      throw new InvalidInputError('`window`', options.window, '"sliding" or "fixed"');
    }
    this.window = options.window ?? 'sliding';
    this.abuse = resolveAbuseOptions(options.abuse);
    this.spotFill = resolveSpotFillOptions(options.spotFill);
    this.api = options.api ?? GATE_API;
    for (const f of families) this.addFamily(f);
  }

  /** Adds a family; its accounts' ids must be new. */
  addFamily(spec: FamilySpec): Family {
    const id = parseId(spec?.id, '`id` of a family');
    if (this.families.has(id)) throw new InvalidInputError('`id` of a family', id, 'a family id given once');
    const config = resolveFamilyOptions(spec.options ?? {}, this.api.rulebook);
    const vipLevel = parseVipLevel(spec.vipLevel ?? config.rulebook.tieredVipLevel, `\`vipLevel\` of family ${id}`);
    if (!Array.isArray(spec.accounts))
      throw new InvalidInputError(`\`accounts\` of family ${id}`, spec.accounts, 'an array');
    // The timeline checks ids, roles and creation instants once, here (a family may start empty).
    if (spec.accounts.length > 0) buildTimeline({ accounts: spec.accounts, activity: [] }, config);
    for (const a of spec.accounts) {
      if (this.accounts.has(a.id))
        throw new InvalidInputError('`id` of an account', a.id, 'an id given once across all families');
    }
    const family = new Family(
      id,
      spec.accounts.map((a) => ({ ...a })),
      vipLevel,
      config,
    );
    this.families.set(id, family);
    for (const a of family.accounts) this.addAccountState(family, a.id);
    return family;
  }

  /** Adds an account to a family: one that existed before (no `createdAt`), or a new sub-account (see docs/rules.md#r8). */
  addAccount(familyId: string, account: TimelineAccount): Account {
    const family = this.family(familyId);
    const id = parseId(account?.id, '`id` of an account');
    if (this.accounts.has(id)) throw new InvalidInputError('`id` of an account', id, 'an id not yet used');
    const accounts = [...family.accounts, { ...account }];
    buildTimeline({ accounts, activity: [] }, family.config);
    family.accounts = accounts;
    family.until = -Infinity;
    return this.addAccountState(family, id);
  }

  /** An account, or undefined. */
  findAccount(id: string): Account | undefined {
    return this.accounts.get(id);
  }

  /** An account; an unknown id is refused. */
  account(id: string): Account {
    const a = this.accounts.get(id);
    if (a === undefined)
      throw new InvalidInputError(
        '`account`',
        id,
        `an account of the exchange (${[...this.accounts.keys()].join(', ')})`,
      );
    return a;
  }

  /** A family by id; an unknown id is refused. */
  family(id: string): Family {
    const f = this.families.get(id);
    if (f === undefined)
      throw new InvalidInputError('`family`', id, `a family of the exchange (${[...this.families.keys()].join(', ')})`);
    return f;
  }

  /** Every family, in the order added. */
  allFamilies(): readonly Family[] {
    return [...this.families.values()];
  }

  /** The party counted for public requests from `ip` (see docs/rules.md#r10: public limits count per IP). */
  ip(ip: string): Party {
    let p = this.ips.get(ip);
    if (p === undefined) this.ips.set(ip, (p = new Party(ip)));
    return p;
  }

  /** Every IP that made public requests. */
  allIps(): readonly Party[] {
    return [...this.ips.values()];
  }

  /**
   * A request arriving at `at`: admitted (null) or refused by the first of its limits found full
   * (returned). Either way, an order request of an account is counted under `instrument` (its
   * futures contract or spot pair), `c.orders` times (see docs/rules.md#r1, #r9; #r14 for spot). An
   * instant before the latest one seen is taken as the latest. On an exchange that answers each
   * order of a batch apart, see {@link admitOrders}.
   */
  admit(party: Party, c: Classification, at: number, instrument = ''): CountedLimit | null {
    return this.admitOrders(party, c, at, instrument).refused;
  }

  /**
   * {@link admit}, with the orders admitted: all of them or none, except on an exchange that
   * answers each order of a batch apart (OKX's `sCode`, the API's `ordersApart`), where the batch's
   * first orders that fit every limit are admitted and the rest refused by the first limit full
   * for one more. Orders are counted in the ratio as the rulebook says: all of them where refused
   * requests count (Gate), the admitted ones only otherwise (OKX).
   */
  admitOrders(
    party: Party,
    c: Classification,
    at: number,
    instrument = '',
  ): { readonly admitted: number; readonly refused: CountedLimit | null } {
    const t = at > this.latest ? at : this.latest;
    this.latest = t;
    const account = party instanceof Account ? party : null;
    if (account !== null && t >= account.family.until) this.refresh(account.family, t);
    const limits = party.byClass.get(c) ?? this.limitsOf(party, c);
    let weight = c.weight;
    let admitted = c.orders;
    let refused = fullFor(limits, t, weight);
    if (refused !== null && this.api.ordersApart && c.orders > 1) {
      // The most orders of the batch that fit every limit; the first limit full for one more refuses the rest.
      const each = c.weight / c.orders;
      admitted = 0;
      for (let n = c.orders - 1; n > 0 && admitted === 0; n--) if (fullFor(limits, t, n * each) === null) admitted = n;
      weight = admitted * each;
      refused = fullFor(limits, t, weight + each);
    } else if (refused !== null) {
      admitted = 0;
    }
    if (admitted > 0) {
      for (let i = 0; i < limits.length; i++) {
        const l = limits[i]!;
        l.count.add(t, weight);
        l.accepted++;
      }
      party.accepted++;
    }
    if (refused !== null) {
      refused.refused++;
      party.refused.set(refused.label, (party.refused.get(refused.label) ?? 0) + 1);
    }
    // Gate counts refused requests in the ratio, OKX only successful ones (see docs/rules.md#r1; OKX's O2).
    const counted = account === null ? 0 : account.family.config.rulebook.ratio.countsRefused ? c.orders : admitted;
    const tracked = counted > 0 ? this.api.requestTracked(c, instrument) : null;
    if (tracked !== null && c.action !== 'other') {
      // The tracker counts whole milliseconds; the model's clock has a fraction (the exchange's clock counts microseconds, see docs/rules.md#r15).
      (tracked.tracker === 'futures' ? account!.family.futures : account!.family.spot).recordRequest(
        account!.id,
        tracked.name,
        c.action,
        Math.floor(t),
        counted,
      );
    }
    return { admitted, refused };
  }

  /** Counts a refusal the gateway made for another reason (an expired timestamp, a bad body...). */
  noteRefusal(party: Party, label: string): void {
    party.refused.set(label, (party.refused.get(label) ?? 0) + 1);
  }

  /**
   * Counts a fill: `volume` USDT on a futures contract or a spot pair, as maker or taker (see docs/rules.md#r1, #r9;
   * #r14); on OKX every fill counts in the ratio, whatever its market.
   */
  recordFill(
    account: Account,
    market: 'futures' | 'spot',
    instrument: string,
    role: FillRole,
    volume: DecimalInput,
    at: number,
  ): void {
    const t = at > this.latest ? at : this.latest;
    this.latest = t;
    const tracked = this.api.fillTracked(market, instrument);
    (tracked.tracker === 'futures' ? account.family.futures : account.family.spot).recordFill(
      account.id,
      tracked.name,
      role,
      volume,
      Math.floor(t),
    );
  }

  /** The limits `c` draws on for `party`, in the order checked. */
  limitsOf(party: Party, c: Classification): CountedLimit[] {
    const known = party.byClass.get(c);
    if (known !== undefined) return known;
    const out: CountedLimit[] = [];
    for (const spec of c.limits) {
      if (this.api.tierKeys.has(spec.key) && party instanceof Account) {
        out.push(this.tierLimit(party, spec));
        // The abuse throttle rides on the tier's limit where the rulebook has one (see docs/rules.md#r9).
        if (party.family.config.rulebook.throttles.abuse !== null) out.push(party.throttle);
        continue;
      }
      let l = party.limits.get(spec.key);
      if (l === undefined)
        party.limits.set(spec.key, (l = this.counted(spec.key, spec.limit, spec.windowMs, spec.limit, false)));
      out.push(l);
    }
    if (
      party instanceof Account &&
      party.family.config.rulebook.throttles.spotFill !== null &&
      spotFillLimits(c, this.spotFill)
    ) {
      out.push(party.spotThrottle);
    }
    if (party.byClass.size < 10_000) party.byClass.set(c, out);
    return out;
  }

  /** What is in force for `account` at `at` (see docs/rules.md#r3 to #r9). */
  inForce(account: Account, at: number): AccountInForce {
    const t = at > this.latest ? at : this.latest;
    if (t >= account.family.until || account.inForce === null) this.refresh(account.family, t);
    return account.inForce!;
  }

  /** What is in force for a family at `at`. */
  familyInForce(family: Family, at: number): FamilyInForce {
    const t = at > this.latest ? at : this.latest;
    if (t >= family.until || family.inForce === null) this.refresh(family, t);
    return family.inForce!;
  }

  /** A change of the family's VIP level at `at` (see docs/rules.md#r6). */
  setVipLevel(family: Family, level: number, at: number): void {
    const l = parseVipLevel(level, '`level`');
    const t = parseInstant(at > this.latest ? at : this.latest, '`at`');
    const last = family.vipChanges.at(-1)?.at ?? -Infinity;
    if (t <= last)
      throw new InvalidInputError(
        '`at`',
        formatUtcInstant(t),
        `an instant after the family's last VIP change (${formatUtcInstant(last)})`,
      );
    family.vipChanges.push({ at: t, level: l });
    family.until = -Infinity;
  }

  /** The family's VIP level at `at`. */
  vipLevelAt(family: Family, at: number): number {
    let level = family.vipLevel;
    for (const v of family.vipChanges) if (v.at <= at) level = v.level;
    return level;
  }

  /**
   * Seeds history before anything is counted: daily activity as `timeline` reads it (see docs/rules.md#r5), hours
   * of order requests and USDT traded (see docs/rules.md#r9), and the same hours on spot (see docs/rules.md#r14). Validated whole
   * first: nothing is added if any of it is wrong.
   */
  seed(history: {
    readonly days?: readonly DailyActivity[];
    readonly hours?: readonly HistoryHour[];
    readonly spotHours?: readonly HistoryHour[];
  }): void {
    const byFamily = new Map<Family, DailyActivity[]>();
    (history.days ?? []).forEach((d, i) => {
      const a = this.accounts.get(d?.account);
      if (a === undefined)
        throw new InvalidInputError(`\`activity[${i}].account\``, d?.account, 'an account of the accounts file');
      const list = byFamily.get(a.family) ?? [];
      list.push(d);
      byFamily.set(a.family, list);
    });
    for (const [family, days] of byFamily) buildTimeline({ accounts: family.accounts, activity: days }, family.config);
    const readHours = (list: readonly HistoryHour[] | undefined, name: string) =>
      (list ?? []).map((h, i) => {
        const a = this.accounts.get(h?.account);
        if (a === undefined)
          throw new InvalidInputError(`\`${name}[${i}].account\``, h?.account, 'an account of the accounts file');
        return {
          account: a,
          hour: utcHourStart(parseInstant(h.hour, `\`${name}[${i}].hour\``)),
          requests: h.requests,
          traded: h.traded ?? '0',
        };
      });
    const hours = readHours(history.hours, 'hours');
    const spotHours = readHours(history.spotHours, 'spotHours');
    const seedHours = (t: Tracker, family: Family, list: typeof hours) => {
      for (const h of list.filter((x) => x.account.family === family).sort((a, b) => a.hour - b.hour))
        t.seedHour(h.account.id, h.hour, h.requests, h.traded);
    };
    // Each family's trackers are made again with the history, then swapped in: all or nothing.
    const next = new Map<Family, { futures: Tracker; spot: Tracker }>();
    for (const family of this.families.values()) {
      const t = Tracker.restore(family.futures.snapshot());
      const days = (byFamily.get(family) ?? []).map((d, i) => ({
        ...d,
        start: parseUtcDay(d.day, `\`activity[${i}].day\``),
      }));
      days.sort((a, b) => a.start - b.start);
      for (const d of days)
        t.seedDay(
          d.account,
          d.start,
          d.contracts.map(({ kind: _kind, ...c }) => ({ ...c, contract: this.api.seedName(c.contract) })),
        );
      seedHours(t, family, hours);
      const spot = Tracker.restore(family.spot.snapshot());
      seedHours(spot, family, spotHours);
      next.set(family, { futures: t, spot });
    }
    for (const [family, t] of next) {
      family.futures = t.futures;
      family.spot = t.spot;
      family.until = -Infinity;
    }
  }

  private refresh(family: Family, at: number): void {
    // The rules take whole milliseconds; the hour's decisions do not depend on the fraction.
    const f = familyInForce(
      { ...family, futures: renamed(family.futures, this.api.activityName) },
      family.config,
      this.abuse,
      Math.floor(at),
      this.spotFill,
    );
    // The throttles are in force only where the rulebook has them (Gate's abuse and spot low-fill throttles, see docs/rules.md#r9 and #r14; OKX has none).
    const { abuse, spotFill } = family.config.rulebook.throttles;
    family.inForce = f;
    family.until = f.until;
    const tier1 = family.config.tiers[0]!;
    for (const a of family.accounts) {
      const account = this.accounts.get(a.id)!;
      const rated = f.accounts.get(a.id);
      const state = (rated === undefined ? undefined : throttledAs(rated, abuse !== null, spotFill !== null)) ?? {
        tier: tier1,
        limit: tier1.limit,
        throttle: null,
        spotThrottle: null,
        vipLevel: this.vipLevelAt(family, at),
        reason: 'initial' as const,
        rating: null,
      };
      account.inForce = state;
      for (const l of account.tierLimits) l.n = state.limit;
      account.throttle.n = state.throttle?.limit ?? Infinity;
      if (state.throttle !== null) account.throttle.w = state.throttle.windowMs;
      account.spotThrottle.n = state.spotThrottle?.limit ?? Infinity;
    }
  }

  private tierLimit(account: Account, spec: EndpointLimit): CountedLimit {
    let l = account.limits.get(spec.key);
    if (l === undefined) {
      const tiers = account.family.config.tiers;
      l = this.counted(spec.key, account.inForce?.limit ?? tiers[0]!.limit, spec.windowMs, tiers.at(-1)!.limit, true);
      account.limits.set(spec.key, l);
      account.tierLimits.push(l);
    }
    return l;
  }

  private addAccountState(family: Family, id: string): Account {
    const { noFillLimit, lowFillLimit } = this.abuse;
    const throttle = this.counted(
      THROTTLE_KEY,
      Infinity,
      Math.max(noFillLimit.windowMs, lowFillLimit.windowMs),
      Math.max(noFillLimit.limit, lowFillLimit.limit),
      true,
    );
    const { limit } = this.spotFill;
    const spotThrottle = this.counted(SPOT_THROTTLE_KEY, Infinity, limit.windowMs, limit.limit, false);
    const account = new Account(id, family, throttle, spotThrottle);
    account.limits.set(THROTTLE_KEY, throttle);
    account.limits.set(SPOT_THROTTLE_KEY, spotThrottle);
    this.accounts.set(id, account);
    return account;
  }

  private counted(key: string, n: number, w: number, keep: number, fillRatio: boolean): CountedLimit {
    return new CountedLimit(key, n, w, arrivalCount(this.window, keep), this.api.refusalLabel(key), fillRatio);
  }
}

/** What is in force, with a throttle the rulebook does not have left out. */
function throttledAs(f: AccountInForce, abuse: boolean, spotFill: boolean): AccountInForce {
  if ((abuse || f.throttle === null) && (spotFill || f.spotThrottle === null)) return f;
  return { ...f, throttle: abuse ? f.throttle : null, spotThrottle: spotFill ? f.spotThrottle : null };
}

/** A tracker read with the rulebook's instrument names in its daily activity (itself where it keeps them). */
function renamed(tracker: Tracker, activityName: ((name: string) => string) | null): FamilyCounts {
  if (activityName === null) return tracker;
  return {
    dailyActivity: () =>
      tracker.dailyActivity().map((d) => ({
        ...d,
        contracts: d.contracts.map((c) => ({ ...c, contract: activityName(c.contract) })),
      })),
    hourlyActivity: (account) => tracker.hourlyActivity(account),
  };
}

/** The first of `limits` that `weight` more at `t` would take over its N, or null. */
function fullFor(limits: readonly CountedLimit[], t: number, weight: number): CountedLimit | null {
  for (let i = 0; i < limits.length; i++) {
    const l = limits[i]!;
    if (!l.count.fits(t, weight, l.n, l.w)) return l;
  }
  return null;
}
