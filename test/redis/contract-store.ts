import type { Cluster, Redis } from 'ioredis';
import { RedisStore } from '../../src/redis/store.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import type { ContractStore } from '../schedule/scheduler.contract.js';
import { uniquePrefix } from './harness.js';
import { VirtualRedis } from './virtual.js';

/**
 * The Redis store as the scheduler's property and liveness suite takes it (scheduler.contract.ts):
 * each run on a prefix of its own, on a virtual clock that Redis runs its scripts at, through
 * `client()` (one Redis, or a cluster's client); `clean` deletes a run's keys.
 */
export function redisContractStore(
  name: string,
  client: () => Redis | Cluster,
  clean: (prefix: string) => Promise<void>,
): ContractStore {
  return {
    name,
    widens: false,
    async world(maxQueue) {
      const prefix = uniquePrefix('contract');
      // From instant 0, as the scenarios' instants are.
      const v = new VirtualRedis(client(), 0);
      await v.warm(prefix);
      const store = new RedisStore(v.options(prefix));
      const scheduler = new Scheduler({ clock: v.clock, store, maxQueue });
      return {
        clock: v.clock,
        scheduler,
        advanceTo: (at) => v.advanceTo(at),
        runAll: () => v.runAll(),
        async close() {
          scheduler.close();
          await store.close();
          await clean(prefix);
        },
      };
    },
  };
}
