import { describe, expect, expectTypeOf, it } from 'vitest';
import { type CliErrorCode, run } from '../src/cli/main.js';
import { ApiError } from '../src/model-exchange/api-error.js';
import type { ModelExchangeErrorCode } from '../src/model-exchange/index.js';
import {
  type ErrorCode,
  InvalidInputError,
  NoReplyError,
  RefusedError,
  TooManyTimersError,
  TraderatioError,
  UnknownFieldError,
  refusal,
} from '../src/errors.js';
import { Scheduler } from '../src/schedule/scheduler.js';
import { VirtualClock } from '../src/testing/virtual-clock.js';
import { InputFileError } from '../src/cli/input.js';
import { MixedBuildsError } from '../src/schedule/build.js';
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
    expect((error as InvalidInputError).message).toBe(
      'Expected `makerVolume` of BTC_USDT to be a non-negative decimal string, got "-5"',
    );
  });

  it('shows an array in brackets, so that an empty one reads as [], its strings keep their quotes and Infinity stays Infinity', () => {
    expect(new InvalidInputError('`waitBuckets`', [], 'increasing positive numbers').message).toBe(
      'Expected `waitBuckets` to be increasing positive numbers, got []',
    );
    expect(new InvalidInputError('`list`', ['1', 2, null, Infinity, [NaN]], 'numbers').message).toBe(
      'Expected `list` to be numbers, got ["1", 2, null, Infinity, [NaN]]',
    );
  });
});

describe('TraderatioError.code', () => {
  it('is typed as the union of the codes, each a code the classes give', () => {
    expectTypeOf<TraderatioError['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<'INVALID_INPUT'>().toExtend<ErrorCode>();
    expectTypeOf<'SOMETHING_ELSE'>().not.toExtend<ErrorCode>();
    expect(new InvalidInputError('x', 1, 'y').code).toBe('INVALID_INPUT');
    expect(
      ['queue-full', 'aborted', 'deadline', 'too-heavy', 'closed'].map((r) => new RefusedError(r as never, '').code),
    ).toEqual(['REFUSED_QUEUE_FULL', 'REFUSED_ABORTED', 'REFUSED_DEADLINE', 'REFUSED_TOO_HEAVY', 'REFUSED_CLOSED']);
    expect(new TooManyTimersError(10, '').code).toBe('TOO_MANY_TIMERS');
    expect(new NoReplyError('1', '').code).toBe('NO_REPLY');
  });

  it("holds the core's codes only: the command line and the model exchange have unions of their own", () => {
    expectTypeOf<'INPUT_FILE' | 'OUTPUT_FILE' | 'EXCHANGE_API_ERROR'>().not.toExtend<ErrorCode>();
    expectTypeOf<CliErrorCode>().toEqualTypeOf<'INPUT_FILE' | 'OUTPUT_FILE'>();
    expectTypeOf<ModelExchangeErrorCode>().toEqualTypeOf<'EXCHANGE_API_ERROR'>();
    expectTypeOf<ApiError['code']>().toEqualTypeOf<ModelExchangeErrorCode>();
    expectTypeOf<InputFileError['code']>().toEqualTypeOf<CliErrorCode>();
    expect(new ApiError(400, 'INVALID_PARAM_VALUE', 'x').code).toBe('EXCHANGE_API_ERROR');
    expect(new InputFileError('a.csv', 2, 'x').code).toBe('INPUT_FILE');
  });

  it('of a file the command line cannot write is OUTPUT_FILE', async () => {
    const err: string[] = [];
    const code = await run(['timeline', 'examples/timeline.json', '--svg', '/nonexistent-dir/out.svg'], {
      out: () => {},
      err: (l) => err.push(l),
    });
    expect([code, err.join('\n')]).toEqual([1, expect.stringContaining('/nonexistent-dir/out.svg: cannot write it')]);
  });
});

describe('TraderatioError.name', () => {
  it("is the class's own name, without writing it out in each class", () => {
    const made = [
      new TraderatioError('INVALID_INPUT', ''),
      new InvalidInputError('x', 1, 'y'),
      new UnknownFieldError('k', 'o', 1, ['a'], undefined),
      new RefusedError('closed', ''),
      new NoReplyError('1', ''),
      new TooManyTimersError(1, ''),
      new ApiError(400, 'L', ''),
      new InputFileError('f', null, ''),
      new MixedBuildsError('w', {}, { build: 'ESM', version: '1' } as never, 'x', {
        build: 'CJS',
        version: '1',
      } as never),
    ];
    expect(made.map((e) => e.name)).toEqual([
      'TraderatioError',
      'InvalidInputError',
      'UnknownFieldError',
      'RefusedError',
      'NoReplyError',
      'TooManyTimersError',
      'ApiError',
      'InputFileError',
      'MixedBuildsError',
    ]);
    expect(String(new RefusedError('closed', 'the scheduler is closed'))).toBe('RefusedError: the scheduler is closed');
  });
});

describe('refusal', () => {
  it('makes a RefusedError that is an Error with its name and message, and no stack frames', () => {
    const limit = Error.stackTraceLimit;
    const e = refusal('queue-full', '3 tasks are waiting, the most `maxQueue` allows');
    expect(e).toBeInstanceOf(RefusedError);
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe('REFUSED_QUEUE_FULL');
    expect(e.reason).toBe('queue-full');
    expect(e.stack).toBe('RefusedError: 3 tasks are waiting, the most `maxQueue` allows');
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('after').stack).toContain('\n    at ');
  });

  it('is what a scheduler rejects a task of a full queue with', async () => {
    const scheduler = new Scheduler({ clock: new VirtualClock(), maxQueue: 1 });
    const place = scheduler.limit({ limit: 1, windowMs: 1000 });
    const tasks = [1, 2].map((i) => scheduler.schedule(() => i, { limits: place }).catch(() => null));
    const error = await scheduler.schedule(() => 3, { limits: place }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RefusedError);
    expect((error as RefusedError).stack).toBe('RefusedError: 1 tasks are waiting, the most `maxQueue` allows');
    scheduler.close();
    await Promise.all(tasks);
  });
});
