/**
 * `traderatio/metrics`: Prometheus metrics of account limiters (prom-client), as
 * `traderatio proxy` serves them at `/metrics`, for an engine that embeds the library.
 *
 * @packageDocumentation
 */
export { LimiterMetrics } from './limiter-metrics.js';
export type { LimiterMetricsOptions, WatchOptions } from './limiter-metrics.js';
