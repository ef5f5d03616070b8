import type { Cluster } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisStore } from '../../src/redis/store.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import { type ContractStore, livenessContract, schedulerContract } from '../schedule/scheduler.contract.js';
import { RedisCluster } from './cluster.js';
import { stopChildren, uniquePrefix } from './harness.js';
import { VirtualRedis } from './virtual.js';

// The scheduler's properties and liveness with its limits in a Redis Cluster of the file's own
// (three masters, a replica of each): the suite the memory store and one Redis run
// (test/schedule/*.prop.test.ts, scheduler.prop.test.ts), each run on a prefix of its own, so
// that the runs' budgets fall on every master.
let cluster: RedisCluster;
let client: Cluster;
beforeAll(async () => {
  cluster = await RedisCluster.start();
  client = cluster.client();
});
afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
  stopChildren();
});

const onCluster: ContractStore = {
  name: 'Redis store on a Redis Cluster',
  widens: false,
  async world(maxQueue) {
    const prefix = uniquePrefix('cluster-contract');
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
        await cluster.clean(prefix);
      },
    };
  },
};

schedulerContract(onCluster);
livenessContract(onCluster);
