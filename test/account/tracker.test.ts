import { describe, expect, it } from 'vitest';
import { Tracker, type TrackerState } from '../../src/account/tracker.js';
import { InvalidInputError } from '../../src/errors.js';

const T0 = Date.parse('2026-11-01T00:00:00Z');
const H = 3_600_000;
const D = 86_400_000;

describe('Tracker (see docs/rules.md#r1, #r9)', () => {
  it('counts requests and fills per contract and UTC day, and per hour', () => {
    const t = new Tracker();
    t.recordRequest('main', 'BTC_USDT', 'place', T0 + 1, 3);
    t.recordRequest('main', 'btc-usdt', 'cancel', T0 + 2);
    t.recordRequest('main', 'SOL_USDT', 'amend', T0 + H);
    t.recordFill('main', 'BTC_USDT', 'maker', '100.5', T0 + H + 1);
    t.recordFill('main', 'BTC_USDT', 'taker', 0.25, T0 + D);
    expect(t.dailyActivity()).toEqual([
      {
        account: 'main',
        day: T0,
        contracts: [
          { contract: 'BTC_USDT', makerVolume: '100.5', takerVolume: '0', place: 3, amend: 0, cancel: 1 },
          { contract: 'SOL_USDT', makerVolume: '0', takerVolume: '0', place: 0, amend: 1, cancel: 0 },
        ],
      },
      {
        account: 'main',
        day: T0 + D,
        contracts: [{ contract: 'BTC_USDT', makerVolume: '0', takerVolume: '0.25', place: 0, amend: 0, cancel: 0 }],
      },
    ]);
    expect(t.hourlyActivity('main')).toEqual([
      { hour: T0, requests: 4, traded: '0' },
      { hour: T0 + H, requests: 1, traded: '100.5' },
      { hour: T0 + D, requests: 0, traded: '0.25' },
    ]);
  });

  it('gives the activity of the 7 days a rating covers: 23:59:59.999 the day before in, 00:00 of the rating day out', () => {
    const t = new Tracker();
    const rating = T0 + 8 * D;
    t.recordRequest('main', 'BTC_USDT', 'place', T0 + D - 1); // 8 days before: out
    t.recordRequest('main', 'BTC_USDT', 'place', T0 + D, 2); // exactly 7 days before: in
    t.recordRequest('main', 'BTC_USDT', 'place', rating - 1, 4); // 23:59:59.999 the day before: in
    t.recordRequest('main', 'BTC_USDT', 'place', rating, 8); // the rating day: out
    expect(t.ratioWindowActivity('main', rating)).toEqual([
      { contract: 'BTC_USDT', makerVolume: '0', takerVolume: '0', place: 6, amend: 0, cancel: 0 },
    ]);
    expect(t.ratioWindowActivity('main', rating)).toEqual(t.activityBetween('main', rating - 7 * D, rating));
    expect(t.ratioWindowActivity('other', rating)).toEqual([]);
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
    expect(() => t.recordRequest('main', 'BTC_USDT', 'place', T0 + 9)).toThrow(
      'Expected `at` to be an instant at or after the last one recorded (2026-11-01T00:00:00.010Z)',
    );
    expect(() => t.recordFill('main', 'BTC_USDT', 'maker', '-5', T0 + 20)).toThrow(
      'Expected `volume` to be a non-negative decimal string, got "-5"',
    );
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
    expect(() =>
      Tracker.restore({ latest: 0, days: [{ account: 'a', day: 'x', contracts: [] }], hours: [] } as never),
    ).toThrow('`days[0].day`');
    expect(() =>
      Tracker.restore({
        latest: 0,
        days: [],
        hours: [{ account: 'a', hour: '2026-11-01T00:30:00Z', requests: 1, traded: '0' }],
      } as never),
    ).toThrow('a whole UTC hour');
    expect(() => Tracker.restore(null as never)).toThrow('the tracker state');
  });
});

describe('Tracker across a day that a fill opened', () => {
  it('counts a request on the new day, not on the day before', () => {
    const t = new Tracker();
    t.recordRequest('main', 'BTC_USDT', 'place', T0 + 10);
    t.recordFill('main', 'ETH_USDT', 'maker', '1', T0 + D + 10);
    t.recordRequest('main', 'BTC_USDT', 'place', T0 + D + 20);
    expect(t.dailyActivity().map((d) => d.contracts.find((c) => c.contract === 'BTC_USDT')?.place ?? 0)).toEqual([
      1, 1,
    ]);
  });
});

describe('Tracker: refused input leaves nothing behind', () => {
  it('refuses instants outside 2000 to 2200 (microseconds, negative, -1 on 1970-01-01)', () => {
    const t = new Tracker();
    for (const at of [-1, 0, T0 * 1000, 9e15, T0 + 0.5]) {
      expect(() => t.recordRequest('main', 'BTC_USDT', 'place', at)).toThrow(
        'Expected `at` to be an instant from 2000-01-01 to 2200-01-01: epoch milliseconds (an integer), a Date, or ISO 8601 text with a zone (2026-11-05T10:00:00Z) or a day (2026-11-05)',
      );
      expect(() => t.recordFill('main', 'BTC_USDT', 'maker', '1', at)).toThrow(InvalidInputError);
    }
    expect(t.snapshot()).toEqual({ latest: null, days: [], hours: [] });
    expect(t.accountIds).toEqual([]);
  });

  it("refuses recordRequest('ghost', 'bad name') and leaves no account ghost behind", () => {
    const t = new Tracker();
    expect(() => t.recordRequest('ghost', 'bad name', 'place', T0)).toThrow('`contract`');
    expect(() => t.recordFill('ghost', 'bad name', 'maker', '1', T0)).toThrow('`contract`');
    expect(() => t.recordFill('ghost', 'BTC_USDT', 'maker', 'x', T0)).toThrow('`volume`');
    expect(() => t.recordRequest('', 'BTC_USDT', 'place', T0)).toThrow('`account`');
    expect(t.accountIds).toEqual([]);
    expect(t.snapshot()).toEqual({ latest: null, days: [], hours: [] });
  });

  it.each([
    ['a count written as text', () => ['main', T0, [{ contract: 'BTC_USDT', place: '0x10' }]], '`contracts[0].place`'],
    ['a negative count', () => ['main', T0, [{ contract: 'BTC_USDT', cancel: -1 }]], '`contracts[0].cancel`'],
    ['a bad volume', () => ['main', T0, [{ contract: 'BTC_USDT', makerVolume: '-5' }]], '`contracts[0].makerVolume`'],
    [
      'a contract twice',
      () => ['main', T0, [{ contract: 'BTC_USDT' }, { contract: 'btc-usdt' }]],
      '`contracts[1].contract`',
    ],
    ['a NaN day', () => ['main', Number.NaN, []], '`day`'],
    ['a day that is not 00:00 UTC', () => ['main', T0 + 5 * H, []], '`day`'],
    ['a day before 2000', () => ['main', -D, []], '`day`'],
    ['contracts that are not a list', () => ['main', T0, null], '`contracts`'],
    ['an account without a name', () => ['', T0, []], '`account`'],
  ])('seedDay refuses %s and changes nothing', (_, args, field) => {
    const t = new Tracker();
    t.recordRequest('main', 'BTC_USDT', 'place', T0 - D + 10);
    const before = t.snapshot();
    const call = () => t.seedDay(...(args() as Parameters<Tracker['seedDay']>));
    expect(call).toThrow(InvalidInputError);
    expect(call).toThrow(`Expected ${field}`);
    expect(t.snapshot()).toEqual(before);
  });

  it.each([
    ['a count written as text', () => ['main', T0, '50', '0'], '`requests`'],
    ['a negative count', () => ['main', T0, -1000, '0'], '`requests`'],
    ['a NaN hour', () => ['main', Number.NaN, 1, '0'], '`hour`'],
    ['an hour not whole', () => ['main', T0 + 1, 1, '0'], '`hour`'],
    ['a negative instant', () => ['main', -H, 1, '0'], '`hour`'],
    ['a bad amount traded', () => ['main', T0, 1, 'lots'], '`traded`'],
  ])('seedHour refuses %s and changes nothing', (_, args, field) => {
    const t = new Tracker();
    t.seedHour('main', T0 - H, 5, '1');
    const before = t.snapshot();
    const call = () => t.seedHour(...(args() as Parameters<Tracker['seedHour']>));
    expect(call).toThrow(InvalidInputError);
    expect(call).toThrow(`Expected ${field}`);
    expect(t.snapshot()).toEqual(before);
  });

  it('gives a snapshot that restore accepts after a seeded day and requests the same day', () => {
    const t = new Tracker();
    t.seedDay('main', '2026-11-01', [{ contract: 'BTC_USDT', place: 5, makerVolume: '10' }]);
    t.seedHour('main', T0 + 2 * H, 7, '3');
    t.recordRequest('main', 'BTC_USDT', 'place', T0 + 2 * H + 5);
    t.recordFill('main', 'SOL_USDT', 'taker', '2', T0 + 3 * H);
    const saved = JSON.parse(JSON.stringify(t.snapshot())) as TrackerState;
    expect(saved.days).toHaveLength(1);
    expect(saved.days[0]!.contracts[0]).toMatchObject({ contract: 'BTC_USDT', place: 6, makerVolume: '10' });
    expect(Tracker.restore(saved).snapshot()).toEqual(t.snapshot());
  });

  it('refuses a state whose latest instant is before its own days and hours, or out of range', () => {
    const t = new Tracker();
    t.recordRequest('main', 'BTC_USDT', 'place', T0 + 2 * H);
    const saved = t.snapshot();
    expect(() => Tracker.restore({ ...saved, latest: T0 })).toThrow(
      'Expected `latest` to be an instant at or after every day and hour',
    );
    expect(() => Tracker.restore({ ...saved, latest: null })).toThrow('`latest`');
    expect(() => Tracker.restore({ ...saved, latest: 9e15 })).toThrow('`latest`');
    expect(() => Tracker.restore({ ...saved, days: [{ ...saved.days[0]!, day: '1969-12-31' }] })).toThrow(
      '`days[0].day`',
    );
    expect(() => Tracker.restore({ ...saved, hours: [{ ...saved.hours[0]!, requests: '1' as never }] })).toThrow(
      '`hours[0].requests`',
    );
  });
});
