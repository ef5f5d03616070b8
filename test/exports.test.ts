// What each of the package's entries exports, read from the sources the build bundles: the root is
// what an engine and a planner use and stays small; the rest lives behind subpaths named for their
// users (package.json "exports"), and what the package resolves or computes inside stays private.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { entries, exportsOf } from './examples.js';

const root = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
// Each subpath's source: `traderatio/x` is src/x/index.ts, the root src/index.ts.
const subpaths = Object.keys(manifest.exports).filter((k) => k !== './package.json');
const sourceOf = (subpath: string): string =>
  join(root, 'src', subpath === '.' ? 'index.ts' : `${subpath.slice(2)}/index.ts`);
const load = async (subpath: string): Promise<Record<string, unknown>> =>
  (await import(pathToFileURL(sourceOf(subpath)).href)) as Record<string, unknown>;

describe('the package entries', () => {
  it('are the root, traderatio/rules, traderatio/testing and the integrations', () => {
    expect(subpaths).toEqual([
      '.',
      './rules',
      './catalog',
      './advise',
      './testing',
      './redis',
      './fetch',
      './ccxt',
      './gate-api',
      './websocket',
      './model-exchange',
      './metrics',
    ]);
  });

  it.each(subpaths)('load: %s exports values', async (subpath) => {
    expect(Object.keys(await load(subpath)).length).toBeGreaterThan(0);
  });

  it('export no resolve* function: options are resolved inside the package', async () => {
    const found = (
      await Promise.all(
        subpaths.map(async (s) =>
          Object.keys(await load(s))
            .filter((n) => /^resolve/.test(n))
            .map((n) => `${s} ${n}`),
        ),
      )
    ).flat();
    expect(found).toEqual([]);
  });

  it('give each name, value or type, from one entry only', () => {
    const found = exportsOf(entries());
    const holders = new Map<string, string[]>();
    for (const [entry, list] of found)
      for (const x of list) holders.set(x.name, [...(holders.get(x.name) ?? []), entry]);
    expect(holders.size).toBeGreaterThan(100);
    expect([...holders].filter(([, on]) => on.length > 1).map(([name, on]) => `${name}: ${on.join(', ')}`)).toEqual([]);
    // One program over every entry's sources: slow on a busy machine.
  }, 120_000);

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

  it("names the types of the limiter's answers, which cost no value", async () => {
    const root = entries().filter((e) => e.name === 'index');
    const names = exportsOf(root)
      .get('index')!
      .map((x) => x.name);
    const types = [
      'WhatIf',
      'AccountMargins',
      'TierStep',
      'MarginPath',
      'TierAtNextRaise',
      'AbuseHeadroom',
      'SpotFillHeadroom',
      'AccountStatus',
    ];
    expect(names).toEqual(expect.arrayContaining(types));
    const values = Object.keys(await load('.'));
    expect(types.filter((t) => values.includes(t))).toEqual([]);
  }, 120_000);

  it('exports what an engine uses', async () => {
    expect(Object.keys(await load('.')).sort()).toEqual(
      [
        'AccountLimiter',
        'Dec',
        'ExchangeClock',
        'InvalidInputError',
        'NoReplyError',
        'RefusedError',
        'Scheduler',
        'Tracker',
        'TraderatioError',
        'UnknownFieldError',
        'WEBSOCKET_RATE_LIMIT_CODES',
        'WindowLimit',
        'feedbackFrom',
        'feedbackFromWebSocket',
        'isInvalidInputError',
        'isRefusedError',
        'isTraderatioError',
        'memoryStore',
        'okxRefusals',
        'readGatewayTimes',
        'readRateLimitHeaders',
        'readWebSocketRateLimit',
        'recordTrades',
        'systemClock',
      ].sort(),
    );
  });
});

describe('traderatio/rules', () => {
  it('exports the rules: functions and constants, no class that keeps state', async () => {
    const rules = await load('./rules');
    const classes = Object.entries(rules)
      .filter(([, v]) => typeof v === 'function' && /^class\b/.test(Function.prototype.toString.call(v)))
      .map(([k]) => k);
    expect(classes).toEqual([]);
    expect(Object.keys(rules)).toEqual(
      expect.arrayContaining([
        'tradeRatio',
        'tierFor',
        'rateFamily',
        'buildTimeline',
        'checkAbuse',
        'checkSpotFill',
        'tierMargins',
      ]),
    );
    expect(Object.keys(rules)).not.toContain('Tracker');
  });
});
