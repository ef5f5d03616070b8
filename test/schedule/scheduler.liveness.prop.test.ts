import { inMemory, livenessContract } from './scheduler.contract.js';

// With the memory store; test/redis/scheduler.prop.test.ts holds the Redis store to the same.
livenessContract(inMemory);
