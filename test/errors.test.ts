import { describe, expect, expectTypeOf, it } from 'vitest';
import { type ErrorCode, InvalidInputError, RefusedError, TooManyTimersError, TraderatioError } from '../src/errors.js';
import { tradeRatio } from '../src/rules/ratio.js';

describe('InvalidInputError', () => {
  it('keeps the field plain while the message quotes it', () => {
    let error: unknown;
    try {
      tradeRatio([{ contract: 'BTC_USDT', makerVolume: '-5' }]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).field).toBe('makerVolume of BTC_USDT');
    expect((error as InvalidInputError).message).toBe('Expected `makerVolume` of BTC_USDT to be a non-negative decimal string, got "-5"');
  });
});

describe('TraderatioError.code', () => {
  it('is typed as the union of the codes, each a code the classes give', () => {
    expectTypeOf<TraderatioError['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<'INVALID_INPUT'>().toExtend<ErrorCode>();
    expectTypeOf<'SOMETHING_ELSE'>().not.toExtend<ErrorCode>();
    expect(new InvalidInputError('x', 1, 'y').code).toBe('INVALID_INPUT');
    expect(['queue-full', 'aborted', 'deadline', 'too-heavy', 'closed'].map((r) => new RefusedError(r as never, '').code))
      .toEqual(['REFUSED_QUEUE_FULL', 'REFUSED_ABORTED', 'REFUSED_DEADLINE', 'REFUSED_TOO_HEAVY', 'REFUSED_CLOSED']);
    expect(new TooManyTimersError(10, '').code).toBe('TOO_MANY_TIMERS');
  });
});
