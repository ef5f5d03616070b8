import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  decodeAcquire,
  decodeCounts,
  decodeHello,
  decodeRestore,
  encodeAcquire,
  encodeAcquireMany,
  encodeHello,
} from '../../src/redis/calls.js';
import { RedisKeys, entryId } from '../../src/redis/protocol.js';

const keys = new RedisKeys('p');
const orders = { name: 'orders', limit: 10, windowMs: 1000, marginMs: 5 };
const batch = { name: 'batch', limit: 300, windowMs: 10_000, marginMs: 0 };

describe('encodeAcquire', () => {
  const call = {
    id: 'a.1',
    weight: 2,
    want: 5,
    leaseMs: 20,
    deadline: 0,
    process: 'a',
    processes: 3,
    staleMs: 1000,
    graceMs: 31_020,
    extra: 4,
    room: true,
    queued: 7,
    unlimited: 1_000_000_000,
    limits: [
      { ...orders, reserved: 1, lateMs: 40 },
      { ...batch, reserved: 0, lateMs: 0 },
    ],
  };

  it('lays out the epoch, the processes, then meta, log, waiting processes and confirmed grants of each limit, then alive and lost as KEYS', () => {
    expect(encodeAcquire(keys, call).keys).toEqual([
      '{p}:epoch',
      '{p}:procs',
      '{p}:m:orders',
      '{p}:l:orders',
      '{p}:q:orders',
      '{p}:a:orders',
      '{p}:m:batch',
      '{p}:l:batch',
      '{p}:q:batch',
      '{p}:a:batch',
      '{p}:alive',
      '{p}:lost',
    ]);
  });

  it('lays out the call (the longest lease last, leaseMs when none is given), then n, w, m, reserved, late, how many are confirmed and the hold of each limit, then whether alive, the epoch known and the instant as ARGV', () => {
    expect(encodeAcquire(keys, { ...call, at: 1234, epoch: '1764000000000', alive: true }).args).toEqual([
      'a.1',
      2,
      5,
      20,
      0,
      'a',
      3,
      1000,
      31_020,
      4,
      1,
      7,
      1_000_000_000,
      20,
      10,
      1000,
      5,
      1,
      40,
      0,
      0,
      300,
      10_000,
      0,
      0,
      0,
      0,
      0,
      1,
      '1764000000000',
      1234,
    ]);
  });

  it('lists the confirmed grants of every limit in turn after the limits, before whether alive, the epoch and the instant', () => {
    const confirmed = {
      ...call,
      at: 1234,
      limits: [
        { ...orders, reserved: 0, lateMs: 0, confirmed: [{ id: 'a.0', at: 5000 }], holdMs: 60_000 },
        {
          ...batch,
          reserved: 0,
          lateMs: 0,
          confirmed: [
            { id: 'a.0', at: 5000 },
            { id: 'b.3', at: 5100 },
          ],
        },
      ],
    };
    expect(encodeAcquire(keys, confirmed).args.slice(14)).toEqual([
      10,
      1000,
      5,
      0,
      0,
      1,
      60_000,
      300,
      10_000,
      0,
      0,
      0,
      2,
      0,
      'a.0',
      5000,
      'a.0',
      5000,
      'b.3',
      5100,
      0,
      '',
      1234,
    ]);
  });

  it("gives 0 for alive, '' for the epoch and the instant when the call has none, and room as 0 when it is off", () => {
    expect(encodeAcquire(keys, { ...call, room: false, limits: [] }).args).toEqual([
      'a.1',
      2,
      5,
      20,
      0,
      'a',
      3,
      1000,
      31_020,
      4,
      0,
      7,
      1_000_000_000,
      20,
      0,
      '',
      '',
    ]);
  });
});

describe('encodeAcquireMany', () => {
  const one = {
    id: 'a.1',
    weight: 1,
    want: 1,
    leaseMs: 50,
    leaseMaxMs: 250,
    deadline: 900,
    process: 'a',
    processes: 0,
    staleMs: 1000,
    graceMs: 31_050,
    extra: 0,
    room: false,
    queued: 1,
    unlimited: 1_000_000_000,
    epoch: 'e',
    limits: [{ ...orders, reserved: 0, lateMs: 0 }],
  };

  it('sends the shortest lease of its requests, the earliest deadline, whether any says it is alive, and the longest of their longest leases', () => {
    const calls = [
      { ...one, at: 5 },
      {
        ...one,
        id: 'a.2',
        leaseMs: 20,
        leaseMaxMs: 300,
        deadline: 800,
        alive: true,
        limits: [{ ...batch, reserved: 0, lateMs: 0 }],
        at: 6,
      },
    ];
    const { args } = encodeAcquireMany(keys, calls);
    expect(args.slice(0, 10)).toEqual([2, 'a', 0, 1000, 31_050, 1_000_000_000, 20, 800, 1, 300]);
    // Each request's own from ARGV 11: id, weight, want, extra, room, queued, epoch, how many limits.
    expect(args.slice(10, 18)).toEqual(['a.1', 1, 1, 0, 0, 1, 'e', 1]);
    expect(args.at(-1)).toBe(6);
  });
});

describe('encodeHello', () => {
  const call = {
    process: 'a',
    id: 'a.h1',
    deadline: 99,
    limits: [
      { ...orders, sent: 3 },
      { ...batch, sent: 0 },
    ],
  };

  it('lays out the epoch, the processes, then meta and log of each limit as KEYS', () => {
    expect(encodeHello(keys, call).keys).toEqual([
      '{p}:epoch',
      '{p}:procs',
      '{p}:m:orders',
      '{p}:l:orders',
      '{p}:m:batch',
      '{p}:l:batch',
    ]);
  });

  it('lays out the process, the id and the deadline, then n, w, m, what was sent and the hold of each limit, then the instant as ARGV', () => {
    expect(encodeHello(keys, { ...call, at: 1234 }).args).toEqual([
      'a',
      'a.h1',
      99,
      10,
      1000,
      5,
      3,
      0,
      300,
      10_000,
      0,
      0,
      0,
      1234,
    ]);
    expect(encodeHello(keys, { ...call, limits: [] }).args).toEqual(['a', 'a.h1', 99, '']);
  });
});

describe('decodeAcquire', () => {
  it("reads a grant: the permits, the instant, each limit's N and W in the order asked, the epoch and the probe", () => {
    expect(decodeAcquire([1, 7, 1234, 10, 1000, 300, 10_000, '1764000000000', 1], 2)).toEqual({
      status: 'granted',
      redisNow: 1234,
      granted: 7,
      probe: true,
      limits: [
        { limit: 10, windowMs: 1000 },
        { limit: 300, windowMs: 10_000 },
      ],
      epoch: '1764000000000',
    });
    expect(decodeAcquire([1, 1, 5, 10, 1000, '9', 0], 1)).toMatchObject({
      status: 'granted',
      probe: false,
      epoch: '9',
    });
  });

  it('reads a wait in ms, and a weight that never fits with the index of its limit from 0', () => {
    expect(decodeAcquire([0, 250, 1234, 10, 1000, '9'], 1)).toEqual({
      status: 'wait',
      redisNow: 1234,
      waitMs: 250,
      limits: [{ limit: 10, windowMs: 1000 }],
      epoch: '9',
    });
    expect(decodeAcquire([-1, 2, 1234, 10, 1000, 300, 10_000, '9'], 2)).toMatchObject({ status: 'never', index: 1 });
  });

  it('reads a call that came past its deadline as late, with nothing else', () => {
    expect(decodeAcquire([-2, 0, 1234], 3)).toEqual({ status: 'late', redisNow: 1234 });
  });
});

describe('decodeHello, decodeRestore and decodeCounts', () => {
  it("read HELLO heard or past its deadline, and RESTORE's epoch as text", () => {
    expect(decodeHello([1, 1234])).toEqual({ heard: true, redisNow: 1234 });
    expect(decodeHello([-2, 1234])).toEqual({ heard: false, redisNow: 1234 });
    expect(decodeRestore([1764000000000, 1234])).toEqual({ epoch: '1764000000000', redisNow: 1234 });
  });

  it("read COUNTS's status, epoch, batch held and each key read as exact integers (none: null)", () => {
    const big = '123456789012345678901234567890';
    expect(decodeCounts([1, '9', 4, ['a', '1', 'b', big], []], 2)).toEqual({
      status: 'written',
      epoch: '9',
      held: 4,
      totals: [
        new Map([
          ['a', 1n],
          ['b', BigInt(big)],
        ]),
        null,
      ],
    });
    expect(decodeCounts([0, '9', 4], 0).status).toBe('written');
    expect(decodeCounts([-3, '10', 0], 0).status).toBe('lost');
    expect(decodeCounts([-4, '9', 2], 0).status).toBe('behind');
  });
});

describe('entryId', () => {
  const kinds = ['grant', 'late', 'hold', 'share'] as const;

  it("gives every entry of a process an id of its own, whatever its kind and number: a grant's never reads as a late entry's", () => {
    // Grant number 1,046 is "t2" in base 36: late entry number 2's id, had grants no letter.
    expect(entryId('p', 'grant', 1046)).not.toBe(entryId('p', 'late', 2));
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds),
        fc.nat(),
        fc.constantFrom(...kinds),
        fc.nat(),
        (k1, s1, k2, s2) => (k1 === k2 && s1 === s2) === (entryId('p', k1, s1) === entryId('p', k2, s2)),
      ),
    );
    const ids = new Set<string>();
    for (const kind of kinds) for (let seq = 0; seq < 3000; seq++) ids.add(entryId('a1', kind, seq));
    expect(ids.size).toBe(4 * 3000);
  });
});
