import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { Dec, ZERO } from '../../src/internal/decimal.js';
import type { FuturesOrder } from '../../src/model-exchange/book.js';
import { FuturesOrderJson, apiSeconds, secondsText } from '../../src/model-exchange/order-json.js';

const decimal = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map((n) => new Dec(n)),
  fc.stringMatching(/^-?\d{1,25}(\.\d{1,20})?$/).map((t) => new Dec(t)),
);
const instant = fc.oneof(
  fc.double({ min: 946_684_800_000, max: 7_258_118_400_000, noNaN: true }),
  fc.constantFrom(Number.NaN, Infinity),
);
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', 't-a"b\\c', 't-\u2028\ud800', 'BTC_USDT'),
);

const order = fc
  .record({
    id: fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER)),
    contract: text,
    createdAt: instant,
    size: decimal,
    left: fc.option(decimal),
    price: decimal,
    fill: fc.constantFrom('none', 'price', 'other'),
    other: decimal,
    tif: text,
    text,
    status: fc.constantFrom('open', 'finished'),
    finishAs: fc.constantFrom('', 'filled', 'cancelled', 'ioc'),
    finished: fc.constantFrom('open', 'same', 'other'),
    finishedAt: instant,
    sizeAsText: fc.boolean(),
  })
  .map(
    (o): FuturesOrder => ({
      id: o.id,
      market: 'futures',
      account: 'main',
      settle: 'usdt',
      contract: o.contract,
      size: o.size,
      left: o.left ?? ZERO,
      price: o.price,
      tif: o.tif,
      text: o.text,
      createdAt: o.createdAt,
      status: o.status as FuturesOrder['status'],
      finishAs: o.finishAs as FuturesOrder['finishAs'],
      finishedAt: o.finished === 'open' ? null : o.finished === 'same' ? o.createdAt : o.finishedAt,
      fillPrice: o.fill === 'none' ? null : o.fill === 'price' ? o.price : o.other,
      sizeAsText: o.sizeAsText,
    }),
  );

describe('secondsText', () => {
  test.prop([
    fc.oneof(
      instant.map(apiSeconds),
      fc.double({ noNaN: false }),
      fc
        .integer({ min: 0, max: 2 ** 41 })
        .chain((s) => fc.constantFrom(s, s + 0.001, s + 0.01, s + 0.1, s + 0.999, s - 0.001)),
      fc.double({ min: 0, max: 2 ** 53 }).map(apiSeconds),
    ),
  ])('writes seconds as String does', (seconds) => {
    expect(secondsText(seconds)).toBe(String(seconds));
  });
});

describe('FuturesOrderJson', () => {
  test.prop([order, fc.nat()])('writes the same text as JSON.stringify', (o, user) => {
    const answer = new FuturesOrderJson(o, user);
    expect(answer.json()).toBe(JSON.stringify(answer));
  });

  it('has the fields of the API order, finish_time only once finished, times to the millisecond', () => {
    const o: FuturesOrder = {
      id: 7,
      market: 'futures',
      account: 'main',
      settle: 'usdt',
      contract: 'BTC_USDT',
      size: new Dec(-3),
      left: new Dec(-3),
      price: new Dec('60000.5'),
      tif: 'gtc',
      text: 't-x',
      createdAt: 1_795_000_000_123.5,
      status: 'open',
      finishAs: '',
      finishedAt: null,
      fillPrice: null,
      sizeAsText: false,
    };
    expect(JSON.parse(new FuturesOrderJson(o, 10_000_001).json())).toEqual({
      id: 7,
      user: 10_000_001,
      contract: 'BTC_USDT',
      create_time: 1_795_000_000.123,
      size: -3,
      left: -3,
      price: '60000.5',
      fill_price: '0',
      tif: 'gtc',
      text: 't-x',
      status: 'open',
      finish_as: '',
      is_reduce_only: false,
      is_close: false,
      iceberg: 0,
    });
    const done = {
      ...o,
      status: 'finished' as const,
      finishAs: 'filled' as const,
      finishedAt: o.createdAt,
      left: ZERO,
      fillPrice: o.price,
    };
    expect(Object.keys(new FuturesOrderJson(done, 1))).toEqual([
      'id',
      'user',
      'contract',
      'create_time',
      'size',
      'left',
      'price',
      'fill_price',
      'tif',
      'text',
      'status',
      'finish_as',
      'finish_time',
      'is_reduce_only',
      'is_close',
      'iceberg',
    ]);
    expect(new FuturesOrderJson(done, 1).json()).toContain('"left":0,"price":"60000.5","fill_price":"60000.5"');
  });
});
