import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createCatalog } from '../../../src/catalog/catalog.js';
import { Histogram } from '../../../src/cli/simulate/histogram.js';
import { simulate } from '../../../src/cli/simulate/simulate.js';
import type { SimulationReport } from '../../../src/cli/simulate/replay.js';
import { InvalidInputError } from '../../../src/errors.js';
import { ModelExchangeCore } from '../../../src/model-exchange/core.js';
import { WindowLimit } from '../../../src/schedule/window.js';

const T = Date.parse('2026-11-20T09:00:00Z');
const HEADER = 'at,account,method,path,contract,orders';

interface Row {
  readonly at: number;
  readonly account: string;
  readonly method: string;
  readonly path: string;
  readonly contract: string;
  readonly orders: number;
}

function csv(rows: readonly Row[]): string {
  return [HEADER, ...rows.map((r) => `${r.at},${r.account},${r.method},${r.path},${r.contract},${r.orders}`)].join(
    '\n',
  );
}

function run(text: string, options: { maxQueue?: number } = {}): Promise<SimulationReport> {
  return simulate(
    {
      name: 'log.csv',
      size: null,
      chunks: (async function* () {
        yield Buffer.from(text);
      })(),
    },
    options,
  );
}

/**
 * The scheduler's side of a replay as exact first in, first out on every limit a request draws
 * on, with no priorities and no queue bound: each request is sent at the earliest instant, not
 * before its arrival nor before the last request sent on any of its limits, at which all of them
 * have room. Right when limits do not change during the log (no throttle, no new tier).
 */
function fifo(rows: readonly Row[]): { delayed: number; p50Ms: number; p99Ms: number; maxMs: number } {
  const catalog = createCatalog();
  const core = new ModelExchangeCore([{ id: 'log', accounts: [], vipLevel: 14, options: {} as never }]);
  const parties = new Map<string, ReturnType<ModelExchangeCore['ip']>>();
  const limits = new Map<string, { limit: WindowLimit; last: number }>();
  const delays = new Histogram();
  let delayed = 0;
  for (const r of rows) {
    const body = r.path.includes('batch')
      ? Array.from({ length: r.orders }, () => ({ contract: r.contract }))
      : r.contract === ''
        ? undefined
        : { contract: r.contract, currency_pair: r.contract };
    const c = catalog.classify(r.method, r.path, body);
    const key = c.market === 'public' ? '' : r.account;
    let party = parties.get(key);
    if (party === undefined) parties.set(key, (party = key === '' ? core.ip('') : core.addAccount('log', { id: key })));
    const mine = core
      .limitsOf(party, c)
      .filter((l) => Number.isFinite(l.n))
      .map((l) => {
        let s = limits.get(`${key} ${l.key}`);
        if (s === undefined)
          limits.set(
            `${key} ${l.key}`,
            (s = { limit: new WindowLimit({ limit: l.n, windowMs: l.w }), last: -Infinity }),
          );
        return s;
      });
    let d = Math.max(r.at, ...mine.map((s) => s.last));
    for (let wait = 1; wait > 0; d += wait) wait = Math.max(0, ...mine.map((s) => s.limit.waitFor(c.weight, d)));
    for (const s of mine) {
      s.limit.take(c.weight, d);
      s.last = d;
    }
    if (d > r.at) delayed++;
    delays.add(d - r.at);
  }
  return { delayed, p50Ms: delays.quantile(0.5), p99Ms: delays.quantile(0.99), maxMs: delays.max };
}

const kinds = [
  { method: 'POST', path: '/api/v4/futures/usdt/orders', contract: 'BTC_USDT' },
  { method: 'POST', path: '/api/v4/futures/usdt/orders', contract: 'ETH_USDT' },
  { method: 'POST', path: '/api/v4/futures/usdt/batch_orders', contract: 'BTC_USDT' },
  { method: 'DELETE', path: '/api/v4/futures/usdt/orders/7', contract: 'BTC_USDT' },
  { method: 'POST', path: '/api/v4/spot/orders', contract: 'ETH_USDT' },
  { method: 'GET', path: '/api/v4/spot/tickers', contract: '' },
  { method: 'POST', path: '/api/v4/withdrawals', contract: '' },
];

const logs = fc
  .array(
    fc.record({
      gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 400 })),
      account: fc.constantFrom('a', 'b'),
      kind: fc.nat({ max: kinds.length - 1 }),
      orders: fc.integer({ min: 1, max: 12 }),
    }),
    { minLength: 1, maxLength: 400 },
  )
  .map((steps) => {
    let at = T;
    return steps.map((s): Row => {
      at += s.gap;
      const k = kinds[s.kind]!;
      return { at, account: s.account, ...k, orders: k.path.includes('batch') ? s.orders : 1 };
    });
  });

describe('simulate through the scheduler', () => {
  test.prop([logs], { numRuns: 60 })(
    'sends each request when exact first in, first out on its limits would, while limits hold still',
    async (rows) => {
      const report = await run(csv(rows));
      expect(report.scheduler).toMatchObject({ ...fifo(rows), tooHeavy: 0, queueFull: 0, refusedByExchange: 0 });
    },
  );

  it('sends what waits at a whole hour under the limits of that hour, and what still waits after the last line', async () => {
    // 86,401 placements from 07:00 with no fill: over 86,400 in 24 h, so from 08:00 the abuse
    // throttle holds placements to 10 per 10 s (see docs/rules.md#r9).
    const rows: Row[] = [];
    const start = Date.parse('2026-11-20T07:00:00Z');
    for (let i = 0; i < 86_401; i++)
      rows.push({
        at: start + Math.floor(i * 41.6),
        account: 'a',
        method: 'POST',
        path: '/api/v4/futures/usdt/orders',
        contract: 'BTC_USDT',
        orders: 1,
      });
    // The last line: a burst of 150 at 07:59:59. Tier 1 sends 100 at once; the other 50 have
    // room on it at 08:00:00.000 exactly, when the throttle comes in force. Under it they wait for
    // the burst to leave its 10 s window, then go 10 at a time: at 08:00:09, 19, 29, 39 and 49.
    for (let i = 0; i < 150; i++)
      rows.push({
        at: Date.parse('2026-11-20T07:59:59Z'),
        account: 'a',
        method: 'POST',
        path: '/api/v4/futures/usdt/orders',
        contract: 'BTC_USDT',
        orders: 1,
      });
    const report = await run(csv(rows));
    expect(report.exchange.byLimit).toEqual({ 'futures.place': 50 });
    expect(report.scheduler).toMatchObject({ delayed: 50, maxMs: 50_000, queueFull: 0, refusedByExchange: 0 });
  }, 60_000);

  it('refuses what comes while maxQueue requests wait, and sends none of it', async () => {
    const rows: Row[] = [];
    for (let i = 0; i < 130; i++)
      rows.push({
        at: T,
        account: 'a',
        method: 'POST',
        path: '/api/v4/futures/usdt/orders',
        contract: 'BTC_USDT',
        orders: 1,
      });
    // 100 go at once (tier 1), 30 wait: with room for 20, 10 are refused.
    const report = await run(csv(rows), { maxQueue: 20 });
    expect(report.scheduler).toMatchObject({ queueFull: 10, delayed: 20, maxMs: 1000, refusedByExchange: 0 });
    expect((await run(csv(rows))).scheduler).toMatchObject({ queueFull: 0, delayed: 30 });
  });

  it('keeps apart the limits of accounts and pairs whose names would run together', async () => {
    const text = [
      HEADER,
      `${T},a: spot.place:X,POST,/api/v4/futures/usdt/orders,BTC_USDT,1`,
      `${T},a,POST,/api/v4/spot/orders,X: futures.place,1`,
    ].join('\n');
    const report = await run(text);
    expect(report).toMatchObject({ requests: 2, scheduler: { delayed: 0, refusedByExchange: 0 } });
  });

  it('refuses a bad maxQueue, naming it, before reading anything', async () => {
    for (const bad of [-1, 1.5, Number.NaN, '10']) {
      let read = false;
      const source = {
        name: 'log.csv',
        size: null,
        chunks: (async function* () {
          read = true;
          yield Buffer.from(`${HEADER}\n${T},a,GET,/spot/tickers,,\n`);
        })(),
      };
      const error = await simulate(source, { maxQueue: bad as number }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toContain('`maxQueue`');
      expect(read).toBe(false);
    }
  });
});
