/**
 * `traderatio/testing`: time under a test's control. A `VirtualClock` stands in for the system
 * clock wherever the library takes a `Clock` (the scheduler, the account limiter, the Redis store,
 * the model exchange), so a test runs hours of limits in milliseconds and never sleeps.
 *
 * @packageDocumentation
 */
export { VirtualClock } from './virtual-clock.js';
export { TooManyTimersError } from '../errors.js';
