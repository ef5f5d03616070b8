/**
 * traderatio/model-exchange: a model of the exchange's rate-limit behaviour on localhost (the server
 * behind `traderatio exchange`), started in the process for tests and benchmarks.
 *
 * @packageDocumentation
 */
export { startModelExchange } from './server.js';
export type { ModelExchangeOptions, RunningModelExchange } from './server.js';
export type { ModelExchangeStats, AccountStats, LimitStats, PartyStats } from './stats.js';
export type { AccountsFile, FamilyEntry, AccountEntry, ApiKey } from './accounts.js';
export type { MarketsOptions, ContractSpec, PairSpec } from './markets.js';
export type { PricesOptions } from './market-data.js';
export type { StartingBalances } from './funds.js';
export type { FillModelOptions, FillShares } from './fill-model.js';
export type { WindowMode } from './arrival-count.js';
export type { ModelExchangeErrorCode } from './api-error.js';
