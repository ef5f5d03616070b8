// What each of the package's entries exports, read from the sources the build bundles: the root is
// what an engine and a planner use and stays small; the rest lives behind subpaths named for their
// users (package.json "exports"), and what the package resolves or computes inside stays private.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
// Each subpath's source: `traderatio/x` is src/x/index.ts, the root src/index.ts.
const subpaths = Object.keys(manifest.exports).filter((k) => k !== './package.json');
const sourceOf = (subpath: string): string => join(root, 'src', subpath === '.' ? 'index.ts' : `${subpath.slice(2)}/index.ts`);
const load = async (subpath: string): Promise<Record<string, unknown>> => (await import(pathToFileURL(sourceOf(subpath)).href)) as Record<string, unknown>;

describe('the package entries', () => {
  it('are the root, traderatio/rules, traderatio/testing and the integrations', () => {
    expect(subpaths).toEqual(['.', './rules', './testing', './redis', './fetch', './ccxt', './gate-api', './websocket', './exchange', './metrics']);
  });

  it.each(subpaths)('load: %s exports values', async (subpath) => {
    expect(Object.keys(await load(subpath)).length).toBeGreaterThan(0);
  });

  it('export no resolve* function: options are resolved inside the package', async () => {
    const found = (await Promise.all(subpaths.map(async (s) => Object.keys(await load(s)).filter((n) => /^resolve/.test(n)).map((n) => `${s} ${n}`)))).flat();
    expect(found).toEqual([]);
  });

  it('give VirtualClock and its error from traderatio/testing only', async () => {
    const holders = [];
    for (const s of subpaths) {
      const names = Object.keys(await load(s));
      if (names.includes('VirtualClock') || names.includes('TooManyTimersError')) holders.push(s);
    }
    expect(holders).toEqual(['./testing']);
  });
});

describe('the root entry', () => {
  it('exports at most 30 values', async () => {
    const names = Object.keys(await load('.'));
    expect(names.length, names.join(', ')).toBeLessThanOrEqual(30);
  });

  it('exports what an engine and a planner use', async () => {
    expect(Object.keys(await load('.')).sort()).toEqual([
      'AccountLimiter', 'DEFAULT_LIMITS', 'DEFAULT_TIERS', 'Dec', 'ExchangeClock', 'InvalidInputError', 'RefusedError', 'Scheduler',
      'TraderatioError', 'UnknownFieldError', 'WindowLimit', 'advise', 'buildTimeline', 'checkAbuse', 'checkSpotFill', 'createCatalog',
      'feedbackFrom', 'feedbackFromWebSocket', 'isInvalidInputError', 'isRefusedError', 'isTraderatioError', 'memoryStore', 'rateFamily',
      'readRateLimitHeaders', 'recordTrades', 'systemClock', 'tierFor', 'tierMargins', 'tradeRatio',
    ].sort());
  });

  it('shares its rule functions with traderatio/rules: the same functions, not copies', async () => {
    const [top, rules] = await Promise.all([load('.'), load('./rules')]);
    const shared = Object.keys(top).filter((n) => n in rules);
    expect(shared.sort()).toEqual(['DEFAULT_TIERS', 'Dec', 'ExchangeClock', 'buildTimeline', 'checkAbuse', 'checkSpotFill', 'rateFamily', 'tierFor', 'tierMargins', 'tradeRatio']);
    expect(shared.filter((n) => top[n] !== rules[n])).toEqual([]);
  });
});
