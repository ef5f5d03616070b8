import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/internal/decimal.js';
import { Book, type FuturesOrder, type SpotOrder } from '../../src/model-exchange/book.js';

const futures = (id: number): FuturesOrder => ({
  id,
  market: 'futures',
  account: 'main',
  settle: 'usdt',
  contract: 'BTC_USDT',
  size: new Dec(1),
  left: new Dec(1),
  price: new Dec(60000),
  tif: 'gtc',
  text: '',
  createdAt: 0,
  status: 'open',
  finishAs: '',
  finishedAt: null,
  fillPrice: null,
  sizeAsText: false,
});
const spot = (id: string): SpotOrder => ({
  id,
  market: 'spot',
  account: 'main',
  pair: 'BTC_USDT',
  side: 'buy',
  type: 'limit',
  accountType: 'spot',
  amount: new Dec(1),
  left: new Dec(1),
  price: new Dec(60000),
  tif: 'gtc',
  text: '',
  createdAt: 0,
  status: 'open',
  finishAs: '',
  finishedAt: null,
  fillPrice: null,
});

describe('Book.order', () => {
  const book = new Book();
  const f = futures(12);
  const s = spot('13');
  book.add(f);
  book.add(s);

  it('finds an order by its id as a number or as its text, whatever its market', () => {
    expect(book.order(12)).toBe(f);
    expect(book.order('12')).toBe(f);
    expect(book.order(13)).toBe(s);
    expect(book.order('13')).toBe(s);
  });

  it('finds none by another text of the same number, as String(id) would not', () => {
    for (const id of ['012', ' 12', '12.0', '1.2e1', '+12', '0x0c', '', '-0', 'NaN'])
      expect(book.order(id), id).toBeUndefined();
    expect(book.order([12])).toBe(f);
    expect(book.order(12.5)).toBeUndefined();
    expect(book.order(undefined)).toBeUndefined();
  });

  it('forgets the oldest finished orders past the last 10,000', () => {
    const many = new Book();
    for (let id = 1; id <= 10_001; id++) many.add({ ...futures(id), status: 'finished' });
    expect(many.order(1)).toBeUndefined();
    expect(many.order('2')?.id).toBe(2);
    expect(many.order(10_001)?.id).toBe(10_001);
  });
});
