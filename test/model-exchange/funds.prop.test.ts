import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { Dec, ZERO } from '../../src/internal/decimal.js';
import { Funds, profit } from '../../src/model-exchange/funds.js';
import { type Contract, DEFAULT_MARKETS, resolveMarkets } from '../../src/model-exchange/markets.js';

const markets = resolveMarkets(DEFAULT_MARKETS);
const contracts = [markets.contract('usdt', 'BTC_USDT')!, markets.contract('usd', 'BTC_USD')!];

/** A position and its account as the reference keeps them. */
interface Held {
  size: Dec;
  entry: Dec;
  realised: Dec;
  total: Dec;
  openedAt: number;
  updatedAt: number;
}

/**
 * The reference: a fill as the rule reads, the entry of a position added to always the
 * size-weighted mean of the two prices, divided out every time.
 */
function referenceFill(p: Held, contract: Contract, size: Dec, price: Dec, at: number): void {
  const held = p.size;
  if (held.isZero() || held.isNegative() === size.isNegative()) {
    p.entry = held.abs().times(p.entry).plus(size.abs().times(price)).div(held.abs().plus(size.abs()));
    if (held.isZero()) p.openedAt = at;
  } else {
    const closed = Dec.min(held.abs(), size.abs());
    const pnl = profit(contract, closed.times(held.isNegative() ? -1 : 1), p.entry, price);
    p.realised = p.realised.plus(pnl);
    p.total = p.total.plus(pnl);
    if (size.abs().gt(held.abs())) {
      p.entry = price;
      p.openedAt = at;
    }
  }
  p.size = held.plus(size);
  if (p.size.isZero()) p.entry = ZERO;
  p.updatedAt = at;
}

const size = fc.oneof(
  fc.integer({ min: -50, max: 50 }).filter((n) => n !== 0),
  fc.constantFrom('0.5', '-0.25', '1234.5678', '-3'),
);
// Few prices, so that fills at the entry's own price are frequent.
const price = fc.oneof(
  fc.constantFrom('60000', '60000.5', '59999', '0.15'),
  fc.stringMatching(/^[1-9]\d{0,5}(\.\d{1,4})?$/),
);
const fill = fc.record({ contract: fc.nat({ max: contracts.length - 1 }), size, price });

describe('Funds.futuresFill', () => {
  test.prop([fc.array(fill, { minLength: 1, maxLength: 40 })])(
    'moves the position, its entry and the realised profit exactly as the reference does',
    (fills) => {
      const funds = new Funds({ futures: { usdt: '1000', usd: '1000' } });
      const reference = new Map<Contract, Held>();
      fills.forEach((f, i) => {
        const contract = contracts[f.contract]!;
        const at = 1_800_000_000_000 + i;
        const s = new Dec(f.size);
        const p = new Dec(f.price);
        funds.futuresFill(contract, s, p, at);
        let held = reference.get(contract);
        if (held === undefined) {
          const start = new Dec(1000);
          held = { size: ZERO, entry: ZERO, realised: ZERO, total: start, openedAt: at, updatedAt: at };
          reference.set(contract, held);
        }
        referenceFill(held, contract, s, p, at);
        const position = funds.account(contract.settle).positions.get(contract.name)!;
        expect(position.size.toString()).toBe(held.size.toString());
        expect(position.entry.toString()).toBe(held.entry.toString());
        expect(position.realised.toString()).toBe(held.realised.toString());
        expect(position.openedAt).toBe(held.openedAt);
        expect(position.updatedAt).toBe(held.updatedAt);
      });
      for (const [contract, held] of reference)
        expect(funds.account(contract.settle).total.toString()).toBe(held.total.toString());
    },
  );
});
