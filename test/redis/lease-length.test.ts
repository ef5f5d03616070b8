import { describe, expect, it } from 'vitest';
import { LeaseLength } from '../../src/redis/lease-length.js';
import { RedisStore } from '../../src/redis/store.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import { redisForFile } from './file-prefixes.js';
import { type Scripting, settleOn, VirtualRedis } from './virtual.js';

const { client, prefixFor } = redisForFile();

/**
 * An ioredis-shaped client whose grants' answers reach the store `lateMs()` after Redis ran the
 * script, on the store's virtual clock; records the lease each request for permits carried.
 */
function slowAnswers(v: VirtualRedis, lateMs: () => number, leases: number[]): Scripting {
  // ACQUIRE's and ACQUIRE_MANY's KEYS start with the epoch. ACQUIRE's first ARGV is the grant's
  // id (`<process>.<n>`) and its fourth the lease; ACQUIRE_MANY's first is how many requests, its
  // seventh the lease.
  const wrap =
    (call: (...a: any[]) => Promise<unknown>) =>
    async (script: string, numKeys: number, ...rest: (string | number)[]): Promise<unknown> => {
      const acquire = String(rest[0]).endsWith(':epoch') && rest.length > 4;
      if (acquire) {
        const args = rest.slice(numKeys);
        leases.push(Number(String(args[0]).includes('.') ? args[3] : args[6]));
      }
      const reply = await call(script, numKeys, ...rest);
      if (acquire && lateMs() > 0) await v.clock.advance(lateMs());
      return reply;
    };
  return { evalsha: wrap(client.evalsha.bind(client)), eval: wrap(client.eval.bind(client)) };
}

describe('LeaseLength', () => {
  it('is leaseMs until an answer comes too late for its lease', () => {
    const l = new LeaseLength(20, 250);
    expect(l.at(0)).toBe(20);
    expect(l.at(1e9)).toBe(20);
  });

  it('makes the next leases twice as long as the late answer took, or twice the lease in force, whichever is longer', () => {
    const l = new LeaseLength(20, 250);
    l.late(21, 1000); // just past a 20 ms lease: twice the lease in force
    expect(l.at(1000)).toBe(42);
    l.late(60, 1000); // twice what the answer took
    expect(l.at(1000)).toBe(120);
    l.late(100, 1000); // twice the lease in force again
    expect(l.at(1000)).toBe(240);
  });

  it('is never longer than maxMs (the store’s timeoutMs)', () => {
    const l = new LeaseLength(20, 250);
    l.late(124.5, 0);
    expect(l.at(0)).toBe(249);
    l.late(125, 0);
    expect(l.at(0)).toBe(250);
    l.late(5000, 0);
    expect(l.at(0)).toBe(250);
  });

  it('halves what was added every second, back to leaseMs', () => {
    const l = new LeaseLength(20, 1000);
    l.late(200, 10_000); // 400
    expect(l.at(10_000)).toBe(400);
    expect(l.at(10_999)).toBe(20 + Math.floor(380 * 0.5 ** 0.999));
    expect(l.at(11_000)).toBe(210);
    expect(l.at(12_000)).toBe(115);
    expect(l.at(19_000)).toBe(20 + Math.floor(380 / 512));
    expect(l.at(20_000)).toBe(20);
    // A late answer then starts from leaseMs again.
    l.late(15, 20_000);
    expect(l.at(20_000)).toBe(40);
  });
});

describe('RedisStore: answers later than the lease', () => {
  it('sends on the next grant when every answer comes after the lease of its request: the lease grows, nothing is sent late', async () => {
    const prefix = prefixFor('slow-answers');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const leases: number[] = [];
    let late = 60;
    const store = new RedisStore({
      ...v.options(
        prefix,
        slowAnswers(v, () => late, leases),
      ),
      leaseMs: 20,
      timeoutMs: 250,
      prefetch: 0,
    });
    const s = new Scheduler({ store, clock: v.clock });
    const l = s.limit({ name: 'orders', limit: 100, windowMs: 1000 });
    const sent: number[] = [];
    const tasks = [s.schedule(() => sent.push(v.clock.now()), { limits: l })];
    await settleOn(v, tasks);
    // The first answer came 60 ms after its request, past its 20 ms lease: unused and given back.
    // The next request carried a lease of 120 ms, and its answer, 60 ms late too, was used.
    expect(leases.slice(0, 2)).toEqual([20, 120]);
    expect(sent).toHaveLength(1);
    await v.until(async () => Number(await client.hget(`{${prefix}}:m:orders`, 'used')) === 1);
    // Ten more, one after the other, every answer 60 ms late: each sent on its first grant.
    for (let i = 0; i < 10; i++) await settleOn(v, [s.schedule(() => sent.push(v.clock.now()), { limits: l })]);
    expect(sent).toHaveLength(11);
    expect(leases).toHaveLength(12);
    expect(Math.min(...leases.slice(1))).toBeGreaterThan(60);
    // Answers on time again: the lease falls back to 20 ms within ten seconds.
    late = 0;
    await v.advance(10_000);
    await settleOn(v, [s.schedule(() => sent.push(v.clock.now()), { limits: l })]);
    expect(leases.at(-1)).toBe(20);
    s.close();
    await store.close();
  });
});
