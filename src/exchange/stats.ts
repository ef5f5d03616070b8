import type { Throttle } from '../rules/abuse.js';
import type { Account, ExchangeCore, Party } from './core.js';

/** One limit of one account or IP, as counted. */
export interface LimitStats {
  readonly key: string;
  /** N in force (null for a throttle not in force) and W, in milliseconds. */
  readonly limit: number | null;
  readonly windowMs: number;
  readonly accepted: number;
  readonly refused: number;
  /** The most requests (weight) counted in any one window. */
  readonly most: number;
}

/** An account's or an IP's counts. */
export interface PartyStats {
  readonly accepted: number;
  /** Refused requests by the exchange's label (TOO_MANY_REQUESTS, TOO_FAST, REQUEST_EXPIRED, ...). */
  readonly refused: Readonly<Record<string, number>>;
  readonly limits: readonly LimitStats[];
}

/** An account's counts, and what is in force for it. */
export interface AccountStats extends PartyStats {
  readonly account: string;
  readonly family: string;
  readonly vipLevel: number;
  readonly tier: number;
  /** Futures placement and amendment, requests per second (R3). */
  readonly limit: number;
  readonly throttle: Throttle | null;
}

/** What the model exchange has counted. */
export interface ExchangeStats {
  /** The model's clock, ISO text. */
  readonly at: string;
  readonly window: 'sliding' | 'fixed';
  readonly accounts: readonly AccountStats[];
  readonly ips: readonly (PartyStats & { readonly ip: string })[];
  /** Requests refused before an account was known (INVALID_KEY, NOT_FOUND, ...), by label. */
  readonly unidentified: Readonly<Record<string, number>>;
}

/** The core's counts at `at`, as plain data. */
export function statsOf(core: ExchangeCore, at: number, unidentified: ReadonlyMap<string, number>): ExchangeStats {
  const accounts: AccountStats[] = [];
  for (const family of core.allFamilies()) {
    for (const a of family.accounts) {
      const account = core.account(a.id);
      const f = core.inForce(account, at);
      accounts.push({ account: a.id, family: family.id, vipLevel: f.vipLevel, tier: f.tier.tier, limit: f.limit, throttle: f.throttle, ...partyStats(account) });
    }
  }
  return {
    at: new Date(at).toISOString(),
    window: core.window,
    accounts,
    ips: core.allIps().map((p) => ({ ip: p.id, ...partyStats(p) })),
    unidentified: Object.fromEntries(unidentified),
  };
}

function partyStats(p: Party | Account): PartyStats {
  return {
    accepted: p.accepted,
    refused: Object.fromEntries(p.refused),
    limits: [...p.limits.values()].map((l) => ({
      key: l.key, limit: Number.isFinite(l.n) ? l.n : null, windowMs: l.w, accepted: l.accepted, refused: l.refused, most: l.count.most,
    })),
  };
}
