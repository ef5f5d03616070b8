import { describe, expect, it } from 'vitest';
import type { Refusal, SimulationReport } from '../../../src/cli/simulate/replay.js';
import { simulate } from '../../../src/cli/simulate/simulate.js';
import { OKX } from '../../../src/rules/okx/rulebook.js';

const HEADER = 'at,account,method,path,contract,orders,fill_role,fill_volume';
const PLACE = '/api/v5/trade/order';
const BATCH = '/api/v5/trade/batch-orders';
/** Five swaps, so that a burst stays within each instrument's 300 batch orders per 2 s. */
const SWAPS = ['BTC-USDT-SWAP', 'ETH-USDT-SWAP', 'SOL-USDT-SWAP', 'XRP-USDT-SWAP', 'DOGE-USDT-SWAP'];

const iso = (t: number): string => new Date(t).toISOString();
const at = (text: string): number => Date.parse(text);

function request(t: number, path: string, contract = '', orders = 1, account = 'sub1', method = 'POST'): string {
  return `${iso(t)},${account},${method},${path},${contract},${orders},,`;
}

function fill(t: number, contract: string, volume: string, account = 'sub1'): string {
  return `${iso(t)},${account},,,${contract},,maker,${volume}`;
}

/** `orders` new orders at `t` as batches of 20, the instruments in turn. */
function burst(t: number, orders: number): string[] {
  return Array.from({ length: orders / 20 }, (_, i) => request(t, BATCH, SWAPS[i % SWAPS.length]!, 20));
}

/** `orders` new orders at `t` as batches of 20 on the four swaps of multiplier 1 (O3). */
function heavyBurst(t: number, orders: number): string[] {
  const heavy = ['BTC-USDT-SWAP', 'ETH-USDT-SWAP', 'BTC-USD-SWAP', 'ETH-USD-SWAP'];
  return Array.from({ length: orders / 20 }, (_, i) => request(t, BATCH, heavy[i % heavy.length]!, 20));
}

async function replay(rows: readonly string[]): Promise<{ report: SimulationReport; refusals: Refusal[] }> {
  const refusals: Refusal[] = [];
  const text = [HEADER, ...rows].join('\n');
  const report = await simulate(
    {
      name: 'okx.csv',
      size: null,
      chunks: (async function* () {
        yield Buffer.from(text);
      })(),
    },
    { rulebook: OKX, onRefusal: (r) => refusals.push(r) },
  );
  return { report, refusals };
}

const T = at('2026-11-20T10:00:00.000Z');

describe('simulate under OKX', () => {
  it('admits exactly 1,000 new orders in 2 s at tier 1 and refuses one more with 50061', async () => {
    const { report, refusals } = await replay([...burst(T, 1000), request(T + 1999, PLACE, 'ADA-USDT-SWAP')]);
    expect(report.exchange.refused).toBe(1);
    expect(refusals).toEqual([
      {
        line: 52,
        at: T + 1999,
        account: 'sub1',
        limit: 'sub-account',
        reason: 'tier 1 (initial)',
        label: '50061',
        admitted: 0,
      },
    ]);
    expect(report.exchange.byCode).toEqual({ '50061': 1 });
    expect(report.peaks.find((p) => p.limit === 'sub-account')).toMatchObject({ most: 1001, n: 1000, windowMs: 2000 });
  });

  it('admits the orders of a batch that fit and refuses the rest, each refused order a refusal of its own', async () => {
    // 990 orders, then a batch of 20: its first 10 fit the 1,000, its last 10 get 50061.
    const rows = [...burst(T, 980), request(T, PLACE, 'ADA-USDT-SWAP'), request(T + 1, BATCH, 'ADA-USDT-SWAP', 20)];
    rows.splice(
      49,
      0,
      ...Array.from({ length: 9 }, (_, i) => request(T, PLACE, `${['AVAX', 'LINK', 'DOT'][i % 3]}-USDT-SWAP`)),
    );
    const { report, refusals } = await replay(rows);
    expect(refusals.map((r) => [r.limit, r.label, r.admitted])).toEqual([['sub-account', '50061', 10]]);
    expect(report.exchange).toMatchObject({ refused: 10, byLimit: { 'sub-account': 10 }, byCode: { '50061': 10 } });
    expect(report.accounts[0]).toMatchObject({ requests: 60, refused: 10 });
    // The 10 admitted count on the limit: one more order in the same 2 s is refused.
    const more = await replay([...rows, request(T + 2, PLACE, 'ADA-USDT-SWAP')]);
    expect(more.report.exchange.refused).toBe(11);
  });

  it('admits the 1,001st order once the first 1,000 are 2 s old', async () => {
    const { report } = await replay([...burst(T, 1000), request(T + 2000, PLACE, 'ADA-USDT-SWAP')]);
    expect(report.exchange.refused).toBe(0);
  });

  it('counts a batch per order, amends as new orders, and cancels and reads not at all on the sub-account limit', async () => {
    const rows = [
      ...burst(T, 980),
      request(T + 1, '/api/v5/trade/amend-batch-orders', 'ADA-USDT-SWAP', 20),
      request(T + 2, '/api/v5/trade/cancel-batch-orders', 'ADA-USDT-SWAP', 20),
      request(T + 3, '/api/v5/trade/cancel-order', 'ADA-USDT-SWAP'),
      request(T + 4, '/api/v5/account/balance', '', 1, 'sub1', 'GET'),
      // Spot orders are exempt from the sub-account limit (they count in the ratio only).
      request(T + 5, PLACE, 'BTC-USDT'),
      request(T + 6, '/api/v5/trade/amend-order', 'ADA-USDT-SWAP'),
    ];
    const { refusals } = await replay(rows);
    expect(refusals.map((r) => [r.line, r.limit, r.label])).toEqual([[56, 'sub-account', '50061']]);
  });

  it('admits 60 orders on one instrument in 2 s and refuses the 61st with 50011; others, and cancels, have their own', async () => {
    const rows = [
      ...Array.from({ length: 60 }, (_, i) => request(T + i * 10, PLACE, 'ETH-USDT-SWAP')),
      ...Array.from({ length: 60 }, (_, i) => request(T + 600 + i, '/api/v5/trade/cancel-order', 'ETH-USDT-SWAP')),
      request(T + 700, PLACE, 'eth-usdt-swap'),
      request(T + 701, PLACE, 'BTC-USDT-SWAP'),
      request(T + 702, '/api/v5/trade/cancel-order', 'ETH-USDT-SWAP'),
      request(T + 2000, PLACE, 'ETH-USDT-SWAP'),
    ];
    const { report, refusals } = await replay(rows);
    expect(refusals.map((r) => [r.line, r.limit, r.label, r.reason])).toEqual([
      [122, '/api/v5/trade/order:ETH-USDT-SWAP', '50011', 'endpoint'],
      [124, '/api/v5/trade/cancel-order:ETH-USDT-SWAP', '50011', 'endpoint'],
    ]);
    expect(report.exchange.byCode).toEqual({ '50011': 2 });
  });

  it("counts an option's orders on its family's limit, and a batch of one on the single-order limit", async () => {
    const rows = [
      ...Array.from({ length: 30 }, (_, i) => request(T + i, PLACE, 'BTC-USD-261225-60000-C')),
      ...Array.from({ length: 30 }, (_, i) => request(T + 100 + i, BATCH, 'BTC-USD-261225-70000-P', 1)),
      request(T + 200, PLACE, 'BTC-USD-270326-50000-C'),
    ];
    const { refusals } = await replay(rows);
    expect(refusals.map((r) => [r.line, r.limit, r.label])).toEqual([[62, '/api/v5/trade/order:BTC-USD', '50011']]);
  });

  it('refuses what is not an OKX request, naming the line and the value', async () => {
    await expect(replay([request(T, '/futures/usdt/orders', 'BTC_USDT')])).rejects.toThrow(
      /okx\.csv:2: Expected `method` and `path` to be an OKX endpoint .*got "POST \/futures\/usdt\/orders"/,
    );
    await expect(replay([request(T, PLACE, 'BTC_USDT')])).rejects.toThrow(
      /okx\.csv:2: Expected `instId` of POST \/api\/v5\/trade\/order to be an OKX instrument id/,
    );
    await expect(replay([fill(T, 'BTC_USDT', '10')])).rejects.toThrow(
      /okx\.csv:2: Expected `contract` to be an OKX instrument id/,
    );
  });
});

describe('simulate under OKX: the tier of the ratio, at 08:00 UTC', () => {
  // Nov 20: 100 orders on BTC-USDT-SWAP (multiplier 1) and 1,200 USDT traded: a ratio of 12, 2,500 per 2 s.
  const day1 = [
    ...Array.from({ length: 100 }, (_, i) => request(T + i * 100, PLACE, 'BTC-USDT-SWAP')),
    fill(T + 20_000, 'BTC-USDT-SWAP', '1200'),
  ];
  // 1,100 new orders at once: over tier 1's 1,000, within 2,500.
  const refusedIn = async (rows: readonly string[], from: number): Promise<number> => {
    const { refusals } = await replay(rows);
    return refusals.filter((r) => r.at >= from).length;
  };

  it('raises at 08:00:00.000 of the next day, not at 07:59:59.999', async () => {
    const before = at('2026-11-21T07:59:59.999Z');
    const raise = at('2026-11-21T08:00:00.000Z');
    expect(await refusedIn([...day1, ...burst(before, 1100)], before)).toBe(5);
    expect(await refusedIn([...day1, ...burst(raise, 1100)], raise)).toBe(0);
    const { report } = await replay([...day1, ...burst(raise, 1100)]);
    expect(report.limits.map((l) => [iso(l.at), l.limit, l.reason])).toEqual([
      ['2026-11-20T10:00:00.000Z', 1000, 'initial'],
      ['2026-11-21T08:00:00.000Z', 2500, 'raised-at-0800'],
    ]);
  });

  it('counts the admitted orders of a partly refused batch in the ratio, and not the others', async () => {
    // 990 + 10 admitted orders and 10 refused on Nov 20, 10,000 USDT traded: 10 (2,500 per 2 s);
    // 9.9 (2,000) if the refused half counted.
    const rows = [
      ...heavyBurst(T, 980),
      ...Array.from({ length: 10 }, () => request(T, PLACE, 'BTC-USDT-SWAP')),
      request(T + 1, BATCH, 'ETH-USDT-SWAP', 20),
      fill(T + 20_000, 'BTC-USDT-SWAP', '10000'),
      request(at('2026-11-21T09:00:00Z'), PLACE, 'BTC-USDT-SWAP'),
    ];
    const { report } = await replay(rows);
    expect(report.exchange.refused).toBe(10);
    expect(report.limits.at(-1)).toMatchObject({ limit: 2500, tier: 6, reason: 'raised-at-0800' });
  });

  it('counts only successful requests in the ratio: refused orders leave the next tier as it was', async () => {
    // 1,000 admitted and 20 refused orders on Nov 20 with 10,000 USDT traded: 10 (2,500) on the
    // admitted ones; 9.8 (2,000) if the refused batch counted.
    const rows = [
      ...heavyBurst(T, 1000),
      request(T + 1, BATCH, 'BTC-USDT-SWAP', 20),
      fill(T + 20_000, 'BTC-USDT-SWAP', '10000'),
      request(at('2026-11-21T09:00:00Z'), PLACE, 'BTC-USDT-SWAP'),
    ];
    const { report } = await replay(rows);
    expect(report.exchange.refused).toBe(20);
    expect(report.limits.at(-1)).toMatchObject({ limit: 2500, tier: 6, reason: 'raised-at-0800' });
  });

  it('holds a lowering through the day of its snapshot and applies it at 08:00 of the next', async () => {
    // Nov 21: 2,200 orders without a fill, so that the snapshots of Nov 22 and 23 give tier 1.
    const day2 = [...burst(at('2026-11-21T12:00:00Z'), 1100), ...burst(at('2026-11-21T13:00:00Z'), 1100)];
    const held = ['2026-11-22T00:00:00.000Z', '2026-11-22T08:00:00.000Z', '2026-11-23T07:59:59.999Z'].map(at);
    const lowered = at('2026-11-23T08:00:00.000Z');
    // Each burst alone in its 2 s: the one at 07:59:59.999 and the one at 08:00 in two replays.
    for (const last of [held[2]!, lowered]) {
      const instants = [held[0]!, held[1]!, last];
      const { report, refusals } = await replay([...day1, ...day2, ...instants.flatMap((t) => burst(t, 1100))]);
      expect(instants.map((t) => refusals.filter((r) => r.at === t).length)).toEqual([0, 0, last === lowered ? 5 : 0]);
      expect(report.limits.map((l) => [iso(l.at), l.limit, l.reason])).toEqual([
        ['2026-11-20T10:00:00.000Z', 1000, 'initial'],
        ['2026-11-21T08:00:00.000Z', 2500, 'raised-at-0800'],
        ...(last === lowered ? [['2026-11-23T08:00:00.000Z', 1000, 'lowered-after-grace']] : []),
      ]);
    }
  });
});
