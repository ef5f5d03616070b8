import type { AccountActivity } from '../family.js';

/**
 * OKX's worked example of a family (see docs/okx.md#o6): main account A and sub-accounts B and C
 * trading BTC-USDT-SWAP (multiplier 1) and XRP-USDT spot (0.1). Own ratios 120 / 11.5 = 10.43,
 * 220 / 103 = 2.14 and 320 / 104.5 = 3.06; the aggregated ratio 660 / 219 = 3.01. The example
 * rates every account by max(own, aggregated), whatever its volume (`ownVolumeThreshold: '0'`):
 * 2,500, 1,750 and 1,750 requests per 2 s. Its English text gives C 1,000 BTC-USDT-SWAP orders but
 * computes with 100, as its Chinese text gives: 100 it is.
 *
 * @example
 * ```ts
 * import { OKX_WORKED_EXAMPLE, okx } from 'traderatio/rules'
 *
 * okx.rateFamily(OKX_WORKED_EXAMPLE, { ownVolumeThreshold: '0' }).accounts.map((a) => a.tier.limit) // [2500, 1750, 1750]
 * ```
 */
export const OKX_WORKED_EXAMPLE: readonly AccountActivity[] = Object.freeze([
  {
    account: 'A',
    contracts: [
      { contract: 'BTC-USDT-SWAP', makerVolume: '100', place: 10 },
      { contract: 'XRP-USDT', makerVolume: '20', place: 15 },
    ],
  },
  {
    account: 'B',
    contracts: [
      { contract: 'BTC-USDT-SWAP', makerVolume: '200', place: 100 },
      { contract: 'XRP-USDT', makerVolume: '20', place: 30 },
    ],
  },
  {
    account: 'C',
    contracts: [
      { contract: 'BTC-USDT-SWAP', makerVolume: '300', place: 100 },
      { contract: 'XRP-USDT', makerVolume: '20', place: 45 },
    ],
  },
]);
