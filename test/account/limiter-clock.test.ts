import { describe, expect, it } from 'vitest';
import { AccountLimiter, type LimiterEvent } from '../../src/account/limiter.js';
import { InvalidInputError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const T0 = Date.parse('2026-11-01T00:00:00Z');
const H = 3_600_000;
const D = 86_400_000;
/** How much earlier a lowering applies on Gate: one window of its throttles, the longest it lowers (see docs/rules.md#r15). */
const LEAD = 10_000;

/**
 * A limiter on a virtual local clock that reads `skewMs` ahead of the exchange's (negative:
 * behind), starting at the local instant `localStart`. `sample(up, down, gatewayOffMs)` times one
 * request: `up` ms to the gateway, 1 ms there, `down` ms back; `gatewayOffMs` puts the gateway's
 * times that far off.
 */
function setup(
  skewMs: number,
  localStart: number,
  options: Partial<ConstructorParameters<typeof AccountLimiter>[0]> = {},
) {
  const clock = new VirtualClock({ start: 0, wallStart: localStart });
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, ...options });
  const events: { local: number; event: LimiterEvent }[] = [];
  limiter.on((event) => events.push({ local: clock.wall(), event }));
  const sample = (up: number, down: number, gatewayOffMs = 0) => {
    const sentAt = clock.wall();
    const inTime = (sentAt + up - skewMs + gatewayOffMs) * 1000;
    return limiter.clockSample({
      sentAt,
      receivedAt: sentAt + up + 1 + down,
      headers: { 'X-In-Time': String(inTime), 'X-Out-Time': String(inTime + 1000) },
    });
  };
  const atLocal = (instant: number) => clock.advanceTo(instant - localStart);
  const limitEvents = () => events.filter((e) => e.event.type === 'limit');
  return { clock, limiter, events, sample, atLocal, limitEvents };
}

// The estimate's error bound at the local instant `until`: it widens by the drift allowed since
// `from` (15 parts per million by default).
const bound = (errorMs: number, from: number, until: number) => errorMs + Math.abs(until - from) * 15e-6;

// Where the estimate `e`, read at the local instant `from`, puts a boundary the exchange sets at
// `exchangeInstant`: a raise `error` late, a lowering `error` early (within a millisecond of rounding).
const expected = (
  e: { offsetMs: number; errorMs: number },
  from: number,
  exchangeInstant: number,
  direction: 'raise' | 'lower',
) => {
  const local = exchangeInstant - e.offsetMs;
  const error = bound(e.errorMs, from, local);
  return direction === 'raise' ? local + error : local - error;
};

// Yesterday's ratio of 10: tier 5 (300 per s) from 08:00 today on the exchange's clock (see docs/rules.md#r5).
const seedTier5 = (limiter: AccountLimiter, day: number) =>
  limiter.seed({
    days: [{ account: 'main', day, contracts: [{ contract: 'BTC_USDT', makerVolume: '1000', place: 100 }] }],
  });

describe('AccountLimiter on the exchange clock (see docs/rules.md#r15)', () => {
  for (const skewMs of [3000, -3000]) {
    it(`raises at the exchange's 08:00 plus the error bound, never before, with a local clock ${skewMs > 0 ? '3 s fast' : '3 s slow'}`, async () => {
      const { clock, limiter, sample, atLocal, limitEvents } = setup(skewMs, T0 + 7 * H);
      seedTier5(limiter, T0 - D);
      expect(sample(10, 10).accepted).toBe(true);
      expect(sample(4, 6).accepted).toBe(true);
      const e = limiter.clockEstimate()!;
      expect(Math.abs(e.offsetMs + skewMs)).toBeLessThanOrEqual(e.errorMs);
      // The exchange's 08:00 on the local clock (the truth), and where the estimate puts the raise.
      const eight = T0 + 8 * H + skewMs;
      const due = expected(e, clock.wall(), T0 + 8 * H, 'raise');
      await atLocal(eight);
      expect(limiter.limitNow('main').limit).toBe(100);
      await atLocal(Math.floor(due) - 1);
      expect(limiter.limitNow('main').limit).toBe(100);
      await atLocal(Math.ceil(due) + 1);
      const raise = limitEvents();
      expect(raise.map((r) => r.event.type === 'limit' && r.event.to)).toEqual([300]);
      expect(Math.abs(raise[0]!.local - due)).toBeLessThanOrEqual(1);
      // Never before the exchange's 08:00, and within twice the bound after it.
      expect(raise[0]!.local).toBeGreaterThanOrEqual(eight);
      expect(raise[0]!.local - eight).toBeLessThanOrEqual(2 * (due - (T0 + 8 * H - e.offsetMs)) + 1);
      // The limiter's instants are the exchange's: the raise is told at 08:00 or just after.
      expect(raise[0]!.event.at).toBeGreaterThanOrEqual(T0 + 8 * H);
      limiter.close();
    });
  }

  it('applies at once a raise that the first sample shows is already due on the exchange clock', async () => {
    // No sample yet: the local clock, 3 s slow, is taken as is.
    const { limiter, sample, atLocal, limitEvents } = setup(-3000, T0 + 7 * H);
    seedTier5(limiter, T0 - D);
    await atLocal(T0 + 8 * H - 2000);
    expect(limiter.limitNow('main').limit).toBe(100);
    // The exchange's clock reads 08:00:01: its 08:00 raise is due.
    sample(4, 6);
    expect(limitEvents().map((r) => [r.local, r.event.type === 'limit' && r.event.to])).toEqual([
      [T0 + 8 * H - 2000, 300],
    ]);
    limiter.close();
  });

  it('raises at the local 08:00 with exchangeClock "local", whatever the samples say', async () => {
    const { limiter, sample, atLocal, limitEvents } = setup(3000, T0 + 7 * H, { exchangeClock: 'local' });
    seedTier5(limiter, T0 - D);
    sample(4, 6);
    expect(limiter.clockEstimate()?.offsetMs).toBeCloseTo(-3000, -1);
    await atLocal(T0 + 8 * H);
    expect(limitEvents().map((r) => [r.local, r.event.at])).toEqual([[T0 + 8 * H, T0 + 8 * H]]);
    limiter.close();
  });

  for (const skewMs of [3000, -3000]) {
    it(`applies a lowering (the 00:00 snapshot) one window and the error early with a local clock ${skewMs > 0 ? '3 s fast' : '3 s slow'}`, async () => {
      // The seeded day leaves the 7-day window at the next 00:00: tier 1 at once then.
      const { clock, limiter, events, sample, atLocal, limitEvents } = setup(skewMs, T0 + 23 * H);
      seedTier5(limiter, T0 - 7 * D);
      expect(limiter.limitNow('main').limit).toBe(300);
      events.length = 0;
      sample(4, 6);
      const e = limiter.clockEstimate()!;
      const midnight = T0 + D + skewMs;
      const due = expected(e, clock.wall(), T0 + D, 'lower') - LEAD;
      await atLocal(Math.floor(due) - 2);
      expect(limiter.limitNow('main').limit).toBe(300);
      await atLocal(midnight);
      const lower = limitEvents();
      expect(lower.map((r) => r.event.type === 'limit' && r.event.to)).toEqual([100]);
      expect(Math.abs(lower[0]!.local - due)).toBeLessThanOrEqual(1);
      // Never later than one window before the exchange's 00:00.
      expect(lower[0]!.local).toBeLessThan(midnight - LEAD);
      limiter.close();
    });
  }

  it("raises a new sub-account at the exchange's next 08:00 plus the error bound (see docs/rules.md#r8), with a local clock 3 s slow", async () => {
    const { clock, limiter, sample, atLocal, limitEvents } = setup(-3000, T0 + 9 * H);
    seedTier5(limiter, T0 - D);
    sample(4, 6);
    const e = limiter.clockEstimate()!;
    limiter.addSubAccount('sub');
    expect(limiter.limitNow('sub').limit).toBe(100);
    const due = expected(e, clock.wall(), T0 + D + 8 * H, 'raise');
    await atLocal(T0 + D + 8 * H - 3000);
    expect(limiter.limitNow('sub').limit).toBe(100);
    await atLocal(Math.ceil(due) + 1);
    const raised = limitEvents().filter((r) => r.event.type === 'limit' && r.event.account === 'sub');
    expect(raised.map((r) => r.event.type === 'limit' && r.event.to)).toEqual([300]);
    expect(Math.abs(raised[0]!.local - due)).toBeLessThanOrEqual(1);
    limiter.close();
  });

  it('starts the abuse throttle one window and the error early and lifts it error late (see docs/rules.md#r9 on the exchange clock)', async () => {
    const { clock, limiter, sample, atLocal, events } = setup(3000, T0 + 10 * H + 30 * 60_000, {
      abuse: { requestThreshold: 5 },
    });
    sample(4, 6);
    const e = limiter.clockEstimate()!;
    const sampledAt = clock.wall();
    for (let i = 0; i < 6; i++)
      await limiter.request('main', 'POST', '/futures/usdt/orders', () => 'ok', { body: { contract: 'BTC_USDT' } });
    const eleven = T0 + 11 * H + 3000;
    await atLocal(eleven + 10);
    const throttles = () => events.filter((x) => x.event.type === 'throttle');
    expect(throttles().map((x) => x.event.type === 'throttle' && x.event.throttle?.limit)).toEqual([10]);
    expect(Math.abs(throttles()[0]!.local - (expected(e, sampledAt, T0 + 11 * H, 'lower') - LEAD))).toBeLessThanOrEqual(
      1,
    );
    expect(throttles()[0]!.local).toBeLessThan(eleven - LEAD);
    // The requests leave the 24-hour window at the exchange's 11:00 the next day: lifted, error late.
    const lift = T0 + D + 11 * H + 3000;
    const due = expected(e, sampledAt, T0 + D + 11 * H, 'raise');
    await atLocal(Math.floor(due) - 1);
    expect(limiter.limitNow('main').throttle).not.toBeNull();
    await atLocal(Math.ceil(due) + 1);
    expect(limiter.limitNow('main').throttle).toBeNull();
    expect(Math.abs(throttles()[1]!.local - due)).toBeLessThanOrEqual(1);
    expect(throttles()[1]!.local).toBeGreaterThan(lift);
    limiter.close();
  });

  it('converges on samples with jitter: the estimate holds the true offset and the raise comes within its bound', async () => {
    const { limiter, sample, atLocal, limitEvents } = setup(-3000, T0 + 6 * H);
    seedTier5(limiter, T0 - D);
    // Deterministic jitter: one-way delays of 2 to 80 ms, asymmetric.
    let seed = 7;
    const next = () => ((seed = (seed * 48271) % 2147483647) % 79) + 2;
    const rtts: number[] = [];
    for (let i = 0; i < 40; i++) {
      const up = next();
      const down = next();
      rtts.push(up + down);
      expect(sample(up, down).accepted).toBe(true);
      await atLocal(T0 + 6 * H + (i + 1) * 60_000);
      const e = limiter.clockEstimate()!;
      // Always within the bound; the bound is the best round trip of the latest 8, halved.
      expect(Math.abs(e.offsetMs - 3000)).toBeLessThanOrEqual(e.errorMs);
      expect(e.errorMs).toBeLessThanOrEqual(Math.min(...rtts.slice(-8)) / 2 + 1.01 + 8 * 60_000 * 15e-6);
    }
    const e = limiter.clockEstimate()!;
    const eight = T0 + 8 * H - 3000;
    const due = expected(e, T0 + 6 * H + 40 * 60_000, T0 + 8 * H, 'raise');
    await atLocal(Math.ceil(due) + 1);
    const raise = limitEvents()[0]!;
    expect(Math.abs(raise.local - due)).toBeLessThanOrEqual(1);
    expect(raise.local).toBeGreaterThanOrEqual(eight);
    limiter.close();
  });

  it('changes nothing for a lone bad sample: a gateway time 5 s off, a negative round trip, no gateway times', async () => {
    const { limiter, sample, atLocal, limitEvents, clock } = setup(3000, T0 + 7 * H);
    seedTier5(limiter, T0 - D);
    sample(4, 6);
    sample(8, 3);
    const before = limiter.clockEstimate();
    expect(sample(4, 4, 5000)).toEqual({ accepted: false, reason: 'inconsistent' });
    const t = clock.wall();
    expect(
      limiter.clockSample({ sentAt: t, receivedAt: t + 5, inTime: (t - 3000) * 1000, outTime: (t - 3000 + 20) * 1000 }),
    ).toEqual({ accepted: false, reason: 'negative-round-trip' });
    expect(
      limiter.clockSample({ sentAt: t, receivedAt: t + 5, headers: { 'content-type': 'application/json' } }),
    ).toEqual({ accepted: false, reason: 'no-gateway-times' });
    expect(limiter.clockEstimate()).toEqual(before);
    const due = expected(before!, t, T0 + 8 * H, 'raise');
    await atLocal(Math.floor(due) - 1);
    expect(limiter.limitNow('main').limit).toBe(100);
    await atLocal(Math.ceil(due) + 1);
    expect(Math.abs(limitEvents()[0]!.local - due)).toBeLessThanOrEqual(1);
    expect(limitEvents()[0]!.local).toBeGreaterThanOrEqual(T0 + 8 * H + 3000);
    limiter.close();
  });

  it("reports a local clock more than 60 s off the exchange's before signed requests fail, and when it is back", async () => {
    const { limiter, sample, events } = setup(59_000, T0 + 7 * H);
    sample(4, 6);
    expect(events.filter((e) => e.event.type === 'clock')).toEqual([]);
    // The two clocks drift 20 s further apart: 3 samples that agree replace the set.
    for (let i = 0; i < 3; i++) sample(4, 6, -20_000);
    const told = events.filter((e) => e.event.type === 'clock').map((e) => e.event);
    expect(told).toMatchObject([{ type: 'clock', check: { ok: false, label: 'REQUEST_EXPIRED' } }]);
    expect(told[0]!.type === 'clock' && told[0]!.offsetMs).toBeCloseTo(-79_000, -1);
    for (let i = 0; i < 3; i++) sample(4, 6);
    expect(
      events.filter((e) => e.event.type === 'clock').map((e) => e.event.type === 'clock' && e.event.check.ok),
    ).toEqual([false, true]);
    limiter.close();
  });

  it('refuses a sample that is not one, and an unknown exchangeClock, changing nothing', () => {
    const { limiter, sample } = setup(3000, T0 + 7 * H);
    sample(4, 6);
    const before = limiter.clockEstimate();
    expect(() => limiter.clockSample({ sentAt: Number.NaN, receivedAt: 1, inTime: 1, outTime: 2 })).toThrow(
      InvalidInputError,
    );
    expect(() => limiter.clockSample(null as never)).toThrow('the clock sample');
    expect(() => limiter.clockSample({ sentAt: 1, receivedAt: 2, headers: null as never })).toThrow('`headers`');
    expect(limiter.clockEstimate()).toEqual(before);
    expect(() => new AccountLimiter({ accounts: [{ id: 'main' }], exchangeClock: 'exchange' as never })).toThrow(
      '`exchangeClock`',
    );
    limiter.close();
  });
});
