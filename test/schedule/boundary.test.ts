// A change of limits due at an instant is applied before anything is let through past it, even
// when the timer meant for it fires late.
import { describe, expect, it } from 'vitest';
import { AccountLimiter, type LimiterEvent } from '../../src/account/limiter.js';
import type { Clock } from '../../src/schedule/clock.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import { waitOf } from './wait.js';

describe('Scheduler.setBoundary', () => {
  it('applies the change before a task given at or after the instant is decided', async () => {
    const clock = new VirtualClock();
    const s = new Scheduler({ clock });
    const limit = s.limit({ name: 'place', limit: 10, windowMs: 1000 });
    for (let i = 0; i < 5; i++) await s.schedule(() => undefined, { limits: [limit] });
    let applied = 0;
    s.setBoundary(100, () => {
      applied++;
      limit.update({ limit: 5 });
    });
    await clock.advanceTo(99.9);
    let ran = false;
    await s.schedule(
      () => {
        ran = true;
      },
      { limits: [limit] },
    );
    expect(ran).toBe(true);
    expect(applied).toBe(0);
    // No timer of the scheduler's fires at 100: the next decision applies it first.
    await clock.advanceTo(100);
    ran = false;
    const queued = s
      .schedule(
        () => {
          ran = true;
        },
        { limits: [limit] },
      )
      .catch((e: unknown) => e);
    expect(applied).toBe(1);
    expect(ran).toBe(false);
    s.close();
    expect(await queued).toMatchObject({ reason: 'closed' });
  });

  it('applies it before tryAcquire decides, once', () => {
    const clock = new VirtualClock();
    const s = new Scheduler({ clock });
    const limit = s.limit({ name: 'place', limit: 3, windowMs: 1000 });
    expect(waitOf(s.tryAcquire(limit, 1, 0, 0))).toBe(0);
    let applied = 0;
    s.setBoundary(50, () => {
      applied++;
      limit.update({ limit: 1 });
    });
    expect(waitOf(s.tryAcquire(limit, 1, 0, 49))).toBe(0);
    expect(waitOf(s.tryAcquire(limit, 1, 0, 50))).toBeGreaterThan(0);
    expect(waitOf(s.tryAcquire(limit, 1, 0, 60))).toBeGreaterThan(0);
    expect(applied).toBe(1);
  });

  it('is removed by null and replaced by a later call', () => {
    const clock = new VirtualClock();
    const s = new Scheduler({ clock });
    const limit = s.limit({ name: 'place', limit: 3, windowMs: 1000 });
    const calls: string[] = [];
    s.setBoundary(10, () => calls.push('first'));
    s.setBoundary(20, () => calls.push('second'));
    waitOf(s.tryAcquire(limit, 1, 0, 15));
    waitOf(s.tryAcquire(limit, 1, 0, 25));
    s.setBoundary(30, () => calls.push('third'));
    s.setBoundary(0, null);
    waitOf(s.tryAcquire(limit, 1, 0, 35));
    expect(calls).toEqual(['second']);
  });
});

describe('AccountLimiter: a throttle at the hour with every timer late', () => {
  it("lets no placement through past the throttle's start, one window before the hour, before it is in force", async () => {
    const H = 3_600_000;
    const hour = Date.parse('2026-11-02T09:00:00Z');
    // The throttle's window is 10 s: it starts 10 s before the hour (see docs/rules.md#r15).
    const start = hour - 10_000;
    const virtual = new VirtualClock({ start: 0, wallStart: start - 2000 });
    // Every timer fires 300 ms late, as on a process too busy to run it on time.
    const late: Clock = {
      now: () => virtual.now(),
      wall: () => virtual.wall(),
      setTimer: (fn, ms) => virtual.setTimer(fn, ms + 300),
      clearTimer: (t) => virtual.clearTimer(t),
    };
    const limiter = new AccountLimiter({
      accounts: [{ id: 'main', role: 'main' }],
      clock: late,
      exchangeClock: 'local',
    });
    limiter.seed({
      days: [
        {
          account: 'main',
          day: '2026-11-01',
          contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }],
        },
      ],
      hours: [{ account: 'main', hour: hour - H, requests: 86_401 }],
    });
    const events: LimiterEvent[] = [];
    limiter.on((e) => events.push(e));
    expect(limiter.limitNow('main').throttle).toBeNull();
    const sent: number[] = [];
    const place = () =>
      limiter
        .request(
          'main',
          'POST',
          '/futures/usdt/orders',
          () => {
            sent.push(virtual.wall());
          },
          { body: { contract: 'BTC_USDT', size: 1 } },
        )
        .catch(() => undefined);
    // A steady stream of placements, one every 10 ms, across the hour.
    for (let t = 0; t < 4000; t += 10) {
      void place();
      await virtual.advanceTo(t + 10);
    }
    expect(limiter.limitNow('main').throttle).not.toBeNull();
    const after = sent.filter((at) => at >= start);
    // The throttle (10 or 20 per 10 s) counts the 10 s before its start, when placements went out
    // every 10 ms: nothing more may go out in the first 10 s past it.
    expect(sent.filter((at) => at < start).length).toBeGreaterThan(100);
    expect(after).toEqual([]);
    limiter.close();
  });
});
