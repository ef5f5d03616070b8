import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { recordTrades } from '../../src/account/trades.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const T0 = Date.parse('2026-11-21T10:00:00Z');
const multipliers = { BTC_USDT: '0.0001', DOGE_USDT: '10' };

function setup() {
  return new AccountLimiter({
    accounts: [{ id: 'main', role: 'main' }],
    clock: new VirtualClock({ start: 0, wallStart: T0 }),
  });
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
    recordTrades(limiter, 'main', [
      { id: '9', currency_pair: 'ETH_USDT', amount: '0.3', price: '3000.7', role: 'taker' },
    ]);
    expect(limiter.spotFillHeadroom('main').traded).toBe('900.21');
    limiter.close();
  });

  it('reads the rows of my_trades_timerange, whose id is `trade_id`, as the same trades as my_trades', () => {
    const limiter = setup();
    const timerange = [
      { trade_id: '41', contract: 'BTC_USDT', size: '-2', close_size: '0', price: '60000', role: 'maker' as const },
      { trade_id: '42', contract: 'BTC_USDT', size: '1', close_size: '0', price: '60000', role: 'taker' as const },
    ];
    expect(recordTrades(limiter, 'main', timerange, { multipliers })).toEqual({ recorded: 2, duplicates: 0 });
    expect(
      recordTrades(limiter, 'main', [{ id: 41, contract: 'BTC_USDT', size: -2, price: '60000', role: 'maker' }], {
        multipliers,
      }),
    ).toEqual({ recorded: 0, duplicates: 1 });
    expect(limiter.abuseHeadroom('main').traded).toBe('18');
    // A row with neither is refused by the name the exchange uses for it, and nothing is recorded.
    expect(() =>
      recordTrades(limiter, 'main', [{ trade_id: '', contract: 'BTC_USDT', size: 1, price: '1', role: 'maker' }], {
        multipliers,
      }),
    ).toThrow('Expected `trades[0].trade_id` to be a trade id, got ""');
    expect(() =>
      recordTrades(limiter, 'main', [{ contract: 'BTC_USDT', size: 1, price: '1', role: 'maker' } as never], {
        multipliers,
      }),
    ).toThrow('Expected `trades[0].id` to be a trade id, got undefined');
    expect(limiter.abuseHeadroom('main').traded).toBe('18');
    limiter.close();
  });

  it('records a trade once when a catch-up and a stream report it both, futures and spot ids apart', () => {
    const limiter = setup();
    const fill = { id: 5, contract: 'BTC_USDT', size: '1', price: '60000', role: 'maker' as const };
    recordTrades(limiter, 'main', [fill], { multipliers });
    expect(recordTrades(limiter, 'main', [fill, { ...fill, id: 6 }, { ...fill, id: 6 }], { multipliers })).toEqual({
      recorded: 1,
      duplicates: 2,
    });
    expect(
      recordTrades(limiter, 'main', [{ id: '5', currency_pair: 'BTC_USDT', amount: '1', price: '2', role: 'maker' }]),
    ).toEqual({ recorded: 1, duplicates: 0 });
    expect(limiter.abuseHeadroom('main').traded).toBe('12');
    limiter.close();
  });

  it('records the fills of WebSocket user-trades updates, sharing the trade ids with my_trades rows', () => {
    const limiter = setup();
    const futures = {
      time: 1795338001,
      channel: 'futures.usertrades',
      event: 'update',
      result: [
        {
          id: '5',
          contract: 'BTC_USDT',
          create_time: 1795338001,
          order_id: '7',
          size: -2,
          price: '60000',
          role: 'taker',
          text: 'web',
          fee: 0.1,
        },
        {
          id: '6',
          contract: 'DOGE_USDT',
          create_time: 1795338001,
          order_id: '8',
          size: 3,
          price: '0.1',
          role: 'maker',
          text: 'web',
          fee: 0,
        },
      ],
    };
    // Trade 5 came first through the REST catch-up: the stream's copy is a duplicate.
    recordTrades(limiter, 'main', [{ id: 5, contract: 'BTC_USDT', size: '-2', price: '60000', role: 'taker' }], {
      multipliers,
    });
    expect(recordTrades(limiter, 'main', futures, { multipliers })).toEqual({ recorded: 1, duplicates: 1 });
    // 2 x 0.0001 x 60000 = 12, once; 3 x 10 x 0.1 = 3.
    expect(limiter.abuseHeadroom('main').traded).toBe('15');
    const spot = {
      channel: 'spot.usertrades',
      event: 'update',
      result: [
        { id: 5736713, currency_pair: 'BTC_USDT', side: 'sell', amount: '0.001', price: '60000.5', role: 'taker' },
      ],
    };
    expect(recordTrades(limiter, 'main', spot)).toEqual({ recorded: 1, duplicates: 0 });
    expect(limiter.spotFillHeadroom('main').traded).toBe('60.0005');
    // The answer to a subscription records nothing.
    expect(
      recordTrades(limiter, 'main', {
        channel: 'futures.usertrades',
        event: 'subscribe',
        result: { status: 'success' },
      }),
    ).toEqual({ recorded: 0, duplicates: 0 });
    limiter.close();
  });

  it.each([
    ['another channel', { channel: 'futures.trades', event: 'update', result: [] }, 'Expected the trades'],
    [
      'an update without rows',
      { channel: 'spot.usertrades', event: 'update', result: {} },
      'Expected the `result` of the user-trades update',
    ],
    [
      'a spot row on the futures channel',
      {
        channel: 'futures.usertrades',
        event: 'update',
        result: [{ id: 1, currency_pair: 'BTC_USDT', amount: '1', price: '1', role: 'maker' }],
      },
      'Expected `result[0]` of futures.usertrades',
    ],
    ['a channel named like a built-in', { channel: 'toString', event: 'update', result: [] }, 'Expected the trades'],
  ])('refuses %s, recording nothing', (_, message, error) => {
    const limiter = setup();
    expect(() => recordTrades(limiter, 'main', message as never, { multipliers })).toThrow(error);
    expect(limiter.abuseHeadroom('main').traded).toBe('0');
    limiter.close();
  });

  it.each([
    [
      'a contract without a multiplier',
      [{ id: 1, contract: 'ETH_USDT', size: 1, price: '1', role: 'maker' }],
      'Expected `multipliers.ETH_USDT`',
    ],
    [
      'a role that is neither',
      [{ id: 1, contract: 'BTC_USDT', size: 1, price: '1', role: 'both' }],
      'Expected `trades[1].role`',
    ],
    [
      'a size that is not a number',
      [{ id: 1, contract: 'BTC_USDT', size: 'one', price: '1', role: 'maker' }],
      'Expected `trades[1].size`',
    ],
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
