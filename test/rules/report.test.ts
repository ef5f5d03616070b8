import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { type RateLimitReport, readRateLimitReport, reconcileTier, reportFor } from '../../src/rules/report.js';
import { createTierTable } from '../../src/rules/tiers.js';

const SNAPSHOT = Date.parse('2026-11-21T00:00:00Z');
const seconds = (iso: string): string => String(Date.parse(iso) / 1000);

// As the exchange's SDK documents it: string fields, one row per market.
const ANSWER = [
  { type: 'spot', tier: '1', ratio: '0', main_ratio: '0', updated_at: seconds('2026-11-21T00:00:00Z') },
  { type: 'futures', tier: '5', ratio: '10.06', main_ratio: '8.19', updated_at: seconds('2026-11-21T00:00:30Z') },
];

describe('readRateLimitReport (see docs/rules.md#r16)', () => {
  it('reads the rows of GET /account/rate_limit into typed reports', () => {
    const rows = readRateLimitReport(ANSWER);
    expect(rows.map((r) => [r.type, r.tier, r.ratio.toString(), r.mainRatio.toString(), r.updatedAt])).toEqual([
      ['spot', 1, '0', '0', SNAPSHOT],
      ['futures', 5, '10.06', '8.19', SNAPSHOT + 30_000],
    ]);
  });

  it('reads a row without a type, a single row, numbers where strings are expected, and fractional seconds', () => {
    const [row] = readRateLimitReport({ tier: 3, ratio: 4.5, main_ratio: '4.5', updated_at: '1795219200.25' });
    expect(row).toMatchObject({ tier: 3, updatedAt: 1_795_219_200_250 });
    expect(row).not.toHaveProperty('type');
  });

  it.each([
    [[{ ...ANSWER[1], tier: 'four' }], 'Expected `tier` of row 0 to be a positive integer, got "four"'],
    [[{ ...ANSWER[1], tier: '0' }], '`tier` of row 0'],
    [
      [ANSWER[0], { ...ANSWER[1], ratio: '-1' }],
      'Expected `ratio` of row 1 to be a non-negative decimal string, got "-1"',
    ],
    [[{ ...ANSWER[1], main_ratio: undefined }], '`main_ratio` of row 0'],
    [[{ ...ANSWER[1], updated_at: 'yesterday' }], '`updated_at` of row 0'],
    [[{ ...ANSWER[1], type: 7 }], '`type` of row 0'],
    [[ANSWER[1], ANSWER[1]], 'Expected `type` of row 1 to be a type not already given by row 0, got "futures"'],
    [[], 'the GET /account/rate_limit answer'],
    ['[]', 'the GET /account/rate_limit answer'],
    [[null], 'row 0'],
  ])('refuses %j, naming the field', (rows, message) => {
    expect(() => readRateLimitReport(rows)).toThrow(InvalidInputError);
    expect(() => readRateLimitReport(rows)).toThrow(message);
  });
});

describe('reportFor', () => {
  it('picks the futures row by default, else the row without a type', () => {
    const rows = readRateLimitReport(ANSWER);
    expect(reportFor(rows)?.tier).toBe(5);
    expect(reportFor(rows, 'spot')?.tier).toBe(1);
    expect(reportFor(readRateLimitReport([{ tier: '2', ratio: '1', main_ratio: '1', updated_at: '0' }]))?.tier).toBe(2);
    expect(reportFor(rows, 'delivery')).toBeUndefined();
  });
});

describe('reconcileTier (see docs/rules.md#r16)', () => {
  const fresh = reportFor(readRateLimitReport(ANSWER))!; // tier 5, 30 s after the snapshot
  const stale: RateLimitReport = { ...fresh, updatedAt: SNAPSHOT - 3_600_000 };
  const lower: RateLimitReport = { ...fresh, tier: 2 };
  const at = SNAPSHOT + 90_000;

  it('adopts by default a report newer than the latest snapshot, and reports both figures and its age', () => {
    const r = reconcileTier({ local: 4, snapshotAt: SNAPSHOT, report: fresh, at });
    expect(r.source).toBe('report');
    expect(r.tier).toMatchObject({ tier: 5, limit: 300 });
    expect(r.disagreement).toMatchObject({
      local: { tier: 4, limit: 250 },
      reported: { tier: 5, limit: 300 },
      reportAgeMs: 60_000,
      stale: false,
      policy: 'adopt',
    });
  });

  it('adopts a report made at the snapshot instant, and any report before the first snapshot', () => {
    expect(
      reconcileTier({ local: 4, snapshotAt: SNAPSHOT, report: { ...fresh, updatedAt: SNAPSHOT }, at }).tier.tier,
    ).toBe(5);
    expect(reconcileTier({ local: 1, snapshotAt: null, report: stale, at }).tier.tier).toBe(5);
  });

  it('never lets a report older than the latest snapshot change the tier, but reports it as stale', () => {
    for (const policy of ['adopt', 'min', 'report'] as const) {
      const r = reconcileTier({ local: 4, snapshotAt: SNAPSHOT, report: { ...stale, tier: 2 }, at, policy });
      expect(r).toMatchObject({
        source: 'local',
        tier: { tier: 4 },
        disagreement: { stale: true, reportAgeMs: 3_690_000 },
      });
    }
  });

  it('keeps the local tier under `report`, and only reports', () => {
    const r = reconcileTier({ local: 4, snapshotAt: SNAPSHOT, report: fresh, at, policy: 'report' });
    expect(r).toMatchObject({
      source: 'local',
      tier: { tier: 4 },
      disagreement: { reported: { tier: 5 }, policy: 'report' },
    });
  });

  it('takes the lower of the two under `min`', () => {
    expect(reconcileTier({ local: 4, snapshotAt: SNAPSHOT, report: fresh, at, policy: 'min' })).toMatchObject({
      source: 'local',
      tier: { tier: 4 },
    });
    expect(reconcileTier({ local: 4, snapshotAt: SNAPSHOT, report: lower, at, policy: 'min' })).toMatchObject({
      source: 'report',
      tier: { tier: 2 },
    });
  });

  it('reports nothing when both agree', () => {
    expect(reconcileTier({ local: 5, snapshotAt: SNAPSHOT, report: fresh, at })).toMatchObject({
      source: 'local',
      tier: { tier: 5 },
      disagreement: null,
    });
  });

  it('reads both tiers in a given table, and refuses a reported tier it does not have', () => {
    const tiers = createTierTable([
      { minRatio: '0', limit: 100 },
      { minRatio: '5', limit: 300 },
    ]);
    expect(reconcileTier({ local: 1, snapshotAt: SNAPSHOT, report: { ...fresh, tier: 2 }, at, tiers }).tier.limit).toBe(
      300,
    );
    expect(() => reconcileTier({ local: 1, snapshotAt: SNAPSHOT, report: fresh, at, tiers })).toThrow(
      'Expected `tier` of the report to be a tier of the table (1 to 2), got 5',
    );
  });

  it('refuses bad input', () => {
    const base = { local: 4, snapshotAt: SNAPSHOT, report: fresh, at };
    expect(() => reconcileTier({ ...base, local: 0 })).toThrow(/`local`/);
    expect(() => reconcileTier({ ...base, local: 8 })).toThrow(/`local`.*1 to 7/);
    expect(() => reconcileTier({ ...base, policy: 'max' as 'min' })).toThrow(/`policy`/);
    expect(() => reconcileTier({ ...base, at: Number.NaN })).toThrow(/`at`/);
    expect(() => reconcileTier({ ...base, snapshotAt: '2026-11-21 00:00' as unknown as number })).toThrow(
      /`snapshotAt`/,
    );
    expect(() => reconcileTier({ ...base, report: undefined as unknown as RateLimitReport })).toThrow(/`report`/);
  });
});
