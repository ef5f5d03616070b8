import { describe, expect, it } from 'vitest';
import { advise } from '../../src/advise/advise.js';
import { checkAbuse } from '../../src/rules/abuse.js';
import { HOUR_MS } from '../../src/rules/calendar.js';
import { Dec } from '../../src/internal/decimal.js';
import { WORKED_EXAMPLE } from '../../src/rules/example.js';
import { type AccountActivity, rateFamily } from '../../src/rules/family.js';
import { checkSpotFill } from '../../src/rules/spot-fill.js';
import { InvalidInputError } from '../../src/errors.js';

const limits = (activity: readonly AccountActivity[], options = {}) =>
  rateFamily(activity, options).accounts.map((a) => a.tier.limit);

describe('advise on the worked example', () => {
  // A, B and C: aggregated ratio 1057/129 = 8.19 (tier 4, 250 r/s); A's own 318/44 = 7.23. Tier 5
  // starts at 10. By the aggregated ratio: 10 x 129 - 1057 = 233 USDT more maker volume, or
  // 129 - 1057/10 = 23.3, so 24 requests fewer at coefficient 1 (1057/105 = 10.07; 1057/106 = 9.97).
  // With threshold 0, A takes max(own, aggregated), and its own ratio gets there first:
  // 10 x 44 - 318 = 122 USDT, or 44 - 31.8 = 12.2, so 13 requests fewer (318/31 = 10.26; 318/32 = 9.94).
  const cases = [
    { threshold: '0', maker: '122', fewer: 13, ratio: ['440', '44'], after: ['318', '31'] },
    { threshold: '1000000', maker: '233', fewer: 24, ratio: ['1290', '129'], after: ['1057', '105'] },
  ];
  for (const c of cases) {
    it(`takes account A from 250 to 300 r/s with ${c.maker} maker USDT or ${c.fewer} BTC_USDT placements fewer (threshold ${c.threshold})`, () => {
      const advice = advise(WORKED_EXAMPLE, { ownVolumeThreshold: c.threshold });
      expect(advice.now.accounts.find((x) => x.account === 'A')!.tier.limit).toBe(250);
      const maker = advice.findings.find((f) => f.kind === 'next-tier-maker' && f.account === 'A')!;
      expect(maker.rules).toEqual(['R1', 'R3']);
      expect(maker.figures.makerVolume).toBe(c.maker);
      const a = maker.outcome.accounts.find((x) => x.account === 'A')!;
      expect([a.effective.numerator.toString(), a.effective.denominator.toString()]).toEqual(c.ratio);
      expect(a.tier.limit).toBe(300);
      const requests = advice.findings.find((f) => f.kind === 'next-tier-requests' && f.account === 'A')!;
      expect(requests.figures.fewerRequests).toBe(c.fewer);
      const b = requests.outcome.accounts.find((x) => x.account === 'A')!;
      expect([b.effective.numerator.toString(), b.effective.denominator.toString()]).toEqual(c.after);
      expect(b.tier.limit).toBe(300);
      // One placement fewer does not do it, nor one USDT less.
      const edited = structuredClone(WORKED_EXAMPLE) as {
        account: string;
        contracts: { contract: string; place: number; makerVolume: string }[];
      }[];
      edited[0]!.contracts[0]!.place = 30 - (c.fewer - 1);
      expect(limits(edited, { ownVolumeThreshold: c.threshold })[0]).toBe(250);
      const less = structuredClone(WORKED_EXAMPLE) as {
        account: string;
        contracts: { contract: string; place: number; makerVolume: string }[];
      }[];
      less[0]!.contracts[0]!.makerVolume = String(100 + Number(c.maker) - 1);
      expect(limits(less, { ownVolumeThreshold: c.threshold })[0]).toBe(250);
    });
  }

  it('gives each finding the rules run on the edited activity: half the taker volume as maker', () => {
    const advice = advise(WORKED_EXAMPLE);
    const f = advice.findings.find((x) => x.kind === 'taker-to-maker')!;
    // Taker volume 200 + 20 + 230 + 180 = 630; half of it, 315 USDT, gains 0.1 each: 1057 + 31.5.
    expect(f.figures).toMatchObject({ movedVolume: '315', numeratorGain: '31.5' });
    const edited = WORKED_EXAMPLE.map((a) => ({
      account: a.account,
      contracts: a.contracts.map((c) => ({
        ...c,
        makerVolume: new Dec(c.makerVolume ?? 0).plus(new Dec(c.takerVolume ?? 0).div(2)).toString(),
        takerVolume: new Dec(c.takerVolume ?? 0).div(2).toString(),
      })),
    }));
    const rated = rateFamily(edited);
    expect(f.outcome.aggregated.numerator.toString()).toBe('1088.5');
    expect(f.outcome.aggregated.numerator.equals(rated.aggregated.numerator)).toBe(true);
    expect(f.outcome.accounts.map((a) => a.tier.limit)).toEqual(rated.accounts.map((a) => a.tier.limit));
  });

  it('shows the split between heavy contracts and the others, and moving half of the heavy requests (see docs/rules.md#r2)', () => {
    const f = advise(WORKED_EXAMPLE).findings.find((x) => x.kind === 'heavy-contracts')!;
    // BTC_USDT: 30 + 40 + 25 = 95 requests at 1; SOL_USDT: 35 + 35 + 15 = 85 at 0.4 = 34.
    expect(f.figures).toMatchObject({ heavyRequests: 95, heavyWeighted: '95', otherRequests: 85, otherWeighted: '34' });
    expect(f.informational).toBe(true);
    // 15 + 20 + 12 placements move to SOL_USDT: 129 - 47 x 0.6 = 100.8.
    expect(f.outcome.aggregated.denominator.toString()).toBe('100.8');
  });

  it('names the accounts that pull the aggregated ratio down, and the broker reading (see docs/rules.md#r7)', () => {
    const advice = advise(WORKED_EXAMPLE, { ownVolumeThreshold: '0' });
    const apart = advice.findings.filter((f) => f.kind === 'family-apart').map((f) => f.account);
    // A 7.23 and B 7.91 are under 8.19; C 10.06 is over it.
    expect(apart.sort()).toEqual(['A', 'B']);
    const a = advice.findings.find((f) => f.kind === 'family-apart' && f.account === 'A')!;
    // B and C without A: (427 + 312) / (54 + 31) = 739/85 = 8.69; A alone 318/44: tier 4.
    expect(a.outcome.aggregated.numerator.toString()).toBe('739');
    expect(a.outcome.accounts.map((x) => x.tier.limit)).toEqual([250, 250, 300]);
    const broker = advice.findings.find((f) => f.kind === 'family-broker')!;
    expect(broker.outcome.accounts.map((x) => x.tier.limit)).toEqual(limits(WORKED_EXAMPLE, { kind: 'broker' }));
  });

  it('finds an account under the threshold whose own ratio would do better over it, with the gain of crossing it alone', () => {
    // C's own ratio 10.06 beats the aggregated 8.19, but C trades 330 USDT, under 1,000,000.
    const f = advise(WORKED_EXAMPLE).findings.find((x) => x.kind === 'family-threshold')!;
    expect(f.account).toBe('C');
    expect(f.figures.makerVolume).toBe('999670');
    const c = f.outcome.accounts.find((x) => x.account === 'C')!;
    expect(c.basis).toBe('max-own');
    // Over the threshold on the ratios it has, 10.06: tier 5, +50 r/s (not the +450 the volume itself would give).
    expect([c.tier.limit, f.gain, f.cost]).toEqual([300, 50, 'volume']);
    expect(f.outcome.accounts.filter((x) => x.account !== 'C').map((x) => x.gain)).toEqual([0, 0]);
  });

  it('ranks free changes first, then changes in volume by the limit they add, informational ones apart', () => {
    // The worked example with 5 cancels of A on BTC_USDT, each followed by a placement: 1057 / 134 = 7.89.
    const accounts = WORKED_EXAMPLE.map((a) =>
      a.account !== 'A'
        ? a
        : { ...a, contracts: a.contracts.map((c) => (c.contract === 'BTC_USDT' ? { ...c, cancel: 5 } : c)) },
    );
    const { findings } = advise({ accounts, pairs: [{ account: 'A', contract: 'BTC_USDT', pairs: 5 }] });
    const order = { free: 0, volume: 1, informational: 2 };
    for (let i = 1; i < findings.length; i++) {
      const [x, y] = [findings[i - 1]!, findings[i]!];
      expect(order[x.cost]).toBeLessThanOrEqual(order[y.cost]);
      if (x.cost === y.cost) expect(x.gain).toBeGreaterThanOrEqual(y.gain);
    }
    expect(findings[0]).toMatchObject({ kind: 'amend-pairs', cost: 'free' });
    // 10 x 134 - 1057 = 283 USDT from any account lifts everyone to 300: +150, ahead of C over the threshold (+50).
    const volume = findings.filter((f) => f.cost === 'volume');
    expect(volume[0]!.gain).toBe(150);
    expect(volume.find((f) => f.kind === 'next-tier-maker' && f.account === 'A')).toMatchObject({
      gain: 150,
      figures: { makerVolume: '283' },
    });
    expect(volume.findIndex((f) => f.kind === 'family-threshold')).toBeGreaterThan(
      volume.findIndex((f) => f.gain === 150),
    );
    expect(findings.filter((f) => f.informational).map((f) => f.kind)).toEqual(
      expect.arrayContaining(['heavy-contracts', 'family-broker']),
    );
  });

  it('gives the share of taker volume that reaches the next tier, and the tier it reaches', () => {
    // 1057 / 129: tier 5 at 1290, 233 more numerator; 0.1 per USDT moved of 630 taker: 233 / 63 = 3.7 > 1.
    // With threshold 0, C's own ratio (312/31) is the nearest: A's own 318 + 0.1 x 220 s reaches 440 at s = 5.5 (no);
    // a small family shows it: 900 maker + 1000 taker over 180 requests = (900 + 900) / 180 = 10: tier 5.
    const accounts = [
      { account: 'm', contracts: [{ contract: 'BTC_USDT', makerVolume: '900', takerVolume: '1000', place: 100 }] },
    ];
    // (900 + 900) / 100 = 18 (tier 5); 20 needs 200 more numerator: 2000 USDT of taker at 0.1 each, but
    // there are 1000: no share does. At 180 requests: 10 (tier 5)... at 190: 9.47 (tier 4), 10 needs 100: 1000 USDT.
    const f = advise([{ account: 'm', contracts: [{ ...accounts[0]!.contracts[0]!, place: 190 }] }]).findings.find(
      (x) => x.kind === 'taker-to-maker',
    )!;
    expect(f.figures).toMatchObject({ share: '1', movedVolume: '1000', reaches: 'm', tier: 5 });
    const half = advise([{ account: 'm', contracts: [{ ...accounts[0]!.contracts[0]!, place: 185 }] }]).findings.find(
      (x) => x.kind === 'taker-to-maker',
    )!;
    // 1800 / 185 = 9.73; 1850 needed: 50 more, 500 USDT: half the taker volume.
    expect(half.figures).toMatchObject({ share: '0.5', movedVolume: '500', tier: 5 });
    expect(half.gain).toBe(50);
    // Given a share, it tries that one.
    expect(
      advise(accounts, { takerShare: '0.25' }).findings.find((x) => x.kind === 'taker-to-maker')!.figures.share,
    ).toBe('0.25');
  });

  it('drops requests over every contract, the heaviest first, when the heaviest has too few', () => {
    // 1000 / (10 + 250 x 0.4 = 110) = 9.09; 10 needs 100: 10 on BTC_USDT and then 0 more (10 + 0): 10 requests.
    // With 5 on BTC_USDT: 5 x 1 + 13 x 0.4 = 10.2: 18 requests.
    const f = advise([
      {
        account: 'm',
        contracts: [
          { contract: 'BTC_USDT', makerVolume: '1000', place: 5 },
          { contract: 'SOL_USDT', place: 262 },
        ],
      },
    ]).findings.find((x) => x.kind === 'next-tier-requests')!;
    // 1000 / (5 + 104.8) = 9.11; 100 weight is needed: 9.8 fewer: 5 on BTC_USDT, then 12 on SOL_USDT (4.8).
    expect(f.figures).toMatchObject({ fewerRequests: 17, byContract: '5 on BTC_USDT, 12 on SOL_USDT', tier: 5 });
    expect(f.outcome.accounts[0]!.tier.tier).toBe(5);
  });
});

describe('advise below VIP 14', () => {
  it('claims no tier but 1: no share of taker volume and no threshold reaches one (see docs/rules.md#r4)', () => {
    const advice = advise(WORKED_EXAMPLE, { vipLevel: 13 });
    expect(advice.now.accounts.map((a) => a.tier.limit)).toEqual([100, 100, 100]);
    for (const f of advice.findings) {
      expect(f.gain, f.change).toBe(0);
      expect(f.outcome.accounts.map((a) => a.tier.tier)).toEqual([1, 1, 1]);
      expect(f.figures.tier ?? 1, f.change).toBe(1);
    }
    // Taker filled as maker is tried at the default share, naming no tier it would reach.
    const taker = advice.findings.find((f) => f.kind === 'taker-to-maker')!;
    expect(taker.figures).toEqual({ share: '0.5', movedVolume: '315', numeratorGain: '31.5' });
    expect(taker.change).toBe('fill 50% of taker volume (315 USDT) as maker');
    // Crossing the threshold gives C nothing below VIP 14, nor more volume anyone.
    expect(advice.findings.map((f) => f.kind)).not.toContain('family-threshold');
    expect(advice.findings.map((f) => f.kind)).not.toContain('next-tier-maker');
  });
});

describe('advise for one account', () => {
  it('makes the findings about an account for it alone, ranked by the limit they give it', () => {
    const advice = advise(WORKED_EXAMPLE, { account: 'C' });
    const about = advice.findings
      .filter((f) => f.kind.startsWith('next-tier') || f.kind === 'family-threshold')
      .map((f) => f.account);
    expect(new Set(about)).toEqual(new Set(['C']));
    const gains = advice.findings.map((f) => f.outcome.accounts.find((a) => a.account === 'C')!.gain);
    expect(advice.findings.map((f) => f.gain)).toEqual(gains);
    const volume = advice.findings.filter((f) => f.cost === 'volume').map((f) => f.gain);
    expect(volume).toEqual([...volume].sort((x, y) => y - x));
    // 233 USDT of maker volume takes the aggregated ratio, and C, to 300; over the threshold its own ratio gives it 300 too.
    expect(advice.findings[0]!.kind).toMatch(/^next-tier-/);
    expect(gains[0]).toBe(50);
    expect(advice.findings.find((f) => f.kind === 'family-threshold')!.gain).toBe(50);
    expect(() => advise(WORKED_EXAMPLE, { account: 'Z' })).toThrow(
      'Expected `account` to be an account of the activity (A, B, C), got "Z"',
    );
  });
});

describe('advise on an account without futures activity', () => {
  it('leaves a spot-only account out of the futures findings', () => {
    // m: 900 / 100 = 9 (tier 4); s trades no futures: it takes the aggregated ratio, and is no subject of a finding.
    const advice = advise([
      { account: 'm', contracts: [{ contract: 'BTC_USDT', makerVolume: '900', place: 100 }] },
      { account: 's', contracts: [] },
    ]);
    expect(advice.findings.filter((x) => x.account === 's')).toEqual([]);
    expect(
      advice.findings
        .find((x) => x.kind === 'next-tier-maker' && x.account === 'm')!
        .outcome.accounts.map((a) => a.tier.limit),
    ).toEqual([300, 300]);
    expect(advice.now.accounts.map((a) => a.tier.limit)).toEqual([250, 250]);
  });
});

describe('advise with cancel + place pairs', () => {
  const activity: AccountActivity[] = [
    { account: 'm', contracts: [{ contract: 'BTC_USDT', makerVolume: '9000', place: 1000, cancel: 800 }] },
  ];

  it('saves one counted request per pair, and rates the amends with the rules', () => {
    const advice = advise({ accounts: activity, pairs: [{ account: 'm', contract: 'btc-usdt', pairs: 300 }] });
    const f = advice.findings.find((x) => x.kind === 'amend-pairs')!;
    expect(f.figures).toEqual({ pairs: 300, requestsSaved: 300 });
    const rated = rateFamily([
      { account: 'm', contracts: [{ contract: 'BTC_USDT', makerVolume: '9000', place: 700, amend: 300, cancel: 500 }] },
    ]);
    expect(f.outcome.aggregated.denominator.toString()).toBe(rated.aggregated.denominator.toString());
    // 9000 / 1800 = 5 (tier 4) becomes 9000 / 1500 = 6.
    expect(advice.now.accounts[0]!.tier.limit).toBe(250);
    expect(f.outcome.aggregated.ratio!.toString()).toBe('6');
  });

  it('saves nothing when cancels are not counted', () => {
    const f = advise(
      { accounts: activity, pairs: [{ account: 'm', contract: 'BTC_USDT', pairs: 300 }] },
      { countCancels: false },
    ).findings.find((x) => x.kind === 'amend-pairs')!;
    expect(f.figures.requestsSaved).toBe(0);
  });

  it('combines the pairs, maker instead of taker and the heavy contracts', () => {
    const advice = advise({ accounts: activity, pairs: [{ account: 'm', contract: 'BTC_USDT', pairs: 300 }] });
    expect(advice.combination!.kinds).toEqual(['amend-pairs', 'heavy-contracts']);
    // 700 place, 300 amend, 500 cancel: half of each on a 0.4 contract: 750 x 1 + 750 x 0.4 = 1050.
    expect(advice.combination!.outcome.aggregated.denominator.toString()).toBe('1050');
    expect(
      advice.combination!.outcome.aggregated.denominator.equals(
        rateFamily(advice.combination!.activity).aggregated.denominator,
      ),
    ).toBe(true);
  });

  it('refuses more pairs than the placements or cancels', () => {
    expect(() => advise({ accounts: activity, pairs: [{ account: 'm', contract: 'BTC_USDT', pairs: 801 }] })).toThrow(
      'Expected `pairs[0].pairs` to be at most the placements and the cancels of m on BTC_USDT (800), got 801',
    );
    expect(() => advise([])).toThrow(InvalidInputError);
    expect(() => advise(activity, { takerShare: '1.5' })).toThrow(
      'Expected `takerShare` to be a share from 0 to 1, got "1.5"',
    );
  });
});

describe('advise with hourly activity', () => {
  const h0 = Date.UTC(2026, 10, 20);

  it('reports the abuse throttle checks (see docs/rules.md#r9) within 10% of tripping, with the fill volume that keeps them clear', () => {
    // 80,000 requests and 500 USDT in one hour: 88,000 would be over 86,400 with a fill rate below 0.01.
    const advice = advise({
      accounts: [{ account: 'm', contracts: [] }],
      hours: [{ account: 'm', market: 'futures', hours: [{ hour: h0, requests: 80_000, traded: '500' }] }],
    });
    expect(advice.throttles).toHaveLength(24);
    const t = advice.throttles[0]!;
    expect(t).toMatchObject({
      rule: 'R9',
      checkedAt: h0 + HOUR_MS,
      requests: 80_000,
      tripped: null,
      withMargin: 88_000,
    });
    expect(t.clearVolume.toString()).toBe('380');
    expect(checkAbuse({ requests: 88_000, traded: t.traded.plus(t.clearVolume) })).toBeNull();
    expect(checkAbuse({ requests: 88_000, traded: t.traded.plus(t.clearVolume).minus('0.01') })).not.toBeNull();
    // Under 78,546 requests, 10% more stays at or under 86,400: no near miss.
    expect(
      advise({
        accounts: [{ account: 'm', contracts: [] }],
        hours: [{ account: 'm', market: 'futures', hours: [{ hour: h0, requests: 78_545 }] }],
      }).throttles,
    ).toEqual([]);
  });

  it('reports the spot low-fill throttle checks (see docs/rules.md#r14) that tripped or nearly did', () => {
    const hours = [{ hour: h0, requests: 1000, traded: '95' }];
    const advice = advise({
      accounts: [{ account: 'm', contracts: [] }],
      hours: [{ account: 'm', market: 'spot', hours }],
    });
    const t = advice.throttles[0]!;
    expect(t.tripped?.limit).toBe(10);
    expect(t.clearVolume.toString()).toBe('15');
    expect(checkSpotFill({ requests: 1100, traded: new Dec(110) })).toBeNull();
    // 105 USDT is clear, but 1,100 requests would not be.
    expect(
      advise({
        accounts: [{ account: 'm', contracts: [] }],
        hours: [{ account: 'm', market: 'spot', hours: [{ hour: h0, requests: 1000, traded: '105' }] }],
      }).throttles[0],
    ).toMatchObject({ tripped: null });
    expect(
      advise({
        accounts: [{ account: 'm', contracts: [] }],
        hours: [{ account: 'm', market: 'spot', hours: [{ hour: h0, requests: 1000, traded: '110' }] }],
      }).throttles,
    ).toEqual([]);
  });
});
