import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import { WindowLimit, type WindowLimitState } from '../../src/schedule/window.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { waitOf } from './wait.js';

describe('WindowLimit (see docs/rules.md#r13)', () => {
  it('answers a take with { ok: true }, or { ok: false, retryAfterMs } and takes nothing', () => {
    const l = new WindowLimit({ limit: 2, windowMs: 1000 });
    expect(l.tryTake(2, 0)).toEqual({ ok: true });
    expect(l.tryTake(1, 250)).toEqual({ ok: false, retryAfterMs: 750 });
    expect(l.tryTake(3, 250)).toEqual({ ok: false, retryAfterMs: Infinity });
    expect(l.usedAt(250)).toBe(2);
    expect(l.tryTake(1, 1000)).toEqual({ ok: true });
  });

  it('allows a burst of N when idle, then waits exactly until the oldest leaves the window', () => {
    const l = new WindowLimit({ limit: 3, windowMs: 1000 });
    expect([waitOf(l.tryTake(1, 0)), waitOf(l.tryTake(1, 100)), waitOf(l.tryTake(1, 200))]).toEqual([0, 0, 0]);
    expect(waitOf(l.tryTake(1, 300))).toBe(700);
    expect(waitOf(l.tryTake(1, 999.999))).toBeCloseTo(0.001, 9);
    expect(waitOf(l.tryTake(1, 1000))).toBe(0); // the one at 0 is out of [1, 1000]... of (0, 1000]
    expect(waitOf(l.tryTake(1, 1000))).toBe(100);
  });

  it('never holds more than N weight in any window, where a plain bucket would let 2N through', () => {
    const l = new WindowLimit({ limit: 10, windowMs: 1000 });
    const sent: number[] = [];
    for (let t = 0; t < 5000; t += 7) if (waitOf(l.tryTake(1, t)) === 0) sent.push(t);
    for (const t of sent) expect(sent.filter((s) => s > t - 1000 && s <= t).length).toBeLessThanOrEqual(10);
    expect(sent.length).toBeGreaterThanOrEqual(50 - 1);
  });

  it('counts weights, and refuses a weight that can never fit with Infinity', () => {
    const l = new WindowLimit({ limit: 10, windowMs: 1000 });
    expect(waitOf(l.tryTake(7, 0))).toBe(0);
    expect(waitOf(l.tryTake(4, 10))).toBe(990);
    expect(waitOf(l.tryTake(3, 10))).toBe(0);
    expect(l.usedAt(10)).toBe(10);
    expect(waitOf(l.tryTake(11, 5000))).toBe(Infinity);
    expect(l.usedAt(5000)).toBe(0);
  });

  it('waits for as many entries to leave as a heavy weight needs', () => {
    const l = new WindowLimit({ limit: 4, windowMs: 100 });
    for (const t of [0, 10, 20, 30]) l.take(1, t);
    // 4 counted, 3 more wanted of 4: the entries at 0, 10 and 20 must leave, the last at 120.
    expect(l.waitFor(3, 40)).toBe(80);
    expect(l.waitFor(1, 40)).toBe(60);
  });

  it('merges dispatches closer than W/1024 into one entry counted at the later instant (never less)', () => {
    const l = new WindowLimit({ limit: 1_000_000, windowMs: 1024 });
    for (let i = 0; i < 1000; i++) l.take(1, i * 0.001); // a millisecond's worth: one entry
    expect(l.snapshot().entries).toEqual([[0.999, 1000]]);
    expect(l.usedAt(1024.998)).toBe(1000); // the first was sent at 0, but counts until 0.999 + 1024
    expect(l.usedAt(1024.999)).toBe(0);
  });

  it('keeps memory bounded however many dispatches fall in a window', () => {
    const l = new WindowLimit({ limit: 100_000_000, windowMs: 1000 });
    for (let i = 0; i < 1_000_000; i++) l.take(1, i / 1000);
    expect(l.snapshot().entries.length).toBeLessThanOrEqual(1026);
    expect(l.usedAt(1000)).toBeGreaterThanOrEqual(999_000);
  });

  it('counts what was sent in the trailing window against a lowered limit at once', () => {
    const l = new WindowLimit({ limit: 5, windowMs: 1000 });
    for (let t = 0; t < 5; t++) l.take(1, t * 100);
    l.update({ limit: 3 });
    expect(l.waitFor(1, 500)).toBe(1200 - 500); // 5 counted, 3 must leave: the third, sent at 200, leaves at 1200
    l.update({ limit: 10 });
    expect(l.waitFor(1, 500)).toBe(0);
  });

  it('refuses a window longer than maxWindowMs, and keeps history for the longest allowed', () => {
    const l = new WindowLimit({ limit: 2, windowMs: 1000, maxWindowMs: 10_000 });
    l.take(2, 0);
    expect(l.waitFor(1, 1500)).toBe(0);
    l.update({ windowMs: 10_000 });
    expect(l.waitFor(1, 1500)).toBe(8500); // the two at 0 count again under the longer window
    expect(() => l.update({ windowMs: 10_001 })).toThrow(
      'Expected `windowMs` of limit to be at most `maxWindowMs` (10000)',
    );
  });

  it('widens every window by marginMs', () => {
    const l = new WindowLimit({ limit: 1, windowMs: 1000, marginMs: 5 });
    l.take(1, 0);
    expect(l.waitFor(1, 1000)).toBe(5);
  });

  it('keeps reserved headroom for a priority class', () => {
    const l = new WindowLimit({ limit: 10, windowMs: 1000, reserve: { priority: 10, weight: 3 } });
    expect(waitOf(l.tryTake(7, 0, 0))).toBe(0);
    expect(waitOf(l.tryTake(1, 1, 0))).toBe(999);
    expect(waitOf(l.tryTake(3, 1, 10))).toBe(0);
    expect(l.capacity(0)).toBe(7);
    expect(l.capacity(10)).toBe(10);
  });

  it('pauses until an instant, and shrinks to what the exchange says remains', () => {
    const l = new WindowLimit({ limit: 10, windowMs: 1000 });
    l.pause(500);
    expect(l.waitFor(1, 100)).toBe(400);
    expect(l.waitFor(1, 500)).toBe(0);
    l.take(2, 500);
    l.shrink(3, 2000, 600); // 10 - 2 counted = 8 here, the exchange says 3: hold 5 until 2000
    expect(l.usedAt(600)).toBe(7);
    expect(waitOf(l.tryTake(4, 600))).toBe(1500 - 600); // the 2 sent at 500 leave at 1500, the 5 held stay
    expect(waitOf(l.tryTake(3, 600))).toBe(0);
    expect(l.waitFor(6, 1999)).toBe(1); // nothing counted by now, but 5 held + 6 > 10 until the hold ends at 2000
  });

  it('holds in this process until an instant, a later hold ending it sooner and waking its owner', async () => {
    const clock = new VirtualClock();
    const scheduler = new Scheduler({ clock });
    const l = scheduler.limit({ limit: 10, windowMs: 1000 }) as WindowLimit;
    l.holdHere(Infinity);
    expect(l.waitFor(1, 0)).toBe(Infinity);
    expect(l.fitsAnytime(1)).toBe(false);
    const sent: number[] = [];
    const task = scheduler.schedule(() => void sent.push(clock.now()), { limits: l });
    await clock.advance(300);
    expect(sent).toEqual([]);
    l.holdHere(-Infinity);
    await task;
    expect(sent).toEqual([300]);
    // A pause from the exchange is not ended by a hold that ends.
    l.pause(1000);
    l.holdHere(500);
    l.holdHere(-Infinity);
    expect(l.waitFor(1, 300)).toBe(700);
    expect(l.snapshot().pausedUntil).toBe(1000);
  });

  it('restores from a snapshot to the same decisions', () => {
    const l = new WindowLimit({ name: 'x', limit: 5, windowMs: 1000, reserve: { priority: 1, weight: 1 } });
    l.take(2, 10);
    l.take(1, 300);
    l.shrink(1, 900, 400);
    const copy = WindowLimit.restore(JSON.parse(JSON.stringify(l.snapshot())));
    for (const at of [400, 800, 1009, 1010, 1300]) expect(copy.waitFor(1, at)).toBe(l.waitFor(1, at));
    expect(copy.snapshot()).toEqual(l.snapshot());
  });

  it('refuses bad options with the field named', () => {
    expect(() => new WindowLimit({ limit: 0, windowMs: 1000 })).toThrow(
      'Expected `limit` of limit to be a positive integer, got 0',
    );
    expect(() => new WindowLimit({ name: 'w', limit: 1, windowMs: -1 })).toThrow('`windowMs` of w');
    expect(() => new WindowLimit({ limit: 1, windowMs: 10, maxWindowMs: 5 })).toThrow('`maxWindowMs`');
    expect(() => new WindowLimit({ limit: 5, windowMs: 10, reserve: { priority: 1, weight: 5 } })).toThrow(
      '`reserve.weight`',
    );
    expect(() => new WindowLimit({ limit: 5, windowMs: 10, marginMs: Number.NaN })).toThrow('`marginMs`');
    const l = new WindowLimit({ limit: 5, windowMs: 10 });
    expect(() => l.update({ limit: 1.5 })).toThrow('`limit`');
    expect(l.limit).toBe(5);
  });
});

describe('WindowLimit snapshot of a pause without end', () => {
  it('keeps a limit paused until Infinity paused after a JSON round trip of its snapshot', () => {
    const l = new WindowLimit({ name: 'x', limit: 5, windowMs: 1000 });
    l.pause(Infinity);
    const state = JSON.parse(JSON.stringify(l.snapshot())) as WindowLimitState;
    expect(state.pausedUntil).toBe('forever');
    const back = WindowLimit.restore(state);
    expect(back.waitFor(1, 1e12)).toBe(Infinity);
    expect(back.snapshot()).toEqual(l.snapshot());
  });
});

describe('WindowLimit merging of close dispatches', () => {
  it('lets a steady stream at half the limit through without a refusal (an entry spans one granule from its first instant)', () => {
    // 10,000 per 1 s, one every 0.2 ms: merging on the gap to the last instant pushed one entry
    // forward for ever and refused a fifth of these.
    const l = new WindowLimit({ limit: 10_000, windowMs: 1000 });
    let refused = 0;
    for (let i = 0; i < 25_000; i++) if (waitOf(l.tryTake(1, i * 0.2)) !== 0) refused++;
    expect(refused).toBe(0);
    expect(l.usedAt(25_000 * 0.2)).toBeLessThanOrEqual(5000 + Math.ceil(1000 / 1024 / 0.2));
  });

  it('counts a merged entry at its last instant, and starts a new one a granule after the first', () => {
    const l = new WindowLimit({ limit: 100, windowMs: 1024 }); // a granule of 1 ms
    for (const t of [0, 0.25, 0.5, 0.75, 1, 1.25]) l.take(1, t);
    expect(l.snapshot().entries).toEqual([
      [0.75, 4],
      [1.25, 2],
    ]);
  });
});

describe('WindowLimit input', () => {
  it('refuses a weight that is not a positive integer, and an instant or priority that is not a finite number, taking nothing', () => {
    const l = new WindowLimit({ name: 'x', limit: 5, windowMs: 1000 });
    waitOf(l.tryTake(2, 0));
    const before = l.snapshot();
    const cases: [() => unknown, string][] = [
      [() => waitOf(l.tryTake(-100, 1)), '`weight` of x'],
      [() => waitOf(l.tryTake(0, 1)), '`weight` of x'],
      [() => waitOf(l.tryTake(1.5, 1)), '`weight` of x'],
      [() => waitOf(l.tryTake('2' as never, 1)), '`weight` of x'],
      [() => waitOf(l.tryTake(Number.NaN, 1)), '`weight` of x'],
      [() => waitOf(l.tryTake(1, Number.NaN)), '`at` of x'],
      [() => waitOf(l.tryTake(1, '5' as never)), '`at` of x'],
      [() => waitOf(l.tryTake(1, Infinity)), '`at` of x'],
      [() => waitOf(l.tryTake(1, 1, Number.NaN)), '`priority` of x'],
      [() => l.take(-1, 1), '`weight` of x'],
      [() => l.take(1, Number.NaN), '`at` of x'],
    ];
    for (const [call, field] of cases) {
      expect(call).toThrow(InvalidInputError);
      try {
        call();
      } catch (e) {
        expect((e as InvalidInputError).field).toBe(field.replaceAll('`', ''));
      }
    }
    expect(l.snapshot()).toEqual(before);
    expect(waitOf(l.tryTake(3, 1))).toBe(0);
    expect(waitOf(l.tryTake(1, 2))).toBe(998);
  });
});

describe('WindowLimit.restore of a bad state', () => {
  const good = (): WindowLimitState =>
    JSON.parse(JSON.stringify(new WindowLimit({ name: 'x', limit: 5, windowMs: 1000 }).snapshot())) as WindowLimitState;
  const cases: [string, (s: WindowLimitState) => unknown, string][] = [
    [
      'a negative weight, which would let 55 through a limit of 5',
      (s) => ({ ...s, entries: [[100, -50]] }),
      '`entries[0][1]` of the limit state',
    ],
    ['a NaN instant', (s) => ({ ...s, entries: [[Number.NaN, 1]] }), '`entries[0][0]` of the limit state'],
    [
      'entries out of order',
      (s) => ({
        ...s,
        entries: [
          [100, 1],
          [50, 1],
        ],
      }),
      '`entries[1][0]` of the limit state',
    ],
    ['a fractional weight', (s) => ({ ...s, entries: [[100, 0.5]] }), '`entries[0][1]` of the limit state'],
    ['entries that are not an array', (s) => ({ ...s, entries: { 0: [1, 1] } }), '`entries` of the limit state'],
    ['an entry that is not a pair', (s) => ({ ...s, entries: [[1, 1, 1]] }), '`entries[0]` of the limit state'],
    ['an entry of text', (s) => ({ ...s, entries: [['1', 1]] }), '`entries[0]` of the limit state'],
    ['a hold of negative weight', (s) => ({ ...s, holds: [[-3, 500]] }), '`holds[0][0]` of the limit state'],
    ['a hold without end', (s) => ({ ...s, holds: [[3, Number.NaN]] }), '`holds[0][1]` of the limit state'],
    ['holds that are not an array', (s) => ({ ...s, holds: null }), '`holds` of the limit state'],
    ['a NaN pause', (s) => ({ ...s, pausedUntil: Number.NaN }), '`pausedUntil` of the limit state'],
    ['a pause of text', (s) => ({ ...s, pausedUntil: 'later' }), '`pausedUntil` of the limit state'],
    ['no state', () => null, 'the limit state'],
  ];
  for (const [what, spoil, field] of cases) {
    it(`refuses ${what}, naming the field`, () => {
      let error: unknown;
      try {
        WindowLimit.restore(spoil(good()) as WindowLimitState);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).field).toBe(field.replaceAll('`', ''));
    });
  }

  it('restores each entry as it was, without merging it with the one before', () => {
    const l = new WindowLimit({ limit: 100, windowMs: 1024 }); // a granule of 1 ms
    for (const t of [0, 0.75, 1, 1.5]) l.take(1, t);
    const state = l.snapshot();
    expect(state.entries).toEqual([
      [0.75, 2],
      [1.5, 2],
    ]);
    const back = WindowLimit.restore(state);
    expect(back.snapshot()).toEqual(state);
    back.take(1, 1.75); // within a granule of the last restored instant: an entry of its own
    expect(back.snapshot().entries).toEqual([
      [0.75, 2],
      [1.5, 2],
      [1.75, 1],
    ]);
  });
});
