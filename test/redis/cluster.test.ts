import { createCluster } from 'redis';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Encoded,
  encodeAcquire,
  encodeAcquireMany,
  encodeArrivals,
  encodeCounts,
  encodeFeedback,
  encodeHello,
  encodeLate,
  encodeProbe,
  encodeRelease,
  encodeRestore,
  encodeUpdate,
} from '../../src/redis/calls.js';
import { RedisKeys, type ScriptName, scripts } from '../../src/redis/protocol.js';
import { RedisStore } from '../../src/redis/store.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import { type RedisCluster as Started, RedisCluster } from './cluster.js';
import { acquireCall } from './acquire-call.js';
import { mostInAnyWindow, stopChildren, uniquePrefix } from './harness.js';

// The store on a Redis Cluster of the file's own: three masters and a replica of each.
let cluster: Started;
const prefixes: string[] = [];
const prefixFor = (name: string): string => {
  const p = uniquePrefix(name);
  prefixes.push(p);
  return p;
};

beforeAll(async () => {
  cluster = await RedisCluster.start();
});
afterAll(async () => {
  for (const p of prefixes) await cluster?.clean(p).catch(() => {});
  await cluster?.stop();
  stopChildren();
});

/** Sends `tasks` tasks on one limit through each store's scheduler; the dispatch instants. */
async function saturate(stores: readonly RedisStore[], tasks: number, limit: number, windowMs: number) {
  const sent: number[] = [];
  const schedulers = stores.map((store) => new Scheduler({ store }));
  await Promise.all(
    schedulers.flatMap((s) => {
      const l = s.limit({ name: 'place', limit, windowMs });
      return Array.from({ length: tasks }, () => s.schedule(() => void sent.push(performance.now()), { limits: l }));
    }),
  );
  for (const s of schedulers) s.close();
  return sent;
}

/** The part of `key` Redis Cluster hashes: what the first `{` and the first `}` after it enclose, when not empty. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('the keys of every script', () => {
  // Limit names a user may give, braces included: the prefix's tag comes first whatever follows.
  const names = ['futures.place', '{other}', 'a}b{c', 'spot:orders'];
  const limits = names.map((name) => ({ name, limit: 10, windowMs: 1000, marginMs: 0 }));
  const keys = new RedisKeys('desk:family-7');
  const calls: Record<ScriptName, Encoded> = {
    acquire: encodeAcquire(keys, {
      ...acquireCall('g1'),
      limits: limits.map((l) => ({ ...l, reserved: 0, lateMs: 0, confirmed: [{ id: 'g0', at: 1 }] })),
    }),
    acquireMany: encodeAcquireMany(keys, [
      { ...acquireCall('g2'), limits: limits.slice(0, 2).map((l) => ({ ...l, reserved: 0, lateMs: 0 })) },
      {
        ...acquireCall('g3'),
        limits: limits.slice(2).map((l) => ({ ...l, reserved: 0, lateMs: 0, confirmed: [{ id: 'g0', at: 1 }] })),
      },
    ]),
    arrivals: encodeArrivals(keys, { limit: limits[1]!, lateMs: 0, leaseMs: 20, confirmed: [{ id: 'g0', at: 1 }] }),
    release: encodeRelease(keys, { limit: names[2]!, grant: 'g1', sent: 0 }),
    late: encodeLate(keys, { limit: limits[1]!, id: 't1', weight: 1, grant: 'g1' }),
    feedback: encodeFeedback(keys, { limit: limits[3]!, pauseMs: 0, holdWeight: 0, holdMs: 0, id: 'h1' }),
    update: encodeUpdate(keys, { limit: limits[1]! }),
    hello: encodeHello(keys, { process: 'p', id: 'r1', deadline: 0, limits: limits.map((l) => ({ ...l, sent: 1 })) }),
    probe: encodeProbe(keys),
    counts: encodeCounts(keys, {
      process: 'p',
      batch: 1,
      epoch: '',
      held: 0,
      mode: 'add',
      once: 'seed-1',
      writes: [{ key: 'd:0:{main}', ttlMs: 1000, fields: new Map([['x', 1n]]) }],
      reads: ['h:0:sub-1'],
    }),
    restore: encodeRestore(keys, {
      process: 'p',
      limits: limits.map((l) => ({ ...l, lateMs: 0, grants: [{ id: 'g1', weight: 1, score: 5 }] })),
    }),
  };

  it('covers every script the store runs', () => {
    expect(Object.keys(calls).sort()).toEqual(Object.keys(scripts).sort());
  });

  it.each(Object.entries(calls))('%s: every key carries the prefix as its hash tag (one slot)', (_, call) => {
    expect(call.keys.length).toBeGreaterThan(0);
    for (const key of call.keys) expect(hashTag(key)).toBe('desk:family-7');
  });

  it('spreads families over every master', async () => {
    const masters = new Set<number>();
    for (let i = 1; i <= 30; i++) masters.add(await cluster.masterOf(await cluster.slotOf(`{traderatio:family-${i}}`)));
    expect(masters.size).toBe(3);
  });
});

describe('RedisStore on a Redis Cluster', () => {
  it('shares one budget between two ioredis Cluster clients', async () => {
    const prefix = prefixFor('cluster-io');
    const clients = [cluster.client(), cluster.client()];
    const stores = clients.map((client) => new RedisStore({ client, prefix }));
    const sent = await saturate(stores, 8, 5, 200);
    expect(sent).toHaveLength(16);
    expect(mostInAnyWindow(sent, 200)).toBeLessThanOrEqual(5);
    await Promise.all(stores.map((s) => s.close()));
    for (const c of clients) c.disconnect();
  });

  it('shares one budget between two node-redis cluster clients', async () => {
    const prefix = prefixFor('cluster-nr');
    const clients = [0, 1].map(() =>
      createCluster({ rootNodes: cluster.seeds.map((s) => ({ url: `redis://${s.host}:${s.port}` })) }),
    );
    await Promise.all(clients.map((c) => c.connect()));
    const stores = clients.map((client) => new RedisStore({ client, prefix }));
    const sent = await saturate(stores, 8, 5, 200);
    expect(sent).toHaveLength(16);
    expect(mostInAnyWindow(sent, 200)).toBeLessThanOrEqual(5);
    await Promise.all(stores.map((s) => s.close()));
    await Promise.all(clients.map((c) => c.close()));
  });

  it('follows its slot moved while it admits (TRYAGAIN, ASK, MOVED): each admission counted once', async () => {
    const prefix = prefixFor('cluster-move');
    const client: Cluster = cluster.client();
    // Known for long: no first-use wait of a window (60 s here).
    await client.set(`{${prefix}}:epoch`, '0');
    // One round trip per admission: every task meets the slot where it is at that moment.
    const store = new RedisStore({ client, prefix, prefetch: 0 });
    const scheduler = new Scheduler({ store });
    const limit = scheduler.limit({ name: 'place', limit: 60, windowMs: 60_000 });
    const slot = await cluster.slotOf(`{${prefix}}`);
    const redirects = async () => ({
      moved: await cluster.sumInfo('errorstats', /^errorstat_MOVED:count=(\d+)/),
      halfMoved: await cluster.sumInfo('errorstats', /^errorstat_(?:ASK|TRYAGAIN):count=(\d+)/),
    });
    const before = await redirects();
    const sent: number[] = [];
    const one = () => scheduler.schedule(() => void sent.push(performance.now()), { limits: limit });
    await Promise.all(Array.from({ length: 10 }, one));
    const from = await cluster.masterOf(slot);
    const to = (await cluster.info()).find((n) => n.master && n.port !== from)!.port;
    // The keys one at a time, 50 ms apart, while a task is asked for every 10 ms.
    const moving = cluster.moveSlot(slot, to, { pauseMs: 50 });
    const tasks: Promise<void>[] = [];
    for (let i = 0; i < 40; i++) {
      tasks.push(one());
      await new Promise((r) => setTimeout(r, 10));
    }
    const move = await moving;
    await Promise.all([...tasks, ...Array.from({ length: 10 }, one)]);
    scheduler.close();
    await store.close();
    const after = await redirects();
    expect(move.keys).toBeGreaterThan(1);
    expect(await cluster.masterOf(slot)).toBe(to);
    // Redis answered the slot half moved and moved, and the client followed.
    expect(after.halfMoved).toBeGreaterThan(before.halfMoved);
    expect(after.moved).toBeGreaterThan(before.moved);
    expect(sent).toHaveLength(60);
    // What Redis counted on the limit is what was sent: nothing granted twice, nothing lost.
    const meta = await client.hgetall(`{${prefix}}:m:place`);
    expect(Number(meta.used)).toBe(60);
    client.disconnect();
  });
});
