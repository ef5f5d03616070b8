import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { recordTrades } from '../../src/account/trades.js';
import { VirtualClock } from '../../src/schedule/clock.js';

const T0 = Date.parse('2026-11-21T10:00:00Z');
const multipliers = { BTC_USDT: '0.0001', DOGE_USDT: '10' };

function setup() {
  return new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock: new VirtualClock({ start: 0, wallStart: T0 }) });
}

describe('recordTrades', () => {
  it('counts each futures fill at |size| x multiplier x price exactly, and each spot fill at amount x price', () => {
    const limiter = setup();
    const rows = [
      { id: 101, contract: 'BTC_USDT', size: '-3', price: '60000.1', role: 'maker' as const },
      { id: 102, contract: 'DOGE_USDT', size: 7, price: '0.1', role: 'taker' as const },
    ];
    expect(recordTrades(limiter, 'main', rows, { multipliers })).toEqual({ recorded: 2, duplicates: 0 });
    // 3 x 0.0001 x 60000.1 = 18.00003; 7 x 10 x 0.1 = 7 (0.1 x 70 in binary would not be).
    expect(limiter.abuseHeadroom('main').traded).toBe('25.00003');
    recordTrades(limiter, 'main', [{ id: '9', currency_pair: 'ETH_USDT', amount: '0.3', price: '3000.7', role: 'taker' }]);
    expect(limiter.spotFillHeadroom('main').traded).toBe('900.21');
    limiter.close();
  });

  it('records a trade once when a catch-up and a stream report it both, futures and spot ids apart', () => {
    const limiter = setup();
    const fill = { id: 5, contract: 'BTC_USDT', size: '1', price: '60000', role: 'maker' as const };
    recordTrades(limiter, 'main', [fill], { multipliers });
    expect(recordTrades(limiter, 'main', [fill, { ...fill, id: 6 }, { ...fill, id: 6 }], { multipliers })).toEqual({ recorded: 1, duplicates: 2 });
    expect(recordTrades(limiter, 'main', [{ id: '5', currency_pair: 'BTC_USDT', amount: '1', price: '2', role: 'maker' }])).toEqual({ recorded: 1, duplicates: 0 });
    expect(limiter.abuseHeadroom('main').traded).toBe('12');
    limiter.close();
  });

  it.each([
    ['a contract without a multiplier', [{ id: 1, contract: 'ETH_USDT', size: 1, price: '1', role: 'maker' }], 'Expected `multipliers.ETH_USDT`'],
    ['a role that is neither', [{ id: 1, contract: 'BTC_USDT', size: 1, price: '1', role: 'both' }], 'Expected `trades[1].role`'],
    ['a size that is not a number', [{ id: 1, contract: 'BTC_USDT', size: 'one', price: '1', role: 'maker' }], 'Expected `trades[1].size`'],
    ['a row without an id', [{ contract: 'BTC_USDT', size: 1, price: '1', role: 'maker' }], 'Expected `trades[1].id`'],
  ])('refuses %s, after a good row, and records none of them', (_, bad, message) => {
    const limiter = setup();
    const good = { id: 2, contract: 'BTC_USDT', size: '1', price: '60000', role: 'maker' };
    expect(() => recordTrades(limiter, 'main', [good, ...bad] as never, { multipliers })).toThrow(message);
    expect(limiter.abuseHeadroom('main').traded).toBe('0');
    // Not remembered either: it counts when sent again, right.
    expect(recordTrades(limiter, 'main', [good] as never, { multipliers }).recorded).toBe(1);
    limiter.close();
  });
});
