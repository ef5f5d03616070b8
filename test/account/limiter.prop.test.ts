import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { VirtualClock } from '../../src/schedule/clock.js';

const T0 = Date.parse('2026-11-01T00:00:00Z');

const op = fc.oneof(
  fc.record({ kind: fc.constant('request' as const), account: fc.constantFrom('main', 'sub'), contract: fc.constantFrom('BTC_USDT', 'SOL_USDT'), cancel: fc.boolean(), n: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ kind: fc.constant('fill' as const), account: fc.constantFrom('main', 'sub'), contract: fc.constantFrom('BTC_USDT', 'SOL_USDT'), maker: fc.boolean(), volume: fc.integer({ min: 1, max: 5000 }).map(String) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1000, max: 30 * 3_600_000 }) }),
  fc.record({ kind: fc.constant('vip' as const), level: fc.integer({ min: 12, max: 16 }) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

async function apply(limiter: AccountLimiter, clock: VirtualClock, o: Op): Promise<void> {
  if (o.kind === 'request') {
    const path = o.cancel ? '/futures/usdt/orders/1' : '/futures/usdt/orders';
    const all = Array.from({ length: o.n }, () => limiter.request(o.account, o.cancel ? 'DELETE' : 'POST', path, () => 1, { contract: o.contract, body: { contract: o.contract } }));
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
