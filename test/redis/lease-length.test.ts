import { describe, expect, it } from 'vitest';
import { encodeAcquire } from '../../src/redis/calls.js';
import { scriptingOf } from '../../src/redis/client.js';
import { LeaseLength } from '../../src/redis/lease-length.js';
import { RedisKeys, scripts } from '../../src/redis/protocol.js';
import { RedisStore } from '../../src/redis/store.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import { T0, acquireCall } from './acquire-call.js';
import { redisForFile } from './file-prefixes.js';
import { mostInAnyWindow } from './harness.js';
import { type Scripting, settleOn, VirtualRedis } from './virtual.js';

const { client, prefixFor } = redisForFile();

/**
 * An ioredis-shaped client whose grants' answers reach the store `lateMs()` after Redis ran the
 * script, on the store's virtual clock; records the lease each request for permits carried.
 */
function slowAnswers(
  v: VirtualRedis,
  lateMs: () => number,
  leases: number[],
  hold: (n: number) => Promise<void> = async () => {},
  sizes: number[] = [],
): Scripting {
  let n = 0;
  // ACQUIRE's and ACQUIRE_MANY's KEYS end with the processes alive and the grants lost. ACQUIRE's first ARGV is the grant's
  // id (`<process>.<n>`) and its fourth the lease; ACQUIRE_MANY's first is how many requests, its
  // seventh the lease.
  const wrap =
    (call: (...a: any[]) => Promise<unknown>) =>
    async (script: string, numKeys: number, ...rest: (string | number)[]): Promise<unknown> => {
      const acquire = String(rest[numKeys - 2]).endsWith(':alive') && String(rest[numKeys - 1]).endsWith(':lost');
      // Recorded once run: a script Redis does not hold yet fails (NOSCRIPT) and is sent again.
      const reply = await call(script, numKeys, ...rest);
      if (acquire) {
        const args = rest.slice(numKeys);
        const many = !String(args[0]).includes('.');
        leases.push(Number(many ? args[6] : args[3]));
        sizes.push(many ? Number(args[0]) : 1);
      }
      const late = acquire ? lateMs() : 0;
      if (late > 0) await v.clock.advance(late);
      if (acquire) await hold(++n);
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

  it('makes the next leases twice as long as the late answer took, or twice the lease it carried, whichever is longer', () => {
    const l = new LeaseLength(20, 250);
    l.late(20, 20, 1000); // at the end of a 20 ms lease: twice that lease
    expect(l.at(1000)).toBe(40);
    l.late(60, 40, 1000); // twice what the answer took
    expect(l.at(1000)).toBe(120);
    l.late(100, 120, 1000); // twice the lease it carried
    expect(l.at(1000)).toBe(240);
  });

  it('raises once for the answers of one call, or of calls in flight together: never shorter than the lease in force', () => {
    const l = new LeaseLength(20, 250);
    for (let i = 0; i < 4; i++) l.late(25, 20, 1000);
    expect(l.at(1000)).toBe(50);
    l.late(21, 20, 1000); // an answer that carried the old lease: the lease in force stays
    expect(l.at(1000)).toBe(50);
  });

  it('is never longer than maxMs', () => {
    const l = new LeaseLength(20, 250);
    l.late(124.5, 20, 0);
    expect(l.at(0)).toBe(249);
    l.late(125, 249, 0);
    expect(l.at(0)).toBe(250);
    l.late(5000, 250, 0);
    expect(l.at(0)).toBe(250);
  });

  it('halves what was added every second, back to leaseMs', () => {
    const l = new LeaseLength(20, 1000);
    l.late(200, 20, 10_000); // 400
    expect(l.at(10_000)).toBe(400);
    expect(l.at(10_999)).toBe(20 + Math.floor(380 * 0.5 ** 0.999));
    expect(l.at(11_000)).toBe(210);
    expect(l.at(12_000)).toBe(115);
    expect(l.at(19_000)).toBe(20 + Math.floor(380 / 512));
    expect(l.at(20_000)).toBe(20);
    // A late answer then starts from leaseMs again.
    l.late(15, 20, 20_000);
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

  it('raises the lease once for a call of several requests answered late', async () => {
    const prefix = prefixFor('slow-many');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const leases: number[] = [];
    const sizes: number[] = [];
    // Only the first call comes back late.
    const store = new RedisStore({
      ...v.options(
        prefix,
        slowAnswers(
          v,
          () => (leases.length === 1 ? 25 : 0),
          leases,
          async () => {},
          sizes,
        ),
      ),
      leaseMs: 20,
      timeoutMs: 250,
      prefetch: 0,
    });
    const s = new Scheduler({ store, clock: v.clock });
    const limits = ['a', 'b', 'c', 'd'].map((name) => s.limit({ name, limit: 100, windowMs: 1000 }));
    let ran = 0;
    const tasks = limits.map((l) => s.schedule(() => ran++, { limits: l }));
    // The first call carries the four requests and comes back 25 ms late: all four given back.
    await settleOn(v, tasks);
    expect(ran).toBe(4);
    expect(sizes[0]).toBe(4);
    // Twice what the call took, once: not doubled again for each of its four answers.
    expect(leases.slice(0, 2)).toEqual([20, 50]);
    await settleOn(v, [s.schedule(() => ran++, { limits: limits[0]! })]);
    expect(leases).toHaveLength(3);
    expect(leases[2]).toBeLessThanOrEqual(50);
    s.close();
    await store.close();
  });

  it('has a Redis that lost its data wait out the longest lease: a grant made before, answered late, never puts a window over N', async () => {
    const prefix = prefixFor('slow-flush');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const leases: number[] = [];
    let grantedAt = 0;
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    // Process A: its first answer comes 100 ms late (given back; the next lease is 200 ms), and
    // the answer to its second request is held until the test lets it through.
    // (Not tracked by `v`: the clock moves on while A's answer is held.)
    const aStore = new RedisStore({
      client: slowAnswers(
        v,
        () => (leases.length === 1 ? 100 : 0),
        leases,
        async (n) => {
          if (n !== 2) return;
          grantedAt = v.clock.now();
          await answered;
        },
      ),
      prefix,
      clock: v.clock,
      instants: 'clock',
      leaseMs: 20,
      timeoutMs: 1000,
      prefetch: 0,
    });
    const a = new Scheduler({ store: aStore, clock: v.clock });
    const la = a.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    const sent: number[] = [];
    const ta = a.schedule(() => sent.push(v.clock.now()), { limits: la });
    // The second answer is held: wait for its request in real time, the clock standing still.
    for (let i = 0; i < 1000 && grantedAt === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(leases).toEqual([20, 200]);
    // Redis loses its data just after granting A's 200 ms lease (a restart, a flush); process B
    // makes a new epoch 10 ms later and asks for 11.
    const keys = await client.keys(`{${prefix}}:*`);
    await client.del(...keys);
    await v.clock.advance(10);
    const bStore = new RedisStore({ ...v.options(prefix), leaseMs: 20, timeoutMs: 1000, prefetch: 0 });
    const b = new Scheduler({ store: bStore, clock: v.clock });
    const lb = b.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    const tb = Array.from({ length: 11 }, () => b.schedule(() => sent.push(v.clock.now()), { limits: lb }));
    // A's answer comes 190 ms after its grant, within its lease: A sends on it.
    await v.advanceTo(grantedAt + 190);
    answer();
    await settleOn(v, [ta, ...tb], 20_000);
    expect(sent).toHaveLength(12);
    // B let one request through alone, then waited out a window and the longest lease (250 ms)
    // from the new epoch: waiting out its own 20 ms lease, 11 went in one window.
    expect(mostInAnyWindow(sent, 1000)).toBeLessThanOrEqual(10);
    a.close();
    b.close();
    await Promise.all([aStore.close(), bStore.close()]);
  });
});

describe('ACQUIRE on a Redis new or flushed: the longest lease', () => {
  /** ACQUIRE of one on "orders" (10 per 1,000 ms, no margin) under `k`, at `at`, with the longest lease `leaseMaxMs`. */
  const asker = (k: RedisKeys, leaseMaxMs: number | undefined) => async (id: string, at: number) => {
    const e = encodeAcquire(k, acquireCall(id, { at, leaseMaxMs }));
    return (await scripts.acquire.run(scriptingOf(client), e.keys, e.args)) as number[];
  };

  it('holds a limit in force no process knows until the epoch is its span and the longest lease old, to the ms', async () => {
    for (const leaseMaxMs of [undefined, 250]) {
      // The epoch is made by the first request, at T0.
      const ask = asker(new RedisKeys(prefixFor('young-epoch')), leaseMaxMs);
      expect((await ask('p.1', T0)).slice(0, 2)).toEqual([1, 1]);
      const edge = T0 + 1000 + (leaseMaxMs ?? 20);
      expect((await ask('p.2', edge - 1))[0]).toBe(0);
      expect((await ask('p.3', edge)).slice(0, 2)).toEqual([1, 1]);
    }
  });

  it('after grants were lost, holds a limit in force until the loss is its span and the longest lease old, to the ms', async () => {
    for (const leaseMaxMs of [undefined, 250]) {
      const k = new RedisKeys(prefixFor('lost-grants'));
      const ask = asker(k, leaseMaxMs);
      // An epoch made long ago; grants were lost at T0 (a failover to a replica that lagged), and
      // process q, alive then, has not added its own back.
      await client.set(k.epoch, '0');
      await client.hset(k.lost, 'at', T0, 'n', 1, 'p:q', 1);
      // The one request let through alone, whose answer would say what the exchange counted.
      expect((await ask('p.1', T0 + 1)).slice(0, 2)).toEqual([1, 1]);
      const edge = T0 + 1000 + (leaseMaxMs ?? 20);
      expect((await ask('p.2', edge - 1))[0]).toBe(0);
      expect((await ask('p.3', edge)).slice(0, 2)).toEqual([1, 1]);
    }
  });
});
