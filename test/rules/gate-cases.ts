// Gate's rules over a fixed set of inputs, written out as text: what the Gate results test compares
// between the entry points of `traderatio/rules` and the same rules through Gate's rulebook. The
// inputs are drawn from the arbitraries of the Gate property suites with fixed seeds, so the set is
// the same on every run and every machine; `test/rules/gate-results.json` holds a digest of each
// case's result as the rules gave it before the rulebook existed.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { DecimalInput } from '../../src/internal/decimal.js';
import type { AccountActivity, FamilyOptions, FamilyRating } from '../../src/rules/family.js';
import type { AccountMargins, TierMargins } from '../../src/rules/margins.js';
import type { ContractActivity, RatioOptions, RatioResult } from '../../src/rules/ratio.js';
import type { Tier, TierRow, TierTable } from '../../src/rules/tiers.js';
import type { Timeline, TimelineInput } from '../../src/rules/timeline/timeline.js';
import { contractList, family, timelineInput } from '../arbitraries.js';

/** The Gate rules a case runs through: the entry points, or the same through a rulebook. */
export interface GateRules {
  tradeRatio(activity: readonly ContractActivity[], options?: RatioOptions): RatioResult;
  tierOfRatio(ratio: RatioResult, tiers?: TierTable | readonly TierRow[]): Tier;
  tierFor(ratio: DecimalInput | null, tiers?: TierTable | readonly TierRow[]): Tier;
  tierMargins(ratio: RatioResult, options?: { readonly coefficient?: DecimalInput }): TierMargins;
  rateFamily(accounts: readonly AccountActivity[], options?: FamilyOptions, vipLevel?: number): FamilyRating;
  accountMargins(own: RatioResult, aggregated: RatioResult, options?: FamilyOptions): AccountMargins;
  buildTimeline(input: TimelineInput, options?: FamilyOptions): Timeline;
}

const RATIO_OPTIONS: readonly RatioOptions[] = [
  {},
  { countCancels: false },
  { makerWeight: '0.5', takerWeight: '1', coefficients: { SOL_USDT: '0.5' }, defaultCoefficient: '0.3' },
];
const FAMILY_OPTIONS: readonly FamilyOptions[] = [
  {},
  { ownVolumeThreshold: '0' },
  { kind: 'broker' },
  { ownVolumeThreshold: '1000', countCancels: false },
];
const TIMELINE_OPTIONS: readonly FamilyOptions[] = [{}, { ownVolumeThreshold: '0' }, { kind: 'broker' }];
const RATIOS = [
  '0',
  '0.99999999',
  '1',
  '2.5',
  '3',
  '4.99',
  '5',
  '8.19',
  '10',
  '10.06',
  '19.9',
  '20',
  '50',
  '1e3',
  '-1',
];

const DAY = 86_400_000;
const START = Date.UTC(2026, 9, 1);

/** A ratio as text: every figure it was made of. */
function ratioText(r: RatioResult): string {
  return [r.ratio?.toString() ?? 'null', r.numerator, r.denominator, r.makerVolume, r.takerVolume, r.volume, r.requests]
    .map(String)
    .join(' ');
}

function marginsText(m: TierMargins | AccountMargins): string {
  const up = m.up === null ? 'null' : `${m.up.tier.tier} ${m.up.makerVolume} ${String(m.up.fewerRequests)}`;
  const down = m.down === null ? 'null' : `${m.down.tier.tier} ${m.down.makerVolume} ${String(m.down.spareRequests)}`;
  const steps =
    'steps' in m
      ? m.steps.map(
          (s) =>
            `${s.tier.tier}:${s.makerVolume}:${s.makerPath}:${String(s.requestWeight)}:${String(s.requestPath)}:${String(s.fewerRequests)}`,
        )
      : [];
  return `tier ${m.tier.tier} up ${up} down ${down} ${steps.join(',')}`;
}

function familyText(rules: GateRules, f: FamilyRating, options: FamilyOptions): string[] {
  return [
    `aggregated ${ratioText(f.aggregated)}`,
    ...f.accounts.map(
      (a) =>
        `${a.account} ${a.basis} tier ${a.tier.tier} ${a.tier.limit} own ${ratioText(a.own)} effective ${ratioText(a.effective)} ${marginsText(rules.accountMargins(a.own, f.aggregated, options))}`,
    ),
  ];
}

function timelineText(t: Timeline, input: TimelineInput): string[] {
  const lines = [
    `start ${t.start}`,
    ...t.changes.map(
      (c) =>
        `${c.at} ${c.account} ${c.tier.tier} ${c.limit} ${c.reason} ${c.previousTier?.tier ?? 'null'} ${c.rating === null ? 'null' : `${c.rating.basis} ${ratioText(c.rating.effective)}`}`,
    ),
    ...t.snapshots.map((s) => `snapshot ${s.day} ${ratioText(s.aggregated)} ${s.accounts.map((a) => a.tier.tier)}`),
  ];
  for (let day = -1; day < 40; day++) {
    for (const offset of [0, 8 * 3_600_000 - 1, 8 * 3_600_000, DAY - 1]) {
      const at = START + day * DAY + offset;
      for (const a of input.accounts) {
        if (a.createdAt !== undefined && at < a.createdAt) continue;
        const s = t.limitAt(a.id, at);
        lines.push(`${at} ${a.id} ${s.tier.tier} ${s.vipLevel} ${s.since?.reason ?? 'null'}`);
      }
    }
  }
  return lines;
}

/** One case: a name and its result as text. */
export interface GateCase {
  readonly name: string;
  readonly result: () => string;
}

/** Every case, in a fixed order. */
export function gateCases(rules: GateRules): GateCase[] {
  const cases: GateCase[] = [];
  const lists = fc.sample(contractList, { seed: 38, numRuns: 300 });
  lists.forEach((list, i) => {
    RATIO_OPTIONS.forEach((options, j) => {
      cases.push({
        name: `tradeRatio ${i} options ${j}`,
        result: () => {
          const r = rules.tradeRatio(list, options);
          return `${ratioText(r)} tier ${rules.tierOfRatio(r).tier} ${marginsText(rules.tierMargins(r, { coefficient: '0.4' }))}`;
        },
      });
    });
  });
  for (const ratio of RATIOS) {
    cases.push({ name: `tierFor ${ratio}`, result: () => String(rules.tierFor(ratio).tier) });
  }
  const families = fc.sample(family, { seed: 3838, numRuns: 200 });
  families.forEach((accounts, i) => {
    FAMILY_OPTIONS.forEach((options, j) => {
      for (const vip of [13, 14]) {
        cases.push({
          name: `rateFamily ${i} options ${j} vip ${vip}`,
          result: () => familyText(rules, rules.rateFamily(accounts, options, vip), options).join('\n'),
        });
      }
    });
  });
  const timelines = fc.sample(timelineInput, { seed: 383838, numRuns: 150 });
  timelines.forEach((input, i) => {
    TIMELINE_OPTIONS.forEach((options, j) => {
      cases.push({
        name: `buildTimeline ${i} options ${j}`,
        result: () => timelineText(rules.buildTimeline(input, options), input).join('\n'),
      });
    });
  });
  return cases;
}

/** A case's result, or its refusal, shortened to a digest. */
export function digestOf(c: GateCase): string {
  let text: string;
  try {
    text = c.result();
  } catch (e) {
    text = `refused: ${(e as Error).name} ${(e as Error).message}`;
  }
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}
