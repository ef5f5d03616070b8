import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { approxTotals, rateTotals, resolveFamilyOptions, windowRater } from '../../src/rules/family.js';
import { Dec } from '../../src/internal/decimal.js';
import { resolveRatioOptions, totalsOf, type ContractActivity } from '../../src/rules/ratio.js';
import { contractList } from '../arbitraries.js';

// Accounts whose ratio or volume sits exactly on, or a hair either side of, a tier bound or the
// volume threshold: where doubles alone would decide wrongly.
const nearBound: fc.Arbitrary<ContractActivity[]> = fc
  .record({
    bound: fc.constantFrom('1', '3', '5', '10', '20', '50'),
    requests: fc.integer({ min: 1, max: 1_000_000 }),
    delta: fc.constantFrom('0', '1e-8', '-1e-8', '1e-20', '-1e-20', '0.01', '-0.01'),
    taker: fc.boolean(),
  })
  .map(({ bound, requests, delta, taker }) => {
    // BTC_USDT weighs 1; taker volume weighs 0.9, so scale it up to land on the same ratio.
    const volume = new Dec(bound)
      .times(requests)
      .plus(delta)
      .dividedBy(taker ? '0.9' : '1');
    const text = Dec.max(volume, 0).toFixed();
    return [{ contract: 'BTC_USDT', [taker ? 'takerVolume' : 'makerVolume']: text, place: requests }];
  });

const nearThreshold: fc.Arbitrary<ContractActivity[]> = fc
  .constantFrom('999999.99', '1000000', '1000000.000000001', '999999.999999999')
  .chain((volume) =>
    fc.integer({ min: 1, max: 10_000_000 }).map((place) => [{ contract: 'ETH_USDT', makerVolume: volume, place }]),
  );

const account = fc.oneof(contractList, nearBound, nearThreshold);

describe('windowRater (see docs/rules.md#r3, #r7)', () => {
  test.prop(
    [
      fc.array(account, { minLength: 1, maxLength: 6 }),
      fc.constantFrom('0', '1000000'),
      fc.constantFrom('standard' as const, 'broker' as const),
    ],
    { numRuns: 400 },
  )(
    'gives exactly the tiers of the exact rules, however close to a bound or threshold',
    (accounts, threshold, kind) => {
      const config = resolveFamilyOptions({ ownVolumeThreshold: threshold, kind });
      const totals = accounts.map((contracts) => totalsOf(contracts, resolveRatioOptions()));
      const screened = windowRater(config)(totals.map(approxTotals), () => totals);
      const exact = rateTotals(
        totals.map((_, i) => `acc${i}`),
        totals,
        config,
      ).accounts.map((a) => a.tier.tier);
      expect(screened.map((t) => t.tier)).toEqual(exact);
    },
  );
});
