import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gate } from '../../src/rules/exchange-rules.js';
import { rateFamily, resolveFamilyOptions } from '../../src/rules/family.js';
import { GATE } from '../../src/rules/gate/rulebook.js';
import { accountMargins, tierMargins } from '../../src/rules/margins.js';
import { tradeRatio } from '../../src/rules/ratio.js';
import { tierFor, tierOfRatio } from '../../src/rules/tiers.js';
import { buildTimeline } from '../../src/rules/timeline/timeline.js';
import { type GateRules, digestOf, gateCases } from './gate-cases.js';

// The digests of Gate's results as the rules gave them when the file was written (see gate-cases.ts).
const recorded = JSON.parse(readFileSync(join(import.meta.dirname, 'gate-results.json'), 'utf8')) as {
  readonly cases: number;
  readonly digests: readonly string[];
};
const expected = recorded.digests.flatMap((line) => line.split(' '));

/** The cases whose result differs from the recorded one, by name. */
function differing(rules: GateRules): string[] {
  const cases = gateCases(rules);
  expect(cases.length).toBe(recorded.cases);
  return cases.flatMap((c, i) => (digestOf(c) === expected[i] ? [] : [c.name]));
}

describe("Gate's results", () => {
  it('are those recorded, through the entry points of traderatio/rules', () => {
    const entryPoints: GateRules = {
      tradeRatio,
      tierOfRatio,
      tierFor,
      tierMargins,
      rateFamily,
      buildTimeline,
      accountMargins: (own, aggregated, options) => accountMargins(own, aggregated, resolveFamilyOptions(options)),
    };
    expect(differing(entryPoints)).toEqual([]);
  });

  it("are those recorded, through the rules built from Gate's rulebook", () => {
    const throughRulebook: GateRules = {
      ...gate,
      accountMargins: (own, aggregated, options) =>
        accountMargins(own, aggregated, resolveFamilyOptions(options, GATE)),
    };
    expect(differing(throughRulebook)).toEqual([]);
  });
});
