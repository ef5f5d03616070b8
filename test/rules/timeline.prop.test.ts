import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { buildTimeline } from '../../src/rules/timeline/timeline.js';
import { DAY, HOUR, type ModelContract, type ModelInput, type ModelOptions, TimelineModel } from './timeline.model.js';

const START = Date.UTC(2026, 10, 2);

// Offsets within a day where the rules turn: 00:00, 08:00 and a millisecond either side of each.
const EDGES = [0, 1, 8 * HOUR - 1, 8 * HOUR, 8 * HOUR + 1, 12 * HOUR, DAY - 1];
const edge = fc.oneof(fc.constantFrom(...EDGES), fc.integer({ min: 0, max: DAY - 1 }));
const instant = (maxDay: number) =>
  fc.tuple(fc.integer({ min: 0, max: maxDay }), edge).map(([d, o]) => START + d * DAY + o);

// Ratios on, and a hair below, the bounds of the tiers (see docs/rules.md#r3), and between them.
const TARGETS = [
  '0',
  '0.5',
  '0.99999999',
  '1',
  '2.99999999',
  '3',
  '5',
  '9.99999999',
  '10',
  '19.5',
  '20',
  '49.99999999',
  '50',
  '70',
];

/** A decimal text of at most 8 decimals times a whole count, as decimal text. */
function times(text: string, n: number): string {
  const [whole, fraction = ''] = text.split('.');
  const u = (BigInt(whole!) * 10n ** 8n + BigInt(fraction.padEnd(8, '0'))) * BigInt(n);
  return `${u / 10n ** 8n}.${String(u % 10n ** 8n).padStart(8, '0')}`;
}

/** One contract's day: a ratio near a bound on its requests, scaled up now and then past the 1,000,000 USDT threshold of R7. */
const nearBound: fc.Arbitrary<ModelContract> = fc
  .record({
    contract: fc.constantFrom('BTC_USDT', 'ETH_USDT', 'SOL_USDT'),
    requests: fc.integer({ min: 0, max: 300 }),
    scale: fc.constantFrom(1, 1, 1, 4000),
    target: fc.constantFrom(...TARGETS),
    taker: fc.boolean(),
    kind: fc.constantFrom('place', 'amend', 'cancel'),
  })
  .map(({ contract, requests, scale, target, taker, kind }) => {
    const n = requests * scale;
    // Taker volume weighs 0.9: the same amount as taker lands just below the target ratio.
    return { contract, [taker ? 'takerVolume' : 'makerVolume']: times(target, n), [kind]: n };
  });

/** One contract's day whose volume puts a week's own volume on R7's threshold, or 1e-8 USDT below it. */
const nearThreshold: fc.Arbitrary<ModelContract> = fc
  .record({
    contract: fc.constantFrom('BTC_USDT', 'SOL_USDT'),
    volume: fc.constantFrom('1000000', '999999.99999999', '500000'),
    // Ratios 50, 10, 4 and 2.5 on 1,000,000 USDT: on tier bounds and between them.
    place: fc.constantFrom(20_000, 100_000, 250_000, 400_000),
  })
  .map(({ contract, volume, place }) => ({ contract, makerVolume: volume, place }));

const contract = fc.oneof({ weight: 3, arbitrary: nearBound }, { weight: 1, arbitrary: nearThreshold });

const timelineCase = fc
  .record({
    accounts: fc.integer({ min: 1, max: 3 }),
    created: fc.array(fc.option(instant(8), { nil: undefined }), { minLength: 3, maxLength: 3 }),
    activity: fc.array(
      fc.tuple(
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 0, max: 11 }),
        fc.uniqueArray(contract, { minLength: 1, maxLength: 2, selector: (c) => c.contract }),
      ),
      { maxLength: 14 },
    ),
    vipLevel: fc.constantFrom(13, 14, 15),
    vipChanges: fc.uniqueArray(fc.tuple(instant(14), fc.constantFrom(12, 13, 14, 15)), {
      maxLength: 3,
      selector: ([at]) => at,
    }),
    queries: fc.array(instant(22), { maxLength: 20 }),
    // The family rules (see docs/rules.md#r7):as the library reads it by default, as the exchange's worked example does (max() for every account), and for brokers.
    options: fc.constantFrom<ModelOptions>({}, {}, { ownVolumeThreshold: 0 }, { kind: 'broker' }),
  })
  .map(({ accounts, created, activity, vipLevel, vipChanges, queries, options }) => {
    const ids = Array.from({ length: accounts }, (_, i) => (i === 0 ? 'main' : `sub${i}`));
    const createdAt = ids.map((_, i) => (i === 0 ? undefined : created[i]));
    const seen = new Set<string>();
    const entries = activity.flatMap(([a, d, contracts]) => {
      if (a >= accounts) return [];
      const day = START + d * DAY;
      const c = createdAt[a];
      if (c !== undefined && day < c - (c % DAY)) return [];
      if (seen.has(`${a} ${d}`)) return [];
      seen.add(`${a} ${d}`);
      return [{ account: ids[a]!, day, contracts }];
    });
    const input: ModelInput = {
      accounts: ids.map((id, i) =>
        i === 0
          ? { id, role: 'main' as const }
          : createdAt[i] === undefined
            ? { id }
            : { id, createdAt: createdAt[i]! },
      ),
      activity: entries,
      vipLevel,
      vipChanges: vipChanges.map(([at, level]) => ({ at, level })),
    };
    return { input, queries, options };
  });

/** Every instant worth asking about: each day's edges, each VIP change and creation a millisecond either side, and random ones. */
function instantsOf(input: ModelInput, queries: readonly number[]): number[] {
  const out = [...queries];
  for (let d = -1; d <= 22; d++) for (const o of EDGES) out.push(START + d * DAY + o);
  for (const v of input.vipChanges ?? []) out.push(v.at - 1, v.at, v.at + 1);
  for (const a of input.accounts) if (a.createdAt !== undefined) out.push(a.createdAt, a.createdAt + 1);
  return out;
}

describe('buildTimeline against a day-by-day model of the ratio, tier and family rules (see docs/rules.md#r1 to #r8)', () => {
  it('the model reads the rules: 07:59:59.999 keeps the old tier, 08:00:00.000 raises, 00:00:00.000 lowers', () => {
    const model = new TimelineModel({
      accounts: [{ id: 'main', role: 'main' }],
      activity: [
        {
          account: 'main',
          day: Date.parse('2026-11-01'),
          contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }],
        },
        { account: 'main', day: Date.parse('2026-11-02'), contracts: [{ contract: 'BTC_USDT', place: 500 }] },
      ],
      vipChanges: [
        { at: Date.parse('2026-11-04T03:00:00.000Z'), level: 13 },
        { at: Date.parse('2026-11-04T05:00:00.000Z'), level: 14 },
      ],
    });
    const steps = [
      ['2026-11-02T07:59:59.999Z', 100],
      ['2026-11-02T08:00:00.000Z', 250],
      ['2026-11-02T23:59:59.999Z', 250],
      ['2026-11-03T00:00:00.000Z', 150],
      ['2026-11-04T02:59:59.999Z', 150],
      ['2026-11-04T03:00:00.000Z', 100],
      ['2026-11-04T05:00:00.000Z', 150],
      ['2026-11-09T00:00:00.000Z', 100],
    ] as const;
    for (const [iso, limit] of steps) expect([iso, model.limitAt('main', Date.parse(iso))]).toEqual([iso, limit]);
  });

  test.prop([timelineCase], { numRuns: 250 })(
    "gives the model's limit and VIP level for every account at every edge instant",
    ({ input, queries, options }) => {
      const timeline = buildTimeline(input, options);
      const model = new TimelineModel(input, options);
      // Disagreements are gathered and compared once: an expect per query would be most of the run.
      const wrong: unknown[] = [];
      for (const at of instantsOf(input, queries)) {
        if (timeline.vipLevelAt(at) !== model.vipLevelAt(at))
          wrong.push({ at: new Date(at).toISOString(), vip: timeline.vipLevelAt(at), model: model.vipLevelAt(at) });
        for (const a of input.accounts) {
          if (a.createdAt !== undefined && at < a.createdAt) continue;
          const got = timeline.limitAt(a.id, at);
          const tier = model.tierAt(a.id, at);
          if (got.tier.tier !== tier || got.limit !== model.limitAt(a.id, at)) {
            wrong.push({
              account: a.id,
              at: new Date(at).toISOString(),
              tier: got.tier.tier,
              limit: got.limit,
              model: tier,
            });
          }
        }
      }
      expect(wrong).toEqual([]);
    },
  );

  test.prop([timelineCase], { numRuns: 150 })(
    "lists a change exactly where the model's tier turns, with the tier before and after",
    ({ input, options }) => {
      const timeline = buildTimeline(input, options);
      const model = new TimelineModel(input, options);
      for (const c of timeline.changes) {
        const at = new Date(c.at).toISOString();
        expect({ account: c.account, at, tier: c.tier.tier }).toEqual({
          account: c.account,
          at,
          tier: model.tierAt(c.account, c.at),
        });
        if (c.previousTier !== null) {
          expect({ account: c.account, at, before: c.previousTier.tier }).toEqual({
            account: c.account,
            at,
            before: model.tierAt(c.account, c.at - 1),
          });
        }
      }
    },
  );

  // Sparse random weeks seldom put an account's own volume exactly on the family's own-volume threshold (see docs/rules.md#r7) with its own
  // ratio above the family's: this one does, on one day, and asks the day after.
  test.prop(
    [
      fc.constantFrom('1000000', '999999.99999999', '1000000.00000001'),
      fc.constantFrom(20_000, 100_000, 250_000, 400_000),
      fc.integer({ min: 0, max: 2_000_000 }),
      fc.constantFrom<ModelOptions>({}, { ownVolumeThreshold: 1_000_000 }, { ownVolumeThreshold: 999_999 }),
    ],
    { numRuns: 60 },
  )(
    'rates an account by max(own, aggregated) from exactly the threshold of own volume, and by the aggregate below it',
    (volume, place, noise, options) => {
      const day = START + 2 * DAY;
      const input: ModelInput = {
        accounts: [{ id: 'main', role: 'main' }, { id: 'sub1' }],
        activity: [
          { account: 'main', day, contracts: [{ contract: 'BTC_USDT', makerVolume: volume, place }] },
          { account: 'sub1', day, contracts: [{ contract: 'ETH_USDT', cancel: noise }] },
        ],
      };
      const timeline = buildTimeline(input, options);
      const model = new TimelineModel(input, options);
      for (const at of [day + DAY, day + DAY + 8 * HOUR - 1, day + DAY + 8 * HOUR]) {
        for (const id of ['main', 'sub1'])
          expect([id, at, timeline.limitAt(id, at).tier.tier]).toEqual([id, at, model.tierAt(id, at)]);
      }
    },
  );
});
