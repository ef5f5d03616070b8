import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Arrivals } from '../../src/account/arrivals.js';
import { encodeAcquire, encodeArrivals, encodeRelease, type GrantArrival } from '../../src/redis/calls.js';
import { scriptingOf } from '../../src/redis/client.js';
import { GrantArrivals } from '../../src/redis/grant-arrivals.js';
import { RedisKeys, scripts } from '../../src/redis/protocol.js';
import { linkOf, type SharedLimit } from '../../src/redis/shared-limit.js';
import { RedisStore } from '../../src/redis/store.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import { UNANSWERED_MAX_MS } from '../../src/schedule/unanswered.js';
import { T0, acquireCall } from './acquire-call.js';
import { redisForFile } from './file-prefixes.js';
import { mostInAnyWindow } from './harness.js';
import { settleOn, VirtualRedis } from './virtual.js';

// Grants counted from the arrivals of their permits at the exchange (see docs/rules.md#r13), not from the end of
// their lease plus the latest lateness any process measured.
const { client, prefixFor } = redisForFile();

describe('ACQUIRE with grants confirmed by their arrivals', () => {
  /** ACQUIRE at `at` of weight 1 on "orders" (1 per second, margin 5 ms, lease 20 ms) as `process`. */
  function acquire(prefix: string, id: string, at: number, lateMs = 0, confirmed: GrantArrival[] = []) {
    const call = acquireCall(id, { at, process: id.split('.')[0]! }, { limit: 1, marginMs: 5, lateMs, confirmed });
    const e = encodeAcquire(new RedisKeys(prefix), call);
    return scripts.acquire.run(scriptingOf(client), e.keys, e.args) as Promise<number[]>;
  }

  it('frees a confirmed grant at its arrival plus W and the margin, not its lease end plus W and the lateness measured', async () => {
    const prefix = prefixFor('confirm');
    await client.set(`{${prefix}}:epoch`, '0');
    // Granted at T0, scored at the lease's end (T0 + 20); a process measured a lateness of 300 ms.
    expect((await acquire(prefix, 'a.1', T0, 300))[0]).toBe(1);
    // Unconfirmed, the grant counts until T0 + 20 + 1,000 + 300.
    expect(await acquire(prefix, 'b.1', T0 + 50)).toEqual([0, 1_270, T0 + 50, 1, 1000, '0']);
    // Its permit reached the exchange by T0 + 30: it counts until T0 + 30 + 1,000 + 5.
    expect(await acquire(prefix, 'a.2', T0 + 60, 0, [{ id: 'a.1', at: T0 + 30 }])).toEqual([
      0,
      975,
      T0 + 60,
      1,
      1000,
      '0',
    ]);
    expect(await client.zscore(`{${prefix}}:a:orders`, 'a.1')).toBe(String(T0 + 30));
    expect(await client.zscore(`{${prefix}}:l:orders`, 'a.1')).toBeNull();
    // Told again, earlier: unchanged; later (a quicker way there showed since): later.
    expect((await acquire(prefix, 'a.3', T0 + 70, 0, [{ id: 'a.1', at: T0 + 10 }]))[1]).toBe(965);
    expect((await acquire(prefix, 'a.4', T0 + 80, 0, [{ id: 'a.1', at: T0 + 40 }]))[1]).toBe(965);
    expect((await acquire(prefix, 'b.2', T0 + 1_044))[0]).toBe(0);
    expect((await acquire(prefix, 'b.3', T0 + 1_045))[0]).toBe(1);
  });

  it('moves nothing for a grant given back or gone, even past the deadline', async () => {
    const prefix = prefixFor('confirm-gone');
    await client.set(`{${prefix}}:epoch`, '0');
    const k = new RedisKeys(prefix);
    expect((await acquire(prefix, 'a.1', T0))[0]).toBe(1);
    const r = encodeRelease(k, { limit: 'orders', grant: 'a.1', sent: 0 });
    await scripts.release.run(scriptingOf(client), r.keys, r.args);
    expect((await acquire(prefix, 'a.2', T0 + 30, 0, [{ id: 'a.1', at: T0 + 25 }]))[0]).toBe(1);
    expect(await client.zscore(`{${prefix}}:a:orders`, 'a.1')).toBeNull();
    // A confirmation rides on a request past its deadline all the same: it is moved.
    const late = encodeAcquire(
      k,
      acquireCall(
        'a.3',
        { at: T0 + 100, deadline: T0 + 99, process: 'a' },
        { limit: 1, marginMs: 5, confirmed: [{ id: 'a.2', at: T0 + 60 }] },
      ),
    );
    expect((await scripts.acquire.run(scriptingOf(client), late.keys, late.args)) as number[]).toEqual([
      -2,
      0,
      T0 + 100,
    ]);
    expect(await client.zscore(`{${prefix}}:a:orders`, 'a.2')).toBe(String(T0 + 60));
  });
});

describe('ARRIVALS', () => {
  it('confirms grants and keeps the lateness measured without asking for permits, as ACQUIRE does', async () => {
    const prefix = prefixFor('arrivals');
    await client.set(`{${prefix}}:epoch`, '0');
    const k = new RedisKeys(prefix);
    const acquire = encodeAcquire(k, acquireCall('a.1', { process: 'a' }, { limit: 1, marginMs: 5 }));
    expect(((await scripts.acquire.run(scriptingOf(client), acquire.keys, acquire.args)) as number[])[0]).toBe(1);
    const limit = { name: 'orders', limit: 1, windowMs: 1000, marginMs: 5 };
    const told = encodeArrivals(k, {
      at: T0 + 40,
      limit,
      lateMs: 60,
      leaseMs: 20,
      confirmed: [{ id: 'a.1', at: T0 + 30 }],
    });
    expect(await scripts.arrivals.run(scriptingOf(client), told.keys, told.args)).toBe(1);
    expect(await client.zscore(`{${prefix}}:a:orders`, 'a.1')).toBe(String(T0 + 30));
    expect(await client.zscore(`{${prefix}}:l:orders`, 'a.1')).toBeNull();
    expect(await client.hget(`{${prefix}}:m:orders`, 'mx')).toBe('60');
  });
});

describe('GrantArrivals', () => {
  const lease = (id: string, sent: number) => ({ id, sent, redisOffset: 1000 });

  it('confirms a lease once every permit sent on it is answered, with its latest arrival as a Redis instant', () => {
    const g = new GrantArrivals();
    const a = lease('p.1', 2);
    g.granted(a, 10);
    g.arrived(1, 12, 20, false);
    g.ended(a, 15);
    expect(g.take()).toEqual([]);
    g.arrived(1, 14, 18, false);
    expect(g.take()).toEqual([{ id: 'p.1', at: 1020 }]);
    // Counted later once a quicker way showed: told again, later.
    g.arrived(1, 14, 26, true);
    expect(g.take()).toEqual([{ id: 'p.1', at: 1026 }]);
  });

  it('never confirms a lease an answer may be wrongly matched with, or one more is answered of than was sent', () => {
    const g = new GrantArrivals();
    const a = lease('p.1', 1);
    const b = lease('p.2', 1);
    g.granted(a, 10);
    g.ended(a, 20);
    g.granted(b, 20);
    g.ended(b, 30);
    // Sent at 20: on either.
    g.arrived(1, 20, 25, false);
    g.arrived(1, 15, 25, false);
    g.arrived(1, 25, 28, false);
    expect(g.take()).toEqual([]);
    const c = lease('p.3', 1);
    g.granted(c, 40);
    g.ended(c, 45);
    g.arrived(2, 41, 50, false);
    expect(g.take()).toEqual([]);
    const d = lease('p.4', 1);
    g.granted(d, 50);
    g.spoil(d);
    g.ended(d, 55);
    g.arrived(1, 51, 60, false);
    expect(g.take()).toEqual([]);
    // A lease given while the last was not said to have ended.
    const e = lease('p.5', 1);
    g.granted(e, 60);
    g.granted(lease('p.6', 1), 65);
    g.arrived(1, 62, 70, false);
    g.ended(e, 66);
    expect(g.take()).toEqual([]);
  });
});

describe('GrantArrivals bounded by answers', () => {
  /** A lease of `granted` permits, `sent` of them sent, to be sent by local instant `until`; Redis 1,000 ms ahead. */
  const lease = (id: string, granted: number, sent: number, until = 20) => ({
    id,
    granted,
    sent,
    until,
    redisOffset: 1000,
  });

  it('confirms an ended lease once every round trip on it is answered, at the latest its answers allow', () => {
    const g = new GrantArrivals();
    const a = lease('p.1', 3, 2);
    g.granted(a, 0);
    g.track(a, 1);
    g.track(a, 1);
    expect(g.answer(a, 1, 30)).toBe(false);
    g.ended(a, 20);
    expect(g.take()).toEqual([]);
    expect(g.answer(a, 1, 25)).toBe(true);
    expect(g.take()).toEqual([{ id: 'p.1', at: 1030 }]);
  });

  it('confirms a lease all sent before it ends, and counts permits sent without a round trip from its end', () => {
    const g = new GrantArrivals();
    const a = lease('p.1', 2, 2, 50);
    g.granted(a, 0);
    g.track(a, 1);
    g.answer(a, 1, 12.5);
    // One of the two was not a round trip: it was sent by 50, the end of the lease, at the latest.
    expect(g.take()).toEqual([{ id: 'p.1', at: 1050 }]);
    const b = lease('p.2', 1, 1, 80);
    g.granted(b, 60);
    g.track(b, 1);
    g.answer(b, 1, 62.2);
    expect(g.take()).toEqual([{ id: 'p.2', at: 1063 }]);
  });

  it('says nothing of a grant while a permit of it waits for its answer: Redis holds it until then', () => {
    const g = new GrantArrivals();
    expect(g.bounded).toBe(false);
    const a = lease('p.1', 1, 1, 20);
    g.granted(a, 0);
    g.track(a, 1);
    g.ended(a, 20);
    expect(g.bounded).toBe(true);
    expect(g.take()).toEqual([]);
    // Added back after a loss, it is held as Redis held it (the score kept, plus the hold).
    expect(g.addBackScores(UNANSWERED_MAX_MS)('p.1', 1020)).toBe(1020 + UNANSWERED_MAX_MS);
    // Answered 2 s later: confirmed at its answer, however late.
    g.answer(a, 1, 2020);
    expect(g.take()).toEqual([{ id: 'p.1', at: 3020 }]);
    // Added back once confirmed: no earlier than its arrival; one it never followed, as kept.
    expect(g.addBackScores(UNANSWERED_MAX_MS)('p.1', 1020)).toBe(3020);
    expect(g.addBackScores(UNANSWERED_MAX_MS)('p.9', 1020)).toBe(1020);
  });

  it('scores every grant added back from one pass: a LATE entry as its lease, one never followed as kept', () => {
    const g = new GrantArrivals();
    const leases = Array.from({ length: 3000 }, (_, i) => lease(`p.${i}`, 1, 1, 20 + i));
    for (const [i, a] of leases.entries()) {
      g.granted(a, i);
      g.track(a, 1);
      g.ended(a, 20 + i);
    }
    // Permits of p.7 moved by LATE to p.t7; p.5 answered (confirmed at its answer), p.7 not yet.
    g.late(leases[7]!, 'p.t7', 27);
    g.answer(leases[5]!, 1, 4000);
    const scoreOf = g.addBackScores(500);
    expect(scoreOf('p.5', 1025)).toBe(5000);
    expect(scoreOf('p.7', 1027)).toBe(1527);
    expect(scoreOf('p.t7', 1100)).toBe(1600);
    expect(scoreOf('p.2999', 4019)).toBe(4519);
    expect(scoreOf('p.x', 1020)).toBe(1020);
    // Scored again from a pass of its own: the same.
    for (const id of ['p.5', 'p.7', 'p.t7', 'p.2999', 'p.x'])
      expect(g.addBackScores(500)(id, 1100)).toBe(scoreOf(id, 1100));
  });

  it('follows answers once told to, before any round trip (a limiter says so when it makes the limit)', () => {
    const g = new GrantArrivals();
    g.bound();
    expect(g.bounded).toBe(true);
    const a = lease('p.1', 2, 1, 20);
    g.granted(a, 0);
    // Not yet confirmed: held when added back.
    expect(g.addBackScores(500)('p.1', 1020)).toBe(1520);
    g.ended(a, 20);
    // Sent without a round trip: by the end of the lease at the latest.
    expect(g.take()).toEqual([{ id: 'p.1', at: 1020 }]);
  });

  it('confirms the entries permits sent after the lease ended were moved to with it, at the same arrival', () => {
    const g = new GrantArrivals();
    const a = lease('p.1', 2, 2, 20);
    g.granted(a, 0);
    g.track(a, 2);
    g.late(a, 'p.t1', 25);
    g.answer(a, 1, 30);
    g.answer(a, 1, 45);
    expect(g.take()).toEqual([
      { id: 'p.1', at: 1045 },
      { id: 'p.t1', at: 1045 },
    ]);
  });

  it('confirms permits not followed to an answer, moved by LATE, no earlier than LATE says they were sent', () => {
    const g = new GrantArrivals();
    g.bound();
    const a = lease('p.0', 1, 1, 20);
    g.granted(a, 0);
    // Taken before the lease's end, by a task not followed to its answer, and stamped at 520 (the
    // process was held up): LATE moved it to p.t0, sent by 520.
    g.late(a, 'p.t0', 520);
    g.ended(a, 520);
    expect(g.take()).toEqual([
      { id: 'p.0', at: 1520 },
      { id: 'p.t0', at: 1520 },
    ]);
  });
});

describe('GrantArrivals with the arrival estimate (not bounded by answers)', () => {
  const lease = (id: string, granted: number, sent: number) => ({ id, granted, sent, until: 20, redisOffset: 1000 });

  it('confirms at the arrival as a Redis instant, scores what it adds back so, and gives RecentGrants no confirmation', () => {
    const g = new GrantArrivals();
    const a = lease('p.0', 1, 1);
    const row = g.granted(a, 0);
    g.ended(a, 20);
    g.arrived(1, 0, 600, false);
    expect(g.take()).toEqual([{ id: 'p.0', at: 1600 }]);
    expect(g.addBackScores(500)('p.0', 1020)).toBe(1600);
    // An estimate may be made later while the arrivals are kept: the grant is kept a minute.
    expect(g.confirmedAt(row)).toBeNull();
    g.arrived(1, 0, 700, true);
    expect(g.take()).toEqual([{ id: 'p.0', at: 1700 }]);
    expect(g.addBackScores(500)('p.0', 1020)).toBe(1700);
  });
});

describe('processes counting grants from their arrivals', () => {
  it('never has more than N arrive at the exchange in any W, as the way there changes speed (see docs/rules.md#r13)', async () => {
    // Grants confirmed, over every run (in a run whose leases all start at one instant of the
    // virtual clock, none can be).
    let confirmed = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ from: fc.integer({ min: 0, max: 3000 }), extra: fc.integer({ min: 0, max: 300 }) }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.array(fc.integer({ min: 0, max: 2500 }), { minLength: 20, maxLength: 60 }),
        fc.integer({ min: 1, max: 3 }),
        async (slow, submits, spread) => {
          const prefix = prefixFor('arrive');
          const v = new VirtualRedis(client);
          await v.warm(prefix);
          const start = v.clock.now();
          // The way there: 5 ms, more while a slow stretch lasts (the latest started).
          const oneWay = (at: number): number => {
            let extra = 0;
            for (const s of slow) if (at - start >= s.from && at - start < s.from + 700) extra = s.extra;
            return 5 + extra;
          };
          const arrivedAt: number[] = [];
          const stores: RedisStore[] = [];
          const tasks: Promise<unknown>[] = [];
          for (let p = 0; p < 3; p++) {
            const store = new RedisStore(v.options(prefix));
            stores.push(store);
            const s = new Scheduler({ store, clock: v.clock });
            const l = s.limit({ name: 'orders', limit: 8, windowMs: 1000 }) as SharedLimit;
            const take = linkOf(l).takeConfirmed.bind(l);
            linkOf(l).takeConfirmed = () => {
              const t = take();
              confirmed += t.length;
              return t;
            };
            // Each process's clock is off the exchange's by its own amount; its first answer is
            // its quickest (a quicker one later is what a margin covers).
            const offset = 1_000 * p;
            const arrivals = new Arrivals(true);
            let first = true;
            const send = () => {
              const sentMono = v.clock.now();
              const way = first ? 5 : oneWay(sentMono);
              first = false;
              arrivedAt.push(sentMono + way);
              v.clock.setTimer(() => {
                arrivals.add(
                  { limits: [l], weight: 1, sentMono, receivedMono: v.clock.now(), delay: way + offset },
                  v.clock.now(),
                );
              }, 2 * way);
            };
            for (let i = p; i < submits.length; i += spread) {
              const at = submits[i]!;
              tasks.push(
                new Promise<void>((resolve) => v.clock.setTimer(resolve, at)).then(() =>
                  s.schedule(send, { limits: l }),
                ),
              );
            }
          }
          await settleOn(v, tasks, 120_000);
          await v.advance(2_000);
          await Promise.all(stores.map((st) => st.close()));
          expect(mostInAnyWindow(arrivedAt, 1000)).toBeLessThanOrEqual(8);
        },
      ),
      { numRuns: 8 },
    );
    expect(confirmed).toBeGreaterThan(0);
  }, 120_000);
});
