import { describe, expect, it } from 'vitest';
import { type Encoded, encodeAcquire, encodeAcquireMany } from '../../src/redis/calls.js';
import { scriptingOf } from '../../src/redis/client.js';
import { RedisKeys, type ScriptName, scripts } from '../../src/redis/protocol.js';
import { T0, acquireCall } from './acquire-call.js';
import { redisForFile } from './file-prefixes.js';

// Redis's clock (TIME) has microseconds: what ACQUIRE keeps of an instant is rounded to a whole ms,
// a grant's score up, so that it counts no shorter (see lua/grant.lua); a grant still leaves the
// window exactly a span after its score, whole ms or not (what freed.lua's waits assume).
const { client, prefixFor } = redisForFile();

function run<T = unknown>(script: ScriptName, e: Encoded): Promise<T> {
  return scripts[script].run(scriptingOf(client), e.keys, e.args) as Promise<T>;
}

describe('the instants a grant keeps in Redis', () => {
  it('scores a grant at its instant plus the lease rounded up to a whole ms, and keeps whole ms in its meta', async () => {
    const prefix = prefixFor('ceil');
    const k = new RedisKeys(prefix);
    await client.set(k.epoch, '0');
    // 20 ms leases granted at T0 + 0.4 and T0 + 1.6.
    await run('acquire', encodeAcquire(k, acquireCall('p.1', { at: T0 + 0.4 })));
    await run(
      'acquireMany',
      encodeAcquireMany(k, [acquireCall('p.2', { at: T0 + 1.6 }), acquireCall('p.3', { at: T0 + 1.6 })]),
    );
    expect(await client.zrange(k.log('orders'), 0, -1, 'WITHSCORES')).toEqual([
      'p.1',
      String(T0 + 21),
      'p.2',
      String(T0 + 22),
      'p.3',
      String(T0 + 22),
    ]);
    // Set at T0 + 0.4 (the first grant): the keys' expiry (its span, lease and 60 s on), and when
    // grants were last dropped.
    expect(await client.hmget(k.meta('orders'), 'x', 'e')).toEqual([String(T0 + 61_020), String(T0)]);
  });

  it('scores a grant of Redis’s own clock in whole ms, never before the instant it was made plus the lease', async () => {
    const prefix = prefixFor('time');
    const k = new RedisKeys(prefix);
    await client.set(k.epoch, '0');
    for (let i = 0; i < 20; i++) {
      const [sec, us] = await client.time();
      const before = Number(sec) * 1000 + Number(us) / 1000;
      await run('acquire', encodeAcquire(k, acquireCall(`p.${i}`, { at: undefined }, { limit: 1000 })));
      const score = Number(await client.zscore(k.log('orders'), `p.${i}`));
      expect(Number.isInteger(score)).toBe(true);
      expect(score).toBeGreaterThanOrEqual(before + 20);
    }
  });

  it('drops a grant a whole span after its score, not before, whole ms or not: never over N', async () => {
    const ask = (k: RedisKeys, id: string, at: number, weight = 1) =>
      run<number[]>('acquire', encodeAcquire(k, acquireCall(id, { at, weight, want: weight, queued: weight })));
    for (const [name, score, spent, free] of [
      // Scored T0 + 20: in the window until T0 + 1,020.
      ['whole', T0 + 20, T0 + 1019.9, T0 + 1020],
      // Scored T0 + 20.5 (a grant kept before scores were whole ms, an arrival): until T0 + 1,020.5.
      ['fraction', T0 + 20.5, T0 + 1020.4, T0 + 1020.5],
    ] as const) {
      const k = new RedisKeys(prefixFor(name));
      await client.set(k.epoch, '0');
      expect((await ask(k, 'p.1', T0, 10))[0]).toBe(1);
      await client.zadd(k.log('orders'), 'XX', score, 'p.1');
      expect((await ask(k, 'q.1', spent))[0]).toBe(0);
      expect(await client.hget(k.meta('orders'), 'used')).toBe('10');
      expect((await ask(k, 'q.2', free))[0]).toBe(1);
      expect(await client.hget(k.meta('orders'), 'used')).toBe('1');
    }
  });
});
