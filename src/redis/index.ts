/**
 * `traderatio/redis`: one budget across processes and hosts, held in Redis.
 * The client (ioredis or node-redis) is the application's own, an optional peer dependency.
 */
export { RedisStore } from './store.js';
export type { RedisStoreEvent } from './store.js';
export type { RedisStoreOptions } from './options.js';
export { SharedLimit } from './shared-limit.js';
