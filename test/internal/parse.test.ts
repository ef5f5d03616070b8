import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { createCatalog } from '../../src/catalog/catalog.js';
import { InvalidInputError, UnknownFieldError } from '../../src/errors.js';
import { resolveFamilyOptions, rateFamily } from '../../src/rules/family.js';
import {
  INSTANT_RANGE,
  checkFields,
  isInstant,
  parseInstant,
  parseNonNegativeDecimal,
  parseUnixSeconds,
  readOptions,
  resolveOptions,
} from '../../src/internal/parse.js';
import { tradeRatio } from '../../src/rules/ratio.js';
import { buildTimeline } from '../../src/rules/timeline/timeline.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { Scheduler } from '../../src/schedule/scheduler.js';

const T = Date.parse('2026-11-01T00:00:00Z');

describe('parseInstant', () => {
  it('takes epoch milliseconds from 2000-01-01 to 2200-01-01', () => {
    expect(INSTANT_RANGE).toEqual({ from: Date.UTC(2000, 0, 1), to: Date.UTC(2200, 0, 1) });
    expect(parseInstant(T, '`at`')).toBe(T);
    expect(parseInstant(INSTANT_RANGE.from, '`at`')).toBe(INSTANT_RANGE.from);
    expect(parseInstant(INSTANT_RANGE.to - 1, '`at`')).toBe(INSTANT_RANGE.to - 1);
  });

  it.each([
    ['microseconds by mistake', T * 1000],
    ['past the range', 9e15],
    ['the end of the range', Date.UTC(2200, 0, 1)],
    ['seconds by mistake', T / 1000],
    ['before 2000', Date.UTC(1999, 11, 31, 23, 59, 59, 999)],
    ['negative', -1],
    ['a fraction', T + 0.5],
    ['NaN', Number.NaN],
    ['Infinity', Infinity],
    ['digits as text', String(T)],
    ['undefined', undefined],
    ['an invalid Date', new Date(Number.NaN)],
    ['a Date before 2000', new Date('1999-12-31T23:59:59.999Z')],
    ['ISO text before 2000', '1999-12-31T23:59:59Z'],
    ['ISO text without a zone', '2026-11-01T10:00:00'],
    ['February 30', '2026-02-30'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['hour 24', '2026-11-01T24:00:00Z'],
    ['text around an instant', ' 2026-11-01T00:00:00Z'],
    ['free text', 'November 1, 2026'],
  ])('refuses an instant %s, naming the field', (_, value) => {
    expect(isInstant(value)).toBe(false);
    expect(() => parseInstant(value, '`at`')).toThrow(InvalidInputError);
    expect(() => parseInstant(value, '`at`')).toThrow(
      'Expected `at` to be an instant from 2000-01-01 to 2200-01-01: epoch milliseconds (an integer), a Date, or ISO 8601 text with a zone (2026-11-05T10:00:00Z) or a day (2026-11-05)',
    );
  });

  it.each<[string, unknown, number]>([
    ['a Date', new Date('2026-11-01T00:00:00Z'), T],
    ['ISO text in UTC', '2026-11-01T10:30:00Z', T + 10.5 * 3_600_000],
    ['ISO text with milliseconds', '2026-11-01T00:00:00.250Z', T + 250],
    ['ISO text with an offset', '2026-11-01T02:00:00+02:00', T],
    ['ISO text with an offset without colon', '2026-10-31T19:00:00-0500', T],
    ['ISO text without seconds', '2026-11-01T00:00Z', T],
    ['an ISO day (its 00:00 UTC)', '2026-11-01', T],
  ])('reads %s into epoch milliseconds', (_, value, ms) => {
    expect(parseInstant(value, '`at`')).toBe(ms);
  });

  it('takes a Date and ISO text wherever an instant is taken: timeline queries, VIP changes, sub-accounts, fills', () => {
    const timeline = buildTimeline({
      accounts: [
        { id: 'main', role: 'main' },
        { id: 'sub', createdAt: '2026-11-01T12:00:00Z' as never },
      ],
      activity: [
        { account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] },
      ],
      vipChanges: [{ at: new Date('2026-11-03T00:00:00Z') as never, level: 13 }],
    });
    expect(timeline.limitAt('main', new Date('2026-11-02T08:00:00Z')).limit).toBe(250);
    expect(timeline.limitAt('main', '2026-11-02T07:59:59.999Z').limit).toBe(100);
    expect(timeline.vipLevelAt('2026-11-03')).toBe(13);
    expect(timeline.changes.find((c) => c.account === 'sub')!.at).toBe(T + 12 * 3_600_000);
    const limiter = new AccountLimiter({
      accounts: [{ id: 'main', role: 'main' }],
      clock: new VirtualClock({ start: 0, wallStart: T + 86_400_000 }),
    });
    limiter.addSubAccount('sub', '2026-11-01T12:00:00Z');
    limiter.setVipLevel(13, new Date(T + 3_600_000));
    limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '10', at: '2026-11-01T13:00:00Z' });
    const s = limiter.snapshot();
    expect(s.accounts[1]).toEqual({ id: 'sub', createdAt: T + 12 * 3_600_000 });
    expect(s.vipChanges).toEqual([{ at: T + 3_600_000, level: 13 }]);
    limiter.close();
  });

  it('reads Unix seconds in the same range', () => {
    expect(parseUnixSeconds(T / 1000 + 0.25, '`t`')).toBe(T / 1000 + 0.25);
    expect(() => parseUnixSeconds(T, '`t`')).toThrow(
      'Expected `t` to be Unix seconds from 2000-01-01 to 2200-01-01, got 1793491200000',
    );
    expect(() => parseUnixSeconds(Number.NaN, '`t`')).toThrow(InvalidInputError);
  });
});

describe('parseNonNegativeDecimal', () => {
  it.each(['1e5', '1e400', '+5', '.5', '5.', '1,000', ' 5', '0x10', 'Infinity', '5e-3'])(
    'refuses %s: amounts are plain decimal text',
    (text) => {
      expect(() => parseNonNegativeDecimal(text, '`makerVolume`')).toThrow(
        `Expected \`makerVolume\` to be a non-negative decimal string, got "${text}"`,
      );
    },
  );

  it('reads plain decimal text, and numbers and Decimals as they are', () => {
    expect(parseNonNegativeDecimal('1234.56', '`v`').toString()).toBe('1234.56');
    expect(parseNonNegativeDecimal('0.00000000000000000001', '`v`').toString()).toBe('0.00000000000000000001');
    expect(parseNonNegativeDecimal(1e5, '`v`').toString()).toBe('100000');
  });

  it('reads zero of either sign as 0, as its comment says, and refuses any other negative amount', () => {
    for (const zero of [-0, '-0', '-0.00']) expect(parseNonNegativeDecimal(zero, '`v`').toString()).toBe('0');
    expect(parseNonNegativeDecimal(-0, '`v`').isNegative()).toBe(false);
    expect(() => parseNonNegativeDecimal('-0.01', '`v`')).toThrow(
      'Expected `v` to be a non-negative decimal string, got "-0.01"',
    );
    expect(() => parseNonNegativeDecimal(-5, '`v`')).toThrow(InvalidInputError);
  });
});

describe('readOptions', () => {
  it('takes an object or nothing, and refuses null naming the options', () => {
    expect(readOptions(undefined)).toEqual({});
    const given = { a: 1 };
    expect(readOptions(given)).toBe(given);
    expect(() => readOptions(null as never, 'the ratio options')).toThrow(
      'Expected the ratio options to be an options object, or nothing for the defaults, got null',
    );
    expect(() => readOptions([] as never)).toThrow(InvalidInputError);
  });
});

describe('resolveOptions', () => {
  interface Options {
    readonly size?: number;
    readonly kind?: 'small' | 'large';
  }
  interface Config {
    readonly kind: 'size-config';
    readonly size: number;
  }
  const resolve = (o: Options): Config => ({ kind: 'size-config', size: o.size ?? 1 });
  const read = (options?: Options | Config): Config =>
    resolveOptions(options, 'size-config', ['size', 'kind'], 'the size options', resolve);

  it('passes a config of its kind through untouched and resolves anything else', () => {
    const config = read({ size: 3 });
    expect(config).toEqual({ kind: 'size-config', size: 3 });
    expect(read(config)).toBe(config);
    expect(read()).toEqual({ kind: 'size-config', size: 1 });
  });

  it('reads an options field named kind as an option, not as a config', () => {
    expect(read({ kind: 'large', size: 2 })).toEqual({ kind: 'size-config', size: 2 });
    expect(resolveFamilyOptions({ kind: 'broker' }).familyKind).toBe('broker');
  });

  it('refuses null and an unknown field, naming the options', () => {
    expect(() => read(null as never)).toThrow('Expected the size options to be an options object');
    expect(() => read({ sise: 2 } as never)).toThrow(UnknownFieldError);
    expect(() => read({ sise: 2 } as never)).toThrow('the size options');
  });
});

describe('checkFields', () => {
  it('takes known fields and refuses any other, naming it, its object and the closest known one', () => {
    expect(() => checkFields({ place: 1 }, ['place', 'amend'], 'the entry')).not.toThrow();
    const error = (() => {
      try {
        checkFields({ place: 1, amnd: 2 }, ['place', 'amend'], () => 'the entry');
      } catch (e) {
        return e as UnknownFieldError;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UnknownFieldError);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({
      key: 'amnd',
      suggestion: 'amend',
      known: ['place', 'amend'],
      value: 2,
      code: 'INVALID_INPUT',
    });
    expect(error!.message).toBe('Unknown field `amnd` in the entry: did you mean `amend`? The fields are place, amend');
  });

  it('refuses unknown fields of options through readOptions when told the known ones', () => {
    expect(readOptions({ tiers: [] }, 'the margin options', ['tiers'])).toEqual({ tiers: [] });
    expect(() => readOptions({ tier: [] }, 'the margin options', ['tiers'])).toThrow(
      'Unknown field `tier` in the margin options: did you mean `tiers`?',
    );
  });
});

describe('every input object of the library', () => {
  const clock = () => new VirtualClock({ start: 0, wallStart: T });
  const limiter = () => new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock: clock() });
  it.each<[string, () => unknown, string]>([
    [
      'a contract entry of tradeRatio',
      () => tradeRatio([{ contract: 'BTC_USDT', maker_volume: '900', place: 100 } as never]),
      'Unknown field `maker_volume` in `contracts[0]`: did you mean `makerVolume`?',
    ],
    [
      'the ratio options',
      () => tradeRatio([], { countcancels: false } as never),
      'Unknown field `countcancels` in the ratio options: did you mean `countCancels`?',
    ],
    [
      'an account of rateFamily',
      () => rateFamily([{ account: 'A', contract: [] } as never]),
      'Unknown field `contract` in `accounts[0]`: did you mean `contracts`?',
    ],
    [
      'the family options',
      () => rateFamily([], { ownVolumeTreshold: '0' } as never),
      'Unknown field `ownVolumeTreshold` in the family options: did you mean `ownVolumeThreshold`?',
    ],
    [
      'a tier row',
      () => rateFamily([], { tiers: [{ minRatio: '0', limit: 100, max: 1 }] } as never),
      'Unknown field `max` in `tiers[0]`.',
    ],
    [
      'the timeline input',
      () => buildTimeline({ accounts: [{ id: 'main' }], activity: [], vip_level: 12 } as never),
      'Unknown field `vip_level` in the timeline input: did you mean `vipLevel`?',
    ],
    [
      'a timeline account',
      () => buildTimeline({ accounts: [{ id: 'main', created: T }], activity: [] } as never),
      'Unknown field `created` in `accounts[0]`',
    ],
    [
      'a VIP change',
      () => buildTimeline({ accounts: [{ id: 'main' }], activity: [], vipChanges: [{ at: T, vip: 13 }] } as never),
      'Unknown field `vip` in `vipChanges[0]`',
    ],
    [
      'a day of activity',
      () =>
        buildTimeline({
          accounts: [{ id: 'main' }],
          activity: [{ account: 'main', date: '2026-11-01', contracts: [] }],
        } as never),
      'Unknown field `date` in `activity[0]`',
    ],
    [
      'the account limiter options',
      () => new AccountLimiter({ accounts: [{ id: 'main' }], clock: clock(), vip_level: 12 } as never),
      'Unknown field `vip_level` in the limiter options: did you mean `vipLevel`?',
    ],
    [
      'the abuse options',
      () => new AccountLimiter({ accounts: [{ id: 'main' }], clock: clock(), abuse: { requestTreshold: 1 } } as never),
      'did you mean `requestThreshold`?',
    ],
    [
      'a history',
      () => limiter().seed({ day: [] } as never),
      'Unknown field `day` in the history: did you mean `days`?',
    ],
    [
      'an hour of history',
      () => limiter().seed({ hours: [{ account: 'main', hour: T, requests: 1, trade: '1' }] } as never),
      'Unknown field `trade` in `hours[0]`: did you mean `traded`?',
    ],
    [
      'a snapshot',
      () => {
        const l = limiter();
        l.restore({ ...l.snapshot(), extra: 1 });
      },
      'Unknown field `extra` in the snapshot',
    ],
    [
      'the request options',
      () =>
        limiter().request('main', 'POST', 'https://api.gateio.ws/api/v4/futures/usdt/orders', () => 1, {
          contracts: 'BTC_USDT',
        } as never),
      'Unknown field `contracts` in the request options: did you mean `contract`?',
    ],
    [
      'the scheduler options',
      () => new Scheduler({ max_queue: 5 } as never),
      'Unknown field `max_queue` in the scheduler options: did you mean `maxQueue`?',
    ],
    [
      'the catalogue options',
      () => createCatalog({ limit: {} } as never),
      'Unknown field `limit` in the catalogue options: did you mean `limits`?',
    ],
    [
      'a limit override',
      () => createCatalog({ limits: { 'futures.place': { limit: 1, window: 1000 } } } as never),
      'Unknown field `window` in `limits.futures.place`: did you mean `windowMs`?',
    ],
  ])('refuses an unknown field in %s', (_, call, message) => {
    expect(call).toThrow(UnknownFieldError);
    expect(call).toThrow(message);
  });
});
