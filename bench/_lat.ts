import { Redis } from 'ioredis';
import { Scheduler } from '../dist/index.js';
import { RedisStore } from '../dist/redis.js';
import { RateLimiterRedis } from 'rate-limiter-flexible';
const c = new Redis({ host: '127.0.0.1', port: 6379 });
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(p * s.length)]!.toFixed(0); };
async function time(name: string, f: () => Promise<unknown>, n = 6000) {
  for (let i = 0; i < 2000; i++) await f();
  const out: number[] = [];
  for (let i = 0; i < n; i++) { const t = performance.now(); await f(); out.push((performance.now() - t) * 1000); }
  console.log(name.padEnd(30), 'p50', pct(out, 0.5), 'p90', pct(out, 0.9));
}
const prefix = 'tr-lat-' + Math.random().toString(36).slice(2);
const [s] = (await c.call('TIME')) as [string, string];
await c.set(`{${prefix}}:epoch`, String(Number(s) * 1000 - 3_600_000));
const only = process.argv[2];
if (!only || only === 'ping') await time('PING', () => c.ping());
const rl = new RateLimiterRedis({ storeClient: c, keyPrefix: `{${prefix}}:rlf`, points: 1e9, duration: 1 });
if (!only || only === 'rlf') await time('RLF consume', () => rl.consume('a'));
const store = new RedisStore({ client: c, prefix, prefetch: 0 });
const sch = new Scheduler({ store });
const lim = sch.limit({ name: 'orders', limit: 1e9, windowMs: 1000 });
if (!only || only === 'tr') await time('scheduler+store prefetch 0', () => sch.schedule(() => undefined, { limits: lim }), only ? 40000 : 6000);
sch.close(); await store.close();
const keys = await c.keys(`{${prefix}}*`); if (keys.length) await c.del(...keys);
c.disconnect();
