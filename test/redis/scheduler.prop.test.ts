import { afterAll } from 'vitest';
import { RedisStore } from '../../src/redis/store.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import { type ContractStore, livenessContract, schedulerContract } from '../schedule/scheduler.contract.js';
import { cleanPrefix, connect, uniquePrefix } from './harness.js';
import { VirtualRedis } from './virtual.js';

// The scheduler's properties and liveness with its limits in Redis: the same suite as with the
// memory store (test/schedule/*.prop.test.ts), on a virtual clock that Redis runs its scripts at.
const client = connect();
afterAll(() => client.disconnect());

const redis: ContractStore = {
  name: 'Redis store',
  widens: false,
  async world(maxQueue) {
    const prefix = uniquePrefix('contract');
    // From instant 0, as the scenarios' instants are.
    const v = new VirtualRedis(client, 0);
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
        await cleanPrefix(client, prefix);
      },
    };
  },
};

schedulerContract(redis);
livenessContract(redis);
