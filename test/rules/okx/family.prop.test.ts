import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { okx } from '../../../src/rules/exchange-rules.js';
import { approxTotals, rateTotals, resolveFamilyOptions, windowRater } from '../../../src/rules/family.js';
import { OKX } from '../../../src/rules/okx/rulebook.js';
import { type ContractActivity, totalsOf } from '../../../src/rules/ratio.js';
import { DAY, type ModelEntry, OkxTimelineModel } from './timeline.model.js';

const INSTRUMENTS = [
  'BTC-USDT-SWAP',
  'DOGE-USDT-SWAP',
  'BTC-USD-250328',
  'XRP-USDT',
  'ETH-USDT',
  'ETH-USD-250328-3000-P',
];

/** Activity near a bound: volume = bound x requests x multiplier, plus or minus a hair; or volume alone. */
const entry: fc.Arbitrary<ContractActivity> = fc
  .record({
    contract: fc.constantFrom(...INSTRUMENTS),
    bound: fc.constantFrom('1', '2', '3', '5', '10', '20', '50'),
    requests: fc.integer({ min: 0, max: 1_000_000 }),
    delta: fc.constantFrom('0', '0.00000001', '-0.00000001', '0.01', '-0.01'),
    field: fc.constantFrom('place', 'amend', 'cancel'),
    taker: fc.boolean(),
  })
  .map(({ contract, bound, requests, delta, field, taker }) => {
    const m = okx.tradeRatio([{ contract, place: 1 }]).denominator;
    const volume = m.times(bound).times(Math.max(requests, 1)).plus(delta);
    const text = volume.isNegative() ? '0' : volume.toFixed();
    return { contract, [taker ? 'takerVolume' : 'makerVolume']: text, [field]: requests };
  });

const account = fc.uniqueArray(entry, { minLength: 0, maxLength: 3, selector: (e) => e.contract });

describe("OKX's family rating (see docs/okx.md#o2, #o6)", () => {
  test.prop(
    [
      fc.array(account, { minLength: 1, maxLength: 5 }),
      fc.constantFrom('0', '1000000'),
      fc.constantFrom('standard' as const, 'broker' as const),
    ],
    {
      numRuns: 400,
    },
  )(
    'screened by doubles, gives exactly the tiers of the exact rules, sentinels included',
    (accounts, threshold, kind) => {
      const config = resolveFamilyOptions({ ownVolumeThreshold: threshold, kind }, OKX);
      const totals = accounts.map((contracts) => totalsOf(contracts, config.ratio));
      const screened = windowRater(config)(totals.map(approxTotals), () => totals);
      const exact = rateTotals(
        totals.map((_, i) => `acc${i}`),
        totals,
        config,
      ).accounts.map((a) => a.tier.tier);
      expect(screened.map((t) => t.tier)).toEqual(exact);
    },
  );

  test.prop(
    [
      fc.array(account, { minLength: 1, maxLength: 4 }),
      fc.constantFrom(0, 1_000_000),
      fc.constantFrom('standard' as const, 'broker' as const),
      fc.constantFrom(4, 5),
    ],
    {
      numRuns: 300,
    },
  )("rates every account as the model's snapshot does", (accounts, threshold, kind, vip) => {
    const day = Date.UTC(2026, 10, 2);
    const family = accounts.map((contracts, i) => ({ account: `acc${i}`, contracts }));
    const rating = okx.rateFamily(family, { ownVolumeThreshold: String(threshold), kind }, vip);
    const model = new OkxTimelineModel(
      {
        accounts: family.map((a) => ({ id: a.account })),
        activity: family.map((a) => ({ account: a.account, day, contracts: a.contracts as ModelEntry[] })),
        vipLevel: vip,
      },
      { ownVolumeThreshold: threshold, kind },
    );
    expect(rating.accounts.map((a) => a.tier.tier)).toEqual(
      family.map((a) => model.snapshotTier(a.account, day + DAY)),
    );
  });
});
