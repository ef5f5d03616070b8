import type { Throttle } from '../rules/abuse.js';
import type { Account, ModelExchangeCore, Party } from './core.js';

/**
 * One limit of one account or IP, as counted.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0 })
 * const order = { method: 'POST', headers: { KEY: 'main-key' }, body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' }) }
 * await fetch(`${exchange.url}/api/v4/futures/usdt/orders`, order)
 * await fetch(`${exchange.url}/api/v4/futures/usdt/orders`, order)
 * exchange.stats().accounts[0]?.limits.find((l) => l.key === 'futures.place') // { key: 'futures.place', limit: 100, windowMs: 1000, accepted: 2, refused: 0, most: 2 }
 * await exchange.close()
 * ```
 */
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

/**
 * An account's or an IP's counts: public endpoints are limited per IP.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0 })
 * await fetch(`${exchange.url}/api/v4/futures/usdt/contracts`)
 * const ip = exchange.stats().ips[0]
 * ip?.ip // '127.0.0.1'
 * ip?.accepted // 1
 * ip?.refused // {}
 * ip?.limits.map((l) => [l.key, l.limit, l.windowMs]) // [['public:GET /futures/{settle}/contracts', 200, 10000]]
 * await exchange.close()
 * ```
 */
export interface PartyStats {
  readonly accepted: number;
  /** Refused requests by the exchange's label (TOO_MANY_REQUESTS, TOO_FAST, REQUEST_EXPIRED, ...). */
  readonly refused: Readonly<Record<string, number>>;
  readonly limits: readonly LimitStats[];
}

/**
 * An account's counts, and what is in force for it.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0 })
 * await fetch(`${exchange.url}/api/v4/futures/usdt/orders`, { method: 'POST', headers: { KEY: 'nope' }, body: '{}' })
 * await fetch(`${exchange.url}/api/v4/futures/usdt/orders`, { method: 'POST', headers: { KEY: 'main-key' }, body: JSON.stringify({ contract: 'NOPE_USDT', size: 1 }) })
 * const main = exchange.stats().accounts[0]!
 * main.account // 'main'
 * main.family // 'default'
 * main.vipLevel // 14
 * main.tier // 1
 * main.limit // 100
 * main.throttle // null
 * // The unknown key is no account's; the unknown contract was refused by the endpoint's own checks.
 * main.accepted // 1
 * main.refused // { CONTRACT_NOT_FOUND: 1 }
 * await exchange.close()
 * ```
 */
export interface AccountStats extends PartyStats {
  readonly account: string;
  readonly family: string;
  readonly vipLevel: number;
  readonly tier: number;
  /** Futures placement and amendment, requests per second (see docs/rules.md#r3). */
  readonly limit: number;
  readonly throttle: Throttle | null;
}

/**
 * What the model exchange has counted.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0 })
 * await fetch(`${exchange.url}/api/v4/futures/usdt/orders`, { method: 'POST', headers: { KEY: 'nope' }, body: '{}' })
 * const stats = exchange.stats()
 * stats.window // 'sliding'
 * stats.accounts.length // 1
 * stats.unidentified // { INVALID_KEY: 1 }
 * Number.isNaN(Date.parse(stats.at)) // false
 * await exchange.close()
 * ```
 */
export interface ModelExchangeStats {
  /** The model's clock, ISO text. */
  readonly at: string;
  readonly window: 'sliding' | 'fixed';
  readonly accounts: readonly AccountStats[];
  readonly ips: readonly (PartyStats & { readonly ip: string })[];
  /** Requests refused before an account was known (INVALID_KEY, NOT_FOUND, ...), by label. */
  readonly unidentified: Readonly<Record<string, number>>;
}

/** The core's counts at `at`, as plain data. */
export function statsOf(
  core: ModelExchangeCore,
  at: number,
  unidentified: ReadonlyMap<string, number>,
): ModelExchangeStats {
  const accounts: AccountStats[] = [];
  for (const family of core.allFamilies()) {
    for (const a of family.accounts) {
      const account = core.account(a.id);
      const f = core.inForce(account, at);
      accounts.push({
        account: a.id,
        family: family.id,
        vipLevel: f.vipLevel,
        tier: f.tier.tier,
        limit: f.limit,
        throttle: f.throttle,
        ...partyStats(account),
      });
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
      key: l.key,
      limit: Number.isFinite(l.n) ? l.n : null,
      windowMs: l.w,
      accepted: l.accepted,
      refused: l.refused,
      most: l.count.most,
    })),
  };
}
