import { describe, expect, it } from 'vitest';
import { RecentGrants } from '../../src/redis/recent-grants.js';

describe('RecentGrants', () => {
  const lease = (id: string, granted: number, until: number) => ({ id, granted, sent: 0, until, redisOffset: 5 });
  /** W and the margin 1,000 ms, the longest lease 250 ms; `confirmed`: each row's confirmation, if any. */
  const recentGrants = (confirmed: (number | null)[] = []) =>
    new RecentGrants({ spanMs: () => 1000, leaseMaxMs: () => 250, confirmedAt: (row) => confirmed[row] ?? null });

  it('adds back a lease in use with all it was granted, and one ended with what was sent on it, scored at its end on Redis', () => {
    const recent = recentGrants();
    const inUse = lease('p.0', 8, 120);
    const ended = lease('p.1', 8, 100);
    recent.granted(ended, -1, 0);
    recent.granted(inUse, -1, 0);
    ended.sent = 3;
    inUse.sent = 2;
    expect(recent.entries(110)).toEqual([
      { id: 'p.1', weight: 3, score: 105 },
      { id: 'p.0', weight: 8, score: 125 },
    ]);
  });

  it('adds back a lease ended before its end, its unsent permits given back, with what was sent on it only', () => {
    const recent = recentGrants();
    const early = { ...lease('p.0', 8, 120), ended: false };
    recent.granted(early, -1, 0);
    early.sent = 1;
    early.ended = true;
    expect(recent.entries(110)).toEqual([{ id: 'p.0', weight: 1, score: 125 }]);
    early.sent = 0;
    // Nothing sent on it: Redis holds nothing of it, and nothing is added back.
    expect(recent.entries(110)).toEqual([]);
  });

  it('adds back weight counted again, and nothing a span and the minute kept beyond it after its end', () => {
    const recent = recentGrants();
    recent.late('p.t0', 2, 200, 5, -1);
    expect(recent.entries(300)).toEqual([{ id: 'p.t0', weight: 2, score: 205 }]);
    expect(recent.entries(200 + 1000 + 60_000)).toEqual([]);
  });

  it('keeps what was sent on a lease that ended, as it adds it back, once told of its end', () => {
    const recent = recentGrants();
    const a = { ...lease('p.0', 8, 120), ended: false };
    const b = lease('p.1', 4, 130);
    recent.granted(a, -1, 0);
    recent.late('p.t0', 2, 125, 5, -1);
    recent.granted(b, -1, 0);
    a.sent = 3;
    a.ended = true;
    recent.ended(a);
    // What is read at its end afterwards changes nothing: the weight sent was final when it ended.
    a.sent = 7;
    b.sent = 1;
    expect(recent.entries(110)).toEqual([
      { id: 'p.0', weight: 3, score: 125 },
      { id: 'p.t0', weight: 2, score: 130 },
      { id: 'p.1', weight: 4, score: 135 },
    ]);
    // A lease it no longer holds, or never held, changes nothing.
    recent.ended(lease('p.9', 5, 100));
    expect(recent.entries(200)).toEqual([
      { id: 'p.0', weight: 3, score: 125 },
      { id: 'p.t0', weight: 2, score: 130 },
      { id: 'p.1', weight: 1, score: 135 },
    ]);
  });

  it('keeps a grant not confirmed for its window and a minute, and adds back the rest in order as the columns are cut', () => {
    const span = 1000;
    const recent = recentGrants();
    // Each with a Redis clock of its own.
    const leases = Array.from({ length: 5000 }, (_, i) => ({
      ...lease(`p.${i}`, 1, i * 20),
      redisOffset: 5 + (i % 7),
    }));
    for (const l of leases) {
      recent.granted(l, -1, l.until - 20);
      l.sent = 1;
    }
    const now = 4999 * 20;
    // Kept: every entry whose end is less than the span and the minute before now.
    const first = leases.findIndex((l) => l.until + span + 60_000 > now);
    expect(recent.entries(now)).toEqual(
      leases.slice(first).map((l) => ({ id: l.id, weight: 1, score: l.until + l.redisOffset })),
    );
  });

  it('lets go of a confirmed grant once Redis no longer counts it on the earliest clock it can have, to the ms', () => {
    // Grant p.0 (lease to local 100, Redis 5 ms ahead at most: scored 105) was confirmed at Redis
    // instant 110: Redis counts it until 1110. At local x Redis reads at least x + 5 - 1 - 250.
    const recent = recentGrants([110]);
    const a = lease('p.0', 1, 100);
    recent.granted(a, 0, 80);
    a.sent = 1;
    recent.ended(a);
    recent.granted(lease('p.1', 1, 1375), -1, 1355);
    expect(recent.entries(1355).map((e) => e.id)).toEqual(['p.0', 'p.1']);
    recent.granted(lease('p.2', 1, 1376), -1, 1356);
    expect(recent.entries(1356).map((e) => e.id)).toEqual(['p.1', 'p.2']);
  });

  it('keeps a grant not confirmed when decided on for its window and a minute, confirmed later or not, in the order they came', () => {
    const confirmed: (number | null)[] = [null, null];
    const recent = recentGrants(confirmed);
    const a = lease('p.0', 1, 100);
    const b = lease('p.1', 1, 110);
    recent.granted(a, 0, 80);
    recent.late('p.t0', 1, 105, 5, 0);
    recent.granted(b, 1, 90);
    a.sent = 1;
    b.sent = 1;
    // Past W, the margin and the longest lease after their ends: p.0 and its LATE entry are not
    // confirmed (held a minute), p.1 is (let go of).
    confirmed[1] = 112;
    recent.granted(lease('p.2', 1, 2000), -1, 1980);
    expect(recent.entries(1980).map((e) => e.id)).toEqual(['p.0', 'p.t0', 'p.2']);
    confirmed[0] = 108;
    recent.granted(lease('p.3', 1, 30_000), -1, 29_980);
    // p.2 ended with nothing sent on it: nothing to add back.
    expect(recent.entries(29_980).map((e) => e.id)).toEqual(['p.0', 'p.t0', 'p.3']);
    // p.0 out of its window and the minute; its LATE entry, sent by 105, not yet.
    expect(recent.entries(100 + 1000 + 60_000).map((e) => e.id)).toEqual(['p.t0']);
  });
});
