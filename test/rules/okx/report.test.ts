import { describe, expect, it } from 'vitest';
import { okx } from '../../../src/rules/exchange-rules.js';
import { readAccountRateLimit } from '../../../src/rules/okx/report.js';
import { reconcileTier } from '../../../src/rules/report.js';

const ts = String(Date.parse('2026-11-21T08:00:00Z'));
const row = { accRateLimit: '2500', fillRatio: '3.2', mainFillRatio: '2.5', nextAccRateLimit: '1750', ts };

describe('readAccountRateLimit', () => {
  it('reads the whole answer, its data or its row, limits as tiers of the table', () => {
    for (const answer of [{ code: '0', msg: '', data: [row] }, [row], row]) {
      expect(readAccountRateLimit(answer, okx.tiers)).toEqual({
        tier: 6,
        limit: 2500,
        ratio: expect.anything(),
        mainRatio: expect.anything(),
        nextLimit: 1750,
        nextTier: 4,
        updatedAt: Date.parse('2026-11-21T08:00:00Z'),
        tiered: true,
      });
    }
    expect(readAccountRateLimit(row, okx.tiers).ratio?.toString()).toBe('3.2');
  });

  it('reads the sentinels: "0" no volume, "9999" volume without a counted request', () => {
    expect(readAccountRateLimit({ ...row, fillRatio: '0' }, okx.tiers).ratio?.toString()).toBe('0');
    expect(readAccountRateLimit({ ...row, fillRatio: '9999' }, okx.tiers).ratio?.toString()).toBe('9999');
  });

  it('reads an account below VIP 5: no ratios, no next limit, the base limit', () => {
    const below = { accRateLimit: '1000', fillRatio: '', mainFillRatio: '', nextAccRateLimit: '', ts };
    expect(readAccountRateLimit(below, okx.tiers)).toMatchObject({
      tier: 1,
      ratio: null,
      mainRatio: null,
      nextLimit: null,
      nextTier: null,
      tiered: false,
    });
  });

  it.each([
    [
      { code: '50011', msg: 'Rate limit reached', data: [] },
      'Expected `code` of the GET /api/v5/trade/account-rate-limit answer to be "0"',
    ],
    [
      { code: '0', data: [row, row] },
      '`data` of the GET /api/v5/trade/account-rate-limit answer to be a list of one row',
    ],
    [
      { ...row, accRateLimit: '1600' },
      '`accRateLimit` of the GET /api/v5/trade/account-rate-limit answer to be a limit of the tier table (1000, 1250, 1500, 1750, 2000, 2500, 3000, 10000), got "1600"',
    ],
    [{ ...row, fillRatio: '-1' }, '`fillRatio`'],
    [{ ...row, fillRatio: 3.2 }, 'a decimal string, or "" below VIP 5'],
    [{ ...row, ts: '1795248000' }, '`ts` of the GET /api/v5/trade/account-rate-limit answer to be epoch milliseconds'],
    [{ ...row, nextAccRateLimit: '' }, 'given with `mainFillRatio` and `nextAccRateLimit`'],
    ['nothing', 'an object { code, data: [row] }, its data or its row'],
  ])('refuses a bad answer, naming the field %#', (answer, message) => {
    expect(() => readAccountRateLimit(answer, okx.tiers)).toThrow(message);
  });

  it('is the report of the OKX rulebook, which reconcileTier takes as it takes Gate’s', () => {
    const [report] = okx.readReport({ code: '0', data: [row] });
    const r = reconcileTier({
      local: 4,
      snapshotAt: Date.parse('2026-11-21T00:00:00Z'),
      report: report!,
      at: Date.parse('2026-11-21T09:00:00Z'),
      tiers: okx.tiers,
    });
    expect([r.tier.limit, r.source, r.disagreement?.reportAgeMs]).toEqual([2500, 'report', 3_600_000]);
  });
});
