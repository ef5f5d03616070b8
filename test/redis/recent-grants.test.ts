import { describe, expect, it } from 'vitest';
import { RecentGrants } from '../../src/redis/recent-grants.js';

describe('RecentGrants', () => {
  const lease = (id: string, granted: number, until: number) => ({ id, granted, sent: 0, until, redisOffset: 5 });

  it('adds back a lease in use with all it was granted, and one ended with what was sent on it, scored at its end on Redis', () => {
    const recent = new RecentGrants(() => 1000);
    const inUse = lease('p.0', 8, 120);
    const ended = lease('p.1', 8, 100);
    recent.granted(ended);
    recent.granted(inUse);
    ended.sent = 3;
    inUse.sent = 2;
    expect(recent.entries(110)).toEqual([
      { id: 'p.1', weight: 3, score: 105 },
      { id: 'p.0', weight: 8, score: 125 },
    ]);
  });

  it('adds back a lease ended before its end, its unsent permits given back, with what was sent on it only', () => {
    const recent = new RecentGrants(() => 1000);
    const early = { ...lease('p.0', 8, 120), ended: false };
    recent.granted(early);
    early.sent = 1;
    early.ended = true;
    expect(recent.entries(110)).toEqual([{ id: 'p.0', weight: 1, score: 125 }]);
    early.sent = 0;
    // Nothing sent on it: Redis holds nothing of it, and nothing is added back.
    expect(recent.entries(110)).toEqual([]);
  });

  it('adds back weight counted again, and nothing a span and the minute kept beyond it after its end', () => {
    const recent = new RecentGrants(() => 1000);
    recent.late('p.t0', 2, 200, 5);
    expect(recent.entries(300)).toEqual([{ id: 'p.t0', weight: 2, score: 205 }]);
    expect(recent.entries(200 + 1000 + 60_000)).toEqual([]);
  });

  it('keeps what was sent on a lease that ended, as it adds it back, once told of its end', () => {
    const recent = new RecentGrants(() => 1000);
    const a = { ...lease('p.0', 8, 120), ended: false };
    const b = lease('p.1', 4, 130);
    recent.granted(a);
    recent.late('p.t0', 2, 125, 5);
    recent.granted(b);
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

  it('lets go of the entries out of their time as new ones come, and adds back the rest in order', () => {
    const span = 1000;
    const recent = new RecentGrants(() => span);
    const leases = Array.from({ length: 5000 }, (_, i) => lease(`p.${i}`, 1, i * 20));
    for (const l of leases) {
      recent.granted(l);
      l.sent = 1;
    }
    const now = 4999 * 20;
    const kept = recent.entries(now);
    // Kept: every entry whose end is less than the span and the minute before now.
    const first = leases.findIndex((l) => l.until + span + 60_000 > now);
    expect(kept.map((e) => e.id)).toEqual(leases.slice(first).map((l) => l.id));
    expect(kept[0]).toEqual({ id: `p.${first}`, weight: 1, score: first * 20 + 5 });
  });
});
