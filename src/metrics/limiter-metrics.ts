import { Counter, Gauge, Histogram, type Metric, Registry } from 'prom-client';
import type { AccountLimiter, AccountStatus } from '../account/limiter.js';
import type { Action } from '../catalog/catalog.js';
import { InvalidInputError, type RefusalReason } from '../errors.js';
import { UNTHROTTLED } from '../rules/abuse.js';
import type { SchedulerEvent, SchedulerStats } from '../schedule/scheduler.js';

/**
 * Options of {@link LimiterMetrics}.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client'
 * import { type LimiterMetricsOptions, LimiterMetrics } from 'traderatio/metrics'
 *
 * // Into the application's own registry, beside its other metrics, under another prefix.
 * const registry = new Registry()
 * const options: LimiterMetricsOptions = { registry, prefix: 'desk_', waitBuckets: [0.001, 0.01, 0.1, 1] }
 * const metrics = new LimiterMetrics(options)
 * metrics.registry === registry // true
 * ;(await registry.metrics()).includes('# TYPE desk_limit gauge') // true
 * ```
 */
export interface LimiterMetricsOptions {
  /** Where the metrics are registered. @default a new Registry of its own */
  readonly registry?: Registry;
  /** What every metric's name starts with. @default "traderatio_" */
  readonly prefix?: string;
  /** The wait histogram's buckets, in seconds. @default 0.0005 to 60 */
  readonly waitBuckets?: readonly number[];
}

/** The accounts, limits and queries of one watched limiter. */
interface Watched {
  readonly limiter: AccountLimiter;
  readonly family: string;
  readonly stop: () => void;
  /** Each limit's name split into its account and limit, once known. */
  readonly names: Map<string, { readonly account: string; readonly limit: string }>;
  /** Only its limits per IP are shown (`watch`'s `perIpOnly`). */
  readonly perIpOnly: boolean;
  /** Limits of a throttle not in force (N of `UNTHROTTLED`) when last read: no series of theirs. */
  readonly idle: Set<string>;
}

/**
 * Options of {@link LimiterMetrics.watch}.
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 * import { type WatchOptions, LimiterMetrics } from 'traderatio/metrics'
 *
 * // A limiter of requests without a key: only its limits per IP are shown, under account "ip".
 * const limiter = new AccountLimiter({ accounts: [{ id: 'keyless' }] })
 * const metrics = new LimiterMetrics()
 * const options: WatchOptions = { perIpOnly: true }
 * metrics.watch(limiter, 'ip', options)
 * await limiter.request('keyless', 'GET', '/spot/tickers', () => 'tickers')
 * const text = await metrics.registry.metrics()
 * text.includes('traderatio_limit_used{family="ip",account="ip",limit="public:GET /spot/tickers"} 1') // true
 * text.includes('account="keyless"') // false
 * limiter.close()
 * ```
 */
export interface WatchOptions {
  /**
   * Shows only the limiter's limits per IP (public endpoints, see docs/rules.md#r10), under account `ip`: for a
   * limiter that serves requests without a key, whose account is no account of the exchange.
   * @default false
   */
  readonly perIpOnly?: boolean;
}

// Every value of the code's unions, each once: a value added to the union and not here fails the
// typecheck, so the HELP texts list what the labels can be.
const REFUSAL_REASON_SET: { readonly [R in RefusalReason]: true } = {
  'queue-full': true,
  aborted: true,
  deadline: true,
  'too-heavy': true,
  closed: true,
};
const TIER_SOURCE_SET: { readonly [R in AccountStatus['reason']]: true } = {
  initial: true,
  'raised-at-0800': true,
  'lowered-at-snapshot': true,
  'lowered-after-grace': true,
  'vip-below-14': true,
  'vip-restored': true,
  'new-sub-account': true,
  'new-sub-account-rules-begin': true,
  'live-downgrade': true,
  report: true,
};
const ACTION_SET: { readonly [A in Action]: true } = { place: true, amend: true, cancel: true, other: true };
/** The values of `traderatio_wait_seconds`'s `action`. */
export const ACTIONS = Object.keys(ACTION_SET) as readonly Action[];
/** The values of `traderatio_refused_total`'s `reason`. */
export const REFUSAL_REASONS = Object.keys(REFUSAL_REASON_SET) as readonly RefusalReason[];
/** The values of `traderatio_tier`'s `source`. */
export const TIER_SOURCES = Object.keys(TIER_SOURCE_SET) as readonly AccountStatus['reason'][];

const WAIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * Prometheus metrics of account limiters (prom-client), for an engine that embeds the library and
 * for `traderatio proxy`'s `/metrics`. Per family, account and limit: the limit in force (N and W),
 * used in the trailing window, waiting, sent, refused by reason, answers 429 (see docs/rules.md#r12: each 429 or
 * rate-limit refusal given to `limiter.feedback`); per account: the tier (see docs/rules.md#r3) and where it comes
 * from, the tier and limit at the next 08:00 UTC and that instant (see docs/rules.md#r5), the throttles in force
 * and their headroom (see docs/rules.md#r9, #r14); and a histogram of how long requests waited, which the caller
 * observes ({@link LimiterMetrics.observeWait}). Gauges are read from the limiters at each scrape;
 * counters count from when the limiter is watched.
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 * import { LimiterMetrics } from 'traderatio/metrics'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const metrics = new LimiterMetrics()
 * metrics.watch(limiter, 'desk')
 * const started = performance.now()
 * await limiter.request('main', 'POST', '/futures/usdt/orders', () => 'placed', { body: { contract: 'BTC_USDT', size: 1, price: '60000' } })
 * metrics.observeWait('desk', 'main', 'place', performance.now() - started)
 * const text = await metrics.registry.metrics() // the Prometheus text format, for GET /metrics
 * text.includes('traderatio_limit{family="desk",account="main",limit="futures.place"} 100') // true
 * text.includes('traderatio_sent_total{family="desk",account="main",limit="futures.place"} 1') // true
 * text.includes('traderatio_tier{family="desk",account="main",source="initial"} 1') // true
 * text.includes('traderatio_wait_seconds_count{family="desk",account="main",action="place"} 1') // true
 * limiter.close()
 * ```
 */
export class LimiterMetrics {
  /** The registry the metrics are in: `await registry.metrics()` is the text to serve. */
  readonly registry: Registry;
  readonly #watched = new Map<string, Watched>();
  readonly #sent: Counter;
  readonly #refused: Counter;
  readonly #limited: Counter;
  readonly #wait: Histogram;

  constructor(options: LimiterMetricsOptions = {}) {
    if (typeof options !== 'object' || options === null || Array.isArray(options))
      throw new InvalidInputError('the metrics options', options, 'an object { registry?, prefix?, waitBuckets? }');
    const prefix = options.prefix ?? 'traderatio_';
    if (typeof prefix !== 'string' || !/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(prefix))
      throw new InvalidInputError('`prefix`', prefix, 'a Prometheus metric name prefix ([a-zA-Z_:][a-zA-Z0-9_:]*)');
    const buckets = options.waitBuckets ?? WAIT_BUCKETS;
    if (
      !Array.isArray(buckets) ||
      buckets.length === 0 ||
      buckets.some(
        (b, i) => typeof b !== 'number' || !(b > 0) || !Number.isFinite(b) || (i > 0 && b <= buckets[i - 1]!),
      )
    ) {
      throw new InvalidInputError('`waitBuckets`', buckets, 'increasing positive numbers of seconds');
    }
    if (options.registry !== undefined && !(options.registry instanceof Registry))
      throw new InvalidInputError('`registry`', options.registry, 'a Registry of prom-client');
    const registry = options.registry ?? new Registry();
    this.registry = registry;
    // Made apart from the registry, then registered together once none of their names is taken:
    // a clash leaves the registry as it was.
    const registers: Registry[] = [];
    const made: [string, Metric][] = [];
    const perLimit = ['family', 'account', 'limit'];
    const gauge = (
      name: string,
      help: string,
      labelNames: string[],
      read: (w: Watched, set: (labels: Record<string, string>, value: number) => void) => void,
    ): void => {
      const watched = this.#watched;
      made.push([
        prefix + name,
        new Gauge({
          name: prefix + name,
          help,
          labelNames,
          registers,
          collect() {
            this.reset();
            for (const w of watched.values()) read(w, (labels, value) => this.set(labels, value));
          },
        }),
      ]);
    };
    const LIMIT_HELP =
      'limit: an endpoint\'s (futures.place, spot.place:PAIR, ...), a throttle in force (abuse-throttle, spot-fill-throttle; none while not in force), or per IP (account "ip", limit "public:METHOD PATH")';
    gauge('limit', `The limit in force: N requests (weight) per window; ${LIMIT_HELP}.`, perLimit, (w, set) => {
      for (const l of shownLimits(w)) set(limitLabels(w, l.name), l.limit);
    });
    gauge('limit_window_seconds', 'The window W of the limit in force.', perLimit, (w, set) => {
      for (const l of shownLimits(w)) set(limitLabels(w, l.name), l.windowMs / 1000);
    });
    gauge('limit_used', 'Weight counted in the trailing window now.', perLimit, (w, set) => {
      for (const l of shownLimits(w)) set(limitLabels(w, l.name), l.used);
    });
    gauge('limit_waiting', 'Requests waiting on the limit now.', perLimit, (w, set) => {
      for (const l of shownLimits(w)) set(limitLabels(w, l.name), l.waiting);
    });
    this.#sent = new Counter({
      name: `${prefix}sent_total`,
      help: "Weight sent on the limit since it was watched (a throttle's only while it is in force).",
      labelNames: perLimit,
      registers,
    });
    this.#refused = new Counter({
      name: `${prefix}refused_total`,
      help: `Requests the limiter refused, never sent, by reason (${REFUSAL_REASONS.join(', ')}).`,
      labelNames: [...perLimit, 'reason'],
      registers,
    });
    this.#limited = new Counter({
      name: `${prefix}answers_429_total`,
      help: 'Answers that refused a request for its rate (HTTP 429, TOO_MANY_REQUESTS, TOO_FAST, WebSocket 211/212/311/312), by the limit they paused.',
      labelNames: perLimit,
      registers,
    });
    const perAccount = ['family', 'account'];
    gauge(
      'tier',
      `The tier in force (R3); source: why (${TIER_SOURCES.join(', ')}).`,
      [...perAccount, 'source'],
      (w, set) => {
        for (const account of accountsOf(w)) {
          const s = w.limiter.limitNow(account);
          set({ family: w.family, account, source: s.reason }, s.tier.tier);
        }
      },
    );
    gauge(
      'tier_limit',
      'Futures placement and amendment limit of the tier in force, requests per second (R3).',
      perAccount,
      (w, set) => {
        for (const account of accountsOf(w)) set({ family: w.family, account }, w.limiter.limitNow(account).limit);
      },
    );
    gauge('next_tier', 'The tier at the next 08:00 UTC on the activity so far (R5).', perAccount, (w, set) => {
      for (const account of accountsOf(w))
        set({ family: w.family, account }, w.limiter.limitAtNext0800(account).tier.tier);
    });
    gauge(
      'next_tier_limit',
      'The placement limit at the next 08:00 UTC on the activity so far, requests per second (R5).',
      perAccount,
      (w, set) => {
        for (const account of accountsOf(w))
          set({ family: w.family, account }, w.limiter.limitAtNext0800(account).limit);
      },
    );
    gauge(
      'next_tier_change_timestamp_seconds',
      'The next 08:00 UTC, when a better tier takes effect (R5), Unix seconds.',
      perAccount,
      (w, set) => {
        for (const account of accountsOf(w))
          set({ family: w.family, account }, w.limiter.limitAtNext0800(account).at / 1000);
      },
    );
    gauge(
      'throttle_limit',
      'A throttle in force: its N per window (kind abuse, R9; spot-fill, R14); absent when none.',
      [...perAccount, 'kind'],
      (w, set) => {
        for (const account of accountsOf(w)) {
          const s = w.limiter.limitNow(account);
          if (s.throttle !== null) set({ family: w.family, account, kind: 'abuse' }, s.throttle.limit);
          if (s.spotThrottle !== null) set({ family: w.family, account, kind: 'spot-fill' }, s.spotThrottle.limit);
        }
      },
    );
    gauge(
      'throttle_headroom_requests',
      'Requests that fit before the throttle trips at the current fill rate (+Inf: it never does, or its market had no request in the window; kind abuse, R9; spot-fill, R14).',
      [...perAccount, 'kind'],
      (w, set) => {
        for (const account of accountsOf(w)) {
          for (const [kind, h] of [
            ['abuse', w.limiter.abuseHeadroom(account)],
            ['spot-fill', w.limiter.spotFillHeadroom(account)],
          ] as const) {
            // A market never used in the window has nothing to trip on yet: an alert on a low
            // headroom would fire for a desk that never trades it.
            set({ family: w.family, account, kind }, h.requests === 0 ? Infinity : h.remaining);
          }
        }
      },
    );
    gauge(
      'throttle_window_requests',
      "Order requests in the throttle's window so far (kind abuse: 24 h, R9; spot-fill: the next check's, R14).",
      [...perAccount, 'kind'],
      (w, set) => {
        for (const account of accountsOf(w)) {
          set({ family: w.family, account, kind: 'abuse' }, w.limiter.abuseHeadroom(account).requests);
          set({ family: w.family, account, kind: 'spot-fill' }, w.limiter.spotFillHeadroom(account).requests);
        }
      },
    );
    this.#wait = new Histogram({
      name: `${prefix}wait_seconds`,
      help: `How long requests waited on their limits before they were sent, by action (${ACTIONS.join(', ')}).`,
      labelNames: [...perAccount, 'action'],
      buckets: [...buckets],
      registers,
    });
    made.push(
      [`${prefix}sent_total`, this.#sent],
      [`${prefix}refused_total`, this.#refused],
      [`${prefix}answers_429_total`, this.#limited],
      [`${prefix}wait_seconds`, this.#wait],
    );
    const taken = made.find(([name]) => registry.getSingleMetric(name) !== undefined);
    if (taken !== undefined)
      throw new InvalidInputError(
        '`prefix`',
        prefix,
        `a prefix whose metrics are not in the registry already (${taken[0]} is)`,
      );
    for (const [, metric] of made) registry.registerMetric(metric);
  }

  /**
   * Watches `limiter` under the label `family` (a name of its own in these metrics): its limits
   * and accounts at every scrape, and from now on what it sends, refuses and is refused. Returns
   * a function that stops watching it (its metrics go at the next scrape).
   *
   * @example
   * ```ts
   * import { AccountLimiter } from 'traderatio'
   * import { LimiterMetrics } from 'traderatio/metrics'
   *
   * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
   * const metrics = new LimiterMetrics()
   * const stop = metrics.watch(limiter)
   * ;(await metrics.registry.metrics()).includes('traderatio_tier_limit{family="default",account="main"} 100') // true
   * stop()
   * ;(await metrics.registry.metrics()).includes('account="main"') // false
   * limiter.close()
   * ```
   */
  watch(limiter: AccountLimiter, family = 'default', options: WatchOptions = {}): () => void {
    if (typeof (limiter as Partial<AccountLimiter> | null)?.limitNow !== 'function')
      throw new InvalidInputError('the limiter', limiter, 'an AccountLimiter');
    if (typeof family !== 'string' || family === '')
      throw new InvalidInputError('`family`', family, 'a non-empty name');
    if (this.#watched.has(family)) throw new InvalidInputError('`family`', family, 'a name not watched already');
    if (typeof options !== 'object' || options === null)
      throw new InvalidInputError('the watch options', options, 'an object { perIpOnly? }');
    if (options.perIpOnly !== undefined && typeof options.perIpOnly !== 'boolean')
      throw new InvalidInputError('`perIpOnly`', options.perIpOnly, 'true or false');
    const watched: Watched = {
      limiter,
      family,
      names: new Map(),
      perIpOnly: options.perIpOnly === true,
      idle: new Set(),
      stop: () => {
        off();
        if (this.#watched.get(family) === watched) this.#watched.delete(family);
      },
    };
    shownLimits(watched);
    const off = limiter.scheduler.on((event) => this.#count(watched, event));
    this.#watched.set(family, watched);
    return watched.stop;
  }

  /** Counts a request that waited `waitedMs` milliseconds before it was sent, for the wait histogram. */
  observeWait(family: string, account: string, action: string, waitedMs: number): void {
    for (const [field, label] of [
      ['`family`', family],
      ['`account`', account],
      ['`action`', action],
    ] as const) {
      if (typeof label !== 'string' || label === '') throw new InvalidInputError(field, label, 'a non-empty string');
    }
    if (!(waitedMs >= 0) || !Number.isFinite(waitedMs))
      throw new InvalidInputError('`waitedMs`', waitedMs, 'a non-negative number of milliseconds');
    this.#wait.observe({ family, account, action }, waitedMs / 1000);
  }

  #count(w: Watched, event: SchedulerEvent): void {
    const shown = (name: string) => !w.idle.has(name) && (!w.perIpOnly || isPerIp(w, name));
    if (event.type === 'dispatch') {
      for (const name of event.limits) if (shown(name)) this.#sent.inc(limitLabels(w, name), event.weight);
    } else if (event.type === 'refuse') {
      for (const name of event.limits)
        if (shown(name)) this.#refused.inc({ ...limitLabels(w, name), reason: event.reason });
    } else if (event.type === 'pause') {
      if (shown(event.limit)) this.#limited.inc(limitLabels(w, event.limit));
    }
  }
}

/** True when `id` names an account of `limiter`. */
function isAccount(limiter: AccountLimiter, id: string): boolean {
  try {
    limiter.limitNow(id);
    return true;
  } catch {
    return false;
  }
}

/**
 * A limiter's limit named `account:key` (`ip:key` for limits per IP, see docs/rules.md#r10) split at the account it
 * is for. An account id may itself hold a colon (`desk:1`): the longest prefix that names an
 * account of the limiter is the account. A name whose account is known is split once.
 */
function splitName(
  w: Watched,
  name: string,
): { readonly account: string; readonly limit: string; readonly known: boolean } {
  const split = w.names.get(name);
  if (split !== undefined) return { ...split, known: true };
  for (let at = name.lastIndexOf(':'); at > 0; at = name.lastIndexOf(':', at - 1)) {
    const account = name.slice(0, at);
    if (isAccount(w.limiter, account)) {
      const found = { account, limit: name.slice(at + 1) };
      w.names.set(name, found);
      return { ...found, known: true };
    }
  }
  const at = name.indexOf(':');
  return at < 0
    ? { account: '', limit: name, known: false }
    : { account: name.slice(0, at), limit: name.slice(at + 1), known: false };
}

/** A limit's labels. */
function limitLabels(w: Watched, name: string): Record<string, string> {
  const { account, limit } = splitName(w, name);
  return { family: w.family, account, limit };
}

/** True for a limit per IP (`ip:...`, see docs/rules.md#r10): named for no account of the limiter. */
function isPerIp(w: Watched, name: string): boolean {
  const split = splitName(w, name);
  return !split.known && split.account === 'ip';
}

/**
 * The limits to show of a limiter now: not those of a throttle not in force (remembered in `idle`
 * for the counters), and only those per IP for a limiter watched `perIpOnly`.
 */
function shownLimits(w: Watched): SchedulerStats['limits'] {
  const all = w.limiter.scheduler.stats().limits;
  w.idle.clear();
  for (const l of all) if (l.limit >= UNTHROTTLED) w.idle.add(l.name);
  return all.filter((l) => l.limit < UNTHROTTLED && (!w.perIpOnly || isPerIp(w, l.name)));
}

/** The accounts of a limiter: those its limits are named for (none for a limiter watched `perIpOnly`). */
function accountsOf(w: Watched): string[] {
  if (w.perIpOnly) return [];
  const accounts = new Set<string>();
  for (const l of w.limiter.scheduler.stats().limits) {
    const split = splitName(w, l.name);
    if (split.known) accounts.add(split.account);
  }
  return [...accounts];
}
