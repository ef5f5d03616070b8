import type { AccountActivity } from './family.js';

/**
 * The exchange's worked example of a family (see docs/rules.md#r1, #r7): main account A and
 * sub-accounts B and C trading BTC_USDT (coefficient 1) and SOL_USDT (coefficient 0.4). Own ratios
 * are 318/44, 427/54 and 312/31; the aggregated ratio is 1057/129 = 8.19. With
 * `ownVolumeThreshold: 0` the limits are 250, 250 and 300 requests per second.
 *
 * @example
 * ```ts
 * import { rateFamily, WORKED_EXAMPLE } from 'traderatio/rules'
 *
 * rateFamily(WORKED_EXAMPLE, { ownVolumeThreshold: '0' }).accounts.map((a) => a.tier.limit) // [250, 250, 300]
 * ```
 */
export const WORKED_EXAMPLE: readonly AccountActivity[] = Object.freeze([
  {
    account: 'A',
    contracts: [
      { contract: 'BTC_USDT', makerVolume: '100', takerVolume: '200', place: 30 },
      { contract: 'SOL_USDT', makerVolume: '20', takerVolume: '20', place: 35 },
    ],
  },
  {
    account: 'B',
    contracts: [
      { contract: 'BTC_USDT', makerVolume: '220', takerVolume: '230', place: 40 },
      { contract: 'SOL_USDT', place: 35 },
    ],
  },
  {
    account: 'C',
    contracts: [
      { contract: 'BTC_USDT', makerVolume: '150', place: 25 },
      { contract: 'SOL_USDT', takerVolume: '180', place: 15 },
    ],
  },
]);
