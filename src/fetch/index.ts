/**
 * `traderatio/fetch`: a `fetch` that goes through an account limiter.
 *
 * @packageDocumentation
 */
export { limitedFetch } from './limited-fetch.js';
export type { FetchFunction, LimitedFetch, LimitedFetchOptions, LimitedRequestInit } from './limited-fetch.js';
