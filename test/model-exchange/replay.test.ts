import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { simulate } from '../../src/cli/simulate/simulate.js';
import { call, model } from './helpers.js';

const T0 = Date.parse('2026-11-21T10:00:00Z');

/** A log of two accounts: bursts of placements over their tier, cancels, spot orders and withdrawals. */
function log(): { at: number; account: string; method: string; path: string; contract: string }[] {
  const rows = [];
  for (let i = 0; i < 700; i++) {
    const at = T0 + Math.floor(i * 3.3);
    const account = i % 3 === 0 ? 'acc1' : 'acc0';
    // Withdrawals from the main account: sub-account keys may not withdraw (section 5).
    if (i % 97 === 5) rows.push({ at, account: 'acc0', method: 'POST', path: '/api/v4/withdrawals', contract: '' });
    else if (i % 5 === 4)
      rows.push({ at, account, method: 'DELETE', path: `/api/v4/futures/usdt/orders/${i}`, contract: 'BTC_USDT' });
    else if (i % 7 === 3) rows.push({ at, account, method: 'POST', path: '/api/v4/spot/orders', contract: 'ETH_USDT' });
    else
      rows.push({
        at,
        account,
        method: 'POST',
        path: '/api/v4/futures/usdt/orders',
        contract: i % 2 === 0 ? 'BTC_USDT' : 'SOL_USDT',
      });
  }
  return rows;
}

describe('the same request log through simulate and through the model', () => {
  it('gives the same refusals, limit by limit', async () => {
    const rows = log();
    const csv = [
      'at,account,method,path,contract',
      ...rows.map((r) => `${r.at},${r.account},${r.method},${r.path},${r.contract}`),
    ].join('\n');
    const report = await simulate({
      name: 'log.csv',
      size: null,
      chunks: (async function* () {
        yield Buffer.from(csv);
      })(),
    });
    const { ex, clock } = await model(new Date(T0).toISOString(), {
      accounts: {
        families: [
          {
            id: 'log',
            accounts: ['acc0', 'acc1'].map((id) => ({
              id,
              role: id === 'acc0' ? ('main' as const) : ('sub' as const),
              keys: [{ key: id, secret: id }],
            })),
          },
        ],
      },
    });
    try {
      const refusedLines: number[] = [];
      for (const [i, r] of rows.entries()) {
        await clock.advanceTo(r.at - T0);
        const body =
          r.path.endsWith('/orders') && r.method === 'POST'
            ? r.path.includes('spot')
              ? { currency_pair: r.contract, side: 'buy', amount: '1', price: '3000' }
              : { contract: r.contract, size: 1, price: '100' }
            : r.path.endsWith('withdrawals')
              ? { currency: 'USDT', amount: '1', address: 'a' }
              : undefined;
        if ((await call(ex, r.method, r.path, r.account, body)).status === 429) refusedLines.push(i + 2);
      }
      const byLimit: Record<string, number> = {};
      for (const a of ex.stats().accounts)
        for (const l of a.limits) if (l.refused > 0) byLimit[l.key] = (byLimit[l.key] ?? 0) + l.refused;
      expect(report.exchange.refused).toBeGreaterThan(50);
      expect(refusedLines.length).toBe(report.exchange.refused);
      expect(byLimit).toEqual(report.exchange.byLimit);
      expect(refusedLines.slice(0, 5)).toEqual(report.exchange.examples.map((e) => e.line));
    } finally {
      await ex.close();
    }
  }, 60_000);
});

describe('the WebSocket API (see docs/rules.md#r10, #r16)', () => {
  it('places after a login, counts on the WebSocket limit and the REST budget, and answers 311 or 312', async () => {
    const { ex } = await model('2026-11-21T10:00:00Z');
    const ws = new WebSocket(`${ex.wsUrl}/v4/ws/usdt`);
    const replies: any[] = [];
    const waiting: ((v: any) => void)[] = [];
    ws.on('message', (d) => {
      const m = JSON.parse(String(d));
      const w = waiting.shift();
      if (w) w(m);
      else replies.push(m);
    });
    await new Promise((resolve) => ws.once('open', resolve));
    const send = (channel: string, payload: object) =>
      new Promise<any>((resolve) => {
        waiting.push(resolve);
        ws.send(JSON.stringify({ time: 0, channel, event: 'api', payload }));
      });
    try {
      expect(
        (await send('futures.order_place', { req_id: 'x', req_param: { contract: 'BTC_USDT', size: 1, price: '1' } }))
          .data.errs.label,
      ).toBe('INVALID_CREDENTIALS');
      const login = await send('futures.login', { req_id: 'l', api_key: 'main-key' });
      expect(login.header.status).toBe('200');
      const placed = await send('futures.order_place', {
        req_id: 'p1',
        req_param: { contract: 'BTC_USDT', size: 1, price: '60000' },
      });
      expect(placed).toMatchObject({
        request_id: 'p1',
        header: { status: '200', x_gate_ratelimit_limit: 100, x_gate_ratelimit_requests_remain: 99 },
        data: { result: { contract: 'BTC_USDT' } },
      });
      expect(placed.header.x_in_time).toBe(Date.parse('2026-11-21T10:00:00Z') * 1000);
      // 99 more over REST use the tier's 100 per second: the next WebSocket placement meets the fill-ratio limit.
      for (let i = 0; i < 99; i++)
        await call(ex, 'POST', '/api/v4/futures/usdt/orders', 'main-key', {
          contract: 'BTC_USDT',
          size: 1,
          price: '60000',
        });
      const refused = await send('futures.order_place', {
        req_id: 'p2',
        req_param: { contract: 'BTC_USDT', size: 1, price: '60000' },
      });
      expect([refused.header.status, refused.data.errs.label]).toEqual(['312', 'TOO_MANY_REQUESTS']);
      const cancel = await send('futures.order_cancel', {
        req_id: 'c',
        req_param: { order_id: String(placed.data.result.id) },
      });
      expect(cancel.data.result.finish_as).toBe('cancelled');
      expect(replies).toEqual([]);
    } finally {
      ws.close();
      await ex.close();
    }
  });
});
