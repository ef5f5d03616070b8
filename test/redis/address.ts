// The Redis the tests talk to: REDIS_URL, which `npm test` sets (see scripts/test.ts), else the one
// on 127.0.0.1:6379.
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const REDIS_URL = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
export const REDIS_PORT = Number(new URL(REDIS_URL).port || 6379);
