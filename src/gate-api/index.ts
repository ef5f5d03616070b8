/**
 * `traderatio/gate-api`: the exchange's Node SDK (`gate-api`) behind an account limiter.
 *
 * @packageDocumentation
 */
export { limitApiClient } from './limit-api-client.js';
export type {
  GateApiClient,
  GateApiRequestConfig,
  GateApiResponse,
  LimitApiClientOptions,
  LimitedApiClient,
} from './limit-api-client.js';
