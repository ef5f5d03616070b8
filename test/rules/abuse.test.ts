import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { Dec } from '../../src/internal/decimal.js';
import {
  abuseLowFill,
  buildAbuseTimeline,
  checkAbuse,
  placementLimit,
  resolveAbuseOptions,
} from '../../src/rules/abuse.js';

const H = (iso: string) => Date.parse(iso);
const window = (requests: number, traded: string) => ({ requests, traded: new Dec(traded) });

describe('checkAbuse (see docs/rules.md#r9)', () => {
  it('does not trip at exactly 86,400 requests with nothing traded', () => {
    expect(checkAbuse(window(86_400, '0'))).toBeNull();
  });

  it('limits placement to 10 per 10 s at 86,401 requests with nothing traded', () => {
    expect(checkAbuse(window(86_401, '0'))).toEqual({ limit: 10, windowMs: 10_000, reason: 'no-fills' });
  });

  it('limits placement to 20 per 10 s at 86,401 requests with 864 USDT traded (fill rate 0.0099999)', () => {
    expect(checkAbuse(window(86_401, '864'))).toEqual({ limit: 20, windowMs: 10_000, reason: 'low-fill-rate' });
  });

  it('does not trip at 86,401 requests with 865 USDT traded (fill rate 0.01001)', () => {
    expect(checkAbuse(window(86_401, '865'))).toBeNull();
  });

  it('does not trip at a fill rate of exactly 0.01 ("below 1%")', () => {
    expect(checkAbuse(window(100_000, '1000'))).toBeNull();
    expect(checkAbuse(window(100_000, '999.99999999'))?.reason).toBe('low-fill-rate');
  });

  it('takes its thresholds and limits as options', () => {
    const config = resolveAbuseOptions({
      requestThreshold: 10,
      fillRateThreshold: '0.5',
      noFillLimit: { limit: 1, windowMs: 5000 },
    });
    expect(checkAbuse(window(11, '0'), config)).toEqual({ limit: 1, windowMs: 5000, reason: 'no-fills' });
    expect(checkAbuse(window(11, '5'), config)?.reason).toBe('low-fill-rate');
    expect(checkAbuse(window(10, '0'), config)).toBeNull();
    expect(() => resolveAbuseOptions({ noFillLimit: { limit: 0, windowMs: 1 } })).toThrow('`noFillLimit`.limit');
    expect(() => resolveAbuseOptions({ requestThreshold: -1 })).toThrow('`requestThreshold`');
  });
});

describe('buildAbuseTimeline (see docs/rules.md#r9)', () => {
  // 86,401 requests with nothing traded in the hour 10:00; a fill of 865 USDT at 13:00.
  const timeline = buildAbuseTimeline([
    { hour: H('2026-11-01T13:00:00Z'), requests: 0, traded: '865' },
    { hour: H('2026-11-01T10:00:00Z'), requests: 86_401 },
  ]);

  it('decides at each whole hour on the 24 hours before it, for the hour after', () => {
    const steps: [string, number | null][] = [
      ['2026-11-01T10:59:59.999Z', null], // the check at 10:00 saw [10:00 - 24 h, 10:00): nothing
      ['2026-11-01T11:00:00.000Z', 10],
      ['2026-11-01T13:59:59.999Z', 10], // the check at 13:00 does not see the 13:00 hour yet
      ['2026-11-01T14:00:00.000Z', null], // 865 / 86,401 >= 0.01: lifted at the first check that does not trip
    ];
    for (const [iso, limit] of steps) {
      expect({ iso, limit: timeline.throttleAt(H(iso)).throttle?.limit ?? null }).toEqual({ iso, limit });
    }
  });

  it('reports the window, the fill rate and the hour it holds until', () => {
    const s = timeline.throttleAt(H('2026-11-01T12:30:00.000Z'));
    expect(s.requests).toBe(86_401);
    expect(s.traded.toString()).toBe('0');
    expect(s.fillRate!.toString()).toBe('0');
    expect(s.checkedAt).toBe(H('2026-11-01T12:00:00Z'));
    expect(s.until).toBe(H('2026-11-01T13:00:00Z'));
    expect(s.throttle?.reason).toBe('no-fills');
  });

  it('lists the throttle starting and lifting', () => {
    expect(timeline.changes.map((c) => [new Date(c.at).toISOString(), c.throttle?.limit ?? null])).toEqual([
      ['2026-11-01T11:00:00.000Z', 10],
      ['2026-11-01T14:00:00.000Z', null],
    ]);
  });

  it('lets a throttle expire when the requests leave the 24-hour window', () => {
    const t = buildAbuseTimeline([{ hour: H('2026-11-01T10:00:00Z'), requests: 90_000, traded: '1' }]);
    expect(t.throttleAt(H('2026-11-02T10:59:59.999Z')).throttle?.reason).toBe('low-fill-rate');
    expect(t.throttleAt(H('2026-11-02T11:00:00.000Z')).throttle).toBeNull();
  });

  it('refuses an hour given twice, a time that is not a whole hour, and bad counts', () => {
    const hour = H('2026-11-01T00:00:00.000Z');
    expect(() =>
      buildAbuseTimeline([
        { hour, requests: 1 },
        { hour, requests: 2 },
      ]),
    ).toThrow('each hour once');
    expect(() => buildAbuseTimeline([{ hour: hour + 1, requests: 1 }])).toThrow('`hours[0].hour`');
    expect(() => buildAbuseTimeline([{ hour, requests: -1 }])).toThrow('`hours[0].requests`');
    expect(() => buildAbuseTimeline([{ hour, requests: 1, traded: '-1' }])).toThrow('`hours[0].traded`');
  });
});

describe('placementLimit (see docs/rules.md#r9)', () => {
  it('is the tier limit when no throttle is in force', () => {
    const p = placementLimit(300, null);
    expect(p.perSecond.toString()).toBe('300');
    expect(p.limits).toEqual([{ limit: 300, windowMs: 1000 }]);
  });

  it('is min(tier limit, throttle), with both limits drawn on', () => {
    const p = placementLimit(300, { limit: 20, windowMs: 10_000, reason: 'low-fill-rate' });
    expect(p.perSecond.toString()).toBe('2');
    expect(p.limits).toEqual([
      { limit: 300, windowMs: 1000 },
      { limit: 20, windowMs: 10_000 },
    ]);
    expect(placementLimit(1, { limit: 20, windowMs: 1000, reason: 'low-fill-rate' }).perSecond.toString()).toBe('1');
  });
});

describe('checkAbuse input', () => {
  it('refuses a window with missing or bad fields, naming the field, instead of deciding a throttle', () => {
    expect(() => checkAbuse({ requests: undefined, traded: new Dec(0) } as never)).toThrow(
      'Expected `requests` to be a non-negative integer, got undefined',
    );
    expect(() => checkAbuse({ requests: 90_000 } as never)).toThrow(
      'Expected `traded` to be a non-negative decimal string, got undefined',
    );
    expect(() => checkAbuse({ requests: Number.NaN, traded: new Dec(0) })).toThrow(InvalidInputError);
    expect(() => checkAbuse(null as never)).toThrow('the window');
    expect(() => checkAbuse({ requests: 90_000, traded: new Dec(0) }, null as never)).toThrow('the abuse options');
    expect(checkAbuse({ requests: 90_000, traded: '0' as never })).toMatchObject({ reason: 'no-fills' });
  });
});

describe("abuseLowFill (see docs/rules.md#r9), the low-fill test the throttle and the limiter's warnings share", () => {
  const config = resolveAbuseOptions({ fillRateThreshold: '0.1' });
  it('holds with nothing traded, or below the rate; not at exactly the rate', () => {
    expect(abuseLowFill({ requests: 1000, traded: new Dec(0) }, config)).toBe(true);
    expect(abuseLowFill({ requests: 1000, traded: new Dec('99.99999999') }, config)).toBe(true);
    expect(abuseLowFill({ requests: 1000, traded: new Dec(100) }, config)).toBe(false);
  });
  it('reads a window with no request as one request', () => {
    expect(abuseLowFill({ requests: 0, traded: new Dec('0.09') }, config)).toBe(true);
    expect(abuseLowFill({ requests: 0, traded: new Dec('0.1') }, config)).toBe(false);
  });
  it('is what checkAbuse decides once the requests are over the threshold', () => {
    for (const traded of ['0', '8640.1', '8640.09999999', '86400']) {
      const window = { requests: 86_401, traded: new Dec(traded) };
      expect(checkAbuse(window, config) !== null).toBe(abuseLowFill(window, config));
    }
  });
});
