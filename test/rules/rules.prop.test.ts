import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { Dec } from '../../src/internal/decimal.js';
import { compareRatio, tradeRatio } from '../../src/rules/ratio.js';
import { tierFor, tierOfRatio } from '../../src/rules/tiers.js';
import { rateFamily } from '../../src/rules/family.js';
import { buildTimeline } from '../../src/rules/timeline/timeline.js';
import { buildAbuseTimeline } from '../../src/rules/abuse.js';
import { amount, contractList, count, family, timelineInput } from '../arbitraries.js';

const nonEmpty = contractList.filter((l) => l.length > 0);

describe('trade ratio properties (see docs/rules.md#r1, #r3)', () => {
  test.prop([nonEmpty, fc.nat(), amount, fc.boolean()])(
    'more maker or taker volume never lowers the ratio or the tier',
    (list, pick, extra, maker) => {
      const i = pick % list.length;
      const field = maker ? 'makerVolume' : 'takerVolume';
      const more = list.map((c, j) => (j === i ? { ...c, [field]: new Dec(c[field] ?? 0).plus(extra).toString() } : c));
      const before = tradeRatio(list);
      const after = tradeRatio(more);
      expect(compareRatio(after, before)).toBeGreaterThanOrEqual(0);
      expect(tierOfRatio(after).tier).toBeGreaterThanOrEqual(tierOfRatio(before).tier);
    },
  );

  test.prop([nonEmpty, fc.nat(), count.filter((n) => n > 0), fc.constantFrom('place', 'amend', 'cancel')])(
    'more requests never raise the ratio or the tier',
    (list, pick, extra, kind) => {
      const i = pick % list.length;
      const more = list.map((c, j) => (j === i ? { ...c, [kind]: (c[kind as 'place'] ?? 0) + extra } : c));
      const before = tradeRatio(list);
      const after = tradeRatio(more);
      if (before.ratio !== null) expect(compareRatio(after, before)).toBeLessThanOrEqual(0);
      if (before.ratio !== null) expect(tierOfRatio(after).tier).toBeLessThanOrEqual(tierOfRatio(before).tier);
    },
  );

  test.prop([amount, amount])('the tier is monotone in the ratio', (a, b) => {
    const [lo, hi] = new Dec(a).lessThanOrEqualTo(b) ? [a, b] : [b, a];
    expect(tierFor(lo).tier).toBeLessThanOrEqual(tierFor(hi).tier);
  });

  test.prop([contractList, fc.infiniteStream(fc.nat())])(
    'does not depend on the order of the contracts',
    (list, seeds) => {
      const shuffled = shuffle(list, seeds);
      const a = tradeRatio(list);
      const b = tradeRatio(shuffled);
      expect([b.numerator.toString(), b.denominator.toString()]).toEqual([
        a.numerator.toString(),
        a.denominator.toString(),
      ]);
    },
  );
});

describe('family properties (see docs/rules.md#r7)', () => {
  test.prop([family, fc.constantFrom('0', '1000', '1000000')])(
    'gives each account of a standard family at least the aggregated ratio',
    (accounts, threshold) => {
      const rating = rateFamily(accounts, { ownVolumeThreshold: threshold });
      for (const a of rating.accounts) {
        expect(compareRatio(a.effective, rating.aggregated)).toBeGreaterThanOrEqual(0);
        expect(a.tier.tier).toBeGreaterThanOrEqual(tierOfRatio(rating.aggregated).tier);
      }
    },
  );

  test.prop([family, fc.infiniteStream(fc.nat())])('does not depend on the order of accounts', (accounts, seeds) => {
    const key = (r: ReturnType<typeof rateFamily>) =>
      Object.fromEntries(
        r.accounts.map((a) => [
          a.account,
          `${a.tier.tier} ${a.basis} ${a.effective.numerator}/${a.effective.denominator}`,
        ]),
      );
    expect(key(rateFamily(shuffle(accounts, seeds)))).toEqual(key(rateFamily(accounts)));
  });
});

describe('timeline properties (see docs/rules.md#r5, #r6, #r8)', () => {
  test.prop([timelineInput], { numRuns: 150 })('raises a limit only at 08:00 UTC or at a VIP rise', (input) => {
    const timeline = buildTimeline(input);
    for (const c of timeline.changes) {
      if (c.previousTier !== null && c.tier.tier > c.previousTier.tier) {
        const at0800 = c.at % 86_400_000 === 8 * 3_600_000;
        expect(at0800 || c.reason === 'vip-restored').toBe(true);
      }
    }
  });

  test.prop([timelineInput], { numRuns: 150 })(
    'lowers at once: a worse snapshot is in force from its 00:00',
    (input) => {
      const timeline = buildTimeline(input);
      for (const s of timeline.snapshots) {
        for (const r of s.accounts) {
          const state = timeline.limitAt(r.account, s.day);
          // At the snapshot instant the limit in force is never above the snapshot's tier.
          expect(state.tier.tier).toBeLessThanOrEqual(r.tier.tier);
        }
      }
    },
  );

  test.prop([timelineInput, fc.infiniteStream(fc.nat())], { numRuns: 100 })(
    'does not depend on the order of input arrays',
    (input, seeds) => {
      const render = (t: ReturnType<typeof buildTimeline>) =>
        t.changes.map((c) => `${c.at} ${c.account} ${c.tier.tier} ${c.reason}`);
      const shuffled = {
        ...input,
        accounts: shuffle(input.accounts, seeds),
        activity: shuffle(input.activity, seeds).map((d) => ({ ...d, contracts: shuffle(d.contracts, seeds) })),
        vipChanges: shuffle(input.vipChanges ?? [], seeds),
      };
      expect(render(buildTimeline(shuffled))).toEqual(render(buildTimeline(input)));
    },
  );

  test.prop([timelineInput, fc.array(fc.integer({ min: 0, max: 40 * 86_400_000 }), { maxLength: 20 })], {
    numRuns: 100,
  })('answers any instant as the list of changes says', (input, offsets) => {
    const timeline = buildTimeline(input);
    for (const offset of offsets) {
      const at = Date.UTC(2026, 9, 1) + offset;
      for (const a of input.accounts) {
        if (a.createdAt !== undefined && at < a.createdAt) continue;
        const last = timeline.changes.filter((c) => c.account === a.id && c.at <= at).at(-1);
        expect(timeline.limitAt(a.id, at).tier.tier).toBe(last?.tier.tier ?? 1);
      }
    }
  });
});

describe('abuse throttle properties (see docs/rules.md#r9)', () => {
  test.prop([fc.uniqueArray(fc.integer({ min: 0, max: 72 }), { maxLength: 30 }), fc.infiniteStream(fc.nat())])(
    'does not depend on the order of hours, and never throttles at or below 86,400 requests a day',
    (hours, seeds) => {
      const rows = hours.map((h, i) => ({
        hour: Date.UTC(2026, 10, 1) + h * 3_600_000,
        requests: (i * 7919) % 20_000,
        traded: String(i % 3),
      }));
      const a = buildAbuseTimeline(rows);
      const b = buildAbuseTimeline(shuffle(rows, seeds));
      expect(b.changes.map((c) => [c.at, c.throttle?.reason])).toEqual(
        a.changes.map((c) => [c.at, c.throttle?.reason]),
      );
      for (let h = 0; h < 100; h++) {
        const s = a.throttleAt(Date.UTC(2026, 10, 1) + h * 3_600_000);
        if (s.requests <= 86_400) expect(s.throttle).toBeNull();
      }
    },
  );
});

function shuffle<T>(list: readonly T[], seeds: Iterable<number>): T[] {
  const out = [...list];
  const it = seeds[Symbol.iterator]();
  for (let i = out.length - 1; i > 0; i--) {
    const j = (it.next().value as number) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
