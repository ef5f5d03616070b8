import type { AccountLimiter } from '../account/limiter.js';
import { UNTHROTTLED } from '../rules/abuse.js';
import { DAY_MS } from '../rules/calendar.js';
import type { ActivityCounts } from './activity.js';

/** One limit of an account, as the status page shows it. */
export interface LimitStatus {
  readonly limit: string;
  readonly n: number;
  readonly windowMs: number;
  readonly used: number;
  readonly waiting: number;
}

/** One account: its tier and why, the next changes, its throttles and its limits. */
export interface AccountStatusView {
  readonly family: string;
  readonly account: string;
  readonly tier: number;
  readonly placeLimit: number;
  readonly source: string;
  /** The next 00:00 UTC snapshot, at which a lower tier takes effect at once (see docs/rules.md#r5), epoch ms. */
  readonly nextSnapshot: number;
  /** The next 08:00 UTC and the tier it gives on the activity so far (see docs/rules.md#r5). */
  readonly next0800: { readonly at: number; readonly tier: number; readonly limit: number };
  readonly throttles: readonly {
    readonly kind: 'abuse' | 'spot-fill';
    readonly inForce: string | null;
    /** While in force, the requests a second it allows (N / W); null while not. */
    readonly rate: number | null;
    readonly requests: number;
    readonly headroom: number | null;
  }[];
  readonly limits: readonly LimitStatus[];
  /** What it sent since the proxy started: requests, and futures placements (per order). */
  readonly sent: { readonly all: number; readonly place: number };
  /** Answers 429 of the exchange relayed to it since the proxy started. */
  readonly answers429: number;
}

/** What the status page and `/status.json` show, at `at`: the accounts, and the proxy's own limits per IP (public endpoints, see docs/rules.md#r10). */
export interface ProxyStatus {
  readonly at: number;
  readonly accounts: readonly AccountStatusView[];
  readonly ip: readonly LimitStatus[];
}

/** The status of every account of `limiters` (by family; `publicFamily` is the proxy's own, for requests without a key) now. */
export function proxyStatus(
  limiters: ReadonlyMap<string, AccountLimiter>,
  publicFamily: string,
  now: number,
  activity: ActivityCounts,
): ProxyStatus {
  const accounts: AccountStatusView[] = [];
  const ip: LimitStatus[] = [];
  for (const [family, limiter] of limiters) {
    const byAccount = new Map<string, LimitStatus[]>();
    for (const l of limiter.scheduler.stats().limits) {
      const at = l.name.indexOf(':');
      const account = l.name.slice(0, at);
      let list = byAccount.get(account);
      if (list === undefined) byAccount.set(account, (list = []));
      list.push({ limit: l.name.slice(at + 1), n: l.limit, windowMs: l.windowMs, used: l.used, waiting: l.waiting });
    }
    ip.push(...(byAccount.get('ip') ?? []));
    if (family === publicFamily) continue;
    for (const [account, limits] of byAccount) {
      if (account === 'ip') continue;
      let s: ReturnType<typeof limiter.limitNow>;
      try {
        s = limiter.limitNow(account);
      } catch {
        continue;
      }
      const next = limiter.limitAtNext0800(account);
      const abuse = limiter.abuseHeadroom(account);
      const spot = limiter.spotFillHeadroom(account);
      const finite = (n: number) => (Number.isFinite(n) ? n : null);
      const done = activity.of(family, account);
      accounts.push({
        family,
        account,
        tier: s.tier.tier,
        placeLimit: s.limit,
        source: s.reason,
        nextSnapshot: (Math.floor(s.at / DAY_MS) + 1) * DAY_MS,
        next0800: { at: next.at, tier: next.tier.tier, limit: next.limit },
        throttles: [
          {
            kind: 'abuse',
            inForce: s.throttle === null ? null : `${s.throttle.limit} per ${s.throttle.windowMs / 1000} s`,
            rate: s.throttle === null ? null : s.throttle.limit / (s.throttle.windowMs / 1000),
            requests: abuse.requests,
            headroom: abuse.requests === 0 ? null : finite(abuse.remaining),
          },
          {
            kind: 'spot-fill',
            inForce: s.spotThrottle === null ? null : `${s.spotThrottle.limit} per ${s.spotThrottle.windowMs / 1000} s`,
            rate: s.spotThrottle === null ? null : s.spotThrottle.limit / (s.spotThrottle.windowMs / 1000),
            requests: spot.requests,
            // No spot request in the window: nothing to trip on (a futures-only desk), as the metrics say.
            headroom: spot.requests === 0 ? null : finite(spot.remaining),
          },
        ],
        // A throttle's limit not in force is not one to show.
        limits: limits.filter((l) => l.n < UNTHROTTLED),
        sent: { all: done.all, place: done.place },
        answers429: done.answers429,
      });
    }
  }
  return { at: now, accounts, ip };
}
