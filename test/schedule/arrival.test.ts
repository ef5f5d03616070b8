// R13: the exchange counts arrivals. A limit told when a request reached the exchange counts it
// until one window after that; the delay beyond the quickest is read from gateway times.
import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { InvalidInputError } from '../../src/errors.js';
import { ArrivalDelay } from '../../src/schedule/arrival-delay.js';
import { VirtualClock } from '../../src/schedule/clock.js';
import { WindowLimit } from '../../src/schedule/window.js';

describe('WindowLimit.extend', () => {
  it('counts a request until one window after it arrived, not after it was sent', () => {
    const l = new WindowLimit({ limit: 2, windowMs: 1000 });
    expect(l.tryTake(1, 0)).toBe(0);
    expect(l.tryTake(1, 10)).toBe(0);
    l.extend(1, 0, 30);
    l.extend(1, 10, 20);
    // Both left the log by 1010, but reached the exchange at 30 and 20: they count until 1030 and 1020.
    expect(l.waitFor(1, 1010)).toBe(10);
    expect(l.waitFor(2, 1010)).toBe(20);
    expect(l.usedAt(1019.9)).toBe(2);
    expect(l.usedAt(1020)).toBe(1);
    expect(l.usedAt(1030)).toBe(0);
    expect(l.tryTake(1, 1020)).toBe(0);
  });

  it('changes nothing for an arrival at or before the send instant', () => {
    const l = new WindowLimit({ limit: 1, windowMs: 1000 });
    l.tryTake(1, 0);
    l.extend(1, 0, 0);
    l.extend(1, 0, -5);
    expect(l.waitFor(1, 1000)).toBe(0);
    expect(l.snapshot().holds).toEqual([]);
  });

  it('does not count twice while the log still counts the request', () => {
    const l = new WindowLimit({ limit: 2, windowMs: 1000 });
    l.tryTake(1, 0);
    l.extend(1, 0, 500);
    expect(l.usedAt(999)).toBe(1);
    expect(l.usedAt(1000)).toBe(1);
    expect(l.usedAt(1499)).toBe(1);
    expect(l.usedAt(1500)).toBe(0);
  });

  it('extends a hold already made (a quicker way there shown later)', () => {
    const l = new WindowLimit({ limit: 1, windowMs: 1000 });
    l.tryTake(1, 0);
    l.extend(1, 0, 10);
    l.extend(1, 10, 40);
    expect(l.usedAt(1039)).toBe(1);
    expect(l.waitFor(1, 1000)).toBe(40);
  });

  it('joins requests sent and arriving together into one hold; apart, they stay apart', () => {
    const l = new WindowLimit({ limit: 100, windowMs: 1000 });
    for (let i = 0; i < 10; i++) l.tryTake(1, 0);
    for (let i = 0; i < 10; i++) l.extend(1, 0, 20 + i * 0.1);
    expect(l.snapshot().holds).toHaveLength(1);
    expect(l.snapshot().holds[0]![0]).toBe(10);
    l.extend(1, 0, 500);
    expect(l.snapshot().holds).toHaveLength(2);
  });

  it('refuses a bad weight or instant, naming it, and changes nothing', () => {
    const l = new WindowLimit({ name: 'orders', limit: 1, windowMs: 1000 });
    expect(() => l.extend(0, 0, 10)).toThrow(InvalidInputError);
    expect(() => l.extend(1, Number.NaN, 10)).toThrow(/orders/);
    expect(() => l.extend(1, 0, Number.POSITIVE_INFINITY)).toThrow(InvalidInputError);
    expect(l.snapshot().holds).toEqual([]);
  });

  it('keeps the margin: the hold ends one window plus the margin after the arrival', () => {
    const l = new WindowLimit({ limit: 1, windowMs: 1000, marginMs: 5 });
    l.tryTake(1, 0);
    l.extend(1, 0, 20);
    expect(l.waitFor(1, 1000)).toBe(25);
  });
});

describe('ArrivalDelay', () => {
  it('gives each sample over the smallest of the recent ones', () => {
    const d = new ArrivalDelay(3);
    expect(d.add(100)).toBe(0);
    expect(d.add(105)).toBe(5);
    expect(d.add(99)).toBe(0);
    expect(d.add(120)).toBe(21);
    expect(d.add(110)).toBe(11);
    // 99 is now 4 samples old: the smallest of the last 3 is 110.
    expect(d.add(130)).toBe(20);
    expect(d.add(115)).toBe(5);
  });

  it('follows a way there that got slower once the quick samples are old', () => {
    const d = new ArrivalDelay(4);
    d.add(1);
    for (let i = 0; i < 3; i++) d.add(50);
    expect(d.add(50)).toBe(0);
  });
});

describe('AccountLimiter.arrived', () => {
  const WALL = Date.parse('2026-11-02T09:00:00Z');
  const place = { method: 'POST', path: '/futures/usdt/orders', body: { contract: 'BTC_USDT', size: 1 } };
  const cancel = { method: 'DELETE', path: '/futures/usdt/orders/1' };
  /**
   * A limiter whose clock and the exchange's agree, with its whole placement limit sent at 0.
   * `answer(request, sentMono, delay, back)` says a request sent at `sentMono` reached the
   * exchange `delay` ms later and its answer came back `back` ms after that.
   */
  async function setup() {
    const clock = new VirtualClock({ start: 0, wallStart: WALL });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    const n = limiter.limitNow('main').limit;
    for (let i = 0; i < n; i++) void limiter.request('main', place.method, place.path, () => undefined, { body: place.body });
    await Promise.resolve();
    const answer = (request: typeof place | typeof cancel, sentMono: number, delay: number, back = 1) => {
      const inTime = Math.round((WALL + sentMono + delay) * 1000);
      return limiter.arrived('main', request, {
        sentAt: WALL + sentMono, sentMono, receivedAt: WALL + sentMono + delay + back, receivedMono: sentMono + delay + back,
        headers: { 'X-In-Time': String(inTime), 'X-Out-Time': String(inTime + 500) },
      });
    };
    /** When the next placement is sent, advancing the clock by `step` until it is. */
    const nextPlacement = async (until: number, step = 0.5) => {
      let sentAt = -1;
      void limiter.request('main', place.method, place.path, () => { sentAt = clock.now(); }, { body: place.body });
      while (sentAt < 0 && clock.now() < until) await clock.advanceTo(clock.now() + step);
      return sentAt;
    };
    return { clock, limiter, n, answer, nextPlacement };
  }

  it('counts requests slower than the quickest until one window after they reached the exchange', async () => {
    const { limiter, n, answer, nextPlacement } = await setup();
    expect(answer(cancel, 0, 2)).toEqual({ accepted: true });
    for (let i = 0; i < n; i++) answer(place, 0, 40);
    // 38 ms slower than the quickest way there: the exchange counts them until 1038 at the latest.
    expect(await nextPlacement(2000)).toBe(1038);
    limiter.close();
  });

  it('counts every placement from its send instant when all took the quickest way', async () => {
    const { limiter, n, answer, nextPlacement } = await setup();
    answer(cancel, 0, 2);
    for (let i = 0; i < n; i++) answer(place, 0, 2);
    expect(await nextPlacement(2000)).toBe(1000);
    limiter.close();
  });

  it('counts the answers before again when a quicker way there shows', async () => {
    const { limiter, n, answer, nextPlacement } = await setup();
    for (let i = 0; i < n; i++) answer(place, 0, 30);
    // Quicker by 25 ms: every placement reached the exchange 25 ms later than thought.
    answer(cancel, 0, 5);
    expect(await nextPlacement(2000)).toBe(1025);
    limiter.close();
  });

  it('never puts an arrival after the answer came back (a step of the local wall clock)', async () => {
    const { limiter, n, answer, nextPlacement } = await setup();
    answer(cancel, 0, 2);
    // The local wall clock stepped back 30 ms: by it each placement took 30 ms longer on its way
    // than the quickest, but its answer was back 3 ms after it was sent (on the monotonic clock).
    for (let i = 0; i < n; i++) {
      const inTime = (WALL + 2) * 1000;
      const outcome = limiter.arrived('main', place, { sentAt: WALL - 30, sentMono: 0, receivedAt: WALL - 27, receivedMono: 3, headers: { 'X-In-Time': String(inTime), 'X-Out-Time': String(inTime + 500) } });
      expect(outcome).toEqual({ accepted: true });
    }
    expect(await nextPlacement(2000)).toBe(1003);
    limiter.close();
  });

  it('counts nothing for an answer without gateway times, and refuses bad input unchanged', async () => {
    const { clock, limiter, nextPlacement } = await setup();
    expect(limiter.arrived('main', place, { sentAt: clock.wall(), receivedAt: clock.wall() + 5, headers: {} })).toEqual({ accepted: false, reason: 'no-gateway-times' });
    expect(() => limiter.arrived('nobody', place, { sentAt: 0, receivedAt: 1, inTime: 0, outTime: 0 })).toThrow(/nobody/);
    expect(() => limiter.arrived('main', { method: 'POST' } as never, { sentAt: 0, receivedAt: 1, inTime: 0, outTime: 0 })).toThrow(InvalidInputError);
    expect(() => limiter.arrived('main', place, null as never)).toThrow(InvalidInputError);
    expect(limiter.clockEstimate()).toBeNull();
    expect(await nextPlacement(2000)).toBe(1000);
    limiter.close();
  });
});

describe('lowerings ahead of the way there (R15, R13)', () => {
  it('ArrivalDelay keeps the largest recent sample too', () => {
    const d = new ArrivalDelay(3);
    expect(d.max).toBe(-Infinity);
    d.add(100);
    d.add(105);
    d.add(99);
    expect(d.max).toBe(105);
    d.add(101);
    d.add(98);
    // 105 is now 4 samples old.
    expect(d.max).toBe(101);
  });

  it('applies an abuse throttle early by the slowest way there, so nothing sent before it arrives after it', async () => {
    const hour = Date.parse('2026-11-02T09:00:00Z');
    const clock = new VirtualClock({ start: 0, wallStart: hour - 10_000 });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    limiter.seed({ days: [{ account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }] }], hours: [{ account: 'main', hour: hour - 3_600_000, requests: 86_401 }] });
    const place = { method: 'POST', path: '/futures/usdt/orders', body: { contract: 'BTC_USDT', size: 1 } };
    // Answers whose requests took 300 ms to the exchange and 1 ms back, on clocks that agree: the
    // estimate puts the exchange's clock 149.5 ms ahead within 152.5 ms (it cannot tell the two
    // ways apart), and the slowest way there 150.5 ms beyond that: 452 ms in all.
    for (let i = 0; i < 5; i++) {
      const sent = clock.wall();
      const inTime = (sent + 300) * 1000;
      limiter.arrived('main', place, { sentAt: sent, sentMono: clock.now(), receivedAt: sent + 301, receivedMono: clock.now() + 301, headers: { 'X-In-Time': String(inTime), 'X-Out-Time': String(inTime) } });
      await clock.advanceTo(clock.now() + 400);
    }
    await clock.advanceTo(10_000 - 470);
    expect(limiter.limitNow('main').throttle).toBeNull();
    // A request sent 400 ms before 09:00 may reach the exchange after it: the throttle is in force
    // (the clock's offset and error bound alone would wait until 302 ms before).
    await clock.advanceTo(10_000 - 400);
    expect(limiter.limitNow('main').throttle).not.toBeNull();
    limiter.close();
  });
});
