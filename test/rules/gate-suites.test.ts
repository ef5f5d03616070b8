// The Gate suites of test/rules run again, each function of traderatio/rules they call replaced
// by the same function built from Gate's rulebook (`gate`, `rulesOf(GATE)`): every case they hold
// gives the same result through the rulebook as through the entry point.
import { vi } from 'vitest';
import { gate } from '../../src/rules/exchange-rules.js';
import * as family from '../../src/rules/family.js';
import { GATE } from '../../src/rules/gate/rulebook.js';
import * as margins from '../../src/rules/margins.js';
import * as ratio from '../../src/rules/ratio.js';
import * as tiers from '../../src/rules/tiers.js';
import * as timeline from '../../src/rules/timeline/timeline.js';
import * as vip from '../../src/rules/vip.js';

vi.doMock('../../src/rules/ratio.js', () => ({
  ...ratio,
  tradeRatio: gate.tradeRatio,
  resolveRatioOptions: (options?: ratio.RatioOptions) => ratio.resolveRatioOptions(options, GATE.ratio),
}));
vi.doMock('../../src/rules/tiers.js', () => ({
  ...tiers,
  DEFAULT_TIERS: gate.tiers,
  tierFor: gate.tierFor,
  tierOfRatio: gate.tierOfRatio,
}));
vi.doMock('../../src/rules/vip.js', () => ({
  ...vip,
  isTieredVip: gate.isTieredVip,
  tierInForce: (level: number, tier: tiers.Tier, table: tiers.TierTable) =>
    vip.tierInForce(level, tier, table, GATE.tieredVipLevel),
}));
vi.doMock('../../src/rules/family.js', () => ({
  ...family,
  rateFamily: gate.rateFamily,
  resolveFamilyOptions: (options?: family.FamilyOptions) => family.resolveFamilyOptions(options, GATE),
}));
vi.doMock('../../src/rules/timeline/timeline.js', () => ({ ...timeline, buildTimeline: gate.buildTimeline }));
vi.doMock('../../src/rules/margins.js', () => ({ ...margins, tierMargins: gate.tierMargins }));

await import('./ratio.test.js');
await import('./contracts.test.js');
await import('./tiers.test.js');
await import('./vip.test.js');
await import('./family.test.js');
await import('./margins.test.js');
await import('./timeline.test.js');
await import('./rules.prop.test.js');
await import('./family.prop.test.js');
await import('./margins.prop.test.js');
await import('./timeline.prop.test.js');
