import { afterAll } from 'vitest';
import { livenessContract, schedulerContract } from '../schedule/scheduler.contract.js';
import { redisContractStore } from './contract-store.js';
import { cleanPrefix, connect } from './harness.js';

// The scheduler's properties and liveness with its limits in Redis: the same suite as with the
// memory store (test/schedule/*.prop.test.ts), on a virtual clock that Redis runs its scripts at.
const client = connect();
afterAll(() => client.disconnect());

const redis = redisContractStore(
  'Redis store',
  () => client,
  (prefix) => cleanPrefix(client, prefix),
);

schedulerContract(redis);
livenessContract(redis);
