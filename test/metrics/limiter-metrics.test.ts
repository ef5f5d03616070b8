import { Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { LimiterMetrics, type LimiterMetricsOptions } from '../../src/metrics/index.js';
import { ACTIONS, REFUSAL_REASONS, TIER_SOURCES } from '../../src/metrics/limiter-metrics.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const ORDER = { contract: 'BTC_USDT', size: 1, price: '60000' };
const HOUR = 3_600_000;

/** The value of one series of the text format, or undefined when it is absent. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('LimiterMetrics', () => {
  it('reads the limits in force, their use and what waits at each scrape', async () => {
    const clock = new VirtualClock({ wallStart: Date.parse('2026-11-21T09:30:00Z') });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    const metrics = new LimiterMetrics();
    metrics.watch(limiter, 'desk');
    const place = '{family="desk",account="main",limit="futures.place"}';
    const tasks = Array.from({ length: 103 }, () =>
      limiter.request('main', 'POST', '/futures/usdt/orders', () => 1, { body: ORDER }),
    );
    let text = await metrics.registry.metrics();
    expect([value(text, `traderatio_limit${place}`), value(text, `traderatio_limit_window_seconds${place}`)]).toEqual([
      100, 1,
    ]);
    expect([
      value(text, `traderatio_limit_used${place}`),
      value(text, `traderatio_limit_waiting${place}`),
      value(text, `traderatio_sent_total${place}`),
    ]).toEqual([100, 3, 100]);
    await clock.advance(1_000);
    await Promise.all(tasks);
    text = await metrics.registry.metrics();
    expect([
      value(text, `traderatio_limit_used${place}`),
      value(text, `traderatio_limit_waiting${place}`),
      value(text, `traderatio_sent_total${place}`),
    ]).toEqual([3, 0, 103]);
    // The abuse throttle counts every placement too (see docs/rules.md#r9), in its window; not in force, it has no series.
    expect(text).not.toContain('limit="abuse-throttle"');
    expect(value(text, 'traderatio_throttle_window_requests{family="desk",account="main",kind="abuse"}')).toBe(103);
    expect(value(text, 'traderatio_throttle_headroom_requests{family="desk",account="main",kind="abuse"}')).toBe(
      86_400 - 103,
    );
    expect(text).not.toContain('traderatio_throttle_limit{');
    limiter.close();
  });

  it('tells the tier, where it comes from and the next 08:00', async () => {
    const clock = new VirtualClock({ wallStart: Date.parse('2026-11-21T07:30:00Z') });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    limiter.seed({
      days: [
        {
          account: 'main',
          day: '2026-11-20',
          contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }],
        },
      ],
    });
    const metrics = new LimiterMetrics();
    metrics.watch(limiter, 'desk');
    const text = await metrics.registry.metrics();
    const account = '{family="desk",account="main"}';
    // Yesterday's ratio of 9, in today's 00:00 snapshot: tier 4 from 08:00 (see docs/rules.md#r5); tier 1 until then.
    expect(value(text, 'traderatio_tier{family="desk",account="main",source="initial"}')).toBe(1);
    expect([
      value(text, `traderatio_tier_limit${account}`),
      value(text, `traderatio_next_tier${account}`),
      value(text, `traderatio_next_tier_limit${account}`),
    ]).toEqual([100, 4, 250]);
    expect(value(text, `traderatio_next_tier_change_timestamp_seconds${account}`)).toBe(
      Date.parse('2026-11-21T08:00:00Z') / 1000,
    );
    limiter.close();
  });

  it('counts refusals by reason and answers 429 by the limit they paused', async () => {
    const clock = new VirtualClock({ wallStart: Date.parse('2026-11-21T09:30:00Z') });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, maxQueue: 1 });
    const metrics = new LimiterMetrics();
    metrics.watch(limiter, 'desk');
    const tasks = Array.from({ length: 102 }, () =>
      limiter
        .request('main', 'POST', '/futures/usdt/orders', () => 1, { body: ORDER })
        .catch((e: { reason: string }) => e.reason),
    );
    limiter.feedback('main', { method: 'GET', path: '/spot/accounts' }, { limited: true, retryAfterMs: 1000 });
    const text = await metrics.registry.metrics();
    // 100 sent, 1 waits (maxQueue 1), 1 refused.
    expect(
      value(text, 'traderatio_refused_total{family="desk",account="main",limit="futures.place",reason="queue-full"}'),
    ).toBe(1);
    expect(
      value(text, 'traderatio_answers_429_total{family="desk",account="main",limit="spot:GET /spot/accounts"}'),
    ).toBe(1);
    limiter.close();
    await Promise.all(tasks);
    expect(
      value(
        await metrics.registry.metrics(),
        'traderatio_refused_total{family="desk",account="main",limit="futures.place",reason="closed"}',
      ),
    ).toBe(1);
  });

  it('shows a throttle in force with its N, and observes waits into its histogram', async () => {
    const clock = new VirtualClock({ wallStart: Date.parse('2026-11-21T09:30:00Z') });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    // 86,401 requests and nothing traded in the last hour: the abuse throttle, 10 per 10 s (see docs/rules.md#r9).
    limiter.seed({
      hours: [{ account: 'main', hour: Date.parse('2026-11-21T08:00:00Z'), requests: 86_401, traded: '0' }],
    });
    await clock.advance(HOUR / 2);
    const metrics = new LimiterMetrics({ waitBuckets: [0.01, 0.1] });
    metrics.watch(limiter, 'desk');
    metrics.observeWait('desk', 'main', 'place', 50);
    const text = await metrics.registry.metrics();
    expect(value(text, 'traderatio_throttle_limit{family="desk",account="main",kind="abuse"}')).toBe(10);
    expect(value(text, 'traderatio_throttle_headroom_requests{family="desk",account="main",kind="abuse"}')).toBe(0);
    expect(value(text, 'traderatio_wait_seconds_bucket{le="0.01",family="desk",account="main",action="place"}')).toBe(
      0,
    );
    expect(value(text, 'traderatio_wait_seconds_bucket{le="0.1",family="desk",account="main",action="place"}')).toBe(1);
    limiter.close();
  });

  it('stops watching, and refuses bad input by name', async () => {
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] });
    const registry = new Registry();
    const metrics = new LimiterMetrics({ registry, prefix: 'x_' });
    const stop = metrics.watch(limiter);
    expect(() => metrics.watch(limiter)).toThrow('Expected `family` to be a name not watched already, got "default"');
    expect(await registry.metrics()).toContain('x_tier_limit{family="default",account="main"} 100');
    stop();
    await limiter.request('main', 'GET', '/spot/accounts', () => 1);
    expect(await registry.metrics()).not.toContain('account="main"');
    expect(() => new LimiterMetrics({ prefix: '1x' })).toThrow('Expected `prefix`');
    expect(() => new LimiterMetrics({ waitBuckets: [1, 0.5] })).toThrow('Expected `waitBuckets`');
    expect(() => metrics.watch({} as AccountLimiter)).toThrow('Expected the limiter to be an AccountLimiter');
    expect(() => metrics.observeWait('d', 'a', 'place', -1)).toThrow(
      'Expected `waitedMs` to be a non-negative number of milliseconds, got -1',
    );
    limiter.close();
  });

  it('refuses a label that is not a name, counting nothing, and keeps the text format valid whatever a name holds', async () => {
    const limiter = new AccountLimiter({ accounts: [{ id: 'de"sk\\1\nx', role: 'main' }] });
    const metrics = new LimiterMetrics();
    metrics.watch(limiter, 'fam"ily');
    expect(() => metrics.observeWait('fam"ily', undefined as unknown as string, 'place', 1)).toThrow(
      'Expected `account` to be a non-empty string, got undefined',
    );
    expect(() => metrics.observeWait('fam"ily', 'de', { toString: () => 'place' } as unknown as string, 1)).toThrow(
      'Expected `action` to be a non-empty string',
    );
    expect(() => metrics.observeWait('', 'de', 'place', 1)).toThrow(
      'Expected `family` to be a non-empty string, got ""',
    );
    expect(() => new LimiterMetrics([] as LimiterMetricsOptions)).toThrow(
      'Expected the metrics options to be an object',
    );
    expect(() => new LimiterMetrics({ waitBuckets: [1, Infinity] })).toThrow(
      'Expected `waitBuckets` to be increasing positive numbers of seconds, got [1, Infinity]',
    );
    expect(await metrics.registry.metrics()).not.toContain('wait_seconds_count');
    metrics.observeWait('fam"ily', 'de"sk\\1\nx', 'place', 1);
    const text = await metrics.registry.metrics();
    // Escaped as the exposition format says: backslash, double quote and line feed.
    expect(text).toContain('traderatio_tier_limit{family="fam\\"ily",account="de\\"sk\\\\1\\nx"} 100');
    expect(text).toContain(
      'traderatio_wait_seconds_count{family="fam\\"ily",account="de\\"sk\\\\1\\nx",action="place"} 1',
    );
    const sample =
      /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*")*\})? \S+$/;
    for (const line of text.split('\n')) if (line !== '' && !line.startsWith('#')) expect(line).toMatch(sample);
    limiter.close();
  });

  it('refuses a registry that holds one of its metrics already, registering none of them', async () => {
    const registry = new Registry();
    new Gauge({ name: 'traderatio_tier', help: "the application's own", registers: [registry] });
    expect(() => new LimiterMetrics({ registry })).toThrow(
      'Expected `prefix` to be a prefix whose metrics are not in the registry already (traderatio_tier is), got "traderatio_"',
    );
    expect(registry.getMetricsAsArray().length).toBe(1);
    new LimiterMetrics({ registry, prefix: 'desk_' });
    expect(registry.getSingleMetric('desk_tier')).toBeDefined();
  });

  it('labels the limits of an account whose id holds a colon with the whole id, and tells its tier', async () => {
    const limiter = new AccountLimiter({ accounts: [{ id: 'desk:1', role: 'main' }, { id: 'desk' }] });
    const metrics = new LimiterMetrics();
    metrics.watch(limiter, 'f');
    await limiter.request('desk:1', 'POST', '/futures/usdt/orders', () => 1, { body: ORDER });
    const text = await metrics.registry.metrics();
    expect(value(text, 'traderatio_sent_total{family="f",account="desk:1",limit="futures.place"}')).toBe(1);
    expect(value(text, 'traderatio_limit{family="f",account="desk:1",limit="futures.place"}')).toBe(100);
    expect(value(text, 'traderatio_limit{family="f",account="desk",limit="futures.place"}')).toBe(100);
    expect(text).not.toContain('limit="1:');
    expect(value(text, 'traderatio_tier_limit{family="f",account="desk:1"}')).toBe(100);
    expect(value(text, 'traderatio_tier_limit{family="f",account="desk"}')).toBe(100);
    limiter.close();
  });

  it("lists in its HELP texts every value its labels take, from the code's unions", async () => {
    const text = await new LimiterMetrics().registry.metrics();
    const help = (name: string) => new RegExp(`^# HELP ${name} (.*)$`, 'm').exec(text)![1]!;
    // The lists are typed by the unions (RefusalReason, AccountStatus['reason']): a value added
    // there and not to the list fails the typecheck; here, each is in the HELP.
    expect(REFUSAL_REASONS).toEqual(['queue-full', 'aborted', 'deadline', 'too-heavy', 'closed']);
    for (const r of REFUSAL_REASONS) expect(help('traderatio_refused_total')).toContain(r);
    expect(TIER_SOURCES).toContain('raised-at-0800');
    for (const a of ACTIONS) expect(help('traderatio_wait_seconds')).toContain(a);
    for (const s of TIER_SOURCES) expect(help('traderatio_tier')).toContain(s);
    expect(help('traderatio_tier')).not.toMatch(/[(,] (raise|snapshot|vip|\.\.\.)[,)]/);
  });

  it('shows +Inf headroom for a market never used in the window, and no series of a throttle not in force', async () => {
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] });
    const metrics = new LimiterMetrics();
    metrics.watch(limiter, 'desk');
    await limiter.request('main', 'POST', '/futures/usdt/orders', () => 1, {
      body: { contract: 'BTC_USDT', size: 1, price: '60000' },
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain('traderatio_throttle_headroom_requests{family="desk",account="main",kind="spot-fill"} +Inf');
    expect(value(text, 'traderatio_throttle_headroom_requests{family="desk",account="main",kind="abuse"}')).toBe(
      86_399,
    );
    expect(text).not.toMatch(/limit="(abuse|spot-fill)-throttle"/);
    expect(text).not.toContain('1000000000');
    limiter.close();
  });
});
