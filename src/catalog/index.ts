/**
 * `traderatio/catalog`: the exchange's endpoints as the limiter reads them. `createCatalog`
 * classifies a request (its market, action, weight and the limits it draws on) and a WebSocket
 * order channel; `DEFAULT_LIMITS` are the endpoint limits it starts from; the `check*` functions
 * test a request against what the exchange refuses outright (batch sizes, timestamps, text).
 *
 * @packageDocumentation
 */
export { createCatalog, DEFAULT_LIMITS } from './catalog.js';
export type { Action, Catalog, CatalogOptions, Classification, EndpointLimit, Market } from './catalog.js';
export { WEBSOCKET_ORDER_CHANNELS } from './channels.js';
export { createOkxCatalog, OKX_WEBSOCKET_ORDER_OPS } from './okx.js';
export type { WebSocketBudget } from './channels.js';
export {
  checkApiKeyCount,
  checkClockOffset,
  checkCustomIdUsable,
  checkFuturesBatch,
  checkIpWhitelist,
  checkListLimit,
  checkOpenCrossExchangeOrders,
  checkOrderText,
  checkSpotBatch,
  checkTimestamp,
  checkWebSocketConnections,
} from './validators.js';
export type { Check } from './validators.js';
