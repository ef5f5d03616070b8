/**
 * Benchmarks of the pure rules (R1-R9), on the built package. Run: npm run bench:rules [case prefix]
 * Prints the median of several runs of each case; the target is 50 ms each.
 */
import { type DailyActivity, buildAbuseTimeline, buildTimeline, rateFamily, tradeRatio } from '../dist/rules.js';
import { median, printTable, time } from './measure.js';

// A deterministic generator, so every run measures the same data.
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function contracts(n: number, rnd: () => number) {
  return Array.from({ length: n }, (_, i) => ({
    contract: i === 0 ? 'BTC_USDT' : i === 1 ? 'ETH_USDT' : `C${i}_USDT`,
    makerVolume: (rnd() * 1e6).toFixed(2),
    takerVolume: (rnd() * 1e6).toFixed(2),
    place: Math.floor(rnd() * 10_000),
    amend: Math.floor(rnd() * 1000),
    cancel: Math.floor(rnd() * 5000),
  }));
}

// Each case makes its data, measures, and lets it go, so no case pays for another's heap.
function tradeRatioCase(): number {
  const one = contracts(10_000, lcg(1));
  return median(time(() => tradeRatio(one), 7));
}

function familyCase(): number {
  const rnd = lcg(2);
  const fam = Array.from({ length: 201 }, (_, a) => ({
    account: a === 0 ? 'main' : `sub${a}`,
    contracts: contracts(500, rnd),
  }));
  return median(time(() => rateFamily(fam), 7));
}

const DAY = 86_400_000;
const start = Date.UTC(2025, 10, 1);

function timelineCase(): number {
  const rnd = lcg(3);
  const activity: DailyActivity[] = [];
  for (let a = 0; a < 50; a++) {
    for (let d = 0; d < 365; d++)
      activity.push({ account: `acc${a}`, day: start + d * DAY, contracts: contracts(3, rnd) });
  }
  const accounts = Array.from({ length: 50 }, (_, a) => ({ id: `acc${a}` }));
  const vipChanges = [
    { at: start + 100 * DAY + 12_345, level: 13 },
    { at: start + 103 * DAY + 999, level: 15 },
  ];
  const instants = Array.from({ length: 10_000 }, () => start + Math.floor(rnd() * 372 * DAY));
  return median(
    time(() => {
      const t = buildTimeline({ accounts, activity, vipChanges });
      for (let i = 0; i < instants.length; i++) t.limitAt(`acc${i % 50}`, instants[i]!);
    }, 15),
  );
}

function abuseCase(): number {
  const rnd = lcg(4);
  const hours = Array.from({ length: 365 * 24 }, (_, h) => ({
    hour: start + h * 3_600_000,
    requests: Math.floor(rnd() * 8000),
    traded: (rnd() * 100).toFixed(2),
  }));
  const instants = Array.from({ length: 10_000 }, () => start + Math.floor(rnd() * 366 * DAY));
  return median(
    time(() => {
      const t = buildAbuseTimeline(hours);
      for (const at of instants) t.throttleAt(at);
    }, 9),
  );
}

const only = process.argv[2];
const cases: [string, () => number][] = [
  ['tradeRatio: 1 account, 10,000 contracts', tradeRatioCase],
  ['rateFamily: 1 main + 200 subs x 500 contracts', familyCase],
  ['buildTimeline: 50 accounts x 365 days x 3 contracts, then 10,000 limitAt', timelineCase],
  ['buildAbuseTimeline: 8,760 hours, then 10,000 throttleAt', abuseCase],
];
const rows = cases
  .filter(([name]) => only === undefined || name.startsWith(only))
  .map(([name, run]) => ({ case: name, ms: run() }));
printTable(
  'Pure rules: median milliseconds per run (target 50 ms each)',
  rows.map((r) => ({ case: r.case, ms: r.ms.toFixed(1), 'under 50 ms': r.ms <= 50 ? 'yes' : 'NO' })),
);
