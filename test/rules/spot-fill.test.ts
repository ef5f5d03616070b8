import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { Dec } from '../../src/internal/decimal.js';
import {
  buildSpotFillTimeline,
  checkSpotFill,
  resolveSpotFillOptions,
  spotFillApplies,
  spotFillClearance,
} from '../../src/rules/spot-fill.js';

const H = (iso: string) => Date.parse(iso);
const window = (requests: number, traded: string) => ({ requests, traded: new Dec(traded) });

describe('spotFillClearance (see docs/rules.md#r14)', () => {
  it.each([
    // requests, traded, remaining, needed
    [1000, '100', 0, '0'],
    [1000, '99.5', -5, '0.5'],
    [1000, '0', -1000, '100'],
    [0, '0', 0, '0'],
    [0, '10', 100, '0'],
    [10, '1.05', 0, '0'],
  ])(
    'leaves %i requests with %s USDT traded room for %i more, and asks %s USDT',
    (requests, traded, remaining, needed) => {
      const c = spotFillClearance(window(requests, traded));
      expect(c.remaining).toBe(remaining);
      expect(c.needed.toString()).toBe(needed);
    },
  );

  it('agrees with checkSpotFill: a window throttles exactly when no room is left, and the volume asked clears it', () => {
    const options = [{}, { requestThreshold: 50 }, { fillRateThreshold: '0.37' }].map((o) => resolveSpotFillOptions(o));
    for (const o of options) {
      for (let requests = 0; requests <= 120; requests += 11) {
        for (const traded of ['0', '0.7', '3.33', '9.99', '10', '18.5', '44.4']) {
          const w = window(requests, traded);
          const c = spotFillClearance(w, o);
          expect(
            checkSpotFill(w, o) !== null,
            `${requests} ${traded} ${o.fillRateThreshold} ${o.requestThreshold}`,
          ).toBe(c.remaining < 0);
          if (c.remaining >= 0) {
            expect(checkSpotFill({ requests: requests + c.remaining, traded: w.traded }, o)).toBeNull();
            expect(checkSpotFill({ requests: requests + c.remaining + 1, traded: w.traded }, o)).not.toBeNull();
          }
          expect(checkSpotFill({ requests, traded: w.traded.plus(c.needed) }, o)).toBeNull();
        }
      }
    }
  });

  it('never throttles with a threshold of 0', () => {
    expect(spotFillClearance(window(5, '0'), { fillRateThreshold: '0' }).remaining).toBe(Infinity);
  });
});

describe('checkSpotFill (see docs/rules.md#r14)', () => {
  it('does not throttle at a fill ratio of exactly 0.1 ("below")', () => {
    expect(checkSpotFill(window(1000, '100'))).toBeNull();
  });

  it('throttles to 10 per 10 s just under 0.1', () => {
    expect(checkSpotFill(window(1000, '99.999999999'))).toEqual({
      limit: 10,
      windowMs: 10_000,
      reason: 'low-fill-rate',
    });
    expect(checkSpotFill(window(1, '0.0999'))?.limit).toBe(10);
  });

  it('throttles any account with requests and nothing traded: the exchange states no request threshold', () => {
    expect(checkSpotFill(window(1, '0'))).toEqual({ limit: 10, windowMs: 10_000, reason: 'no-fills' });
  });

  it('does not throttle an account with no requests', () => {
    expect(checkSpotFill(window(0, '0'))).toBeNull();
  });

  it('takes a request threshold ("more than"), the ratio threshold and the limit as options', () => {
    const config = resolveSpotFillOptions({
      requestThreshold: 86_400,
      fillRateThreshold: '0.5',
      limit: { limit: 5, windowMs: 1000 },
    });
    expect(checkSpotFill(window(86_400, '0'), config)).toBeNull();
    expect(checkSpotFill(window(86_401, '0'), config)).toEqual({ limit: 5, windowMs: 1000, reason: 'no-fills' });
    expect(checkSpotFill(window(86_401, '43200.5'), config)).toBeNull();
    expect(checkSpotFill(window(86_401, '43200.49'), config)?.reason).toBe('low-fill-rate');
  });

  it('refuses bad options and windows naming the field', () => {
    expect(() => resolveSpotFillOptions({ fillRateThreshold: '-0.1' })).toThrow('`fillRateThreshold`');
    expect(() => resolveSpotFillOptions({ limit: { limit: 0, windowMs: 10 } })).toThrow('`limit`.limit');
    expect(() => resolveSpotFillOptions({ includeBatches: 'yes' as unknown as boolean })).toThrow('`includeBatches`');
    expect(() => checkSpotFill({ requests: -1, traded: new Dec(0) })).toThrow(InvalidInputError);
    expect(() => checkSpotFill(null as never)).toThrow('the window');
  });
});

describe('buildSpotFillTimeline (see docs/rules.md#r14)', () => {
  // 500 spot requests with 10 USDT traded in the hour 10:00 (ratio 0.02); 40 USDT more at 12:00
  // (ratio 0.1 from the check at 13:00).
  const timeline = buildSpotFillTimeline([
    { hour: H('2026-11-01T12:00:00Z'), requests: 0, traded: '40' },
    { hour: H('2026-11-01T10:00:00Z'), requests: 500, traded: '10' },
  ]);

  it('decides at each whole hour on the 24 hours before it, and lifts at the first check that no longer trips', () => {
    const steps: [string, number | null][] = [
      ['2026-11-01T10:59:59.999Z', null],
      ['2026-11-01T11:00:00.000Z', 10],
      ['2026-11-01T12:59:59.999Z', 10], // the check at 12:00 does not see the 12:00 hour yet
      ['2026-11-01T13:00:00.000Z', null], // 50 / 500 = 0.1 exactly: not below
    ];
    for (const [iso, limit] of steps) {
      expect({ iso, limit: timeline.throttleAt(H(iso)).throttle?.limit ?? null }).toEqual({ iso, limit });
    }
    expect(timeline.changes.map((c) => [new Date(c.at).toISOString(), c.throttle?.limit ?? null])).toEqual([
      ['2026-11-01T11:00:00.000Z', 10],
      ['2026-11-01T13:00:00.000Z', null],
    ]);
  });

  it('holds a throttle for at least one hour, until the next check', () => {
    const t = buildSpotFillTimeline([{ hour: H('2026-11-01T10:00:00Z'), requests: 1 }]);
    const state = t.throttleAt(H('2026-11-01T11:00:00Z'));
    expect(state.until - state.checkedAt).toBe(3_600_000);
    expect(t.throttleAt(H('2026-11-02T10:59:59.999Z')).throttle?.reason).toBe('no-fills');
    expect(t.throttleAt(H('2026-11-02T11:00:00Z')).throttle).toBeNull(); // the hour left the window
  });

  it('reports the window and its fill ratio', () => {
    const state = timeline.throttleAt(H('2026-11-01T12:30:00Z'));
    expect(state.requests).toBe(500);
    expect(state.traded.toString()).toBe('10');
    expect(state.fillRate?.toString()).toBe('0.02');
  });
});

describe('spotFillApplies (see docs/rules.md#r14)', () => {
  it('applies to single placement and amendment, never to cancels', () => {
    expect(spotFillApplies({ action: 'place' })).toBe(true);
    expect(spotFillApplies({ action: 'amend' })).toBe(true);
    expect(spotFillApplies({ action: 'cancel' })).toBe(false);
    expect(spotFillApplies({ action: 'cancel', batch: true }, { includeBatches: true })).toBe(false);
  });

  it('leaves batches out by default, and takes them in with the option', () => {
    expect(spotFillApplies({ action: 'place', batch: true })).toBe(false);
    expect(spotFillApplies({ action: 'amend', batch: true })).toBe(false);
    expect(spotFillApplies({ action: 'place', batch: true }, { includeBatches: true })).toBe(true);
    expect(spotFillApplies({ action: 'amend', batch: true }, { includeBatches: true })).toBe(true);
  });

  it('refuses an unknown action naming it', () => {
    expect(() => spotFillApplies({ action: 'withdraw' as never })).toThrow('`action`');
    expect(() => spotFillApplies({ action: 'place', batch: 1 as never })).toThrow('`batch`');
  });
});
