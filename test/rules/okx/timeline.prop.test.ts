import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { okx } from '../../../src/rules/exchange-rules.js';
import { DAY, HOUR, type ModelEntry, type ModelInput, type ModelOptions, OkxTimelineModel } from './timeline.model.js';

const START = Date.UTC(2026, 10, 2);

// Offsets within a day where the rules turn: 00:00, 08:00 and a millisecond either side of each.
const EDGES = [0, 1, 8 * HOUR - 1, 8 * HOUR, 8 * HOUR + 1, 12 * HOUR, DAY - 1];
const edge = fc.oneof(fc.constantFrom(...EDGES), fc.integer({ min: 0, max: DAY - 1 }));
const instant = (maxDay: number) =>
  fc.tuple(fc.integer({ min: 0, max: maxDay }), edge).map(([d, o]) => START + d * DAY + o);

// Ratios on, and a hair below, the bounds of OKX's tiers, and between them.
const TARGETS = [
  '0',
  '0.5',
  '0.99999999',
  '1',
  '1.99999999',
  '2',
  '3',
  '4.99999999',
  '5',
  '10',
  '19.5',
  '20',
  '49.99999999',
  '50',
  '70',
];
// Instruments of each multiplier: 1, 0.2, 0.3, 0.1 (futures, spot, option) and 0.5.
const INSTRUMENTS = [
  'BTC-USDT-SWAP',
  'SOL-USDT-SWAP',
  'ETH-USD-250328',
  'SOL-USDT-250328',
  'XRP-USDT',
  'BTC-USDT',
  'BTC-USD-250328-60000-C',
];
const MULTIPLIER: Readonly<Record<string, string>> = {
  'BTC-USDT-SWAP': '1',
  'SOL-USDT-SWAP': '0.2',
  'ETH-USD-250328': '0.3',
  'SOL-USDT-250328': '0.1',
  'XRP-USDT': '0.1',
  'BTC-USDT': '0.5',
  'BTC-USD-250328-60000-C': '0.1',
};

/** `target` x `n` x the instrument's multiplier, as decimal text of 8 decimals (exact: the multiplier has one). */
function volumeFor(target: string, n: number, contract: string): string {
  const [whole, fraction = ''] = target.split('.');
  const [mw, mf = ''] = MULTIPLIER[contract]!.split('.');
  const t = BigInt(whole!) * 10n ** 8n + BigInt(fraction.padEnd(8, '0'));
  const m = BigInt(mw!) * 10n + BigInt(mf.padEnd(1, '0'));
  const u = (t * BigInt(n) * m) / 10n; // 1e-8 USDT; t x m is a multiple of 10 whenever it matters below
  return `${u / 10n ** 8n}.${String(u % 10n ** 8n).padStart(8, '0')}`;
}

/** One instrument's day: a ratio near a bound on its counted requests; cancels (never counted) and volume alone too. */
const nearBound: fc.Arbitrary<ModelEntry> = fc
  .record({
    contract: fc.constantFrom(...INSTRUMENTS),
    requests: fc.integer({ min: 0, max: 300 }),
    scale: fc.constantFrom(1, 1, 1, 4000),
    target: fc.constantFrom(...TARGETS),
    taker: fc.boolean(),
    kind: fc.constantFrom('place', 'amend', 'place', 'cancel'),
  })
  .map(({ contract, requests, scale, target, taker, kind }) => {
    const n = requests * scale;
    return {
      contract,
      [taker ? 'takerVolume' : 'makerVolume']: volumeFor(target, Math.max(n, 1), contract),
      [kind]: n,
    };
  });

/** A week's own volume on the 1,000,000 USDT threshold, or 1e-8 below it. */
const nearThreshold: fc.Arbitrary<ModelEntry> = fc
  .record({
    contract: fc.constantFrom('BTC-USDT-SWAP', 'XRP-USDT'),
    volume: fc.constantFrom('1000000', '999999.99999999', '500000'),
    place: fc.constantFrom(20_000, 100_000, 250_000, 400_000),
  })
  .map(({ contract, volume, place }) => ({ contract, makerVolume: volume, place }));

const entry = fc.oneof({ weight: 3, arbitrary: nearBound }, { weight: 1, arbitrary: nearThreshold });

const timelineCase = fc
  .record({
    accounts: fc.integer({ min: 1, max: 3 }),
    created: fc.array(fc.option(instant(8), { nil: undefined }), { minLength: 3, maxLength: 3 }),
    activity: fc.array(
      fc.tuple(
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 0, max: 11 }),
        fc.uniqueArray(entry, { minLength: 1, maxLength: 2, selector: (c) => c.contract }),
      ),
      { maxLength: 14 },
    ),
    vipLevel: fc.constantFrom(4, 5, 6),
    vipChanges: fc.uniqueArray(fc.tuple(instant(14), fc.constantFrom(3, 4, 5, 6)), {
      maxLength: 3,
      selector: ([at]) => at,
    }),
    queries: fc.array(instant(22), { maxLength: 20 }),
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
  for (let d = -1; d <= 23; d++) for (const o of EDGES) out.push(START + d * DAY + o);
  for (const v of input.vipChanges ?? []) out.push(v.at - 1, v.at, v.at + 1);
  for (const a of input.accounts) if (a.createdAt !== undefined) out.push(a.createdAt, a.createdAt + 1);
  return out;
}

/** An input of one account whose snapshots, from 2026-11-03, give these ratios in turn (each a whole number). */
function snapshotsOf(...ratios: number[]): ModelInput {
  // Day k's activity makes the window of day k + 1 hold the ratio asked: all volume on the first
  // day's BTC-USDT-SWAP (multiplier 1), requests and volume added so that volume / requests moves.
  const activity: { account: string; day: number; contracts: ModelEntry[] }[] = [];
  let volume = 0;
  let requests = 0;
  ratios.forEach((ratio, k) => {
    // Keep the volume, add requests to fall, or keep the requests and add volume to rise.
    const place = Math.max(0, (volume === 0 ? 100 : volume / ratio) - requests);
    const total = k === 0 ? ratio * 100 : Math.max(volume, ratio * (requests + place));
    const add = total - volume;
    activity.push({
      account: 'main',
      day: START + k * DAY,
      contracts: [{ contract: 'BTC-USDT-SWAP', makerVolume: String(add), place }],
    });
    volume = total;
    requests += place;
  });
  return { accounts: [{ id: 'main', role: 'main' }], activity };
}

const at = (day: number, hh = 8, ms = 0) => START + day * DAY + hh * HOUR + ms;

describe("OKX's timing against a day-by-day model (see docs/okx.md#o7)", () => {
  it.each([
    ['12, 4, 4', [12, 4, 4], [2500, 2500, 1750]],
    ['12, 4, 12', [12, 4, 12], [2500, 2500, 2500]],
    ['12, 6, 4', [12, 6, 4, 4], [2500, 2500, 2000, 1750]],
  ])('snapshots %s give the limits from 08:00 of each day', (_, ratios, limits) => {
    const input = snapshotsOf(...ratios);
    const timeline = okx.buildTimeline(input);
    expect(timeline.snapshots.slice(0, ratios.length).map((s) => Number(s.aggregated.ratio))).toEqual(ratios);
    // The snapshot of day k + 1 rates the window holding days 0..k.
    expect(limits.map((_, k) => timeline.limitAt('main', at(k + 1)).limit)).toEqual(limits);
    const model = new OkxTimelineModel(input);
    expect(limits.map((_, k) => model.limitAt('main', at(k + 1)))).toEqual(limits);
  });

  it('lowers at 08:00:00.000 of T+1, not at 07:59:59.999, and not at the snapshot', () => {
    const timeline = okx.buildTimeline(snapshotsOf(12, 4, 4));
    const steps: [number, number][] = [
      [at(1, 8, -1), 1000],
      [at(1), 2500],
      [at(2, 0), 2500], // the worse snapshot of T: nothing yet
      [at(2), 2500], // 08:00 of T: the grace day
      [at(3, 8, -1), 2500], // 07:59:59.999 of T+1
      [at(3), 1750], // 08:00:00.000 of T+1
    ];
    expect(steps.map(([t]) => timeline.limitAt('main', t).limit)).toEqual(steps.map(([, l]) => l));
    expect(timeline.changes.map((c) => [new Date(c.at).toISOString(), c.limit, c.reason])).toEqual([
      ['2026-11-03T08:00:00.000Z', 2500, 'raised-at-0800'],
      ['2026-11-05T08:00:00.000Z', 1750, 'lowered-after-grace'],
      ['2026-11-11T08:00:00.000Z', 1000, 'lowered-after-grace'],
    ]);
  });

  it('lowers at once at the snapshot with the option of lowering as Gate does', async () => {
    const { OKX } = await import('../../../src/rules/okx/rulebook.js');
    const { rulesOf } = await import('../../../src/rules/exchange-rules.js');
    const atOnce = rulesOf({ ...OKX, timing: { ...OKX.timing, lowering: 'at-snapshot' } });
    const timeline = atOnce.buildTimeline(snapshotsOf(12, 4, 4));
    expect([at(2, 0, -1), at(2, 0)].map((t) => timeline.limitAt('main', t).limit)).toEqual([2500, 1750]);
  });

  it('demotes below VIP 5 to tier 1 with the same grace, and counts a promotion from the next snapshot', () => {
    const input: ModelInput = {
      ...snapshotsOf(12, 12, 12, 12, 12),
      vipChanges: [
        { at: at(2, 13), level: 4 }, // read by the snapshot of day 3
        { at: at(4, 0), level: 5 }, // read by the snapshot of day 4, at its very instant
      ],
    };
    const timeline = okx.buildTimeline(input);
    const model = new OkxTimelineModel(input);
    const instants = [at(2, 13), at(3, 0), at(3), at(4, 8, -1), at(4), at(5)];
    expect(instants.map((t) => timeline.limitAt('main', t).limit)).toEqual([2500, 2500, 2500, 2500, 2500, 2500]);
    const longer: ModelInput = { ...input, vipChanges: [{ at: at(2, 13), level: 4 }] };
    const demoted = okx.buildTimeline(longer);
    expect([at(4, 8, -1), at(4), at(5)].map((t) => demoted.limitAt('main', t).limit)).toEqual([2500, 1000, 1000]);
    expect(instants.map((t) => model.limitAt('main', t))).toEqual(
      instants.map((t) => timeline.limitAt('main', t).limit),
    );
  });

  it('keeps a new sub-account at tier 1 until 08:00 of the day after its creation', () => {
    const input: ModelInput = {
      accounts: [
        { id: 'main', role: 'main' },
        { id: 'sub', createdAt: at(1, 23, 59 * 60_000) },
      ],
      activity: [
        { account: 'main', day: START, contracts: [{ contract: 'BTC-USDT-SWAP', makerVolume: '1200', place: 100 }] },
      ],
    };
    const timeline = okx.buildTimeline(input);
    expect([at(1, 23, 59 * 60_000), at(2, 8, -1), at(2)].map((t) => timeline.limitAt('sub', t).limit)).toEqual([
      1000, 1000, 2500,
    ]);
  });

  test.prop([timelineCase], { numRuns: 250 })(
    "gives the model's limit and VIP level for every account at every edge instant",
    ({ input, queries, options }) => {
      const timeline = okx.buildTimeline(input, options);
      const model = new OkxTimelineModel(input, options);
      const wrong: unknown[] = [];
      for (const t of instantsOf(input, queries)) {
        if (timeline.vipLevelAt(t) !== model.vipLevelAt(t))
          wrong.push({ at: new Date(t).toISOString(), vip: timeline.vipLevelAt(t), model: model.vipLevelAt(t) });
        for (const a of input.accounts) {
          if (a.createdAt !== undefined && t < a.createdAt) continue;
          const got = timeline.limitAt(a.id, t);
          const tier = model.tierAt(a.id, t);
          if (got.tier.tier !== tier || got.limit !== model.limitAt(a.id, t))
            wrong.push({ account: a.id, at: new Date(t).toISOString(), tier: got.tier.tier, model: tier });
        }
      }
      expect(wrong).toEqual([]);
    },
  );

  test.prop([timelineCase], { numRuns: 150 })(
    "lists a change exactly where the model's tier turns, with the tier before and after",
    ({ input, options }) => {
      const timeline = okx.buildTimeline(input, options);
      const model = new OkxTimelineModel(input, options);
      for (const c of timeline.changes) {
        const t = new Date(c.at).toISOString();
        expect({ account: c.account, t, tier: c.tier.tier }).toEqual({
          account: c.account,
          t,
          tier: model.tierAt(c.account, c.at),
        });
        if (c.previousTier !== null)
          expect({ account: c.account, t, before: c.previousTier.tier }).toEqual({
            account: c.account,
            t,
            before: model.tierAt(c.account, c.at - 1),
          });
        // Every change falls at 08:00 UTC, or at a creation.
        expect(c.at % DAY === 8 * HOUR || c.reason === 'new-sub-account').toBe(true);
      }
    },
  );
});
