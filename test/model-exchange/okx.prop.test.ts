// Random sequences of OKX order requests (single orders and batches mixing instruments, at
// random instants) through the model on OKX: whatever the sequence, no instrument's limit and no
// sub-account's tier ever holds more than its N admitted orders in any 2 s, and every order of
// every request is answered once, admitted or refused with the code of a rate limit.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { ModelExchange } from '../../src/model-exchange/model.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { KEY_A, OKX_ACCOUNTS } from './okx-helpers.js';

const START = Date.parse('2026-11-21T10:00:00Z');
const SWAPS = ['BTC-USDT-SWAP', 'ETH-USDT-SWAP', 'SOL-USDT-SWAP'];
const WINDOW = 2000;

const request = fc.record({
  // Mostly close together, so that both the instruments' limits and the tier fill (a few hundred
  // requests within 2 s), now and then a pause past a window.
  gap: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 5 }), weight: 30 }, fc.integer({ min: 0, max: 2500 })),
  batch: fc.boolean(),
  instruments: fc.array(fc.constantFrom(...SWAPS), { minLength: 1, maxLength: 20, size: 'large' }),
});

/** Admitted orders, at their instants, under one limit's key. */
type Log = Map<string, number[]>;

/** The most entries of `times` (sorted) in any window (t - W, t]. */
function most(times: readonly number[]): number {
  let best = 0;
  let head = 0;
  for (let i = 0; i < times.length; i++) {
    while (times[head]! <= times[i]! - WINDOW) head++;
    best = Math.max(best, i - head + 1);
  }
  return best;
}

describe('the model exchange on OKX, by property', () => {
  test.prop([fc.array(request, { minLength: 1, maxLength: 300, size: 'large' })], { numRuns: 30 })(
    'never admits more than an instrument’s or the tier’s N in any 2 s, and answers every order once',
    (requests) => {
      const clock = new VirtualClock({ wallStart: START });
      const model = new ModelExchange(
        { exchange: 'okx', accounts: OKX_ACCOUNTS, fills: { maker: 0, taker: 0 } },
        clock,
      );
      const log: Log = new Map();
      const add = (key: string, at: number) => {
        const list = log.get(key) ?? [];
        list.push(at);
        log.set(key, list);
      };
      for (const r of requests) {
        clock.moveTo(clock.now() + r.gap);
        const at = model.now();
        const list = r.batch ? r.instruments : r.instruments.slice(0, 1);
        const orders = list.map((instId) => ({
          instId,
          tdMode: 'cross',
          side: 'buy',
          ordType: 'limit',
          sz: '1',
          px: '1',
        }));
        const path = r.batch ? '/api/v5/trade/batch-orders' : '/api/v5/trade/order';
        const answer = model.handle({
          method: 'POST',
          path,
          query: '',
          key: KEY_A.key,
          sign: 'unchecked',
          timestamp: new Date(at).toISOString(),
          passphrase: KEY_A.passphrase,
          body: JSON.stringify(r.batch ? orders : orders[0]),
          ip: '127.0.0.1',
        });
        const body = answer.body as { code: string; data: { sCode: string }[] };
        // A single order refused by its instrument is a 429 without rows; every other answer has one row an order.
        const rows = answer.status === 429 ? [{ sCode: body.code }] : body.data;
        expect(rows).toHaveLength(list.length);
        const limitPath = r.batch && list.length > 1 ? path : '/api/v5/trade/order';
        rows.forEach((row, i) => {
          expect(['0', '50011', '50061']).toContain(row.sCode);
          if (row.sCode !== '0') return;
          add('sub-account', at);
          add(`${limitPath}:${list[i]}`, at);
        });
      }
      for (const [key, times] of log) {
        const n = key === 'sub-account' ? 1000 : key.startsWith('/api/v5/trade/order:') ? 60 : 300;
        expect(most(times), key).toBeLessThanOrEqual(n);
      }
    },
  );
});
