import { describe, expect, it } from 'vitest';
import { Tracker } from '../../src/account/tracker.js';

const T0 = Date.parse('2026-11-01T00:00:00Z');
const H = 3_600_000;
const D = 86_400_000;

describe('Tracker (R1, R9)', () => {
  it('counts requests and fills per contract and UTC day, and per hour', () => {
    const t = new Tracker();
    t.recordRequest('main', 'BTC_USDT', 'place', T0 + 1, 3);
    t.recordRequest('main', 'btc-usdt', 'cancel', T0 + 2);
    t.recordRequest('main', 'SOL_USDT', 'amend', T0 + H);
    t.recordFill('main', 'BTC_USDT', 'maker', '100.5', T0 + H + 1);
    t.recordFill('main', 'BTC_USDT', 'taker', 0.25, T0 + D);
    expect(t.dailyActivity()).toEqual([
      { account: 'main', day: T0, contracts: [
        { contract: 'BTC_USDT', makerVolume: '100.5', takerVolume: '0', place: 3, amend: 0, cancel: 1 },
        { contract: 'SOL_USDT', makerVolume: '0', takerVolume: '0', place: 0, amend: 1, cancel: 0 },
      ] },
      { account: 'main', day: T0 + D, contracts: [{ contract: 'BTC_USDT', makerVolume: '0', takerVolume: '0.25', place: 0, amend: 0, cancel: 0 }] },
    ]);
    expect(t.hourlyActivity('main')).toEqual([
      { hour: T0, requests: 4, traded: '0' },
      { hour: T0 + H, requests: 1, traded: '100.5' },
      { hour: T0 + D, requests: 0, traded: '0.25' },
    ]);
  });

  it('keeps nine days and 25 hours, however long it runs', () => {
    const t = new Tracker();
    for (let h = 0; h < 24 * 30; h++) t.recordRequest('main', 'BTC_USDT', 'place', T0 + h * H);
    expect(t.dailyActivity()).toHaveLength(9);
    expect(t.hourlyActivity('main')).toHaveLength(25);
  });

  it('refuses an instant out of order, a negative fill or a bad action, and counts nothing for them', () => {
    const t = new Tracker();
    t.recordRequest('main', 'BTC_USDT', 'place', T0 + 10);
    const before = JSON.stringify(t.snapshot());
    expect(() => t.recordRequest('main', 'BTC_USDT', 'place', T0 + 9)).toThrow('Expected `at` to be an instant at or after the last one recorded (2026-11-01T00:00:00.010Z)');
    expect(() => t.recordFill('main', 'BTC_USDT', 'maker', '-5', T0 + 20)).toThrow('Expected `volume` to be a non-negative decimal string, got "-5"');
    expect(() => t.recordRequest('main', 'BTC_USDT', 'fill' as never, T0 + 20)).toThrow('`action`');
    expect(() => t.recordRequest('main', '', 'place', T0 + 20)).toThrow('`contract`');
    expect(() => t.recordRequest('main', 'BTC_USDT', 'place', T0 + 20, 0)).toThrow('`orders`');
    expect(JSON.stringify(t.snapshot())).toBe(before);
  });

  it('restores from its snapshot to the same counts, and refuses a corrupt one', () => {
    const t = new Tracker();
    t.recordRequest('a', 'BTC_USDT', 'place', T0 + 5, 2);
    t.recordFill('a', 'ETH_USDT', 'taker', '12.345678901234567890', T0 + 2 * H);
    const copy = Tracker.restore(JSON.parse(JSON.stringify(t.snapshot())));
    expect(copy.snapshot()).toEqual(t.snapshot());
    expect(() => copy.recordRequest('a', 'BTC_USDT', 'place', T0)).toThrow('`at`');
    expect(() => Tracker.restore({ latest: 0, days: [{ account: 'a', day: 'x', contracts: [] }], hours: [] } as never)).toThrow('`days[0].day`');
    expect(() => Tracker.restore({ latest: 0, days: [], hours: [{ account: 'a', hour: '2026-11-01T00:30:00Z', requests: 1, traded: '0' }] } as never)).toThrow('a whole UTC hour');
    expect(() => Tracker.restore(null as never)).toThrow('the tracker state');
  });
});

describe('Tracker across a day that a fill opened', () => {
  it('counts a request on the new day, not on the day before', () => {
    const t = new Tracker();
    t.recordRequest('main', 'BTC_USDT', 'place', T0 + 10);
    t.recordFill('main', 'ETH_USDT', 'maker', '1', T0 + D + 10);
    t.recordRequest('main', 'BTC_USDT', 'place', T0 + D + 20);
    expect(t.dailyActivity().map((d) => d.contracts.find((c) => c.contract === 'BTC_USDT')?.place ?? 0)).toEqual([1, 1]);
  });
});
