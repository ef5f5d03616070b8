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
});
