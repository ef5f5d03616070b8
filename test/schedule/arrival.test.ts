// The arrival window (see docs/rules.md#r13): the exchange counts arrivals. A limit told when a request reached the exchange counts it
// until one window after that; the delay beyond the quickest is read from gateway times.
import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { InvalidInputError } from '../../src/errors.js';
import { ArrivalDelay } from '../../src/schedule/arrival-delay.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { WindowLimit } from '../../src/schedule/window.js';
import { SlidingCount } from '../../src/model-exchange/sliding-count.js';
import { waitOf } from './wait.js';

describe('WindowLimit.extend', () => {
  it('counts a request until one window after it arrived, not after it was sent', () => {
    const l = new WindowLimit({ limit: 2, windowMs: 1000 });
    expect(waitOf(l.tryTake(1, 0))).toBe(0);
    expect(waitOf(l.tryTake(1, 10))).toBe(0);
    l.extend(1, 0, 30);
    l.extend(1, 10, 20);
    // Both left the log by 1010, but reached the exchange at 30 and 20: they count until 1030 and 1020.
    expect(l.waitFor(1, 1010)).toBe(10);
    expect(l.waitFor(2, 1010)).toBe(20);
    expect(l.usedAt(1019.9)).toBe(2);
    expect(l.usedAt(1020)).toBe(1);
    expect(l.usedAt(1030)).toBe(0);
    expect(waitOf(l.tryTake(1, 1020))).toBe(0);
  });

  it('changes nothing for an arrival at or before the send instant', () => {
    const l = new WindowLimit({ limit: 1, windowMs: 1000 });
    waitOf(l.tryTake(1, 0));
    l.extend(1, 0, 0);
    l.extend(1, 0, -5);
    expect(l.waitFor(1, 1000)).toBe(0);
    expect(l.snapshot().holds).toEqual([]);
  });

  it('does not count twice while the log still counts the request', () => {
    const l = new WindowLimit({ limit: 2, windowMs: 1000 });
    waitOf(l.tryTake(1, 0));
    l.extend(1, 0, 500);
    expect(l.usedAt(999)).toBe(1);
    expect(l.usedAt(1000)).toBe(1);
    expect(l.usedAt(1499)).toBe(1);
    expect(l.usedAt(1500)).toBe(0);
  });

  it('extends a hold already made (a quicker way there shown later)', () => {
    const l = new WindowLimit({ limit: 1, windowMs: 1000 });
    waitOf(l.tryTake(1, 0));
    l.extend(1, 0, 10);
    l.extend(1, 10, 40);
    expect(l.usedAt(1039)).toBe(1);
    expect(l.waitFor(1, 1000)).toBe(40);
  });

  it('joins requests sent and arriving together into one hold; apart, they stay apart', () => {
    const l = new WindowLimit({ limit: 100, windowMs: 1000 });
    for (let i = 0; i < 10; i++) waitOf(l.tryTake(1, 0));
    for (let i = 0; i < 10; i++) l.extend(1, 0, 20 + i * 0.1);
    expect(l.snapshot().holds).toHaveLength(1);
    expect(l.snapshot().holds[0]![0]).toBe(10);
    l.extend(1, 0, 500);
    expect(l.snapshot().holds).toHaveLength(2);
  });

  it('lets go of the holds that ended as it takes and hears of arrivals, without being asked how long to wait', () => {
    // As a shared limit keeps its own count: it takes, hears of arrivals and is asked what it
    // used, while Redis says how long to wait.
    const l = new WindowLimit({ limit: 100, windowMs: 1000 });
    for (let i = 0; i < 600; i++) {
      const t = i * 100;
      l.take(1, t);
      l.extend(1, t, t + 30);
    }
    // A hold ends a window and 30 ms after its send: eleven have not ended at 59,900.
    expect(l.snapshot().holds.map(([, until]) => until)).toEqual(
      Array.from({ length: 11 }, (_, k) => 58_900 + k * 100 + 1030),
    );
    // At 59,901: the ten sent from 59,000 in the log, and the one sent at 58,900 held.
    expect(l.usedAt(59_901)).toBe(11);
    expect(l.usedAt(59_931)).toBe(10);
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
    waitOf(l.tryTake(1, 0));
    l.extend(1, 0, 20);
    expect(l.waitFor(1, 1000)).toBe(25);
  });
});

describe('ArrivalDelay', () => {
  it('gives each sample over the smallest of those of the last horizon', () => {
    const d = new ArrivalDelay(512, 1000);
    expect(d.add(100, 0)).toBe(0);
    expect(d.add(105, 100)).toBe(5);
    expect(d.add(99, 200)).toBe(0);
    expect(d.add(120, 300)).toBe(21);
    expect(d.add(110, 1100)).toBe(11);
    // 99 came at 200: at 1200 it is a horizon old, and the smallest since is 110.
    expect(d.add(130, 1200)).toBe(20);
    expect(d.add(115, 1250)).toBe(5);
  });

  it('keeps the quickest for the horizon however many samples come meanwhile', () => {
    const d = new ArrivalDelay(4, 60_000);
    d.add(2, 0);
    // 3 s of a way 30 ms slower at 250 answers a second: 750 samples, far more than `size`.
    for (let i = 1; i <= 750; i++) expect(d.add(32, i * 4)).toBe(30);
    expect(d.add(2, 3004)).toBe(0);
  });

  it('follows a way there that got slower once the quick samples are a horizon old', () => {
    const d = new ArrivalDelay(4, 60_000);
    d.add(1, 0);
    expect(d.add(50, 59_999)).toBe(49);
    expect(d.add(50, 60_000)).toBe(0);
  });

  it('drops candidates a horizon old while the way there gets slower for long', () => {
    const d = new ArrivalDelay(4, 1000);
    for (let i = 0; i < 100_000; i++) d.add(i, i);
    // At 100,000 the samples of 99,000 and before are a horizon old: the smallest left is 99,001.
    expect(d.add(99_999, 100_000)).toBe(998);
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
  async function setup(arrivals: 'answers' | 'estimate' = 'estimate') {
    const clock = new VirtualClock({ start: 0, wallStart: WALL });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, arrivals });
    const n = limiter.limitNow('main').limit;
    for (let i = 0; i < n; i++)
      void limiter.request('main', place.method, place.path, () => undefined, { body: place.body });
    await Promise.resolve();
    const answer = (request: typeof place | typeof cancel, sentMono: number, delay: number, back = 1) => {
      const inTime = Math.round((WALL + sentMono + delay) * 1000);
      return limiter.arrived('main', request, {
        sentAt: WALL + sentMono,
        sentMono,
        receivedAt: WALL + sentMono + delay + back,
        receivedMono: sentMono + delay + back,
        headers: { 'X-In-Time': String(inTime), 'X-Out-Time': String(inTime + 500) },
      });
    };
    /** When the next placement is sent, advancing the clock by `step` until it is. */
    const nextPlacement = async (until: number, step = 0.5) => {
      let sentAt = -1;
      void limiter.request(
        'main',
        place.method,
        place.path,
        () => {
          sentAt = clock.now();
        },
        { body: place.body },
      );
      while (sentAt < 0 && clock.now() < until) await clock.advanceTo(clock.now() + step);
      return sentAt;
    };
    return { clock, limiter, n, answer, nextPlacement };
  }

  it('by default counts each until one window after its answer, less the gateway time', async () => {
    const { limiter, n, answer, nextPlacement } = await setup('answers');
    // Every answer back at 41, 0.5 ms of it spent in the gateway (0.499 at least, by stamps of whole
    // microseconds): each may have arrived as late as 40.501.
    for (let i = 0; i < n; i++) answer(place, 0, 40);
    expect(await nextPlacement(2000)).toBe(1040.501);
    limiter.close();
  });

  it('by default frees the first slot with the quickest answer, whatever the others say', async () => {
    const { limiter, n, answer, nextPlacement } = await setup('answers');
    for (let i = 0; i < n; i++) answer(place, 0, i === 0 ? 2 : 40);
    expect(await nextPlacement(2000)).toBe(1002.501);
    limiter.close();
  });

  it('with the estimate, counts requests slower than the quickest until one window after they reached the exchange', async () => {
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
      const outcome = limiter.arrived('main', place, {
        sentAt: WALL - 30,
        sentMono: 0,
        receivedAt: WALL - 27,
        receivedMono: 3,
        headers: { 'X-In-Time': String(inTime), 'X-Out-Time': String(inTime + 500) },
      });
      expect(outcome).toEqual({ accepted: true });
    }
    expect(await nextPlacement(2000)).toBe(1003);
    limiter.close();
  });

  it('counts nothing for an answer without gateway times, and refuses bad input unchanged', async () => {
    const { clock, limiter, nextPlacement } = await setup();
    expect(limiter.arrived('main', place, { sentAt: clock.wall(), receivedAt: clock.wall() + 5, headers: {} })).toEqual(
      { accepted: false, reason: 'no-gateway-times' },
    );
    expect(() => limiter.arrived('nobody', place, { sentAt: 0, receivedAt: 1, inTime: 0, outTime: 0 })).toThrow(
      /nobody/,
    );
    expect(() =>
      limiter.arrived('main', { method: 'POST' } as never, { sentAt: 0, receivedAt: 1, inTime: 0, outTime: 0 }),
    ).toThrow(InvalidInputError);
    expect(() => limiter.arrived('main', place, null as never)).toThrow(InvalidInputError);
    expect(limiter.clockEstimate()).toBeNull();
    expect(await nextPlacement(2000)).toBe(1000);
    limiter.close();
  });
});

describe('a change of route (see docs/rules.md#r13)', () => {
  /**
   * 16 placements in flight at tier 4 (250 a second), each reaching the exchange `route(sent)` ms
   * after it was sent and answered 1 ms later, the exchange counting arrivals over a sliding
   * second: the answers 429 and the placements accepted in `runMs`.
   */
  async function run(route: (sent: number) => number, runMs: number) {
    const WALL = Date.parse('2026-11-02T09:00:00Z');
    const clock = new VirtualClock({ start: 0, wallStart: WALL });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    const updated_at = String(Math.floor(WALL / 1000));
    limiter.reportRateLimit('main', [{ type: 'futures', tier: '4', ratio: '8.19', main_ratio: '8.19', updated_at }]);
    const n = limiter.limitNow('main').limit;
    const exchange = new SlidingCount(n);
    const place = { method: 'POST', path: '/futures/usdt/orders', body: { contract: 'BTC_USDT', size: 1 } };
    let tooMany = 0;
    let accepted = 0;
    const one = async (): Promise<void> => {
      let sentMono = 0;
      const delay = await limiter.request(
        'main',
        place.method,
        place.path,
        () => {
          sentMono = clock.now();
          const d = route(sentMono);
          return new Promise<number>((resolve) => clock.setTimer(() => resolve(d), d + 1));
        },
        { body: place.body },
      );
      const arrivedAt = sentMono + delay;
      if (exchange.fits(arrivedAt, 1, n, 1000)) {
        exchange.add(arrivedAt, 1);
        accepted++;
      } else tooMany++;
      const inTime = Math.round((WALL + arrivedAt) * 1000);
      limiter.arrived('main', place, {
        sentAt: WALL + sentMono,
        sentMono,
        receivedAt: WALL + arrivedAt + 1,
        receivedMono: arrivedAt + 1,
        headers: { 'X-In-Time': String(inTime), 'X-Out-Time': String(inTime + 100) },
      });
    };
    const workers = Array.from({ length: 16 }, async () => {
      while (clock.now() < runMs) await one();
    });
    await clock.advanceTo(runMs + 1000);
    await Promise.all(workers);
    limiter.close();
    return { tooMany, accepted, most: exchange.most };
  }

  it('gives no 429 when the way there is 30 ms slower for 3 s, then quick again', async () => {
    const r = await run((sent) => (sent >= 4000 && sent < 7000 ? 32 : 2), 10_000);
    expect(r.tooMany).toBe(0);
    expect(r.most).toBeLessThanOrEqual(250);
    // The slow seconds count each placement 30 ms longer: about 3% of those 3 s, and no more.
    expect(r.accepted).toBeGreaterThan(0.95 * 250 * 10);
  });
});

describe('lowerings ahead of the way there (see docs/rules.md#r15, #r13)', () => {
  it('ArrivalDelay keeps the largest of the last `size` samples too', () => {
    const d = new ArrivalDelay(3);
    expect(d.max).toBe(-Infinity);
    d.add(100, 0);
    d.add(105, 1);
    d.add(99, 2);
    expect(d.max).toBe(105);
    d.add(101, 3);
    d.add(98, 4);
    // 105 is now 4 samples old.
    expect(d.max).toBe(101);
  });

  it('applies an abuse throttle one window early, and earlier by the slowest way there', async () => {
    const hour = Date.parse('2026-11-02T09:00:00Z');
    const clock = new VirtualClock({ start: 0, wallStart: hour - 20_000 });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    limiter.seed({
      days: [
        {
          account: 'main',
          day: '2026-11-01',
          contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }],
        },
      ],
      hours: [{ account: 'main', hour: hour - 3_600_000, requests: 86_401 }],
    });
    const place = { method: 'POST', path: '/futures/usdt/orders', body: { contract: 'BTC_USDT', size: 1 } };
    // Answers whose requests took 300 ms to the exchange and 1 ms back, on clocks that agree: the
    // estimate puts the exchange's clock 149.5 ms ahead within 152.5 ms (it cannot tell the two
    // ways apart), and the slowest way there 150.5 ms beyond that: 452 ms in all.
    for (let i = 0; i < 5; i++) {
      const sent = clock.wall();
      const inTime = (sent + 300) * 1000;
      limiter.arrived('main', place, {
        sentAt: sent,
        sentMono: clock.now(),
        receivedAt: sent + 301,
        receivedMono: clock.now() + 301,
        headers: { 'X-In-Time': String(inTime), 'X-Out-Time': String(inTime) },
      });
      await clock.advanceTo(clock.now() + 400);
    }
    // The throttle's window is 10 s: it is in force from 10 s before 09:00, and earlier still by the
    // way there, 400 ms (the clock's offset and error bound alone would wait until 302 ms before).
    await clock.advanceTo(10_000 - 470);
    expect(limiter.limitNow('main').throttle).toBeNull();
    await clock.advanceTo(10_000 - 400);
    expect(limiter.limitNow('main').throttle).not.toBeNull();
    limiter.close();
  });
});
