import type { Cluster } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { livenessContract, schedulerContract } from '../schedule/scheduler.contract.js';
import { RedisCluster } from './cluster.js';
import { redisContractStore } from './contract-store.js';
import { stopChildren } from './harness.js';

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

const onCluster = redisContractStore(
  'Redis store on a Redis Cluster',
  () => client,
  (prefix) => cluster.clean(prefix),
);

schedulerContract(onCluster);
livenessContract(onCluster);
