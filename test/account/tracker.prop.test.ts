import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { Tracker } from '../../src/account/tracker.js';
import { InvalidInputError } from '../../src/errors.js';
import { amount, badAmount, badContract, badCount, badId, badInstant, badPositive } from '../arbitraries.js';

const T0 = Date.UTC(2026, 10, 1);
const H = 3_600_000;
const D = 86_400_000;

const account = fc.constantFrom('main', 'sub');
// Two spellings of one contract count as one (BTC_USDT, btc-usdt).
const contract = fc.constantFrom('BTC_USDT', 'sol-usdt', 'ETH_USDT', 'btc-usdt', 'SOL_USDT');
const dt = fc.integer({ min: 0, max: 5 * H });

/** A call that must be accepted: its instant is read from the tracker when it runs. */
const valid = fc.oneof(
  fc.record({
    kind: fc.constant('request' as const),
    account,
    contract,
    action: fc.constantFrom('place' as const, 'amend' as const, 'cancel' as const),
    dt,
    orders: fc.integer({ min: 1, max: 5 }),
  }),
  fc.record({
    kind: fc.constant('fill' as const),
    account,
    contract,
    role: fc.constantFrom('maker' as const, 'taker' as const),
    volume: amount,
    dt,
  }),
  fc.record({
    kind: fc.constant('seedDay' as const),
    daysBack: fc.integer({ min: 0, max: 8 }),
    place: fc.nat(1000),
    volume: amount,
  }),
  fc.record({
    kind: fc.constant('seedHour' as const),
    hoursBack: fc.integer({ min: 0, max: 24 }),
    requests: fc.nat(100_000),
    traded: amount,
  }),
);
type Valid = typeof valid extends fc.Arbitrary<infer T> ? T : never;

/** A call that must be refused, with the field its error must name. */
const invalid: fc.Arbitrary<{ readonly call: (t: Tracker) => void; readonly field: string }> = fc.oneof(
  badInstant.map((at) => ({
    call: (t: Tracker) => t.recordRequest('main', 'BTC_USDT', 'place', at as number),
    field: 'at',
  })),
  fc.constant({ call: (t: Tracker) => t.recordRequest('main', 'BTC_USDT', 'place', t.lastInstant - 1), field: 'at' }),
  badContract.map((c) => ({
    call: (t: Tracker) => t.recordRequest('ghost', c as string, 'place', Math.max(T0, t.lastInstant)),
    field: 'contract',
  })),
  badId.map((id) => ({
    call: (t: Tracker) => t.recordRequest(id as string, 'BTC_USDT', 'place', Math.max(T0, t.lastInstant)),
    field: 'account',
  })),
  fc.constantFrom<unknown>('fill', '', null).map((action) => ({
    call: (t: Tracker) => t.recordRequest('main', 'BTC_USDT', action as 'place', Math.max(T0, t.lastInstant)),
    field: 'action',
  })),
  badPositive.map((n) => ({
    call: (t: Tracker) => t.recordRequest('ghost', 'BTC_USDT', 'place', Math.max(T0, t.lastInstant), n as number),
    field: 'orders',
  })),
  badInstant.map((at) => ({
    call: (t: Tracker) => t.recordFill('ghost', 'BTC_USDT', 'maker', '1', at as number),
    field: 'at',
  })),
  fc.constantFrom<unknown>('buyer', '', null).map((role) => ({
    call: (t: Tracker) => t.recordFill('ghost', 'BTC_USDT', role as 'maker', '1', Math.max(T0, t.lastInstant)),
    field: 'role',
  })),
  badAmount.map((v) => ({
    call: (t: Tracker) => t.recordFill('ghost', 'BTC_USDT', 'maker', v as string, Math.max(T0, t.lastInstant)),
    field: 'volume',
  })),
  badContract.map((c) => ({
    call: (t: Tracker) => t.recordFill('ghost', c as string, 'taker', '1', Math.max(T0, t.lastInstant)),
    field: 'contract',
  })),
  fc
    .constantFrom<unknown>(Number.NaN, '0x10', T0 + 5 * H, '1969-12-31', -D, '2026-13-01')
    .map((day) => ({ call: (t: Tracker) => t.seedDay('ghost', day as number, []), field: 'day' })),
  badCount.map((n) => ({
    call: (t: Tracker) => t.seedDay('ghost', T0, [{ contract: 'BTC_USDT', place: n as number }]),
    field: 'contracts[0].place',
  })),
  badAmount.map((v) => ({
    call: (t: Tracker) => t.seedDay('ghost', T0, [{ contract: 'BTC_USDT', makerVolume: v as string }]),
    field: 'contracts[0].makerVolume',
  })),
  badContract.map((c) => ({
    call: (t: Tracker) => t.seedDay('ghost', T0, [{ contract: c as string }]),
    field: 'contracts[0].contract',
  })),
  badId.map((id) => ({ call: (t: Tracker) => t.seedDay(id as string, T0, []), field: 'account' })),
  badCount.map((n) => ({ call: (t: Tracker) => t.seedHour('ghost', T0, n as number, '0'), field: 'requests' })),
  fc
    .constantFrom<unknown>(Number.NaN, T0 + 1, -H, 9e15, '2026-11-01T00:30:00Z')
    .map((hour) => ({ call: (t: Tracker) => t.seedHour('ghost', hour as number, 1, '0'), field: 'hour' })),
  badAmount.map((v) => ({ call: (t: Tracker) => t.seedHour('ghost', T0, 1, v as string), field: 'traded' })),
);

/** Runs a valid call; seeded history goes to an account of its own (`seeded` counts them). */
function run(t: Tracker, o: Valid, seeded: number): void {
  const now = Math.max(T0, t.lastInstant);
  if (o.kind === 'request') t.recordRequest(o.account, o.contract, o.action, now + o.dt, o.orders);
  else if (o.kind === 'fill') t.recordFill(o.account, o.contract, o.role, o.volume, now + o.dt);
  else if (o.kind === 'seedDay')
    t.seedDay(`history${seeded}`, now - (now % D) - o.daysBack * D, [
      { contract: 'BTC_USDT', place: o.place, makerVolume: o.volume },
    ]);
  else t.seedHour(`history${seeded}`, now - (now % H) - o.hoursBack * H, o.requests, o.traded);
}

describe('Tracker properties', () => {
  test.prop([fc.array(fc.tuple(valid, fc.array(invalid, { maxLength: 3 })), { minLength: 1, maxLength: 40 })], {
    numRuns: 200,
  })(
    'refused input changes nothing: valid calls interleaved with refused ones leave the state of the valid calls alone',
    (steps) => {
      const alone = new Tracker();
      const mixed = new Tracker();
      let seeded = 0;
      for (const [o, refused] of steps) {
        run(alone, o, seeded);
        run(mixed, o, seeded);
        if (o.kind === 'seedDay' || o.kind === 'seedHour') seeded++;
        for (const { call, field } of refused) {
          let error: unknown;
          try {
            call(mixed);
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(InvalidInputError);
          expect((error as InvalidInputError).field).toBe(field);
        }
      }
      expect(mixed.snapshot()).toEqual(alone.snapshot());
      expect(Tracker.restore(JSON.parse(JSON.stringify(mixed.snapshot()))).snapshot()).toEqual(alone.snapshot());
    },
  );
});
