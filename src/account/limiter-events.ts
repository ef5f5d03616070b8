import type { Check } from '../catalog/validators.js';
import type { Throttle } from '../rules/abuse.js';
import type { ReportPolicy } from '../rules/report.js';
import type { ChangeReason } from '../rules/timeline/timeline.js';
import type { Tier } from '../rules/tiers.js';

/**
 * The limit in force for an account, and why.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type AccountStatus } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const status: AccountStatus = limiter.limitNow('main')
 * status.tier.tier // 1
 * status.limit // 100
 * status.reason // 'initial'
 * status.source // 'assumed'
 * limiter.close()
 * ```
 */
export interface AccountStatus extends LimitState {
  /**
   * Where the limit comes from: `exchange`, the exchange's own figure (GET /account/rate_limit, or
   * the `X-Gate-RateLimit-Limit` of a placement's answer, see docs/rules.md#r16); `rules`, the rules on counted or
   * seeded activity (or VIP below 14, see docs/rules.md#r4); `assumed`, neither: no activity in the latest
   * snapshot's window and nothing reported, the tier of an account the limiter knows nothing
   * about (see docs/rules.md#r16). An `assumed-tier` event tells it once.
   */
  readonly source: 'assumed' | 'rules' | 'exchange';
  /**
   * What asking GET /account/rate_limit came to: `unasked`, `open` (it answered), `not-open` (a
   * 404, a refusal or an answer that is not a report: the headers of placements take over).
   */
  readonly reportEndpoint: 'unasked' | 'open' | 'not-open';
  /**
   * OKX only (see docs/okx.md#o9): the exchange's forecast of the next period's limit, from its latest
   * report (`nextAccRateLimit`), where the report gave one: below `limit` when a lowering is
   * pending (it lands at 08:00 UTC of the next day unless the next snapshot gives the tier again).
   */
  readonly forecast?: LimitForecast | null;
}

/**
 * OKX's forecast of an account's limit in the next period (see docs/okx.md#o9): `nextAccRateLimit`
 * of GET /api/v5/trade/account-rate-limit, its tier, and the report's `ts`.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type LimitForecast } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main', role: 'main' }] })
 * const ts = String(Date.parse(new Date().toISOString().slice(0, 10)) + 8 * 3_600_000 - 86_400_000)
 * limiter.reportRateLimit('main', { code: '0', data: [{ accRateLimit: '2000', fillRatio: '4', mainFillRatio: '4', nextAccRateLimit: '1750', ts }] })
 * const forecast: LimitForecast | null | undefined = limiter.limitNow('main').forecast
 * forecast?.limit // 1750
 * limiter.close()
 * ```
 */
export interface LimitForecast {
  readonly limit: number;
  readonly tier: number;
  /** The report's `ts`, epoch milliseconds. */
  readonly reportedAt: number;
}

/** What the limiter keeps of an account's limit between refreshes: its status but where it comes from. */
export interface LimitState {
  readonly account: string;
  readonly at: number;
  /** Tier by the rules (see docs/rules.md#r3 to #r8), after a live downgrade when that option is on. */
  readonly tier: Tier;
  /** Futures placement and amendment, requests per second, before the throttle. */
  readonly limit: number;
  /** The abuse throttle in force (see docs/rules.md#r9), or null. */
  readonly throttle: Throttle | null;
  /** The spot low-fill throttle in force (see docs/rules.md#r14), or null: spot placement and amendment. */
  readonly spotThrottle: Throttle | null;
  /**
   * Why the tier is what it is: the last change's reason, `live-downgrade`, `initial`, or `report`
   * when it is the exchange's reported tier (see docs/rules.md#r16).
   */
  readonly reason: ChangeReason | 'live-downgrade' | 'initial' | 'report';
}

/**
 * What the limiter tells its listeners. `error` reports what went wrong outside the limiter's own
 * work, which it carries on with: a listener that threw (`listener`), a `persist.save` that threw
 * or rejected (`persist`), an hourly refresh that failed (`refresh`), a poll of the exchange's
 * report that failed or was refused (`reconcile`), fills an adapter read from an answer and
 * could not record (`fills`). An error thrown by a listener
 * while it handles an `error` event, or an error with no listener to take it, becomes a process
 * warning (`process.emitWarning`), so that none is lost silently.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type LimiterEvent } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const events: LimiterEvent[] = []
 * limiter.on((event) => events.push(event))
 * // The exchange reports tier 4 (GET /account/rate_limit, see docs/rules.md#r16): adopted, and told.
 * const updated_at = String(Math.floor(Date.now() / 1000))
 * limiter.reportRateLimit('main', [{ type: 'futures', tier: '4', ratio: '8.19', main_ratio: '8.19', updated_at }])
 * events.map((e) => e.type) // ['limit', 'report']
 * events[0]?.type === 'limit' && events[0].to // 250
 * limiter.close()
 * ```
 */
export type LimiterEvent =
  | {
      readonly type: 'limit';
      readonly account: string;
      readonly at: number;
      readonly from: number;
      readonly to: number;
      readonly reason: AccountStatus['reason'];
    }
  /**
   * The account's first request went out on an assumed tier (see docs/rules.md#r16): nothing counted, seeded or
   * reported tells the limiter its tier. `learnFrom` names what would: the exchange's GET
   * /account/rate_limit (the adapters ask it when they attach), the `X-Gate-RateLimit-Limit` of a
   * placement's answer (the adapters read it on every answer), or `seed()` with the family's
   * activity of the last 7 days. Told once per account.
   */
  | {
      readonly type: 'assumed-tier';
      readonly account: string;
      readonly at: number;
      readonly tier: number;
      readonly limit: number;
      readonly learnFrom: readonly string[];
    }
  /**
   * A placement's answer stated a limit (`X-Gate-RateLimit-Limit`, or the WebSocket API's
   * `x_gate_ratelimit_limit`) other than the one in force (`from`): the exchange's own figure for
   * its tier (`stated`, tier `tier`), taken under `policy` (see docs/rules.md#r16): the limit in force is now `to`.
   */
  | {
      readonly type: 'exchange-limit';
      readonly account: string;
      readonly at: number;
      readonly header: string;
      readonly from: number;
      readonly stated: number;
      readonly tier: number;
      readonly policy: ReportPolicy;
      readonly to: number;
    }
  /**
   * GET /account/rate_limit did not answer a report (`reason`: its status, the error, or why the
   * answer was not one): marked not open; the headers of placements take over (see docs/rules.md#r16). Not an error.
   */
  | { readonly type: 'report-unavailable'; readonly account: string; readonly at: number; readonly reason: string }
  | { readonly type: 'throttle'; readonly account: string; readonly at: number; readonly throttle: Throttle | null }
  | {
      readonly type: 'abuse-warning';
      readonly account: string;
      readonly at: number;
      readonly requests: number;
      readonly threshold: number;
    }
  | {
      readonly type: 'spot-throttle';
      readonly account: string;
      readonly at: number;
      readonly throttle: Throttle | null;
    }
  /**
   * The spot low-fill throttle (see docs/rules.md#r14) would start at `trips` (the next whole hour) on the activity
   * so far: `requests` spot requests and `traded` USDT in the window that hour will look at;
   * trading `needed` more USDT on spot before then avoids it.
   */
  | {
      readonly type: 'spot-fill-warning';
      readonly account: string;
      readonly at: number;
      readonly trips: number;
      readonly requests: number;
      readonly traded: string;
      readonly needed: string;
    }
  /**
   * The exchange's report (GET /account/rate_limit, see docs/rules.md#r16) disagrees with the tier the rules give:
   * both tiers with their limits, the report's age (`at` minus its `updated_at`, milliseconds),
   * whether it is older than the latest snapshot (`stale`: it changed nothing), the policy, and
   * the tier in force after it (`inForce`, from `source`).
   */
  | {
      readonly type: 'report';
      readonly account: string;
      readonly at: number;
      readonly local: { readonly tier: number; readonly limit: number };
      readonly reported: {
        readonly tier: number;
        readonly limit: number;
        readonly ratio: string;
        readonly mainRatio: string;
        readonly updatedAt: number;
      };
      readonly reportAgeMs: number;
      readonly stale: boolean;
      readonly policy: ReportPolicy;
      readonly inForce: { readonly tier: number; readonly limit: number };
      readonly source: 'local' | 'report';
    }
  /**
   * The local clock against the exchange's (see docs/rules.md#r15, #r11): `check` is `checkClockOffset` on the
   * estimate, told when it changes: REQUEST_EXPIRED as soon as the local clock may be more than
   * 60 s off (signed requests are about to fail), ok again once it is not.
   */
  | {
      readonly type: 'clock';
      readonly at: number;
      readonly offsetMs: number;
      readonly errorMs: number;
      readonly check: Check;
    }
  | {
      readonly type: 'error';
      readonly at: number;
      readonly source: 'listener' | 'persist' | 'refresh' | 'reconcile' | 'fills';
      readonly error: unknown;
    };
