import { deepFreeze } from '../../internal/freeze.js';
import { RAISE_OFFSET_MS } from '../calendar.js';
import { GATE_CONTRACTS } from '../contracts.js';
import type { Rulebook } from '../rulebook.js';
import { readRateLimitReport } from './report.js';

/**
 * Gate's rules (API v4, perpetual futures; see docs/rules.md): the trade ratio of maker volume x 1
 * and taker volume x 0.9 over place, amend and cancel requests (failed ones included) weighted by
 * contract coefficients; seven tiers of 100 to 400 requests per second from VIP 14; a better tier
 * at 08:00 UTC, a worse one at once at the 00:00 snapshot, a VIP change at its instant; the abuse
 * and spot low-fill throttles; GET /account/rate_limit. The default rulebook of `traderatio/rules`.
 *
 * @example
 * ```ts
 * import { GATE } from 'traderatio/rules'
 *
 * GATE.tiers.rows.map((r) => r.limit) // [100, 150, 200, 250, 300, 350, 400]
 * GATE.timing.lowering // 'at-snapshot'
 * GATE.throttles.abuse?.requestThreshold // 86400
 * ```
 */
export const GATE: Rulebook = deepFreeze({
  name: 'gate',
  title: 'Gate API v4, perpetual futures',
  limited: 'futures placement',
  ratio: {
    makerWeight: '1',
    takerWeight: '0.9',
    countCancels: true,
    countsRefused: true,
    withoutRequests: null,
    instruments: GATE_CONTRACTS,
  },
  tiers: {
    rows: [
      { minRatio: '0', limit: 100 },
      { minRatio: '1', limit: 150 },
      { minRatio: '3', limit: 200 },
      { minRatio: '5', limit: 250 },
      { minRatio: '10', limit: 300 },
      { minRatio: '20', limit: 350 },
      { minRatio: '50', limit: 400 },
    ],
    windowMs: 1000,
  },
  tieredVipLevel: 14,
  // VIP 0 to VIP 16 (gate.com/fee).
  highestVipLevel: 16,
  ruleIds: { ratio: 'R1', weights: 'R2', tiers: 'R3', family: 'R7' },
  family: { ownVolumeThreshold: '1000000' },
  timing: { raiseAfterMs: RAISE_OFFSET_MS, lowering: 'at-snapshot', vipChanges: 'at-once', newSubAccountDays: 1 },
  throttles: {
    abuse: {
      requestThreshold: 86_400,
      fillRateThreshold: '0.01',
      noFillLimit: { limit: 10, windowMs: 10_000 },
      lowFillLimit: { limit: 20, windowMs: 10_000 },
    },
    spotFill: {
      fillRateThreshold: '0.1',
      requestThreshold: 0,
      limit: { limit: 10, windowMs: 10_000 },
      includeBatches: false,
    },
  },
  report: { endpoint: 'GET /account/rate_limit', read: readRateLimitReport },
});
