import type { Clock } from './clock.js';
import type { StoreLimit } from './limit.js';
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
  queuedWeight(limit: StoreLimit): number;
}

/**
 * Where a scheduler keeps the state of its limits (see docs/rules.md#r13). The scheduler asks its store for each
 * limit it makes and uses only what the limit says: whether `weight` fits at an instant, and
 * taking it. The default keeps each limit in this process ({@link memoryStore}); a shared store
 * (`traderatio/redis`) makes limits whose budget several processes draw on.
 *
 * A store returns a {@link StoreLimit} of this library: a {@link WindowLimit}, or one that decides
 * elsewhere, which answers `lacks` with true while it holds no permits and fetches them on
 * `request`.
 *
 * @example
 * ```ts
 * import { type LimitStore, Scheduler, memoryStore } from 'traderatio'
 *
 * const made: string[] = []
 * const store: LimitStore = { limit: (options, host) => (made.push(options.name ?? ''), memoryStore.limit(options, host)) }
 * new Scheduler({ store }).limit({ name: 'futures.place', limit: 100, windowMs: 1000 })
 * made // ['futures.place']
 * ```
 */
export interface LimitStore<L extends StoreLimit = StoreLimit> {
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
