import type { Clock } from './clock.js';
import type { Limit } from './limit.js';
import { WindowLimit, type WindowLimitOptions } from './window.js';

/**
 * What a store is told of the scheduler that asks it for a limit: the clock the scheduler reads,
 * and how to wake it when permits arrive from elsewhere (a shared store's reply).
 *
 * @example
 * ```ts
 * import { type LimitHost, type LimitStore, Scheduler, memoryStore } from 'traderatio'
 * import { VirtualClock } from 'traderatio/testing'
 *
 * const hosts: LimitHost[] = []
 * const store: LimitStore = { limit: (options, host) => (hosts.push(host), memoryStore.limit(options, host)) }
 * new Scheduler({ clock: new VirtualClock({ start: 42 }), store }).limit({ limit: 1, windowMs: 1000 })
 * hosts[0]?.clock.now() // 42
 * ```
 */
export interface LimitHost {
  readonly clock: Clock;
  /** Runs the scheduler's queue again: call when a limit's answer changed without a call to it. */
  wake(): void;
  /** The weight of the tasks waiting on `limit`, one of the limits this store made for the host. */
  queuedWeight(limit: Limit): number;
}

/**
 * Where a scheduler keeps the state of its limits (see docs/rules.md#r13): one method, `limit`,
 * which the scheduler calls for each limit it makes, with the limit's options and itself as the
 * {@link LimitHost}. The default keeps each limit in this process ({@link memoryStore}); a
 * `RedisStore` of `traderatio/redis` makes limits whose budget several processes draw on.
 *
 * A store of one's own returns a limit of this library, made by another store's `limit` (passing
 * on the options and the host) or as `new WindowLimit(options)`, once: the scheduler refuses any
 * other object, and a limit it owns already, with an `InvalidInputError`. So it chooses, names or
 * records: placements in Redis and the rest in this process, a prefix on every name, a log of
 * what was made. The suite `test/schedule/scheduler.contract.ts` runs the same scheduler tests
 * over the memory store and the Redis store.
 *
 * @example
 * ```ts
 * import { type LimitStore, Scheduler, memoryStore } from 'traderatio'
 *
 * // Keeps every limit in this process, as memoryStore does, and lists the names it made.
 * const made: string[] = []
 * const store: LimitStore = { limit: (options, host) => (made.push(options.name ?? ''), memoryStore.limit(options, host)) }
 * new Scheduler({ store }).limit({ name: 'futures.place', limit: 100, windowMs: 1000 })
 * made // ['futures.place']
 * ```
 *
 * @example
 * ```ts
 * import { type LimitStore, Scheduler } from 'traderatio'
 *
 * // Anything but a limit of this library is refused, as is one limit given twice.
 * const odd: LimitStore = { limit: (options) => ({ ...options }) as never }
 * try {
 *   new Scheduler({ store: odd }).limit({ limit: 1, windowMs: 1000 })
 * } catch (error) {
 *   (error as Error).name // 'InvalidInputError'
 * }
 * ```
 */
export interface LimitStore<L extends Limit = Limit> {
  /** Makes the state of one limit for the scheduler `host`. */
  limit(options: WindowLimitOptions, host: LimitHost): L;
}

/**
 * The default store: each limit is a sliding log in this process.
 *
 * @example
 * ```ts
 * import { Scheduler, WindowLimit, memoryStore } from 'traderatio'
 *
 * const scheduler = new Scheduler({ store: memoryStore })
 * scheduler.limit({ limit: 100, windowMs: 1000 }) instanceof WindowLimit // true
 * ```
 */
export const memoryStore: LimitStore<WindowLimit> = {
  limit: (options) => new WindowLimit(options),
};
