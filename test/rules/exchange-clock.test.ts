import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { type ClockSample, ExchangeClock } from '../../src/rules/exchange-clock.js';
import { jitter, monoAt, sample } from './clock-world.js';

const SEVEN = Date.parse('2026-11-21T07:00:00Z');
const EIGHT = Date.parse('2026-11-21T08:00:00Z');
const MIDNIGHT = Date.parse('2026-11-22T00:00:00Z');

function take(clock: ExchangeClock, s: ClockSample): ExchangeClock {
  const outcome = clock.add(s);
  if (!outcome.accepted) throw new Error(`sample refused: ${outcome.reason}`);
  return outcome.clock;
}

/** A clock fed `n` requests a second apart from `from`, with jittered legs. */
/** `n` requests a second apart from 07:00, with jittered legs of 2 to 40 ms. */
function requests(offsetMs: number, n: number, mono = false): ClockSample[] {
  const leg = jitter(n, 2, 40);
  return Array.from({ length: n }, (_, i) =>
    sample(offsetMs, { at: SEVEN + i * 1000, up: leg(), gateway: 1.5, down: leg() }, { mono }),
  );
}

function fed(offsetMs: number, n: number, options: { mono?: boolean } = {}): ExchangeClock {
  return requests(offsetMs, n, options.mono).reduce(take, new ExchangeClock());
}

describe('ExchangeClock (see docs/rules.md#r15)', () => {
  it('estimates offset = in - send - rtt/2 with rtt = (receive - send) - (out - in), within rtt/2 and the resolution', () => {
    const inTime = (SEVEN + 19 - 3000) * 1000;
    const { clock } = new ExchangeClock().add({
      sentAt: SEVEN,
      receivedAt: SEVEN + 40,
      inTime,
      outTime: inTime + 2000,
    });
    // rtt = 40 - 2 = 38; offset = (19 - 3000) - 19 = -3000; error = 19 + 1 ms (Date.now) + 1 µs + 20 ms x 15 ppm.
    expect(clock.estimate(SEVEN + 40)).toEqual({
      offsetMs: -3000,
      errorMs: 19 + 1 + 0.001 + 0.0003,
      rttMs: 38,
      ageMs: 20,
      samples: 1,
    });
  });

  it('has no estimate before the first sample, and then takes the local clock as is', () => {
    const clock = new ExchangeClock();
    expect(clock.estimate(SEVEN)).toBeNull();
    expect(clock.boundaryLocal(EIGHT, 'raise', SEVEN)).toBe(EIGHT);
    expect(clock.toExchange(SEVEN, 'lower')).toBe(SEVEN);
  });

  describe.each([
    ['3 s fast', -3000],
    ['3 s slow', 3000],
  ])('with a local clock %s', (_, offsetMs) => {
    const clock = fed(offsetMs, 20);
    const now = SEVEN + 20_000;
    const e = clock.estimate(now)!;

    it('knows the offset within its error bound', () => {
      expect(Math.abs(e.offsetMs - offsetMs)).toBeLessThanOrEqual(e.errorMs);
      expect(e.errorMs).toBeLessThan(25);
    });

    it("raises at the exchange's 08:00 plus the error bound, never before", () => {
      const raise = clock.boundaryLocal(EIGHT, 'raise', now);
      expect(raise + offsetMs).toBeGreaterThanOrEqual(EIGHT); // the exchange's clock at the local raise
      expect(raise).toBeGreaterThanOrEqual(EIGHT - e.offsetMs + e.errorMs); // the error applied late
      expect(raise + offsetMs).toBeLessThanOrEqual(EIGHT + 2 * e.errorMs + 60); // and not much later (an hour's drift)
      expect(clock.toExchange(raise, 'raise')).toBeGreaterThanOrEqual(EIGHT);
      expect(clock.toExchange(raise - 200, 'raise')).toBeLessThan(EIGHT);
    });

    it("lowers at the exchange's 00:00 minus the error bound, never after", () => {
      const lower = clock.boundaryLocal(MIDNIGHT, 'lower', now);
      expect(lower + offsetMs).toBeLessThanOrEqual(MIDNIGHT);
      expect(lower).toBeLessThanOrEqual(MIDNIGHT - e.offsetMs - e.errorMs);
      expect(clock.toExchange(lower, 'lower')).toBeGreaterThanOrEqual(MIDNIGHT);
    });
  });

  it('converges as jittered samples come in: as good as the best of its last 8', () => {
    const all = requests(1234.5, 40);
    const at = SEVEN + 40_000;
    const alone = all.map((s) => take(new ExchangeClock(), s).estimate(at)!.errorMs);
    const later = all.reduce(take, new ExchangeClock()).estimate(at)!;
    expect(Math.abs(later.offsetMs - 1234.5)).toBeLessThanOrEqual(later.errorMs);
    expect(later.errorMs).toBe(Math.min(...alone.slice(-8)));
    expect(later.errorMs).toBeLessThan(alone[0]!);
    expect(later.samples).toBe(8);
  });

  it('keeps the narrowest of a sliding set: a sample that slid out no longer counts', () => {
    let clock = new ExchangeClock({ window: 2 });
    clock = take(clock, sample(0, { at: SEVEN, up: 1, gateway: 1, down: 1 }));
    clock = take(clock, sample(0, { at: SEVEN + 1000, up: 30, gateway: 1, down: 30 }));
    expect(clock.estimate(SEVEN + 2000)!.rttMs).toBeLessThan(4);
    clock = take(clock, sample(0, { at: SEVEN + 2000, up: 40, gateway: 1, down: 40 }));
    expect(clock.estimate(SEVEN + 3000)).toMatchObject({ samples: 2 });
    expect(clock.estimate(SEVEN + 3000)!.rttMs).toBeGreaterThan(55);
  });

  it('widens the error with the age of its sample by the drift (15 ppm: 54 ms an hour)', () => {
    const clock = take(new ExchangeClock(), sample(0, { at: SEVEN, up: 5, gateway: 0, down: 5 }));
    const fresh = clock.estimate(SEVEN + 5)!.errorMs;
    expect(clock.estimate(SEVEN + 5 + 3_600_000)!.errorMs).toBeCloseTo(fresh + 54, 6);
    const still = new ExchangeClock({ driftPpm: 0 }).add(sample(0, { at: SEVEN, up: 5, gateway: 0, down: 5 })).clock;
    expect(still.estimate(SEVEN + 5 + 3_600_000)!.errorMs).toBe(still.estimate(SEVEN + 5)!.errorMs);
  });

  describe('a bad sample', () => {
    const settled = fed(-3000, 10);
    const at = SEVEN + 10_000;

    it('changes nothing when alone: a gateway time 5 s off is set aside', () => {
      const bad = sample(-3000 + 5000, { at, up: 2, gateway: 1, down: 2 });
      const outcome = settled.add(bad);
      expect(outcome).toMatchObject({ accepted: false, reason: 'inconsistent' });
      expect(outcome.clock.estimate(at + 10)).toEqual(settled.estimate(at + 10));
      // The next good sample forgets it: two more bad ones later do not complete a run with it.
      let clock = take(outcome.clock, sample(-3000, { at: at + 1000, up: 20, gateway: 1, down: 20 }));
      clock = clock.add(sample(2000, { at: at + 2000, up: 2, gateway: 1, down: 2 })).clock;
      const last = clock.add(sample(2000, { at: at + 3000, up: 2, gateway: 1, down: 2 }));
      expect(last.accepted).toBe(false);
      expect(Math.abs(last.clock.estimate(at + 3000)!.offsetMs + 3000)).toBeLessThan(10);
    });

    it('is refused when its round trip is negative or the gateway sent before it received', () => {
      const negative = { sentAt: at, receivedAt: at + 5, inTime: (at - 3000) * 1000, outTime: (at - 3000 + 10) * 1000 };
      expect(settled.add(negative)).toEqual({ accepted: false, clock: settled, reason: 'negative-round-trip' });
      const reversed = { sentAt: at, receivedAt: at + 50, inTime: (at - 2990) * 1000, outTime: (at - 2991) * 1000 };
      expect(settled.add(reversed)).toEqual({ accepted: false, clock: settled, reason: 'reversed-gateway-times' });
    });

    it('is taken when faster than the resolution of the local clock reads it (a round trip just below 0)', () => {
      // Sent and received within one millisecond of Date.now(), 300 µs of it at the gateway.
      const fast = { sentAt: at, receivedAt: at, inTime: (at - 3000) * 1000 + 100, outTime: (at - 3000) * 1000 + 400 };
      const outcome = settled.add(fast);
      expect(outcome.accepted).toBe(true);
      expect(outcome.clock.estimate(at)!.rttMs).toBeCloseTo(-0.3, 9);
    });

    it('poisons a fresh clock only until `confirm` good samples agree', () => {
      let clock = take(new ExchangeClock(), sample(60_000, { at, up: 2, gateway: 1, down: 2 }));
      expect(clock.add(sample(0, { at: at + 1000, up: 9, gateway: 1, down: 9 })).accepted).toBe(false);
      clock = clock.add(sample(0, { at: at + 1000, up: 9, gateway: 1, down: 9 })).clock;
      clock = clock.add(sample(0, { at: at + 2000, up: 8, gateway: 1, down: 9 })).clock;
      const third = clock.add(sample(0, { at: at + 3000, up: 7, gateway: 1, down: 9 }));
      expect(third).toMatchObject({ accepted: true, replaced: true });
      expect(Math.abs(third.clock.estimate(at + 3000)!.offsetMs)).toBeLessThan(10);
    });
  });

  describe('a local clock that steps', () => {
    it('with wall instants only: samples after a step replace the set once `confirm` of them agree', () => {
      let clock = fed(500, 10);
      const at = SEVEN + 10_000;
      const sampleAt = (i: number) => sample(500, { at: at + i * 1000, up: 5, gateway: 1, down: 5 }, { step: 10_000 });
      expect(clock.add(sampleAt(0)).accepted).toBe(false);
      clock = clock.add(sampleAt(0)).clock;
      expect(clock.add(sampleAt(1)).accepted).toBe(false);
      clock = clock.add(sampleAt(1)).clock;
      const third = clock.add(sampleAt(2));
      expect(third).toMatchObject({ accepted: true, replaced: true, wallStepMs: 0 });
      const e = third.clock.estimate(at + 12_000 + 10_000)!;
      expect(Math.abs(e.offsetMs - (500 - 10_000))).toBeLessThanOrEqual(e.errorMs);
    });

    it('with monotonic instants: the estimate follows a step at once, and no earlier sample misleads it', () => {
      const clock = fed(500, 10, { mono: true });
      const at = SEVEN + 10_000;
      const outcome = clock.add(sample(500, { at, up: 40, gateway: 1, down: 40 }, { mono: true, step: -7000 }));
      expect(outcome).toMatchObject({ accepted: true, replaced: false });
      expect(outcome.accepted && Math.abs(outcome.wallStepMs + 7000)).toBeLessThanOrEqual(1);
      const e = outcome.clock.estimate(at - 7000 + 100)!;
      expect(Math.abs(e.offsetMs - 7500)).toBeLessThanOrEqual(e.errorMs);
      expect(e.rttMs).toBeLessThan(80); // still the best sample from before the step
    });

    it('with monotonic instants: a reading of both clocks follows a step made since the latest sample', () => {
      const clock = fed(500, 10, { mono: true });
      const at = SEVEN + 10_000;
      const mono = monoAt(at, true);
      const before = clock.estimate({ wall: at, mono })!;
      const stepped = clock.estimate({ wall: at + 60_000, mono })!;
      expect(stepped.offsetMs).toBeCloseTo(before.offsetMs - 60_000, 9);
      expect(stepped.errorMs).toBe(before.errorMs);
      const shift =
        clock.boundaryLocal(EIGHT, 'raise', { wall: at + 60_000, mono }) -
        clock.boundaryLocal(EIGHT, 'raise', { wall: at, mono });
      expect(shift).toBe(60_000);
    });

    it('with a coarse monotonic clock: reaching the wall clock through one reading costs one more resolution', () => {
      // Both clocks read whole milliseconds, out of phase: wall minus monotonic is only known to 1 ms.
      const start = Date.parse('2026-11-21T06:00:00Z');
      const requests = [
        { at: start, up: 0, gateway: 37.016, down: 0 },
        { at: start + 37.016, up: 0, gateway: 0, down: 931.359 },
      ];
      const clock = requests.reduce((c, r) => take(c, sample(0, r, { mono: 'ms' })), new ExchangeClock({ window: 2 }));
      const t = start + 37.016 + 931.359;
      const e = clock.estimate({ wall: Math.floor(t), mono: monoAt(t, 'ms') })!;
      expect(Math.abs(e.offsetMs)).toBeLessThanOrEqual(e.errorMs);
    });

    it('with monotonic instants: a wall step during a request does not spoil its round trip', () => {
      const clock = fed(500, 10, { mono: true });
      const at = SEVEN + 10_000;
      const s = sample(500, { at, up: 3, gateway: 1, down: 3 }, { mono: true });
      const outcome = clock.add({ ...s, receivedAt: s.receivedAt + 3_600_000 });
      expect(outcome.accepted && Math.abs(outcome.wallStepMs - 3_600_000)).toBeLessThanOrEqual(1);
      expect(outcome.clock.estimate(s.receivedAt + 3_600_000)!.rttMs).toBeLessThan(7);
    });
  });

  describe('bad input', () => {
    const clock = fed(0, 3);
    const good = sample(0, { at: SEVEN + 5000, up: 5, gateway: 1, down: 5 });

    it.each([
      ['sentAt', { ...good, sentAt: Number.NaN }, /`sentAt`/],
      ['receivedAt', { ...good, receivedAt: String(good.receivedAt) }, /`receivedAt`.*got "\d+"/],
      ['inTime', { ...good, inTime: 'abc' }, /`inTime` \(X-In-Time, Unix microseconds\).*got "abc"/],
      ['outTime', { ...good, outTime: undefined }, /`outTime`/],
      ['sentMono on a clock without', { ...good, sentMono: 1, receivedMono: 2 }, /`sentMono`.*absent/],
    ])('refuses a sample with a bad %s, and changes nothing', (_, bad, message) => {
      const before = clock.estimate(SEVEN + 5000);
      expect(() => clock.add(bad as ClockSample)).toThrow(InvalidInputError);
      expect(() => clock.add(bad as ClockSample)).toThrow(message);
      expect(clock.estimate(SEVEN + 5000)).toEqual(before);
    });

    it('refuses half a monotonic pair, and wall-only samples on a monotonic clock', () => {
      const s = sample(0, { at: SEVEN, up: 5, gateway: 1, down: 5 }, { mono: true });
      expect(() => new ExchangeClock().add({ ...s, receivedMono: undefined } as unknown as ClockSample)).toThrow(
        /`receivedMono`/,
      );
      const monoClock = new ExchangeClock().add(s).clock;
      expect(() => monoClock.add(good)).toThrow(/`sentMono`.*a monotonic instant/);
    });

    it('refuses bad instants, directions and options', () => {
      expect(() => clock.estimate(Number.NaN)).toThrow(/`at`/);
      expect(() => clock.estimate({ wall: SEVEN, mono: Number.POSITIVE_INFINITY })).toThrow(/`at.mono`/);
      expect(() => clock.boundaryLocal(EIGHT, 'up' as 'raise', SEVEN)).toThrow(/`direction`.*"lower" or "raise"/);
      expect(() => clock.boundaryLocal(EIGHT + 0.5, 'raise', SEVEN)).toThrow(/`exchangeInstant`/);
      expect(() => new ExchangeClock({ window: 0 })).toThrow(/`window`/);
      expect(() => new ExchangeClock({ confirm: 1.5 })).toThrow(/`confirm`/);
      expect(() => new ExchangeClock({ driftPpm: -1 })).toThrow(/`driftPpm`/);
      expect(() => new ExchangeClock({ resolutionMs: Number.NaN })).toThrow(/`resolutionMs`/);
    });
  });
});
