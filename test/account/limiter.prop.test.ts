import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { AccountLimiter, type LimiterSnapshot } from '../../src/account/limiter.js';
import { InvalidInputError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { badAmount, badContract, badCount, badId, badInstant } from '../arbitraries.js';

const T0 = Date.parse('2026-11-01T00:00:00Z');

const op = fc.oneof(
  fc.record({
    kind: fc.constant('request' as const),
    account: fc.constantFrom('main', 'sub'),
    contract: fc.constantFrom('BTC_USDT', 'SOL_USDT'),
    cancel: fc.boolean(),
    n: fc.integer({ min: 1, max: 5 }),
  }),
  fc.record({
    kind: fc.constant('fill' as const),
    account: fc.constantFrom('main', 'sub'),
    contract: fc.constantFrom('BTC_USDT', 'SOL_USDT'),
    maker: fc.boolean(),
    volume: fc.integer({ min: 1, max: 5000 }).map(String),
  }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1000, max: 30 * 3_600_000 }) }),
  fc.record({ kind: fc.constant('vip' as const), level: fc.integer({ min: 12, max: 16 }) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

async function apply(limiter: AccountLimiter, clock: VirtualClock, o: Op): Promise<void> {
  if (o.kind === 'request') {
    const path = o.cancel ? '/futures/usdt/orders/1' : '/futures/usdt/orders';
    const all = Array.from({ length: o.n }, () =>
      limiter.request(o.account, o.cancel ? 'DELETE' : 'POST', path, () => 1, {
        contract: o.contract,
        body: { contract: o.contract },
      }),
    );
    await clock.advance(1000);
    await Promise.all(all);
  } else if (o.kind === 'fill') {
    limiter.recordFill(o.account, { contract: o.contract, role: o.maker ? 'maker' : 'taker', volume: o.volume });
  } else if (o.kind === 'advance') {
    await clock.advance(o.ms);
  } else {
    limiter.setVipLevel(o.level);
    await clock.advance(1);
  }
}

function decisions(limiter: AccountLimiter) {
  return ['main', 'sub'].map((a) => ({
    now: limiter.limitNow(a),
    next: limiter.limitAtNext0800(a),
    abuse: limiter.abuseHeadroom(a),
    whatIf: JSON.stringify(limiter.whatIf(a)),
  }));
}

describe('AccountLimiter properties', () => {
  test.prop([fc.array(op, { minLength: 1, maxLength: 25 }), fc.nat()], { numRuns: 40 })(
    'snapshot and restore at any point give the same future decisions',
    async (ops, cut) => {
      const k = cut % (ops.length + 1);
      const accounts = [{ id: 'main', role: 'main' as const }, { id: 'sub' }];
      const clockA = new VirtualClock({ start: 0, wallStart: T0 });
      const a = new AccountLimiter({ accounts, clock: clockA });
      for (const o of ops.slice(0, k)) await apply(a, clockA, o);
      const clockB = new VirtualClock({ start: clockA.now(), wallStart: clockA.wall() });
      const b = new AccountLimiter({ accounts, clock: clockB });
      b.restore(JSON.parse(JSON.stringify(a.snapshot())));
      expect(decisions(b)).toEqual(decisions(a));
      for (const o of ops.slice(k)) {
        await apply(a, clockA, o);
        await apply(b, clockB, o);
        expect(decisions(b)).toEqual(decisions(a));
      }
      a.close();
      b.close();
    },
  );
});

/** A call the limiter must refuse at once, with the field its error must name. */
type Refused = { readonly call: (l: AccountLimiter, now: number) => unknown; readonly field: string };
const refused: fc.Arbitrary<Refused> = fc.oneof(
  badContract.map(
    (c): Refused => ({
      call: (l) => l.request('main', 'POST', '/futures/usdt/orders', () => 1, { contract: c as string }),
      field: 'contract',
    }),
  ),
  badContract
    .filter((c) => typeof c === 'string')
    .map(
      (c): Refused => ({
        call: (l) => l.request('sub', 'POST', '/futures/usdt/orders', () => 1, { body: { contract: c } }),
        field: 'the contract of the body',
      }),
    ),
  badId.map(
    (id): Refused => ({
      call: (l) => l.request(id as string, 'POST', '/futures/usdt/orders', () => 1),
      field: 'account',
    }),
  ),
  fc.constant<Refused>({ call: (l) => l.request('main', 'GET', '/nowhere', () => 1), field: 'path' }),
  fc.constant<Refused>({
    call: (l) => l.request('main', 'POST', '/futures/usdt/batch_orders', () => 1, { body: {} }),
    field: 'the body of POST /futures/{settle}/batch_orders',
  }),
  fc.constantFrom<unknown>(Number.NaN, '1', Infinity).map(
    (priority): Refused => ({
      call: (l) =>
        l.request('main', 'POST', '/futures/usdt/orders', () => 1, {
          body: { contract: 'BTC_USDT' },
          priority: priority as number,
        }),
      field: 'priority',
    }),
  ),
  fc.constantFrom<unknown>(Number.NaN, 'soon').map(
    (deadline): Refused => ({
      call: (l) => l.request('main', 'DELETE', '/futures/usdt/orders/1', () => 1, { deadline: deadline as number }),
      field: 'deadline',
    }),
  ),
  badInstant
    .filter((at) => at !== null)
    .map(
      (at): Refused => ({
        call: (l) => l.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '1', at: at as number }),
        field: 'at',
      }),
    ),
  badAmount.map(
    (v): Refused => ({
      call: (l) => l.recordFill('sub', { contract: 'BTC_USDT', role: 'taker', volume: v as string }),
      field: 'volume',
    }),
  ),
  badContract.map(
    (c): Refused => ({
      call: (l) => l.recordFill('sub', { contract: c as string, role: 'taker', volume: '1' }),
      field: 'contract',
    }),
  ),
  fc.constant<Refused>({
    call: (l) => l.recordFill('main', { contract: 'BTC_USDT', role: 'buyer' as never, volume: '1' }),
    field: 'role',
  }),
  fc.constant<Refused>({
    call: (l) => l.recordFill('ghost', { contract: 'BTC_USDT', role: 'maker', volume: '1' }),
    field: 'account',
  }),
  fc
    .constantFrom<unknown>(-1, 1.5, '14', Number.NaN)
    .map((level): Refused => ({ call: (l) => l.setVipLevel(level as number), field: 'level' })),
  badInstant
    .filter((at) => at !== null)
    .map((at): Refused => ({ call: (l) => l.setVipLevel(15, at as number), field: 'at' })),
  badId.map((id): Refused => ({ call: (l) => l.addSubAccount(id as string), field: 'id' })),
  fc.constant<Refused>({ call: (l) => l.addSubAccount('main'), field: 'id' }),
  badInstant
    .filter((at) => at !== null)
    .map((at): Refused => ({ call: (l) => l.addSubAccount('late', at as number), field: 'at' })),
  badCount.map(
    (n): Refused => ({
      call: (l, now) => l.seed({ hours: [{ account: 'main', hour: now - 3_600_000, requests: n as number }] }),
      field: 'hours[0].requests',
    }),
  ),
  badInstant.map(
    (at): Refused => ({
      call: (l) => l.seed({ hours: [{ account: 'main', hour: at as number, requests: 5 }] }),
      field: 'hours[0].hour',
    }),
  ),
  badCount.map(
    (n): Refused => ({
      call: (l) =>
        l.seed({
          days: [{ account: 'sub', day: '2026-10-01', contracts: [{ contract: 'BTC_USDT', place: n as number }] }],
        }),
      field: 'place of BTC_USDT in activity[0] (sub, 2026-10-01)',
    }),
  ),
  fc.constant<Refused>({ call: (l) => l.seed(null as never), field: 'the history' }),
  fc
    .constantFrom<[string, (s: LimiterSnapshot) => unknown]>(
      ['the snapshot vipLevel', ({ vipLevel: _, ...s }) => s],
      ['the snapshot version', (s) => ({ ...s, version: 2 })],
      ['the snapshot at', (s) => ({ ...s, at: 9e15 })],
      ['the tracker state', (s) => ({ ...s, tracker: null })],
      ['latest', (s) => ({ ...s, tracker: { ...s.tracker, latest: 1 } })],
      ['accounts[0].id', (s) => ({ ...s, accounts: [{ id: ' main' }, ...s.accounts.slice(1)] })],
    )
    .map(
      ([field, spoil]): Refused => ({
        call: (l) => l.restore(spoil(JSON.parse(JSON.stringify(l.snapshot())) as LimiterSnapshot)),
        field,
      }),
    ),
);

/** Valid calls: those of the property above, a new sub-account, and a restore of the limiter's own snapshot. */
const valid = fc.oneof(op, fc.constant({ kind: 'sub-account' as const }), fc.constant({ kind: 'restore' as const }));

async function applyValid(
  limiter: AccountLimiter,
  clock: VirtualClock,
  o: typeof valid extends fc.Arbitrary<infer T> ? T : never,
  step: number,
): Promise<void> {
  if (o.kind === 'sub-account') limiter.addSubAccount(`bot${step}`);
  else if (o.kind === 'restore') limiter.restore(JSON.parse(JSON.stringify(limiter.snapshot())));
  else await apply(limiter, clock, o);
}

describe('AccountLimiter: refused input changes nothing', () => {
  test.prop([fc.array(fc.tuple(valid, fc.array(refused, { maxLength: 3 })), { minLength: 1, maxLength: 20 })], {
    numRuns: 40,
  })(
    'valid calls interleaved with refused ones give the snapshot and counts of the valid calls alone',
    async (steps) => {
      const accounts = [{ id: 'main', role: 'main' as const }, { id: 'sub' }];
      const clockA = new VirtualClock({ start: 0, wallStart: T0 });
      const clockB = new VirtualClock({ start: 0, wallStart: T0 });
      const alone = new AccountLimiter({ accounts, clock: clockA });
      const mixed = new AccountLimiter({ accounts, clock: clockB });
      for (const [step, [o, calls]] of steps.entries()) {
        await applyValid(alone, clockA, o, step);
        await applyValid(mixed, clockB, o, step);
        for (const { call, field } of calls) {
          let error: unknown;
          try {
            call(mixed, clockB.wall());
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(InvalidInputError);
          expect((error as InvalidInputError).field).toBe(field);
        }
      }
      await clockA.advance(2000);
      await clockB.advance(2000);
      expect(mixed.snapshot()).toEqual(alone.snapshot());
      const counters = (l: AccountLimiter) => {
        const { queued, dispatched, refused: r } = l.scheduler.stats();
        return { queued, dispatched, refused: r };
      };
      expect(counters(mixed)).toEqual(counters(alone));
      expect(decisions(mixed)).toEqual(decisions(alone));
      alone.close();
      mixed.close();
    },
  );
});
