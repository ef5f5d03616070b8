import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { okx } from '../../../src/rules/exchange-rules.js';
import { multiplier10, tierOfSums } from './timeline.model.js';

// OKX's fill ratio, multipliers and tiers (see docs/okx.md#o2 to #o4) against the reference model's
// own reading of the tables, over instrument ids of every kind written as a user might write them,
// with volumes on each tier's bound, a hair either side of it, and with nothing counted.

const BASES = ['BTC', 'ETH', 'SOL', 'XRP', '1INCH'];
const QUOTES = ['USDT', 'USD', 'USDC'];
const EXPIRY = fc
  .tuple(fc.integer({ min: 24, max: 30 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }))
  .map(([y, m, d]) => `${y}${String(m).padStart(2, '0')}${String(d).padStart(2, '0')}`);

/** An instrument id of any kind, in any case. */
const instrument: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...BASES),
    fc.constantFrom(...QUOTES),
    fc.constantFrom('SWAP', 'FUTURES', 'OPTION', 'SPOT'),
    EXPIRY,
    fc.integer({ min: 1, max: 200_000 }),
    fc.constantFrom('C', 'P'),
    fc.boolean(),
  )
  .map(([base, quote, kind, expiry, strike, type, lower]) => {
    const family = `${base}-${quote}`;
    const id =
      kind === 'SWAP'
        ? `${family}-SWAP`
        : kind === 'FUTURES'
          ? `${family}-${expiry}`
          : kind === 'OPTION'
            ? `${family}-${expiry}-${strike}-${type}`
            : family;
    return lower ? id.toLowerCase() : id;
  });

const entry = fc.record({
  contract: instrument,
  place: fc.integer({ min: 0, max: 5000 }),
  amend: fc.integer({ min: 0, max: 5000 }),
  cancel: fc.integer({ min: 0, max: 5000 }),
  makerShare: fc.integer({ min: 0, max: 100 }),
});

/** An account's activity whose ratio sits on a tier's bound, a hair either side of it, or anywhere. */
const activity = fc
  .record({
    entries: fc.uniqueArray(entry, { minLength: 1, maxLength: 4, selector: (e) => e.contract.toUpperCase() }),
    bound: fc.constantFrom(0n, 1n, 2n, 3n, 5n, 10n, 20n, 50n),
    // In 1e-8 USDT: on the bound, a hair below or above, further off, or volume only where nothing counts.
    delta: fc.oneof(fc.constantFrom(0n, -1n, 1n, -1_000_000n, 1_000_000n), fc.bigInt({ min: 0n, max: 10n ** 14n })),
  })
  .map(({ entries, bound, delta }) => {
    const weighted10 = entries.reduce(
      (s, e) => s + BigInt(e.place + e.amend) * multiplier10(e.contract.toUpperCase()),
      0n,
    );
    // bound x weighted requests, in 1e-8 USDT: bound x weighted10 / 10 x 1e8.
    const onBound = bound * weighted10 * 10n ** 7n;
    let left = onBound + delta < 0n ? 0n : onBound + delta;
    const text = (u: bigint) => `${u / 10n ** 8n}.${String(u % 10n ** 8n).padStart(8, '0')}`;
    return entries.map((e, i) => {
      // The volume spread over the entries, the last taking what is left, each split into maker and taker.
      const share = i === entries.length - 1 ? left : left / BigInt(entries.length);
      left -= share;
      const maker = (share * BigInt(e.makerShare)) / 100n;
      return {
        contract: e.contract,
        makerVolume: text(maker),
        takerVolume: text(share - maker),
        place: e.place,
        amend: e.amend,
        cancel: e.cancel,
      };
    });
  });

const units = (text: string): bigint => {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole!) * 10n ** 8n + BigInt(fraction.padEnd(8, '0'));
};

describe("OKX's fill ratio against the reference model (see docs/okx.md#o2 to #o4)", () => {
  test.prop([activity], { numRuns: 500 })(
    'weighs every kind by its multiplier, counts no cancel, and tiers on the exact fraction, sentinels included',
    (contracts) => {
      const r = okx.tradeRatio(contracts);
      const volume = contracts.reduce((s, c) => s + units(c.makerVolume) + units(c.takerVolume), 0n);
      const weighted10 = contracts.reduce(
        (s, c) => s + BigInt(c.place + c.amend) * multiplier10(c.contract.toUpperCase()),
        0n,
      );
      // Unweighted volume over new and amend requests x multiplier.
      expect(units(r.numerator.toFixed(8))).toBe(volume);
      expect(r.denominator.times(10).toFixed()).toBe(weighted10.toString());
      expect(okx.tierOfRatio(r).tier).toBe(tierOfSums({ volume, weighted10 }));
      if (weighted10 === 0n) expect(r.ratio?.toString()).toBe(volume === 0n ? '0' : '9999');
    },
  );

  test.prop([activity, fc.constantFrom(4, 5, 6)], { numRuns: 200 })(
    'puts one account at the tier of its ratio from VIP 5, and at 1,000 per 2 s below',
    (contracts, vip) => {
      const r = okx.tradeRatio(contracts);
      const rated = okx.rateFamily([{ account: 'main', contracts }], {}, vip).accounts[0]!;
      expect(rated.tier.tier).toBe(vip >= 5 ? okx.tierOfRatio(r).tier : 1);
      expect(rated.tier.limit).toBe(okx.tiers[rated.tier.tier - 1]!.limit);
    },
  );
});
