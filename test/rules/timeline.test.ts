import { afterEach, describe, expect, it } from 'vitest';
import { buildTimeline, type TimelineInput } from '../../src/rules/timeline/timeline.js';

const t = (iso: string) => Date.parse(iso);
const good = (place = 100) => [{ contract: 'BTC_USDT', makerVolume: '600', place }]; // ratio 6: tier 4, 250 r/s
const noisy = (place: number) => [{ contract: 'BTC_USDT', place }];

/** Checks a timeline against a table of steps: at this instant, this account has this limit. */
function expectSteps(timeline: ReturnType<typeof buildTimeline>, steps: readonly [string, string, number][]) {
  for (const [account, iso, limit] of steps) {
    expect({ account, iso, limit: timeline.limitAt(account, t(iso)).limit }).toEqual({ account, iso, limit });
  }
}

describe('buildTimeline: when a new ratio takes effect (see docs/rules.md#r5)', () => {
  const input: TimelineInput = {
    accounts: [{ id: 'main', role: 'main' }],
    activity: [
      { account: 'main', day: '2026-11-01', contracts: good() },
      // 500 more requests with no volume: the window of 11-03 holds 600 / 600 = 1, tier 2.
      { account: 'main', day: '2026-11-02', contracts: noisy(500) },
    ],
  };
  const timeline = buildTimeline(input);

  it('does not raise at 07:59:59.999 and raises at 08:00:00.000', () => {
    expectSteps(timeline, [
      ['main', '2026-11-01T12:00:00.000Z', 100],
      ['main', '2026-11-02T00:00:00.000Z', 100],
      ['main', '2026-11-02T07:59:59.999Z', 100],
      ['main', '2026-11-02T08:00:00.000Z', 250],
    ]);
  });

  it('lowers at 00:00:00.000 of the snapshot day, not a millisecond later', () => {
    expectSteps(timeline, [
      ['main', '2026-11-02T23:59:59.999Z', 250],
      ['main', '2026-11-03T00:00:00.000Z', 150],
      ['main', '2026-11-03T08:00:00.000Z', 150],
    ]);
  });

  it('lowers to tier 1 the day the traded volume leaves the 7-day window (0 / 500 is ratio 0)', () => {
    expectSteps(timeline, [
      ['main', '2026-11-08T23:59:59.999Z', 150],
      ['main', '2026-11-09T00:00:00.000Z', 100],
      ['main', '2026-11-10T00:00:00.000Z', 100],
    ]);
  });

  it('lists each change with its instant, tier, limit and reason', () => {
    expect(
      timeline.changes.map((c) => [new Date(c.at).toISOString(), c.account, c.tier.tier, c.limit, c.reason]),
    ).toEqual([
      ['2026-11-02T08:00:00.000Z', 'main', 4, 250, 'raised-at-0800'],
      ['2026-11-03T00:00:00.000Z', 'main', 2, 150, 'lowered-at-snapshot'],
      ['2026-11-09T00:00:00.000Z', 'main', 1, 100, 'lowered-at-snapshot'],
    ]);
    expect(timeline.changes[0]!.previousTier!.tier).toBe(1);
    expect(timeline.changes[1]!.rating!.effective.ratio!.toString()).toBe('1');
  });

  it('takes one snapshot a day over the 7 days before it', () => {
    const s = timeline.snapshots.find((x) => x.day === t('2026-11-08T00:00:00.000Z'))!;
    expect(s.aggregated.numerator.toString()).toBe('600');
    expect(s.aggregated.denominator.toString()).toBe('600');
    const last = timeline.snapshots.find((x) => x.day === t('2026-11-09T00:00:00.000Z'))!;
    expect(last.aggregated.denominator.toString()).toBe('500'); // 11-01 has left [11-02, 11-09)
  });

  it('answers with the change that set the limit and the latest snapshot', () => {
    const state = timeline.limitAt('main', t('2026-11-05T10:00:00.000Z'));
    expect(state.since!.reason).toBe('lowered-at-snapshot');
    expect(state.rating!.effective.ratio!.toString()).toBe('1');
    expect(state.vipLevel).toBe(14);
    expect(timeline.limitAt('main', t('2026-10-01T00:00:00.000Z')).since).toBeNull();
  });
});

describe('buildTimeline: VIP changes (see docs/rules.md#r6)', () => {
  const timeline = buildTimeline({
    accounts: [{ id: 'main', role: 'main' }, { id: 'sub' }],
    activity: [
      { account: 'main', day: '2026-11-01', contracts: good() },
      { account: 'sub', day: '2026-11-01', contracts: good() },
    ],
    vipChanges: [
      { at: t('2026-11-05T02:03:04.005Z'), level: 15 },
      { at: t('2026-11-04T13:17:42.123Z'), level: 12 },
    ],
  });

  it('drops every account of the family to tier 1 at the instant the VIP level falls below 14', () => {
    expectSteps(timeline, [
      ['main', '2026-11-04T13:17:42.122Z', 250],
      ['sub', '2026-11-04T13:17:42.122Z', 250],
      ['main', '2026-11-04T13:17:42.123Z', 100],
      ['sub', '2026-11-04T13:17:42.123Z', 100],
    ]);
  });

  it('restores the latest snapshot tier at the instant the level rises again, not at 08:00', () => {
    expectSteps(timeline, [
      ['main', '2026-11-05T02:03:04.004Z', 100],
      ['main', '2026-11-05T02:03:04.005Z', 250],
      ['sub', '2026-11-05T02:03:04.005Z', 250],
    ]);
    const reasons = timeline.changes.filter((c) => c.account === 'main').map((c) => c.reason);
    expect(reasons).toEqual(['raised-at-0800', 'vip-below-14', 'vip-restored', 'lowered-at-snapshot']);
    expect(timeline.vipLevelAt(t('2026-11-05T02:03:04.004Z'))).toBe(12);
  });

  it('keeps tier 1 through snapshots while below 14, and a VIP 13 family starts at tier 1', () => {
    const below = buildTimeline({
      accounts: [{ id: 'main' }],
      vipLevel: 13,
      activity: [{ account: 'main', day: '2026-11-01', contracts: good() }],
    });
    expect(below.changes).toEqual([]);
    expect(below.limitAt('main', t('2026-11-03T00:00:00.000Z')).limit).toBe(100);
  });

  it('restores to tier 1 when no snapshot was taken yet', () => {
    const early = buildTimeline({
      accounts: [{ id: 'main' }],
      vipLevel: 10,
      vipChanges: [{ at: t('2026-10-30T05:00:00.000Z'), level: 14 }],
      activity: [{ account: 'main', day: '2026-11-01', contracts: good() }],
    });
    expect(early.limitAt('main', t('2026-10-31T00:00:00.000Z')).limit).toBe(100);
    expect(early.limitAt('main', t('2026-11-02T08:00:00.000Z')).limit).toBe(250);
  });
});

describe('buildTimeline: new sub-accounts (see docs/rules.md#r8)', () => {
  const timeline = buildTimeline({
    accounts: [
      { id: 'main', role: 'main' },
      { id: 'late', createdAt: t('2026-11-03T23:59:00.000Z') },
      { id: 'early', createdAt: t('2026-11-04T00:01:00.000Z') },
    ],
    activity: [
      { account: 'main', day: '2026-11-01', contracts: good() },
      { account: 'main', day: '2026-11-03', contracts: good() },
      { account: 'late', day: '2026-11-03', contracts: good(10) },
      { account: 'early', day: '2026-11-04', contracts: good(10) },
    ],
  });

  it('keeps a sub created at 23:59 at tier 1 until 08:00 of the next day', () => {
    expectSteps(timeline, [
      ['late', '2026-11-03T23:59:00.000Z', 100],
      ['late', '2026-11-04T07:59:59.999Z', 100],
      // Snapshot of 11-04: (600 + 600 + 600) / (100 + 100 + 10) = 8.57, tier 4.
      ['late', '2026-11-04T08:00:00.000Z', 250],
    ]);
  });

  it('keeps a sub created at 00:01 at tier 1 for the whole next day, until 08:00 of the day after', () => {
    expectSteps(timeline, [
      ['early', '2026-11-04T00:01:00.000Z', 100],
      ['early', '2026-11-04T08:00:00.000Z', 100],
      ['early', '2026-11-05T07:59:59.999Z', 100],
      // Snapshot of 11-05: (600 + 600 + 600 + 600) / (100 + 100 + 10 + 10) = 10.9, tier 5.
      ['early', '2026-11-05T08:00:00.000Z', 300],
    ]);
  });

  it('records the creation and the start of the normal rules', () => {
    const late = timeline.changes
      .filter((c) => c.account === 'late')
      .map((c) => [new Date(c.at).toISOString(), c.limit, c.reason]);
    expect(late.slice(0, 2)).toEqual([
      ['2026-11-03T23:59:00.000Z', 100, 'new-sub-account'],
      ['2026-11-04T08:00:00.000Z', 250, 'new-sub-account-rules-begin'],
    ]);
    expect(timeline.changes.find((c) => c.account === 'late')!.previousTier).toBeNull();
  });

  it('refuses a query before the account existed, and activity before its creation day', () => {
    expect(() => timeline.limitAt('late', t('2026-11-03T23:58:59.999Z'))).toThrow(
      'an instant at or after late was created',
    );
    expect(() =>
      buildTimeline({
        accounts: [{ id: 's', createdAt: t('2026-11-03T10:00:00.000Z') }],
        activity: [{ account: 's', day: '2026-11-02', contracts: [] }],
      }),
    ).toThrow('Expected `activity[0].day` to be a day on or after s was created');
  });
});

describe('buildTimeline: input', () => {
  const base = { accounts: [{ id: 'main' }], activity: [{ account: 'main', day: '2026-11-01', contracts: good() }] };

  it('reads days as epoch milliseconds at 00:00 UTC as well as YYYY-MM-DD', () => {
    const a = buildTimeline(base);
    const b = buildTimeline({
      ...base,
      activity: [{ account: 'main', day: t('2026-11-01T00:00:00.000Z'), contracts: good() }],
    });
    expect(b.changes.map((c) => [c.at, c.limit])).toEqual(a.changes.map((c) => [c.at, c.limit]));
  });

  it.each([
    [{ ...base, activity: [{ account: 'main', day: '2026-11-01T05:00', contracts: [] }] }, '`activity[0].day`'],
    [
      { ...base, activity: [{ account: 'main', day: t('2026-11-01T05:00:00.000Z'), contracts: [] }] },
      'epoch milliseconds at 00:00 UTC',
    ],
    [
      { ...base, activity: [{ account: 'ghost', day: '2026-11-01', contracts: [] }] },
      'an account listed in `accounts` (main)',
    ],
    [
      { ...base, activity: [...base.activity, { account: 'main', day: '2026-11-01', contracts: [] }] },
      'one entry per account and day',
    ],
    [
      {
        ...base,
        vipChanges: [
          { at: t('2026-11-05T00:00:00.000Z'), level: 12 },
          { at: t('2026-11-05T00:00:00.000Z'), level: 15 },
        ],
      },
      'one VIP change per instant',
    ],
    [{ ...base, vipChanges: [{ at: t('2026-11-05T00:00:00.000Z'), level: -1 }] }, '`vipChanges[0].level`'],
    [{ ...base, vipChanges: [{ at: t('2026-11-05T00:00:00.000Z') + 0.5, level: 3 }] }, '`vipChanges[0].at`'],
    [{ ...base, accounts: [{ id: 'main' }, { id: 'main' }] }, 'an id listed once'],
    [
      {
        ...base,
        accounts: [
          { id: 'main', role: 'main' as const },
          { id: 'x', role: 'main' as const },
        ],
      },
      '(main is the main account)',
    ],
    [{ ...base, accounts: [] }, '`accounts`'],
    [
      {
        ...base,
        activity: [{ account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '-5' }] }],
      },
      '`makerVolume` of BTC_USDT in `activity[0]` (main, 2026-11-01)',
    ],
  ])('refuses bad input %#', (input, message) => {
    expect(() => buildTimeline(input as TimelineInput)).toThrow(message);
  });

  it('refuses an unknown account and a non-integer instant when asked', () => {
    const timeline = buildTimeline(base);
    expect(() => timeline.limitAt('nobody', t('2026-11-05T00:00:00.000Z'))).toThrow(
      'Expected `account` to be an account of the timeline (main), got "nobody"',
    );
    expect(() => timeline.limitAt('main', Number.NaN)).toThrow('`at`');
  });
});

describe('buildTimeline: time zones', () => {
  const original = process.env.TZ;
  afterEach(() => {
    if (original === undefined) delete process.env.TZ;
    else process.env.TZ = original;
  });

  it('gives the same changes whatever the machine time zone', () => {
    const input: TimelineInput = {
      accounts: [{ id: 'main' }, { id: 'sub', createdAt: t('2026-11-02T23:30:00.000Z') }],
      activity: [
        { account: 'main', day: '2026-11-01', contracts: good() },
        { account: 'sub', day: '2026-11-02', contracts: good(10) },
      ],
      vipChanges: [{ at: t('2026-11-05T20:00:00.000Z'), level: 13 }],
    };
    const render = () => buildTimeline(input).changes.map((c) => `${c.at} ${c.account} ${c.limit} ${c.reason}`);
    process.env.TZ = 'UTC';
    const utc = render();
    for (const zone of ['Pacific/Kiritimati', 'America/Los_Angeles', 'Asia/Kathmandu']) {
      process.env.TZ = zone;
      expect(new Date(t('2026-11-01T00:00:00.000Z')).getHours()).not.toBe(0); // the zone is really in force
      expect(render()).toEqual(utc);
    }
  });
});
