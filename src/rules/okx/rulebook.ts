import { deepFreeze } from '../../internal/freeze.js';
import { RAISE_OFFSET_MS } from '../calendar.js';
import type { Rulebook } from '../rulebook.js';
import { OKX_INSTRUMENTS } from './instruments.js';
import { readAccountRateLimit } from './report.js';

/**
 * OKX's rules (API v5, the fill-ratio sub-account limit; see docs/okx.md): the fill ratio of
 * unweighted volume over successful new and amend requests weighted by symbol multipliers, with
 * OKX's report figures where nothing is counted; eight tiers of 1,000 to 10,000 requests per 2 s
 * from VIP 5; a better tier at 08:00 UTC, a worse one a day later (from 08:00 of day D until 08:00
 * of D+1, the higher of the tiers of the snapshots of D and D-1), a VIP demotion with the same
 * grace; no throttle; GET /api/v5/trade/account-rate-limit.
 *
 * @example
 * ```ts
 * import { OKX } from 'traderatio/rules'
 *
 * OKX.tiers.rows.map((r) => r.limit) // [1000, 1250, 1500, 1750, 2000, 2500, 3000, 10000]
 * OKX.tiers.windowMs // 2000
 * OKX.timing.lowering // 'after-grace'
 * ```
 */
export const OKX: Rulebook = deepFreeze({
  name: 'okx',
  title: 'OKX API v5, fill-ratio sub-account limit',
  limited: 'new and amend orders',
  ratio: {
    makerWeight: '1',
    takerWeight: '1',
    countCancels: false,
    countsRefused: false,
    withoutRequests: { withVolume: '9999', withoutVolume: '0' },
    instruments: OKX_INSTRUMENTS,
  },
  tiers: {
    rows: [
      { minRatio: '0', limit: 1000 },
      { minRatio: '1', limit: 1250 },
      { minRatio: '2', limit: 1500 },
      { minRatio: '3', limit: 1750 },
      { minRatio: '5', limit: 2000 },
      { minRatio: '10', limit: 2500 },
      { minRatio: '20', limit: 3000 },
      { minRatio: '50', limit: 10_000 },
    ],
    windowMs: 2000,
  },
  tieredVipLevel: 5,
  // VIP 1 to VIP 9 above the regular levels (okx.com/fees).
  highestVipLevel: 9,
  ruleIds: { ratio: 'O2', weights: 'O3', tiers: 'O4', family: 'O6' },
  family: { ownVolumeThreshold: '1000000' },
  timing: { raiseAfterMs: RAISE_OFFSET_MS, lowering: 'after-grace', vipChanges: 'at-snapshot', newSubAccountDays: 1 },
  throttles: { abuse: null, spotFill: null },
  report: {
    endpoint: 'GET /api/v5/trade/account-rate-limit',
    read: (answer, tiers) => [readAccountRateLimit(answer, tiers)],
  },
});
