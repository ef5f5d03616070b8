import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { InvalidInputError, NoReplyError } from '../../src/errors.js';
import type { SharedLimit } from '../../src/redis/shared-limit.js';
import { RedisStore } from '../../src/redis/store.js';
import {
  type AcquireCall,
  type Encoded,
  encodeAcquire,
  encodeAcquireMany,
  encodeFeedback,
  encodeHello,
  encodeLate,
  encodeRelease,
  encodeRestore,
} from '../../src/redis/calls.js';
import { scriptingOf } from '../../src/redis/client.js';
import { RedisKeys, type ScriptName, scripts } from '../../src/redis/protocol.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { UNTHROTTLED } from '../../src/rules/abuse.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import { UNANSWERED_MAX_MS } from '../../src/schedule/unanswered.js';
import { memoryStore } from '../../src/schedule/store.js';
import { REDIS_URL } from './address.js';
import { T0, acquireCall } from './acquire-call.js';
import { redisForFile } from './file-prefixes.js';
import { cleanPrefix, copyPrefix, mostInAnyWindow, worstShare } from './harness.js';
import { type Scripting, VirtualRedis, settleOn } from './virtual.js';

const { client, prefixFor } = redisForFile();

/** Reads a limit's hash in Redis: n, w, used and the grants. */
async function meta(prefix: string, name: string): Promise<Record<string, string>> {
  return client.hgetall(`{${prefix}}:m:${name}`);
}

/** Runs one of the store's scripts on `client`, as the store does. */
function run<T = unknown>(script: ScriptName, call: Encoded): Promise<T> {
  return scripts[script].run(scriptingOf(client), call.keys, call.args) as Promise<T>;
}

/** Skips the first-use wait for scripts run at {@link T0}: a Redis new to the prefix grants nothing for one span. */
async function warm(prefix: string): Promise<void> {
  await client.set(`{${prefix}}:epoch`, '0');
}

/** Two schedulers, as two processes would have, on one limit of 10 per second in Redis, on one virtual clock. */
async function twoProcesses(name: string) {
  const prefix = prefixFor(name);
  const v = new VirtualRedis(client);
  await v.warm(prefix);
  const a = new Scheduler({ store: new RedisStore(v.options(prefix)), clock: v.clock });
  const b = new Scheduler({ store: new RedisStore(v.options(prefix)), clock: v.clock });
  return {
    prefix,
    v,
    a,
    b,
    la: a.limit({ name: 'orders', limit: 10, windowMs: 1000 }),
    lb: b.limit({ name: 'orders', limit: 10, windowMs: 1000 }),
  };
}

type Fault = 'none' | 'lose-reply' | 'down' | 'slow';

/**
 * An ioredis-shaped client whose ACQUIRE calls can be made to fail in the ways a network does.
 * `slow` holds up an answer (a virtual clock's advance).
 */
function faulty(fault: { mode: Fault }, slow: () => Promise<void> = async () => {}): Scripting {
  const isAcquire = (args: unknown[]): boolean => args.length > 4 && String(args[0]).endsWith(':epoch');
  const wrap =
    (call: (...a: any[]) => Promise<unknown>) =>
    async (script: string, numKeys: number, ...rest: (string | number)[]): Promise<unknown> => {
      const acquire = isAcquire(rest);
      if (fault.mode === 'down') throw new Error('connection refused');
      const reply = await call(script, numKeys, ...rest);
      if (acquire && fault.mode === 'lose-reply') throw new Error('connection reset after the script ran');
      if (acquire && fault.mode === 'slow') await slow();
      return reply;
    };
  return { evalsha: wrap(client.evalsha.bind(client)), eval: wrap(client.eval.bind(client)) };
}

describe('RedisStore', () => {
  it('names the option and the value it refuses', () => {
    expect(() => new RedisStore({ client: {} })).toThrow(InvalidInputError);
    expect(() => new RedisStore({ client, prefix: 'a{b}' })).toThrow(/`prefix`.*"a\{b\}"/);
    expect(() => new RedisStore({ client, leaseMs: 0 })).toThrow(/`leaseMs`.*0/);
    expect(() => new RedisStore({ client, prefetch: -1 })).toThrow(/`prefetch`/);
    expect(() => new Scheduler({ store: {} as never })).toThrow(/`store`/);
  });

  it('keeps the in-memory store as the default', () => {
    const a = new Scheduler();
    const b = new Scheduler({ store: memoryStore });
    expect(a.limit({ limit: 1, windowMs: 10 }).isShared()).toBe(false);
    expect(b.limit({ limit: 1, windowMs: 10 }).isShared()).toBe(false);
  });

  it('holds two schedulers on one prefix to one budget: never over N in any window', async () => {
    const prefix = prefixFor('two');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const stores = [new RedisStore(v.options(prefix)), new RedisStore(v.options(prefix))];
    const times: number[] = [];
    const runs = stores.map((store) => {
      const s = new Scheduler({ store, clock: v.clock });
      const l = s.limit({ name: 'orders', limit: 10, windowMs: 300 });
      return Array.from({ length: 25 }, () => s.schedule(() => void times.push(v.clock.now()), { limits: l }));
    });
    await settleOn(v, runs.flat());
    expect(times).toHaveLength(50);
    expect(mostInAnyWindow(times, 300)).toBeLessThanOrEqual(10);
    // Five windows' worth, sent in four windows and a lease each, give or take the few ms a
    // process waits for its turn (fair shares): the budget is used, not wasted.
    expect(Math.max(...times) - Math.min(...times)).toBeLessThanOrEqual(4 * 320 + 50);
    await Promise.all(stores.map((s) => s.close()));
    expect(Number((await meta(prefix, 'orders')).used)).toBeLessThanOrEqual(10);
  });

  it('grants linked limits all or none, across processes (see docs/rules.md#r13)', async () => {
    const prefix = prefixFor('linked');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const other = new Scheduler({ store: new RedisStore(v.options(prefix)), clock: v.clock });
    const otherOrders = other.limit({ name: 'orders', limit: 2, windowMs: 400 });
    await settleOn(v, [
      other.schedule(() => 0, { limits: otherOrders }),
      other.schedule(() => 0, { limits: otherOrders }),
    ]);
    const mine = new Scheduler({ store: new RedisStore(v.options(prefix)), clock: v.clock });
    const orders = mine.limit({ name: 'orders', limit: 2, windowMs: 400 });
    const batch = mine.limit({ name: 'batch', limit: 5, windowMs: 400 });
    let ran = 0;
    const p = mine.schedule(() => ran++, { limits: [orders, batch] });
    await v.advance(100);
    // Orders are spent by the other process: nothing of `batch` was taken meanwhile.
    expect(ran).toBe(0);
    expect(Number((await meta(prefix, 'batch')).used)).toBe(0);
    await settleOn(v, [p]);
    expect(ran).toBe(1);
    expect(Number((await meta(prefix, 'batch')).used)).toBe(1);
  });

  it('answers a repeated request with its first grant, charging once', async () => {
    const prefix = prefixFor('idem');
    await warm(prefix);
    const call = encodeAcquire(new RedisKeys(prefix), acquireCall('p.1', { want: 3, queued: 3 }));
    const a = await run<number[]>('acquire', call);
    const b = await run<number[]>('acquire', call);
    expect(a.slice(0, 2)).toEqual([1, 3]);
    expect(b.slice(0, 2)).toEqual([1, 3]);
    expect(Number((await meta(prefix, 'orders')).used)).toBe(3);
    expect(await client.zcard(`{${prefix}}:l:orders`)).toBe(1);
  });

  it('grants each request of one call of several as ACQUIRE grants it alone', async () => {
    const one = prefixFor('many-as-one');
    const many = prefixFor('many');
    await warm(one);
    await warm(many);
    const calls = [
      acquireCall('p.1', { want: 3, queued: 3 }),
      acquireCall('p.2', { weight: 2, want: 2, queued: 2, extra: 4 }, { name: 'cancels', limit: 5 }),
      acquireCall('p.3', { weight: 11 }, { name: 'batch' }),
    ];
    const alone: unknown[] = [];
    for (const c of calls) alone.push(await run('acquire', encodeAcquire(new RedisKeys(one), c)));
    const together = await run<unknown[]>('acquireMany', encodeAcquireMany(new RedisKeys(many), calls));
    expect(together).toEqual(alone);
    // Granted 3, granted 2 and 3 more (a lease), too heavy for ever: nothing counted on `batch`.
    expect(together.map((r) => (r as number[]).slice(0, 2))).toEqual([
      [1, 3],
      [1, 5],
      [-1, 1],
    ]);
    for (const [name, used] of [
      ['orders', '3'],
      ['cancels', '5'],
      ['batch', '0'],
    ] as const)
      expect((await meta(many, name)).used).toBe(used);
  });

  it('holds back a request of a call whose limit is spent, all or none on its own limits, and grants the others', async () => {
    const prefix = prefixFor('many-held');
    await warm(prefix);
    const k = new RedisKeys(prefix);
    await run('acquire', encodeAcquire(k, acquireCall('p.1', { weight: 10, want: 10, queued: 10 })));
    const both = (id: string): AcquireCall => ({
      ...acquireCall(id),
      limits: [
        { name: 'orders', limit: 10, windowMs: 1000, marginMs: 0, reserved: 0, lateMs: 0 },
        { name: 'batch', limit: 10, windowMs: 1000, marginMs: 0, reserved: 0, lateMs: 0 },
      ],
    });
    const replies = await run<number[][]>(
      'acquireMany',
      encodeAcquireMany(k, [both('p.2'), acquireCall('p.3', {}, { name: 'cancels' })]),
    );
    // `orders` is spent: the request on it and `batch` waits, and takes nothing of `batch`.
    expect(replies[0]![0]).toBe(0);
    expect(replies[0]![1]).toBeGreaterThan(0);
    expect(replies[1]!.slice(0, 2)).toEqual([1, 1]);
    expect((await meta(prefix, 'orders')).used).toBe('10');
    expect((await meta(prefix, 'batch')).used).toBe('0');
    expect((await meta(prefix, 'cancels')).used).toBe('1');
  });

  it('answers a repeated call of several requests with their first grants, charging once', async () => {
    const prefix = prefixFor('many-idem');
    await warm(prefix);
    const call = encodeAcquireMany(new RedisKeys(prefix), [
      acquireCall('p.1', { want: 3, queued: 3 }),
      acquireCall('p.2', {}, { name: 'cancels' }),
    ]);
    const a = await run<number[][]>('acquireMany', call);
    const b = await run<number[][]>('acquireMany', call);
    expect(a.map((r) => r.slice(0, 2))).toEqual([
      [1, 3],
      [1, 1],
    ]);
    expect(b.map((r) => r.slice(0, 2))).toEqual(a.map((r) => r.slice(0, 2)));
    expect((await meta(prefix, 'orders')).used).toBe('3');
    expect((await meta(prefix, 'cancels')).used).toBe('1');
  });

  it('grants nothing to a call of several requests that reaches Redis past the earliest deadline among them', async () => {
    const prefix = prefixFor('many-late');
    await warm(prefix);
    const call = encodeAcquireMany(new RedisKeys(prefix), [
      acquireCall('p.1', { deadline: T0 + 10 }),
      acquireCall('p.2', { deadline: T0 - 1 }, { name: 'cancels' }),
    ]);
    expect(await run('acquireMany', call)).toEqual([
      [-2, 0, T0],
      [-2, 0, T0],
    ]);
    expect((await meta(prefix, 'orders')).used).toBeUndefined();
    expect((await meta(prefix, 'cancels')).used).toBeUndefined();
  });

  it('tells a request of a call that knew another epoch to wait 0 ms, and grants the one that knew this one', async () => {
    const prefix = prefixFor('many-epoch');
    await warm(prefix);
    const call = encodeAcquireMany(new RedisKeys(prefix), [
      acquireCall('p.1', { epoch: '12345' }),
      acquireCall('p.2', { epoch: '0' }, { name: 'cancels' }),
    ]);
    const replies = await run<unknown[][]>('acquireMany', call);
    expect(replies.map((r) => r.slice(0, 2))).toEqual([
      [0, 0],
      [1, 1],
    ]);
    expect((await meta(prefix, 'cancels')).used).toBe('1');
  });

  it('runs a repeated hold or hello once: the weight counted stays the sum of the entries, and drops to 0', async () => {
    // A client sends a call once more after a failover when the first run's answer was lost; the
    // grants of the window may have left it in between, so the second run sees less counted.
    const prefix = prefixFor('idem-hold');
    await warm(prefix);
    const k = new RedisKeys(prefix);
    const orders = { name: 'orders', limit: 10, windowMs: 1000, marginMs: 0 };
    const counted = async (): Promise<{ used: number; entries: number }> => {
      const m = await meta(prefix, 'orders');
      const entries = Object.entries(m)
        .filter(([f]) => f.startsWith('#'))
        .reduce((sum, [, v]) => sum + Number(v), 0);
      return { used: Number(m.used ?? 0), entries };
    };
    await run('acquire', encodeAcquire(k, acquireCall('p.1', { weight: 3, want: 3, queued: 3 })));
    // The exchange says 8 of 10 are spent, for 2 s: 5 held beside the grant. A hello counts 2 sent.
    const hold = encodeFeedback(k, { at: T0 + 10, limit: orders, pauseMs: 0, holdWeight: 8, holdMs: 1990, id: 'p.h1' });
    const hello = encodeHello(k, {
      at: T0 + 10,
      process: 'p',
      id: 'p.r1',
      deadline: 0,
      limits: [{ ...orders, sent: 2 }],
    });
    await run('feedback', hold);
    await run('hello', hello);
    await run('hello', hello);
    expect(await counted()).toEqual({ used: 10, entries: 10 });
    // The grant and the hello's entry leave the window (a later ACQUIRE sweeps them); the hold, then
    // seeing less counted, comes again.
    await run('acquire', encodeAcquire(k, acquireCall('p.2', { at: T0 + 1030 })));
    expect(await counted()).toEqual({ used: 6, entries: 6 });
    await run('feedback', hold);
    expect(await counted()).toEqual({ used: 6, entries: 6 });
    // Once everything has left the window, only the last grant is counted.
    await run('acquire', encodeAcquire(k, acquireCall('p.3', { at: T0 + 5000 })));
    expect(await counted()).toEqual({ used: 1, entries: 1 });
  });
  it('counts every grant longer by the latest arrival any process measured lately, the configured margin otherwise (see docs/rules.md#r13)', async () => {
    const prefix = prefixFor('late');
    await warm(prefix);
    const acquire = (id: string, lateMs: number) =>
      run<number[]>(
        'acquire',
        encodeAcquire(new RedisKeys(prefix), acquireCall(id, { leaseMs: 0 }, { limit: 1, marginMs: 5, lateMs })),
      );
    // A process saw one of its requests arrive 300 ms after its quickest: every grant counts
    // 1,300 ms, the second process's next one waits for that, not 1,005 ms.
    expect((await acquire('a.1', 300))[0]).toBe(1);
    const waited = await acquire('b.1', 0);
    expect(waited[0]).toBe(0);
    expect(waited[1]).toBeGreaterThan(1_250);
    expect(waited[1]).toBeLessThanOrEqual(1_300);
    expect(Number((await meta(prefix, 'orders')).mx)).toBe(300);
    // A smaller lateness does not replace a larger one still in its time; the same one sets its
    // time again only once it is a second old.
    await acquire('b.2', 40);
    expect(Number((await meta(prefix, 'orders')).mx)).toBe(300);
    const setAt = (await meta(prefix, 'orders')).mxt;
    await acquire('a.2', 300);
    expect((await meta(prefix, 'orders')).mxt).toBe(setAt);
    await client.hset(`{${prefix}}:m:orders`, 'mxt', String(Number(setAt) - 1_001));
    await acquire('a.3', 300);
    expect(Number((await meta(prefix, 'orders')).mxt)).toBeGreaterThan(Number(setAt) - 1);
    // Set longer ago than max(10 s, 2 W): the configured margin again, and the next lateness kept.
    await client.hset(`{${prefix}}:m:orders`, 'mxt', String(T0 - 10_500));
    const after = await acquire('b.3', 0);
    expect(after[0]).toBe(0);
    expect(after[1]).toBeLessThanOrEqual(1_005);
    await acquire('b.4', 40);
    expect(Number((await meta(prefix, 'orders')).mx)).toBe(40);
  });

  it('gives back a grant whose answer was lost, and charges the retry once', async () => {
    const prefix = prefixFor('lost');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const fault = { mode: 'lose-reply' as Fault };
    const store = new RedisStore(v.options(prefix, faulty(fault)));
    const events: string[] = [];
    store.on((e) => events.push(e.type));
    const s = new Scheduler({ store, clock: v.clock });
    const l = s.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    let ran = 0;
    const p = s.schedule(() => ran++, { limits: l });
    await v.until(() => events.includes('unavailable'));
    await v.until(async () => Number((await meta(prefix, 'orders')).used) === 0);
    expect(ran).toBe(0);
    fault.mode = 'none';
    await settleOn(v, [p]);
    expect(ran).toBe(1);
    expect(events).toEqual(['unavailable', 'available']);
    expect(Number((await meta(prefix, 'orders')).used)).toBe(1);
  });

  it('does not use a grant that arrived after its lease, and gives it back', async () => {
    const prefix = prefixFor('slow');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const fault = { mode: 'slow' as Fault };
    let slowAnswers = 0;
    let twoSlow: () => void;
    const twoSlowAnswers = new Promise<void>((r) => (twoSlow = r));
    // Every answer comes 400 ms late on the store's clock, past its 50 ms lease: none is used.
    // (The store asks again at once: the clock moves by these answers alone meanwhile.)
    const slow = async (): Promise<void> => {
      await v.clock.advance(400);
      if (++slowAnswers === 2) twoSlow();
    };
    const store = new RedisStore({ ...v.options(prefix, faulty(fault, slow)), timeoutMs: 1000, leaseMs: 50 });
    const s = new Scheduler({ store, clock: v.clock });
    const l = s.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    let ran = 0;
    const p = s.schedule(() => ran++, { limits: l });
    await twoSlowAnswers;
    expect(ran).toBe(0);
    fault.mode = 'none';
    await settleOn(v, [p]);
    expect(ran).toBe(1);
    // The late grants were given back: only what was sent stays counted.
    await v.until(async () => Number((await meta(prefix, 'orders')).used) === 1);
    expect(await client.zcard(`{${prefix}}:l:orders`)).toBe(1);
  });

  it('sends no permit after its lease ends when a task before it in the pass is slow: never over N in any window', async () => {
    const prefix = prefixFor('slow-task');
    await warm(prefix);
    const store = new RedisStore({ client, prefix });
    const s = new Scheduler({ store });
    const l = s.limit({ name: 'orders', limit: 100, windowMs: 1000 });
    const times: number[] = [];
    // The second task, run from the same grant as those after it, does twice the lease (20 ms)
    // of synchronous work: the rest of that grant can no longer be sent before its score.
    const tasks = Array.from({ length: 150 }, (_, i) =>
      s.schedule(
        () => {
          times.push(performance.now());
          if (i === 1) for (const end = performance.now() + 40; performance.now() < end; );
        },
        { limits: l },
      ),
    );
    await Promise.all(tasks);
    expect(times).toHaveLength(150);
    expect(mostInAnyWindow(times, 1000)).toBeLessThanOrEqual(100);
    await store.close();
    // What was granted and not sent in time went back: Redis counts only what was sent.
    expect(Number((await meta(prefix, 'orders')).used)).toBeLessThanOrEqual(100);
  });

  it('has Redis count again a task held up past its lease after the check (a slow dispatch listener): never over N in any window', async () => {
    const prefix = prefixFor('slow-listener');
    await warm(prefix);
    const store = new RedisStore({ client, prefix });
    const s = new Scheduler({ store });
    const l = s.limit({ name: 'orders', limit: 100, windowMs: 1000 });
    const times: number[] = [];
    let dispatches = 0;
    // Runs after the scheduler checked the lease and before the task starts.
    s.on((e) => {
      if (e.type === 'dispatch' && ++dispatches === 2)
        for (const end = performance.now() + 200; performance.now() < end; );
    });
    await Promise.all(
      Array.from({ length: 150 }, () => s.schedule(() => void times.push(performance.now()), { limits: l })),
    );
    expect(times).toHaveLength(150);
    expect(mostInAnyWindow(times, 1000)).toBeLessThanOrEqual(100);
    await store.close();
  });

  it('moves permits sent late out of their grant to an entry counted from when it hears of them, whatever the order with the release', async () => {
    const prefix = prefixFor('late');
    await warm(prefix);
    const k = new RedisKeys(prefix);
    const keys = [k.meta('orders'), k.log('orders')];
    const acquire = (id: string, at = T0) =>
      run('acquire', encodeAcquire(k, acquireCall(id, { want: 3, queued: 3, at })));
    const late = (id: string, grant: string) =>
      run(
        'late',
        encodeLate(k, {
          at: T0,
          limit: { name: 'orders', limit: 10, windowMs: 1000, marginMs: 0 },
          id,
          weight: 1,
          grant,
        }),
      );
    const release = (grant: string, sent: number) => run('release', encodeRelease(k, { limit: 'orders', grant, sent }));
    // Grants of 3; 2 sent of each, 1 of them late: the late one told before the release...
    await acquire('p.1');
    expect(await late('p.t1', 'p.1')).toBe(1);
    expect(await late('p.t1', 'p.1')).toBe(0);
    await release('p.1', 2);
    // ... and after it.
    await acquire('p.2');
    await release('p.2', 2);
    await late('p.t2', 'p.2');
    const m = await meta(prefix, 'orders');
    expect([m['#p.1'], m['#p.t1'], m['#p.2'], m['#p.t2'], m.used]).toEqual(['1', '1', '1', '1', '4']);
    expect(Number(await client.zscore(keys[1]!, 'p.t1'))).toBe(T0);
    // A late weight whose grant has left the log is counted all the same.
    await late('p.t3', 'p.gone');
    expect((await meta(prefix, 'orders')).used).toBe('5');
    // Once out of the window (scored T0 + the lease of 20 ms), the grants take their moved weight with them.
    await acquire('p.3', T0 + 1020);
    expect(Object.keys(await meta(prefix, 'orders')).filter((k) => k.startsWith('#') || k.startsWith('~'))).toEqual([
      '#p.3',
    ]);
  });

  /** ACQUIRE on one limit of `n` per second for the process the id starts with (`<process>.<n>`). */
  function acquireOn(
    prefix: string,
    id: string,
    o: { weight?: number; want?: number; extra?: number; room?: boolean; queued?: number; n?: number } = {},
  ): Promise<number[]> {
    const weight = o.weight ?? 1;
    const call = acquireCall(
      id,
      {
        weight,
        want: o.want ?? weight,
        process: id.split('.')[0]!,
        extra: o.extra ?? 0,
        room: o.room === true,
        queued: o.queued ?? weight,
      },
      { limit: o.n ?? 10 },
    );
    return run<number[]>('acquire', encodeAcquire(new RedisKeys(prefix), call));
  }

  it('grants a limit that binds only to a waiting process within one permit of the least served of the others waiting, and only while they wait (fair shares)', async () => {
    const prefix = prefixFor('fair');
    await warm(prefix);
    const q = `{${prefix}}:q:orders`;
    const release = (grant: string, sent: number) =>
      run('release', encodeRelease(new RedisKeys(prefix), { limit: 'orders', grant, sent }));
    // a takes 8 of 10 with 5 more waiting; b asks for 4 and gets the 2 left, 2 more waiting.
    expect((await acquireOn(prefix, 'a.1', { want: 8, queued: 13 })).slice(0, 2)).toEqual([1, 8]);
    expect((await acquireOn(prefix, 'b.1', { want: 4, queued: 4 })).slice(0, 2)).toEqual([1, 2]);
    expect(Object.keys(await client.hgetall(q)).sort()).toEqual(['a', 'b']);
    // a sent 4 of its 8: 4 free. b waits with a score of 2, a has 8: a is told to look again
    // (room or not), b gets its 2, and a the rest once b no longer waits.
    await release('a.1', 4);
    const held = await acquireOn(prefix, 'a.2', { queued: 5 });
    expect(held[0]).toBe(0);
    expect(held[1]).toBeGreaterThanOrEqual(2);
    expect((await acquireOn(prefix, 'b.2', { want: 2, queued: 2 })).slice(0, 2)).toEqual([1, 2]);
    // b keeps its score, no longer waiting.
    expect((await client.hget(q, 'b'))!.split(':').slice(0, 2)).toEqual(['0', '0']);
    expect(Number((await client.hget(q, 'b'))!.split(':')[2])).toBe(4);
    expect((await acquireOn(prefix, 'a.3', { want: 5, queued: 5 })).slice(0, 2)).toEqual([1, 2]);
    expect((await meta(prefix, 'orders')).used).toBe('10');
    // c takes the 2 that a gives back and waits for 4 more, scored 2. With 2 free again and a
    // listed as waiting with a score of 10, a is held back and c is not.
    await release('a.3', 0);
    expect((await acquireOn(prefix, 'c.1', { want: 2, queued: 6 })).slice(0, 2)).toEqual([1, 2]);
    await release('c.1', 0);
    await client.hset(q, 'a', `${T0 + 60_000}:5:10:${T0}`);
    expect((await acquireOn(prefix, 'a.4', { queued: 5 }))[0]).toBe(0);
    expect((await acquireOn(prefix, 'c.2', { want: 2, queued: 4 })).slice(0, 2)).toEqual([1, 2]);
    // A process past the time it said it would ask holds nobody back: a, listed as due long ago
    // with a score of 0, does not keep c (scored 4) from the 2 freed again.
    await release('c.2', 0);
    await client.hset(q, 'a', `1:5:0:${T0}`);
    expect((await acquireOn(prefix, 'c.3', { want: 2, queued: 2 })).slice(0, 2)).toEqual([1, 2]);
    // An entry that cannot be read (written by anything but this script) is dropped, not a fault
    // of every admission on the limit.
    await client.hset(q, 'z', 'not:an:entry');
    await release('c.3', 0);
    expect((await acquireOn(prefix, 'c.4', { want: 2, queued: 4 })).slice(0, 2)).toEqual([1, 2]);
    expect(await client.hexists(q, 'z')).toBe(0);
  });

  it('adds a lease for tasks to come only while the limit stays at most half used with room, whenever it has room with a number', async () => {
    const prefix = prefixFor('extra');
    await warm(prefix);
    // 1 + 4 extra: 5 of 10 used, half.
    expect((await acquireOn(prefix, 'a.1', { extra: 4, room: true })).slice(0, 2)).toEqual([1, 5]);
    // Half used already: only what waits.
    expect((await acquireOn(prefix, 'a.2', { extra: 4, room: true })).slice(0, 2)).toEqual([1, 1]);
    // A number of extra permits: as many as fit, 3 of 4.
    expect((await acquireOn(prefix, 'a.3', { extra: 4 })).slice(0, 2)).toEqual([1, 4]);
    expect((await meta(prefix, 'orders')).used).toBe('10');
  });

  it('asks for the tasks waiting at once on several limits of a store in one call, and for one alone as ACQUIRE', async () => {
    const prefix = prefixFor('many-store');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const called: string[] = [];
    const naming = {
      evalsha: (sha: string, numKeys: number, ...rest: (string | number)[]) => {
        called.push(Object.entries(scripts).find(([, s]) => s.sha === sha)![0]);
        return client.evalsha(sha, numKeys, ...rest);
      },
      eval: (script: string, numKeys: number, ...rest: (string | number)[]) => client.eval(script, numKeys, ...rest),
    };
    const store = new RedisStore({ ...v.options(prefix, naming), prefetch: 0 });
    const s = new Scheduler({ store, clock: v.clock });
    const names = ['a0', 'a1', 'a2', 'a3'];
    const limits = names.map((name) => s.limit({ name, limit: 10, windowMs: 1000 }));
    const ran: string[] = [];
    await settleOn(
      v,
      limits.map((l) => s.schedule(() => void ran.push(l.name), { limits: l })),
    );
    expect(called).toEqual(['acquireMany']);
    expect(ran.sort()).toEqual(names);
    for (const name of names) expect((await meta(prefix, name)).used).toBe('1');
    await settleOn(v, [s.schedule(() => 0, { limits: limits[0]! })]);
    expect(called).toEqual(['acquireMany', 'acquire']);
    s.close();
    await store.close();
  });

  it('gives back what a call of several requests may have granted when its answer is lost, and sends each task once', async () => {
    const prefix = prefixFor('many-lost');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    let lost = 0;
    const losing = {
      evalsha: async (sha: string, numKeys: number, ...rest: (string | number)[]) => {
        const reply = await client.evalsha(sha, numKeys, ...rest);
        // The first call of several runs in Redis, and its answer never comes back.
        if (sha === scripts.acquireMany.sha && lost++ === 0) throw new Error('connection reset');
        return reply;
      },
      eval: (script: string, numKeys: number, ...rest: (string | number)[]) => client.eval(script, numKeys, ...rest),
    };
    const store = new RedisStore({ ...v.options(prefix, losing), prefetch: 0, retryMs: 50 });
    const s = new Scheduler({ store, clock: v.clock });
    const names = ['a0', 'a1', 'a2'];
    const limits = names.map((name) => s.limit({ name, limit: 10, windowMs: 1000 }));
    const ran: string[] = [];
    await settleOn(
      v,
      limits.map((l) => s.schedule(() => void ran.push(l.name), { limits: l })),
    );
    expect(lost).toBeGreaterThan(1);
    expect(ran.sort()).toEqual(names);
    // Each limit counts the one task sent: the grant of the lost answer was given back.
    for (const name of names) {
      const m = await meta(prefix, name);
      expect(m.used).toBe('1');
      expect(Object.keys(m).filter((f) => f.startsWith('#'))).toHaveLength(1);
    }
    s.close();
    await store.close();
  });

  it('sends most tasks on leases when one process sends steadily on a limit far from binding ("auto"), and asks for each with 0', async () => {
    for (const prefetch of ['auto', 0] as const) {
      const prefix = prefixFor('auto');
      const v = new VirtualRedis(client);
      await v.warm(prefix);
      let acquires = 0;
      let grants = 0;
      let leases = 0;
      const counting = {
        evalsha: async (sha: string, numKeys: number, ...rest: (string | number)[]) => {
          const admission = numKeys > 4 && String(rest[0]).endsWith(':epoch');
          if (admission) acquires++;
          const reply = await client.evalsha(sha, numKeys, ...rest);
          // [status, permits granted, ...]: status 1 is a grant, more than one permit a lease.
          if (admission && Array.isArray(reply) && Number(reply[0]) === 1) {
            grants++;
            if (Number(reply[1]) > 1) leases++;
          }
          return reply;
        },
        eval: (script: string, numKeys: number, ...rest: (string | number)[]) => client.eval(script, numKeys, ...rest),
      };
      const store = new RedisStore({ ...v.options(prefix, counting), prefetch });
      const s = new Scheduler({ store, clock: v.clock });
      const l = s.limit({ name: 'orders', limit: 100_000, windowMs: 1000 });
      // One task after another, five a millisecond, for 600 ms.
      let sent = 0;
      for (let i = 0; i < 3000; i++) {
        await settleOn(v, [s.schedule(() => sent++, { limits: l })]);
        if (i % 5 === 4) await v.advance(1);
      }
      s.close();
      await store.close();
      // With 0, every task asks Redis and is granted one permit, never a lease.
      if (prefetch === 0) {
        expect(grants).toBe(sent);
        expect(leases).toBe(0);
      } else {
        expect(acquires).toBeLessThan(sent / 4);
        expect(leases).toBeGreaterThan(0);
      }
    }
  });

  it('gives four processes waiting on a limit that binds shares within 20% of equal over any 2 s, never over N in any window', async () => {
    const prefix = prefixFor('shares');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const times: number[][] = [[], [], [], []];
    const stores = times.map(() => new RedisStore(v.options(prefix)));
    const schedulers = stores.map((store) => new Scheduler({ store, clock: v.clock }));
    const limits = schedulers.map((s) => s.limit({ name: 'orders', limit: 20, windowMs: 250 }));
    const t0 = v.clock.now();
    const end = t0 + 2600;
    // Each keeps 20 tasks waiting until the end.
    const loop = async (i: number): Promise<void> => {
      while (v.clock.now() < end)
        await schedulers[i]!.schedule(() => times[i]!.push(v.clock.now()), { limits: limits[i]! });
    };
    await settleOn(
      v,
      times.flatMap((_, i) => Array.from({ length: 20 }, () => loop(i))),
    );
    for (const s of schedulers) s.close();
    await Promise.all(stores.map((s) => s.close()));
    expect(mostInAnyWindow(times.flat(), 250)).toBeLessThanOrEqual(20);
    const worst = worstShare(times, t0, t0 + 2500, 2000);
    expect(worst).toBeLessThanOrEqual(0.2);
    // Utilization kept: 20 per 250 ms for 2.5 s is 200.
    expect(times.flat().filter((t) => t < t0 + 2500).length).toBeGreaterThanOrEqual(180);
  });

  it('waits while Redis is down, sends nothing, and goes on when it answers', async () => {
    const prefix = prefixFor('down');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const fault = { mode: 'down' as Fault };
    const store = new RedisStore({ ...v.options(prefix, faulty(fault)), retryMs: 20 });
    const events: string[] = [];
    store.on((e) => events.push(e.type));
    const s = new Scheduler({ store, clock: v.clock });
    const l = s.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    let ran = 0;
    const tasks = Array.from({ length: 5 }, () => s.schedule(() => ran++, { limits: l }));
    await v.advance(200);
    expect(ran).toBe(0);
    expect(store.available).toBe(false);
    fault.mode = 'none';
    await settleOn(v, tasks);
    expect(ran).toBe(5);
    expect(events).toEqual(['unavailable', 'available']);
  });

  it('takes a request without an answer within timeoutMs as failed, with a NoReplyError naming the script', async () => {
    const clock = new VirtualClock();
    const never = { evalsha: () => new Promise(() => {}), eval: () => new Promise(() => {}) };
    const store = new RedisStore({ client: never, prefix: prefixFor('no-reply'), timeoutMs: 100, clock });
    const errors: unknown[] = [];
    store.on((e) => e.type === 'unavailable' && errors.push(e.error));
    const s = new Scheduler({ store, clock });
    void s.schedule(() => 0, { limits: s.limit({ name: 'orders', limit: 10, windowMs: 1000 }) }).catch(() => {});
    await clock.advance(99);
    expect(store.available).toBe(true);
    await clock.advance(1);
    expect(store.available).toBe(false);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(NoReplyError);
    expect(errors[0]).toMatchObject({
      code: 'NO_REPLY',
      requestId: 'acquire',
      message: 'Redis did not answer within 100 ms',
    });
    s.close();
  });

  it('gives back the unsent rest of a lease when it ends', async () => {
    const prefix = prefixFor('lease');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const store = new RedisStore({ ...v.options(prefix), prefetch: 10, leaseMs: 30 });
    const s = new Scheduler({ store, clock: v.clock });
    const l = s.limit({ name: 'orders', limit: 100, windowMs: 1000 });
    await settleOn(
      v,
      [1, 2, 3].map(() => s.schedule(() => 0, { limits: l })),
    );
    expect(Number((await meta(prefix, 'orders')).used)).toBeGreaterThan(3);
    await v.advance(30);
    expect(Number((await meta(prefix, 'orders')).used)).toBe(3);
  });

  it('gives back unsent permits on close', async () => {
    const prefix = prefixFor('close');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const store = new RedisStore({ ...v.options(prefix), prefetch: 20, leaseMs: 5000 });
    const s = new Scheduler({ store, clock: v.clock });
    const l = s.limit({ name: 'orders', limit: 100, windowMs: 1000 });
    await settleOn(v, [s.schedule(() => 0, { limits: l })]);
    expect(Number((await meta(prefix, 'orders')).used)).toBe(21);
    await store.close();
    expect(Number((await meta(prefix, 'orders')).used)).toBe(1);
  });

  it('shares a 429 pause with every process (see docs/rules.md#r12)', async () => {
    const { prefix, v, a, b, la, lb } = await twoProcesses('pause');
    a.feedback(la, { limited: true, retryAfterMs: 400 });
    await v.idle();
    expect((await meta(prefix, 'orders')).pause).toBe(String(v.clock.now() + 400));
    const start = v.clock.now();
    await settleOn(v, [b.schedule(() => 0, { limits: lb })]);
    expect(v.clock.now() - start).toBeGreaterThanOrEqual(400);
  });

  it('shares a new limit with every process (see docs/rules.md#r13)', async () => {
    const { prefix, v, a, b, la, lb } = await twoProcesses('update');
    const times: number[] = [];
    await settleOn(v, [a.schedule(() => times.push(v.clock.now()), { limits: la })]);
    la.update({ limit: 3 });
    await v.idle();
    const seen: number[] = [];
    b.on((e) => e.type === 'limit' && seen.push(e.to.limit));
    await settleOn(
      v,
      [1, 2, 3].map(() => b.schedule(() => times.push(v.clock.now()), { limits: lb })),
    );
    expect(lb.limit).toBe(3);
    expect(seen).toEqual([3]);
    // a's one and b's first two in one window; b's third once a's has left it.
    expect(mostInAnyWindow(times, 1000)).toBe(3);
    expect(times[3]! - times[0]!).toBeGreaterThanOrEqual(1000);
    expect(Number((await meta(prefix, 'orders')).used)).toBeLessThanOrEqual(3);
  });

  it('adds back its grants after Redis failed over to a replica that lagged, before it asks for more: never over N in any window', async () => {
    const prefix = prefixFor('lagged-grants');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const [faultA, faultB] = [{ mode: 'none' as Fault }, { mode: 'none' as Fault }];
    const [a, b] = [faultA, faultB].map(
      (fault) =>
        new Scheduler({ store: new RedisStore({ ...v.options(prefix, faulty(fault)), retryMs: 20 }), clock: v.clock }),
    );
    const [la, lb] = [a!, b!].map((s) => s.limit({ name: 'orders', limit: 10, windowMs: 1000 }));
    // What Redis holds now is all the replica will have: A's grants from here on are lost.
    const lagged = await copyPrefix(client, prefix);
    const sent: number[] = [];
    const send = (s: Scheduler<SharedLimit>, l: SharedLimit | undefined) =>
      s.schedule(() => void sent.push(v.clock.now()), { limits: l! });
    await settleOn(
      v,
      Array.from({ length: 8 }, () => send(a!, la)),
    );
    // The master dies and the replica takes over without them; A reaches it first, then B.
    faultA.mode = faultB.mode = 'down';
    const more = [send(a!, la), ...Array.from({ length: 10 }, () => send(b!, lb))];
    await v.advance(100);
    await lagged();
    faultA.mode = 'none';
    await v.advance(100);
    faultB.mode = 'none';
    await settleOn(v, more);
    expect(sent).toHaveLength(19);
    expect(mostInAnyWindow(sent, 1000)).toBeLessThanOrEqual(10);
  });

  it('grants nothing after a failover that lost grants until every process alive has added its own back: never over N in any window', async () => {
    const prefix = prefixFor('lagged-wait');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const [faultA, faultB] = [{ mode: 'none' as Fault }, { mode: 'none' as Fault }];
    const [a, b] = [faultA, faultB].map(
      (fault) =>
        new Scheduler({ store: new RedisStore({ ...v.options(prefix, faulty(fault)), retryMs: 20 }), clock: v.clock }),
    );
    const [la, lb] = [a!, b!].map((s) => s.limit({ name: 'orders', limit: 10, windowMs: 1000 }));
    const sent: { by: string; at: number }[] = [];
    const send = (by: string, s: Scheduler<SharedLimit>, l: SharedLimit | undefined) =>
      s.schedule(() => void sent.push({ by, at: v.clock.now() }), { limits: l! });
    // Both say they are here; the replica has that, and nothing after.
    await settleOn(v, [send('a', a!, la), send('b', b!, lb)]);
    const lagged = await copyPrefix(client, prefix);
    await settleOn(v, [send('a', a!, la), ...Array.from({ length: 6 }, () => send('b', b!, lb))]);
    // The master dies; the replica takes over without A's last grant and B's six. A reaches it
    // first and finds its grant missing: it adds it back, and waits until B has added back its own.
    faultA.mode = faultB.mode = 'down';
    const more = Array.from({ length: 9 }, () => send('a', a!, la));
    await v.advance(100);
    await lagged();
    // The processes said they were alive to the old master; the replica promoted has its own
    // replication id (this test's Redis has one only, so the old one is written in its place).
    expect(await client.hget(`{${prefix}}:lost`, 'rid')).not.toBeNull();
    await client.hset(`{${prefix}}:lost`, 'rid', 'the-old-master');
    faultA.mode = 'none';
    await v.advance(300);
    // One request alone, whose answer would say what the exchange counted: none came back here.
    expect(sent.length).toBe(10);
    // B comes back and adds back its six: A goes on under them.
    faultB.mode = 'none';
    await settleOn(v, more);
    expect(sent).toHaveLength(18);
    // Without the wait, A's nine went while B's six were still missing: 17 in one window.
    expect(
      mostInAnyWindow(
        sent.map((s) => s.at),
        1000,
      ),
    ).toBeLessThanOrEqual(10);
  });

  it("goes on after a failover that lost grants once the exchange's count comes back, before every process has added back", async () => {
    const prefix = prefixFor('lagged-count');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const faultA = { mode: 'none' as Fault };
    const a = new Scheduler({
      store: new RedisStore({ ...v.options(prefix, faulty(faultA)), retryMs: 20 }),
      clock: v.clock,
    });
    const b = new Scheduler({ store: new RedisStore(v.options(prefix)), clock: v.clock });
    const la = a.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    const lb = b.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    const sent: number[] = [];
    const send = (s: Scheduler<SharedLimit>, l: SharedLimit) =>
      s.schedule(() => void sent.push(v.clock.now()), { limits: l });
    await settleOn(v, [send(a, la), send(b, lb)]);
    const lagged = await copyPrefix(client, prefix);
    // B's five are lost with the master; B dies with it and never adds them back.
    await settleOn(
      v,
      Array.from({ length: 5 }, () => send(b, lb)),
    );
    b.close();
    faultA.mode = 'down';
    const more = Array.from({ length: 8 }, () => send(a, la));
    await v.advance(100);
    await lagged();
    await client.hset(`{${prefix}}:lost`, 'rid', 'the-old-master');
    faultA.mode = 'none';
    await v.advance(100);
    expect(sent).toHaveLength(8);
    // The one request alone is answered: the exchange counts 8 in the window (the first two, B's
    // five lost, and it).
    a.feedback(la, { limited: false, limit: 10, remaining: 2 });
    await v.advance(100);
    // Two more at once, not a window later: 10 in the window, as the exchange counts it.
    expect(sent).toHaveLength(10);
    await settleOn(v, more);
    expect(mostInAnyWindow(sent, 1000)).toBeLessThanOrEqual(10);
  });

  it("takes an exchange's count read before grants were lost as no count after the loss, however late it reaches Redis", async () => {
    // A count sent again across the failover reaches the new master after the loss was found there.
    const prefix = prefixFor('count-before-loss');
    await warm(prefix);
    const k = new RedisKeys(prefix);
    const orders = { name: 'orders', limit: 10, windowMs: 1000, marginMs: 0 };
    await client.hset(k.lost, 'at', T0 + 100, 'n', 1);
    const ask = async (id: string, at: number) =>
      (await run<number[]>('acquire', encodeAcquire(k, acquireCall(id, { at })))).slice(0, 2);
    // One request alone after the loss; the others wait for the count or for every process.
    expect(await ask('p.1', T0 + 200)).toEqual([1, 1]);
    expect((await ask('p.2', T0 + 210))[0]).toBe(0);
    const count = (id: string, countedAt: number) =>
      run(
        'feedback',
        encodeFeedback(k, {
          at: T0 + 300,
          limit: orders,
          pauseMs: 0,
          holdWeight: 2,
          holdMs: 900,
          id,
          counted: true,
          countedAt,
        }),
      );
    // Read at T0 + 50, before the loss: still waiting.
    await count('p.h1', T0 + 50);
    expect((await ask('p.3', T0 + 310))[0]).toBe(0);
    // Read at T0 + 250, after it: known, granted.
    await count('p.h2', T0 + 250);
    expect((await ask('p.4', T0 + 320))[0]).toBe(1);
  });

  it('adds back its grants when Redis answers with another epoch (flushed or restarted)', async () => {
    const prefix = prefixFor('flushed-grants');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const s = new Scheduler({ store: new RedisStore(v.options(prefix)), clock: v.clock });
    const l = s.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    await settleOn(
      v,
      Array.from({ length: 6 }, () => s.schedule(() => 0, { limits: l })),
    );
    const grants = (await client.zrange(`{${prefix}}:l:orders`, 0, -1)).sort();
    expect(grants.length).toBeGreaterThan(0);
    await cleanPrefix(client, prefix);
    // The next request finds another epoch: before it is granted anything, what this process
    // sent in the window is in Redis again, under the same ids.
    const next = s.schedule(() => 0, { limits: l });
    await v.advance(50);
    expect((await client.zrange(`{${prefix}}:l:orders`, 0, -1)).filter((id) => grants.includes(id)).sort()).toEqual(
      grants,
    );
    expect(Number((await meta(prefix, 'orders')).used)).toBeGreaterThanOrEqual(6);
    await settleOn(v, [next]);
  });

  it('lets one request through alone on a Redis new or flushed, and the others after a span when no count of the exchange comes back', async () => {
    const prefix = prefixFor('cold');
    const v = new VirtualRedis(client);
    for (const lost of [false, true]) {
      // A new process each time: one that sent on the limit would add back what it sent instead.
      if (lost) await cleanPrefix(client, prefix);
      const s = new Scheduler({ store: new RedisStore({ ...v.options(prefix), leaseMs: 20 }), clock: v.clock });
      const l = s.limit({ name: 'orders', limit: 10, windowMs: 300 });
      const start = v.clock.now();
      const times: number[] = [];
      await settleOn(
        v,
        [0, 1, 2].map(() => s.schedule(() => void times.push(v.clock.now()), { limits: l })),
      );
      // The first goes at once, alone; nothing says what was sent before it, so the others wait
      // until everything granted before the loss has left the window (its span and the lease).
      expect(times[0]! - start).toBeLessThan(100);
      expect(times[1]! - start).toBeGreaterThanOrEqual(300);
    }
  });

  it("lets the others through once the answer to the one request alone states the exchange's count, counting it for a window", async () => {
    const prefix = prefixFor('cold-counted');
    const v = new VirtualRedis(client);
    const s = new Scheduler({ store: new RedisStore({ ...v.options(prefix), leaseMs: 20 }), clock: v.clock });
    const l = s.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    const times: number[] = [];
    const send = () => s.schedule(() => void times.push(v.clock.now()), { limits: l });
    await settleOn(v, [send()]);
    // Its answer: 6 left of 10, so the exchange counted 4 in the window (3 sent before by a
    // process now gone, and this one).
    expect((await meta(prefix, 'orders')).k).toBeUndefined();
    const answeredAt = v.clock.now();
    s.feedback(l, { limited: false, remaining: 6, limit: 10 });
    await settleOn(
      v,
      Array.from({ length: 8 }, () => send()),
    );
    expect((await meta(prefix, 'orders')).k).toBe('1');
    const after = times.slice(1);
    // Six fit at once (a poll and a round trip after the count reached Redis), the other two
    // once the 4 the exchange counted have left the window.
    expect(after.filter((t) => t < answeredAt + 200)).toHaveLength(6);
    expect(after.filter((t) => t >= answeredAt + 1000)).toHaveLength(2);
  });

  it('lets one request through alone on a limit in force no process knows, on a Redis new or flushed; a limit not in force, and a known one, not held at all', async () => {
    const prefix = prefixFor('cold-limits');
    const k = new RedisKeys(prefix);
    const limit = (name: string, n: number, windowMs: number) => ({
      name,
      limit: n,
      windowMs,
      marginMs: 0,
      reserved: 0,
      lateMs: 0,
    });
    const ask = (id: string, limits: AcquireCall['limits'], o: Partial<AcquireCall> = {}) =>
      run<(number | string)[]>('acquire', encodeAcquire(k, { ...acquireCall(id), extra: 8, ...o, limits }));
    // A placement limit of 100 per second and a throttle not in force (N at `unlimited`), 10 s:
    // one request goes, alone (no lease beyond its weight), marked as the one let through.
    const place = limit('place', 100, 1000);
    const first = await ask('p.1', [place, limit('throttle', 1_000_000_000, 10_000)]);
    expect(first.slice(0, 2)).toEqual([1, 1]);
    expect(first.at(-1)).toBe(1);
    // The next waits, and looks again within the lease and 50 ms, not a window later.
    const [status, wait] = await ask('p.2', [place]);
    expect(status).toBe(0);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(70);
    // Given back unsent (its answer came after its lease ended): another request goes alone instead.
    await run('release', encodeRelease(k, { limit: 'place', grant: 'p.1', sent: 0 }));
    const again = await ask('p.2b', [place]);
    expect(again.slice(0, 2)).toEqual([1, 1]);
    expect(again.at(-1)).toBe(1);
    expect((await ask('p.2c', [place]))[0]).toBe(0);
    // The throttle alone holds nothing back, and its grant is not a probe.
    const throttle = await ask('p.3', [limit('throttle', 1_000_000_000, 10_000)]);
    expect(throttle.slice(0, 2)).toEqual([1, 9]);
    expect(throttle.at(-1)).toBe(0);
    // The exchange's count comes back (2 in the window): the limit is known, granted with a lease.
    await run(
      'feedback',
      encodeFeedback(k, { at: T0, limit: place, pauseMs: 0, holdWeight: 2, holdMs: 1000, id: 'p.h', counted: true }),
    );
    const known = await ask('p.4', [place]);
    expect(known.slice(0, 2)).toEqual([1, 9]);
    expect(known.at(-1)).toBe(0);
    // A process that knew another epoch is granted nothing until it has added back what it sent.
    expect((await ask('p.5', [place], { epoch: 'another' })).slice(0, 2)).toEqual([0, 0]);
    // A limit a process added back what it sent on is known at once: no probe; the lateness it
    // measured is kept with it, so its grants count as long as before.
    await run(
      'restore',
      encodeRestore(k, {
        at: T0,
        process: 'q',
        limits: [{ ...limit('cancel', 200, 1000), lateMs: 40, grants: [{ id: 'q.1', weight: 3, score: T0 }] }],
      }),
    );
    expect(await client.hmget(k.meta('cancel'), 'k', 'mx', '#q.1')).toEqual(['1', '40', '3']);
    const restored = await ask('p.6', [limit('cancel', 200, 1000)]);
    expect(restored.slice(0, 2)).toEqual([1, 9]);
    expect(restored.at(-1)).toBe(0);
  });

  it('lists a process denied as waiting on the limits that held it back only, not on those with room', async () => {
    const prefix = prefixFor('held-on');
    await warm(prefix);
    const k = new RedisKeys(prefix);
    const limit = (name: string, n: number) => ({
      name,
      limit: n,
      windowMs: 10_000,
      marginMs: 0,
      reserved: 0,
      lateMs: 0,
    });
    // "throttle" spent by another process; "place" has room.
    expect(
      (
        await run<number[]>(
          'acquire',
          encodeAcquire(k, { ...acquireCall('q.1'), process: 'q', limits: [limit('throttle', 1)] }),
        )
      )[0],
    ).toBe(1);
    const [status] = await run<number[]>(
      'acquire',
      encodeAcquire(k, { ...acquireCall('p.1'), limits: [limit('place', 100), limit('throttle', 1)] }),
    );
    expect(status).toBe(0);
    expect(await client.hkeys(k.wait('throttle'))).toEqual(['p']);
    // Listed on "place" with an instant seconds away, it would hold back the processes waiting
    // there until then, after the throttle is lifted.
    expect(await client.hkeys(k.wait('place'))).toEqual([]);
    expect(await client.hget(k.meta('place'), 'qt')).toBeNull();
  });

  it("sends an account limiter's first placement on a new prefix, and after Redis lost it, at once, and the next once the answer's headers are in", async () => {
    const prefix = prefixFor('cold-limiter');
    const v = new VirtualRedis(client);
    const store = new RedisStore(v.options(prefix));
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], store, clock: v.clock });
    const body = { contract: 'BTC_USDT', size: 1 };
    const headers = { 'X-Gate-RateLimit-Limit': '100', 'X-Gate-RateLimit-Requests-Remain': '95' };
    const placements = async () => {
      const asked = v.clock.now();
      const at: number[] = [];
      const place = () =>
        limiter.roundTrip('main', { method: 'POST', path: '/futures/usdt/orders', body }).run((t) => {
          at.push(v.clock.now());
          t.answered({ status: 201, headers, body: {} });
        });
      await settleOn(v, [place(), place(), place()]);
      return at.map((t) => t - asked);
    };
    for (const lost of [false, true]) {
      if (lost) await cleanPrefix(client, prefix);
      const [first, second, third] = await placements();
      // Not the placement window's 1 s, nor the throttle's 10 s: the first at once, the others a
      // poll and two round trips later (the count written, the grant asked again).
      expect(first).toBeLessThan(50);
      expect(second).toBeLessThan(200);
      expect(third).toBeLessThan(200);
    }
    limiter.close();
    await store.close();
  });

  it('works with a node-redis client', async () => {
    const prefix = prefixFor('node-redis');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const nr = createClient({ url: REDIS_URL });
    await nr.connect();
    try {
      const s = new Scheduler({ store: new RedisStore(v.options(prefix, nr)), clock: v.clock });
      const l = s.limit({ name: 'orders', limit: 2, windowMs: 300 });
      const times: number[] = [];
      await settleOn(
        v,
        Array.from({ length: 5 }, () => s.schedule(() => void times.push(v.clock.now()), { limits: l })),
      );
      expect(times).toHaveLength(5);
      expect(mostInAnyWindow(times, 300)).toBeLessThanOrEqual(2);
    } finally {
      await nr.quit();
    }
  });
});

describe('RedisStore with onUnavailable "local"', () => {
  it('needs the number of processes, and names it', () => {
    expect(() => new RedisStore({ client, onUnavailable: 'local' })).toThrow(/`processes`/);
    expect(() => new RedisStore({ client, onUnavailable: 'local', processes: 0 })).toThrow(/`processes`.*0/);
    expect(() => new RedisStore({ client, onUnavailable: 'later' as never })).toThrow(/`onUnavailable`.*"later"/);
  });

  it('cut off from Redis, a process sends on its share after a window while Redis holds that share from the other: never over N', async () => {
    const prefix = prefixFor('partition');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const options = { onUnavailable: 'local', processes: 2, staleMs: 200, fallbackMaxMs: 1000 } as const;
    const fault = { mode: 'none' as Fault };
    const cut = new RedisStore({ ...v.options(prefix, faulty(fault)), ...options });
    const fine = new RedisStore({ ...v.options(prefix), ...options });
    const events: string[] = [];
    cut.on((e) => events.push(e.type));
    const times: { who: string; at: number }[] = [];
    const until = v.clock.now() + 4000;
    const runs = [cut, fine].map(async (store, i) => {
      const s = new Scheduler({ store, clock: v.clock });
      const l = s.limit({ name: 'orders', limit: 10, windowMs: 300 });
      const who = i === 0 ? 'cut' : 'fine';
      const loop = async (): Promise<void> => {
        while (v.clock.now() < until)
          await s.schedule(() => void times.push({ who, at: v.clock.now() }), { limits: l });
      };
      await Promise.all(Array.from({ length: 8 }, loop));
    });
    await v.advance(800);
    fault.mode = 'down';
    const downAt = v.clock.now();
    await v.advance(2000);
    fault.mode = 'none';
    const upAt = v.clock.now();
    await settleOn(v, runs);
    expect(
      mostInAnyWindow(
        times.map((t) => t.at),
        300,
      ),
    ).toBeLessThanOrEqual(10);
    const cutDown = times.filter((t) => t.who === 'cut' && t.at > downAt + 30 && t.at < upAt).map((t) => t.at);
    // Its share starts once what Redis granted it has left every window (stale + lease + window)
    // and lasts fallbackMaxMs: 5 per window, at most.
    expect(cutDown.length).toBeGreaterThan(0);
    expect(Math.min(...cutDown) - downAt).toBeGreaterThanOrEqual(200 + 20 + 300);
    expect(Math.max(...cutDown) - Math.min(...cutDown)).toBeLessThan(1000);
    expect(mostInAnyWindow(cutDown, 300)).toBeLessThanOrEqual(5);
    expect(events).toEqual(['unavailable', 'local', 'available']);
    // Back, the cut process told Redis what it sent, and both share the budget again.
    const after = times.filter((t) => t.at > upAt + 400);
    expect(new Set(after.map((t) => t.who))).toEqual(new Set(['cut', 'fine']));
    await Promise.all([cut.close(), fine.close()]);
  });
});

describe('RedisStore with onUnavailable "local", arrivals bounded by answers', () => {
  it('keeps what the share sent counted in Redis, once told, until the answers still on their way (see docs/rules.md#r13)', async () => {
    const prefix = prefixFor('share-answers');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const fault = { mode: 'none' as Fault };
    const store = new RedisStore({
      ...v.options(prefix, faulty(fault)),
      onUnavailable: 'local',
      processes: 2,
      staleMs: 200,
      fallbackMaxMs: 5000,
    });
    const events: string[] = [];
    store.on((e) => events.push(e.type));
    const s = new Scheduler({ store, clock: v.clock });
    const l = s.limit({ name: 'orders', limit: 10, windowMs: 300 }) as SharedLimit;
    await settleOn(v, [s.schedule(() => 0, { limits: l })]);
    fault.mode = 'down';
    await v.advance(500);
    const failing = s.schedule(() => 0, { limits: l }).catch(() => undefined);
    await v.until(() => events.includes('unavailable'));
    // Its share starts once what Redis may have granted has left every window; a round trip goes.
    const sent = s.schedule(() => l.awaitAnswer(1, v.clock.now()), { limits: l });
    await v.until(() => events.includes('local'), 5000);
    const request = await settleOn(v, [sent], 5000).then(([r]) => (r as PromiseFulfilledResult<never>).value);
    fault.mode = 'none';
    await v.until(() => events.includes('available'), 5000);
    const arrived = `{${prefix}}:a:orders`;
    expect(await client.zcard(arrived)).toBe(0);
    // Its answer comes 2 s after Redis heard what the share sent: Redis counts it until then + W.
    await v.advance(2000);
    const answeredAt = v.clock.now();
    l.answered(request, answeredAt);
    await v.advance(200);
    const [id, score] = await client.zrange(arrived, 0, -1, 'WITHSCORES');
    expect(id).toMatch(/\.r/);
    expect(Number(score)).toBeGreaterThanOrEqual(answeredAt);
    await failing;
    await store.close();
  });
});

describe('RedisStore: shared limits and listeners never wedge a process', () => {
  it('refuses a waiting task that a limit lowered by another process can no longer fit, and runs the rest', async () => {
    const { v, a, b, la, lb } = await twoProcesses('lowered');
    await settleOn(v, [a.schedule(() => 0, { limits: la, weight: 10 })]);
    const heavy = a.schedule(() => 'heavy', { limits: la, weight: 8 });
    const light = a.schedule(() => 'light', { limits: la, weight: 2 });
    lb.update({ limit: 5 });
    await settleOn(v, [heavy, light]);
    await expect(heavy).rejects.toMatchObject({ reason: 'too-heavy' });
    await expect(light).resolves.toBe('light');
    expect(la.limit).toBe(5);
    expect(a.stats().queued).toBe(0);
    expect(b.stats().queued).toBe(0);
  });

  it("lets the tasks a lifted throttle held back go at once, not when the throttle's window frees", async () => {
    const prefix = prefixFor('lifted');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const s = new Scheduler({ store: new RedisStore(v.options(prefix)), clock: v.clock });
    const place = s.limit({ name: 'place', limit: 100, windowMs: 1000 });
    const throttle = s.limit({ name: 'throttle', limit: 2, windowMs: 10_000 });
    const times: number[] = [];
    const start = v.clock.now();
    const tasks = [1, 2, 3].map(() =>
      s.schedule(() => times.push(v.clock.now() - start), { limits: [place, throttle] }),
    );
    await v.advance(500);
    // Two went; Redis said the third waits out the throttle's 10 s, on both limits it asked for.
    expect(times).toHaveLength(2);
    throttle.update({ limit: UNTHROTTLED });
    await settleOn(v, tasks);
    expect(times[2]!).toBeLessThan(700);
  });

  it('keeps its own new N when an answer to a request sent before Redis took it holds the old one', async () => {
    const prefix = prefixFor('update-race');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    // Writes of a new N and W wait until let go: the acquire asked meanwhile is answered first.
    let hold: (() => void) | null = null;
    const held = new Promise<void>((resolve) => (hold = resolve));
    const tracked = v.track();
    const isUpdate = (rest: unknown[]): boolean => rest.length === 4 && String(rest[0]).endsWith(':orders');
    const scripting: Scripting = {
      evalsha: async (sha, n, ...rest) => {
        if (isUpdate(rest)) await held;
        return tracked.evalsha(sha, n, ...rest);
      },
      eval: async (script, n, ...rest) => {
        if (isUpdate(rest)) await held;
        return tracked.eval(script, n, ...rest);
      },
    };
    const s = new Scheduler({ store: new RedisStore({ ...v.options(prefix), client: scripting }), clock: v.clock });
    const l = s.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    await settleOn(v, [s.schedule(() => 0, { limits: l })]);
    l.update({ limit: 20 });
    await settleOn(v, [s.schedule(() => 0, { limits: l })]);
    expect(l.limit).toBe(20);
    hold!();
    await v.idle();
    await settleOn(v, [s.schedule(() => 0, { limits: l })]);
    expect(l.limit).toBe(20);
    expect(Number((await meta(prefix, 'orders')).n)).toBe(20);
  });

  it('refuses a waiting task heavier than what a shared limit at or below this process reserve can grant it', async () => {
    const prefix = prefixFor('lowered-reserve');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const a = new Scheduler({ store: new RedisStore({ ...v.options(prefix), retryMs: 20 }), clock: v.clock });
    const b = new Scheduler({ store: new RedisStore(v.options(prefix)), clock: v.clock });
    const la = a.limit({ name: 'orders', limit: 10, windowMs: 1000, reserve: { priority: 5, weight: 4 } });
    const lb = b.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    await settleOn(v, [a.schedule(() => 0, { limits: la, weight: 10, priority: 5 })]);
    const low = a.schedule(() => 'low', { limits: la, weight: 1 });
    const high = a.schedule(() => 'high', { limits: la, weight: 3, priority: 5 });
    // 3 is below the reserve of 4 of this process: it keeps its N, but Redis grants at most 3.
    lb.update({ limit: 3 });
    await settleOn(v, [low, high]);
    await expect(low).rejects.toMatchObject({ reason: 'too-heavy' });
    await expect(high).resolves.toBe('high');
    expect(la.capacity(0)).toBeLessThan(1);
    expect(la.capacity(5)).toBe(3);
  });

  it('goes on when a listener throws on unavailable, and reports its error to the others', async () => {
    const prefix = prefixFor('listener-throws');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const fault = { mode: 'down' as Fault };
    const store = new RedisStore({ ...v.options(prefix, faulty(fault)), retryMs: 20 });
    const events: string[] = [];
    store.on((e) => {
      if (e.type === 'unavailable') throw new Error('listener bug');
    });
    store.on((e) => events.push(e.type === 'error' ? `error:${(e.error as Error).message}` : e.type));
    const s = new Scheduler({ store, clock: v.clock });
    const l = s.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    let ran = 0;
    const tasks = Array.from({ length: 5 }, () => s.schedule(() => ran++, { limits: l }));
    await v.advance(200);
    expect(ran).toBe(0);
    fault.mode = 'none';
    await settleOn(v, tasks);
    expect(ran).toBe(5);
    expect(events).toEqual(['unavailable', 'error:listener bug', 'available']);
  });

  it('refuses a timing option longer than a timer can wait, naming it', () => {
    for (const field of ['leaseMs', 'timeoutMs', 'retryMs', 'staleMs']) {
      expect(() => new RedisStore({ client, [field]: 30 * 86_400_000 })).toThrow(InvalidInputError);
      expect(() => new RedisStore({ client, [field]: 30 * 86_400_000 })).toThrow(`\`${field}\``);
    }
  });

  it('refuses a listener given as an event name, as an EventEmitter would take it', () => {
    const store = new RedisStore({ client, prefix: prefixFor('listener-name') });
    expect(() => store.on('unavailable' as never)).toThrow(InvalidInputError);
    expect(() => (store.on as (...a: unknown[]) => unknown)('unavailable', () => {})).toThrow(/the listener/);
  });
});

describe('RedisStore, arrivals bounded by answers, with a process that falls silent', () => {
  it('holds the grant of a request not answered while its process says nothing, and frees it a window after the answer (see docs/rules.md#r13)', async () => {
    const prefix = prefixFor('silent');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const fault = { mode: 'none' as Fault };
    // Process a's store reaches Redis through `fault`; b's always does.
    const a = new Scheduler({
      store: new RedisStore({ ...v.options(prefix, faulty(fault)), retryMs: 50 }),
      clock: v.clock,
    });
    const b = new Scheduler({ store: new RedisStore(v.options(prefix)), clock: v.clock });
    const la = a.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    const lb = b.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    la.followAnswers();
    // a sends one request, followed to its answer, which does not come.
    const [sent] = await settleOn(v, [a.schedule(() => la.awaitAnswer(1, v.clock.now()), { limits: la })]);
    const request = (sent as PromiseFulfilledResult<ReturnType<SharedLimit['awaitAnswer']>>).value;
    // Then a cannot reach Redis (a process held up, a network cut) for 3 s: whatever its timers
    // would have told Redis meanwhile, its request may still reach the exchange.
    fault.mode = 'down';
    await v.advance(3000);
    const times: number[] = [];
    const all = b.schedule(() => times.push(v.clock.now()), { limits: lb, weight: 10 });
    await v.advance(1000);
    expect(times).toEqual([]);
    // The answer comes: a tells Redis once it can; the 10 go one window after it.
    fault.mode = 'none';
    const answeredAt = v.clock.now();
    la.answered(request, answeredAt);
    await settleOn(v, [all], 10_000);
    expect(times[0]!).toBeGreaterThanOrEqual(answeredAt + 1000);
    expect(times[0]!).toBeLessThan(answeredAt + 1500);
  });

  it('holds such a grant at most a minute past its lease and window when no answer ever comes (see docs/rules.md#r13)', async () => {
    const prefix = prefixFor('silent-cap');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const fault = { mode: 'none' as Fault };
    const a = new Scheduler({
      store: new RedisStore({ ...v.options(prefix, faulty(fault)), retryMs: 50, leaseMs: 50 }),
      clock: v.clock,
    });
    const b = new Scheduler({ store: new RedisStore(v.options(prefix)), clock: v.clock });
    const la = a.limit({ name: 'orders', limit: 10, windowMs: 1000 }) as SharedLimit;
    const lb = b.limit({ name: 'orders', limit: 10, windowMs: 1000 });
    la.followAnswers();
    const sentAt = v.clock.now();
    await settleOn(v, [a.schedule(() => la.awaitAnswer(1, v.clock.now()), { limits: la })]);
    // a is gone for good: its request is never answered, nothing of it reaches Redis again.
    fault.mode = 'down';
    const times: number[] = [];
    const all = b.schedule(() => times.push(v.clock.now()), { limits: lb, weight: 10 });
    await v.advance(60_000);
    expect(times).toEqual([]);
    // Held a minute past its lease, then counted one window more: the 10 go then, not before.
    await settleOn(v, [all], 10_000);
    expect(times[0]!).toBeGreaterThanOrEqual(sentAt + UNANSWERED_MAX_MS + 1000);
    expect(times[0]!).toBeLessThan(sentAt + UNANSWERED_MAX_MS + 1000 + 50 + 500);
  }, 60_000);
});
