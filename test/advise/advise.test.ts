import { describe, expect, it } from 'vitest';
import { advise } from '../../src/advise/advise.js';
import { checkAbuse } from '../../src/rules/abuse.js';
import { HOUR_MS } from '../../src/rules/calendar.js';
import { Dec } from '../../src/rules/decimal.js';
import { WORKED_EXAMPLE } from '../../src/rules/example.js';
import { type AccountActivity, rateFamily } from '../../src/rules/family.js';
import { checkSpotFill } from '../../src/rules/spot-fill.js';
import { InvalidInputError } from '../../src/errors.js';

const limits = (activity: readonly AccountActivity[], options = {}) => rateFamily(activity, options).accounts.map((a) => a.tier.limit);

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
      const edited = structuredClone(WORKED_EXAMPLE) as { account: string; contracts: { contract: string; place: number; makerVolume: string }[] }[];
      edited[0]!.contracts[0]!.place = 30 - (c.fewer - 1);
      expect(limits(edited, { ownVolumeThreshold: c.threshold })[0]).toBe(250);
      const less = structuredClone(WORKED_EXAMPLE) as { account: string; contracts: { contract: string; place: number; makerVolume: string }[] }[];
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
      contracts: a.contracts.map((c) => ({ ...c, makerVolume: new Dec(c.makerVolume ?? 0).plus(new Dec(c.takerVolume ?? 0).div(2)).toString(), takerVolume: new Dec(c.takerVolume ?? 0).div(2).toString() })),
    }));
    const rated = rateFamily(edited);
    expect(f.outcome.aggregated.numerator.toString()).toBe('1088.5');
    expect(f.outcome.aggregated.numerator.equals(rated.aggregated.numerator)).toBe(true);
    expect(f.outcome.accounts.map((a) => a.tier.limit)).toEqual(rated.accounts.map((a) => a.tier.limit));
  });

  it('shows the split between heavy contracts and the others, and moving half of the heavy requests (R2)', () => {
    const f = advise(WORKED_EXAMPLE).findings.find((x) => x.kind === 'heavy-contracts')!;
    // BTC_USDT: 30 + 40 + 25 = 95 requests at 1; SOL_USDT: 35 + 35 + 15 = 85 at 0.4 = 34.
    expect(f.figures).toMatchObject({ heavyRequests: 95, heavyWeighted: '95', otherRequests: 85, otherWeighted: '34' });
    expect(f.informational).toBe(true);
    // 15 + 20 + 12 placements move to SOL_USDT: 129 - 47 x 0.6 = 100.8.
    expect(f.outcome.aggregated.denominator.toString()).toBe('100.8');
  });

  it('names the accounts that pull the aggregated ratio down, and the broker reading (R7)', () => {
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

  it('finds an account under the threshold whose own ratio would do better over it', () => {
    // C's own ratio 10.06 beats the aggregated 8.19, but C trades 330 USDT, under 1,000,000.
    const f = advise(WORKED_EXAMPLE).findings.find((x) => x.kind === 'family-threshold')!;
    expect(f.account).toBe('C');
    expect(f.figures.makerVolume).toBe('999670');
    expect(f.outcome.accounts.find((x) => x.account === 'C')!.basis).toBe('max-own');
  });

  it('ranks the findings by the limit they add, then by the aggregated ratio', () => {
    const { findings } = advise(WORKED_EXAMPLE);
    for (let i = 1; i < findings.length; i++) expect(findings[i - 1]!.outcome.gain).toBeGreaterThanOrEqual(findings[i]!.outcome.gain);
    expect(findings[0]!.outcome.gain).toBeGreaterThan(0);
  });
});

describe('advise for one account', () => {
  it('makes the findings about an account for it alone, ranked by the limit they give it', () => {
    const advice = advise(WORKED_EXAMPLE, { account: 'C' });
    const about = advice.findings.filter((f) => f.kind.startsWith('next-tier') || f.kind === 'family-threshold').map((f) => f.account);
    expect(new Set(about)).toEqual(new Set(['C']));
    const gains = advice.findings.map((f) => f.outcome.accounts.find((a) => a.account === 'C')!.gain);
    expect(gains).toEqual([...gains].sort((x, y) => y - x));
    // C over the threshold by 999,670 USDT of maker volume: its own ratio then is tier 7 (400 r/s).
    expect([advice.findings[0]!.kind, gains[0]]).toEqual(['family-threshold', 150]);
    expect(() => advise(WORKED_EXAMPLE, { account: 'Z' })).toThrow('Expected `account` to be an account of the activity (A, B, C), got "Z"');
  });
});

describe('advise on an account without futures activity', () => {
  it('adds the maker volume that takes it to the next tier on a contract of its own', () => {
    // m: 900 / 100 = 9 (tier 4); s trades no futures and takes the aggregated ratio: 100 more makes 10.
    const advice = advise([{ account: 'm', contracts: [{ contract: 'BTC_USDT', makerVolume: '900', place: 100 }] }, { account: 's', contracts: [] }]);
    const f = advice.findings.find((x) => x.kind === 'next-tier-maker' && x.account === 's')!;
    expect(f.figures.makerVolume).toBe('100');
    expect(f.outcome.accounts.map((a) => a.tier.limit)).toEqual([300, 300]);
  });
});

describe('advise with cancel + place pairs', () => {
  const activity: AccountActivity[] = [{ account: 'm', contracts: [{ contract: 'BTC_USDT', makerVolume: '9000', place: 1000, cancel: 800 }] }];

  it('saves one counted request per pair, and rates the amends with the rules', () => {
    const advice = advise({ accounts: activity, pairs: [{ account: 'm', contract: 'btc-usdt', pairs: 300 }] });
    const f = advice.findings.find((x) => x.kind === 'amend-pairs')!;
    expect(f.figures).toEqual({ pairs: 300, requestsSaved: 300 });
    const rated = rateFamily([{ account: 'm', contracts: [{ contract: 'BTC_USDT', makerVolume: '9000', place: 700, amend: 300, cancel: 500 }] }]);
    expect(f.outcome.aggregated.denominator.toString()).toBe(rated.aggregated.denominator.toString());
    // 9000 / 1800 = 5 (tier 4) becomes 9000 / 1500 = 6.
    expect(advice.now.accounts[0]!.tier.limit).toBe(250);
    expect(f.outcome.aggregated.ratio!.toString()).toBe('6');
  });

  it('saves nothing when cancels are not counted', () => {
    const f = advise({ accounts: activity, pairs: [{ account: 'm', contract: 'BTC_USDT', pairs: 300 }] }, { countCancels: false }).findings.find((x) => x.kind === 'amend-pairs')!;
    expect(f.figures.requestsSaved).toBe(0);
  });

  it('combines the pairs, maker instead of taker and the heavy contracts', () => {
    const advice = advise({ accounts: activity, pairs: [{ account: 'm', contract: 'BTC_USDT', pairs: 300 }] });
    expect(advice.combination!.kinds).toEqual(['amend-pairs', 'heavy-contracts']);
    // 700 place, 300 amend, 500 cancel: half of each on a 0.4 contract: 750 x 1 + 750 x 0.4 = 1050.
    expect(advice.combination!.outcome.aggregated.denominator.toString()).toBe('1050');
    expect(advice.combination!.outcome.aggregated.denominator.equals(rateFamily(advice.combination!.activity).aggregated.denominator)).toBe(true);
  });

  it('refuses more pairs than the placements or cancels', () => {
    expect(() => advise({ accounts: activity, pairs: [{ account: 'm', contract: 'BTC_USDT', pairs: 801 }] })).toThrow(
      'Expected `pairs[0].pairs` to be at most the placements and the cancels of m on BTC_USDT (800), got 801');
    expect(() => advise([])).toThrow(InvalidInputError);
    expect(() => advise(activity, { takerShare: '1.5' })).toThrow('Expected `takerShare` to be a share from 0 to 1, got "1.5"');
  });
});

describe('advise with hourly activity', () => {
  const h0 = Date.UTC(2026, 10, 20);

  it('reports the R9 checks within 10% of tripping, with the fill volume that keeps them clear', () => {
    // 80,000 requests and 500 USDT in one hour: 88,000 would be over 86,400 with a fill rate below 0.01.
    const advice = advise({ accounts: [{ account: 'm', contracts: [] }], hours: [{ account: 'm', market: 'futures', hours: [{ hour: h0, requests: 80_000, traded: '500' }] }] });
    expect(advice.throttles).toHaveLength(24);
    const t = advice.throttles[0]!;
    expect(t).toMatchObject({ rule: 'R9', checkedAt: h0 + HOUR_MS, requests: 80_000, tripped: null, withMargin: 88_000 });
    expect(t.clearVolume.toString()).toBe('380');
    expect(checkAbuse({ requests: 88_000, traded: t.traded.plus(t.clearVolume) })).toBeNull();
    expect(checkAbuse({ requests: 88_000, traded: t.traded.plus(t.clearVolume).minus('0.01') })).not.toBeNull();
    // Under 78,546 requests, 10% more stays at or under 86,400: no near miss.
    expect(advise({ accounts: [{ account: 'm', contracts: [] }], hours: [{ account: 'm', market: 'futures', hours: [{ hour: h0, requests: 78_545 }] }] }).throttles).toEqual([]);
  });

  it('reports the R14 checks that tripped or nearly did', () => {
    const hours = [{ hour: h0, requests: 1000, traded: '95' }];
    const advice = advise({ accounts: [{ account: 'm', contracts: [] }], hours: [{ account: 'm', market: 'spot', hours }] });
    const t = advice.throttles[0]!;
    expect(t.tripped?.limit).toBe(10);
    expect(t.clearVolume.toString()).toBe('15');
    expect(checkSpotFill({ requests: 1100, traded: new Dec(110) })).toBeNull();
    // 105 USDT is clear, but 1,100 requests would not be.
    expect(advise({ accounts: [{ account: 'm', contracts: [] }], hours: [{ account: 'm', market: 'spot', hours: [{ hour: h0, requests: 1000, traded: '105' }] }] }).throttles[0]).toMatchObject({ tripped: null });
    expect(advise({ accounts: [{ account: 'm', contracts: [] }], hours: [{ account: 'm', market: 'spot', hours: [{ hour: h0, requests: 1000, traded: '110' }] }] }).throttles).toEqual([]);
  });
});
