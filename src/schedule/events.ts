import type { RefusalReason } from '../errors.js';
import type { ErrorSource } from './listeners.js';

/**
 * What the scheduler tells its listeners. `error` reports a listener that threw (source
 * `listener`): the scheduler carries on, the task being dispatched or refused still runs or is
 * refused. An error thrown by a listener while it handles an `error` event, or an error with no
 * listener to take it, becomes a process warning (`process.emitWarning`, type
 * `TraderatioWarning`).
 *
 * @example
 * ```ts
 * import { Scheduler, type SchedulerEvent } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const scheduler = new Scheduler({ clock: new VirtualClock() })
 * const place = scheduler.limit({ name: 'futures.place', limit: 1, windowMs: 1000 })
 * const events: SchedulerEvent[] = []
 * scheduler.on((event) => events.push(event))
 * await scheduler.schedule(() => 1, { limits: place })
 * events // [{ type: 'dispatch', at: 0, weight: 1, priority: 0, limits: ['futures.place'] }]
 * ```
 */
export type SchedulerEvent =
  | {
      readonly type: 'dispatch';
      readonly at: number;
      readonly weight: number;
      readonly priority: number;
      readonly limits: readonly string[];
    }
  | { readonly type: 'refuse'; readonly at: number; readonly reason: RefusalReason; readonly limits: readonly string[] }
  | {
      readonly type: 'limit';
      readonly at: number;
      readonly limit: string;
      readonly from: { readonly limit: number; readonly windowMs: number };
      readonly to: { readonly limit: number; readonly windowMs: number };
    }
  | { readonly type: 'pause'; readonly at: number; readonly limit: string; readonly until: number }
  /**
   * Feedback named a reset further off than an hour (milliseconds where
   * seconds are expected, 1e30, the year 3000): `header` says which (`Retry-After`, or the reset
   * timestamp of the rate-limit headers (see docs/rules.md#r12), which the WebSocket API writes `x_gat_ratelimit_reset_timestamp`),
   * `resetAt` the instant it gave (the limiter's clock), `until` the bound taken instead.
   */
  | {
      readonly type: 'reset-bounded';
      readonly at: number;
      readonly limit: string;
      readonly header: 'X-Gate-RateLimit-Reset-Timestamp' | 'Retry-After';
      readonly resetAt: number;
      readonly until: number;
    }
  /**
   * An answer's headers said the exchange counted more in the limit's window than the limit did
   * (see docs/rules.md#r17: `…-Limit` less `…-Requests-Remain`; requests the limiter cannot hear of, sent by a
   * process that died or that shares no store with this one): `exchange` is the exchange's count,
   * `counted` the limit's, and the difference is held until `until` (one window from the answer,
   * when everything the exchange counted has left it). Never told for a count lower than the limit's.
   */
  | {
      readonly type: 'recount';
      readonly at: number;
      readonly limit: string;
      readonly counted: number;
      readonly exchange: number;
      readonly until: number;
    }
  | { readonly type: 'error'; readonly at: number; readonly source: ErrorSource; readonly error: unknown };
