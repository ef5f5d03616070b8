import { describe, expect, it } from 'vitest';
import { AccountLimiter, type AccountLimiterOptions } from '../../src/account/limiter.js';
import { InvalidInputError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

// An account limiter on OKX (docs/okx.md): the sub-account limit of new and amend orders per 2 s,
// the limits per instrument, OKX's codes, its clock, its report and its timing.

const T0 = Date.parse('2026-11-19T12:00:00Z');
const PLACE = '/api/v5/trade/order';
const order = (instId: string) => ({ instId, tdMode: 'cross', side: 'buy', ordType: 'limit', sz: '1', px: '60000' });

function setup(options: Partial<AccountLimiterOptions> = {}) {
  const clock = new VirtualClock({ start: 0, wallStart: T0 });
  const limiter = new AccountLimiter({
    exchange: 'okx',
    accounts: [{ id: 'main', role: 'main' }, { id: 'sub' }],
    clock,
    ...options,
  });
  /** Sends a request through the limiter; resolves to the instant it was sent (the clock's). */
  const send = (path: string, body: unknown, account = 'main', method = 'POST') =>
    limiter.request(account, method, path, () => clock.now(), { body });
  return { clock, limiter, send };
}

/** The instants the requests started at, once the clock has gone far enough. */
async function instants(clock: VirtualClock, sent: readonly Promise<number>[], until = 10_000): Promise<number[]> {
  await clock.advance(until);
  return Promise.all(sent);
}

describe('AccountLimiter on OKX: options', () => {
  it('keeps Gate by default and refuses an exchange it does not know, naming it', () => {
    const gate = new AccountLimiter({ accounts: [{ id: 'main' }] });
    expect(gate.exchange).toBe('gate');
    expect(gate.limitNow('main').limit).toBe(100);
    gate.close();
    expect(() => new AccountLimiter({ exchange: 'binance' as 'okx', accounts: [{ id: 'main' }] })).toThrow(
      /`exchange`.*"gate" or "okx".*binance/,
    );
  });

  it("refuses the options of Gate's alone, each by name, and makes nothing for them", () => {
    const accounts = [{ id: 'main' }];
    const refused: Partial<AccountLimiterOptions>[] = [
      { catalog: { limits: {} } },
      { abuse: { requestThreshold: 10 } },
      { spotFill: {} },
      { pacing: 2 },
      { websocketBudget: 'separate' },
      { downgrade: 'live' },
      { arrivals: 'estimate' },
    ];
    for (const extra of refused) {
      const field = Object.keys(extra)[0]!;
      expect(() => new AccountLimiter({ exchange: 'okx', accounts, ...extra })).toThrow(InvalidInputError);
      expect(() => new AccountLimiter({ exchange: 'okx', accounts, ...extra })).toThrow(`\`${field}\``);
    }
  });

  it("reads the VIP level on OKX's scale (0 to 9, tiered from 5) and an instrument id as the unknown one", () => {
    expect(() => new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main' }], vipLevel: 10 })).toThrow(
      /`vipLevel`.*from 0 to 9/,
    );
    expect(
      () => new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main' }], unknownContract: 'BTC_USDT' }),
    ).toThrow(/`unknownContract`/);
    const { limiter } = setup({ vipLevel: 5 });
    expect(limiter.exchange).toBe('okx');
    expect(limiter.limitNow('main')).toMatchObject({ limit: 1000, reason: 'initial', source: 'assumed' });
    expect(() => limiter.setVipLevel(10)).toThrow(/`level`.*from 0 to 9/);
    limiter.close();
    const below = setup({ vipLevel: 4 });
    expect(below.limiter.limitNow('main')).toMatchObject({ limit: 1000, reason: 'vip-below-14', source: 'rules' });
    below.limiter.close();
  });
});

describe('AccountLimiter on OKX: the limits a request draws on', () => {
  it('keeps new orders under the tier per 2 s over every instrument: the 1,001st waits to 2,000 ms', async () => {
    const { clock, limiter, send } = setup();
    // 20 swaps, 50 orders each: each under its own 60 per 2 s, 1,000 in all.
    const swaps = Array.from({ length: 20 }, (_, i) => `C${i}-USDT-SWAP`);
    const first = swaps.flatMap((id) => Array.from({ length: 50 }, () => send(PLACE, order(id))));
    const next = send(PLACE, order('BTC-USDT-SWAP'));
    await clock.advanceTo(1_999);
    let started = false;
    void next.then(() => {
      started = true;
    });
    await clock.advanceTo(1_999);
    expect(started).toBe(false);
    await clock.advanceTo(2_000);
    expect(await next).toBe(2_000);
    expect(new Set(await Promise.all(first))).toEqual(new Set([0]));
    limiter.close();
  });

  it('keeps each instrument under 60 places per 2 s; the one over waits, in order', async () => {
    const { clock, limiter, send } = setup();
    const btc = Array.from({ length: 60 }, () => send(PLACE, order('BTC-USDT-SWAP')));
    const eth = send(PLACE, order('ETH-USDT-SWAP'));
    const over = send(PLACE, order('BTC-USDT-SWAP'));
    // Behind a request that waits on its instrument, younger ones on the tier keep their turn.
    const behind = send(PLACE, order('SOL-USDT-SWAP'));
    const at = await instants(clock, [...btc, eth, over, behind]);
    expect(at.slice(0, 61).every((t) => t === 0)).toBe(true);
    expect(at.slice(61)).toEqual([2_000, 2_000]);
    limiter.close();
  });

  it('draws amendments on the tier and their own limit; cancels on their own limit only, first', async () => {
    const { clock, limiter, send } = setup();
    // The tier full: 1,000 amendments over 20 instruments.
    const swaps = Array.from({ length: 20 }, (_, i) => `C${i}-USDT-SWAP`);
    const amends = swaps.flatMap((id) =>
      Array.from({ length: 50 }, () => send('/api/v5/trade/amend-order', { instId: id, ordId: '1', newSz: '2' })),
    );
    const placeAfter = send(PLACE, order('BTC-USDT-SWAP'));
    const cancels = Array.from({ length: 60 }, () =>
      send('/api/v5/trade/cancel-order', { instId: 'BTC-USDT-SWAP', ordId: '1' }),
    );
    const cancelAfter = send('/api/v5/trade/cancel-order', { instId: 'BTC-USDT-SWAP', ordId: '2' });
    const at = await instants(clock, [...amends, placeAfter, ...cancels, cancelAfter]);
    expect(at.slice(0, 1_000).every((t) => t === 0)).toBe(true);
    expect(at[1_000]).toBe(2_000);
    expect(at.slice(1_001, 1_061).every((t) => t === 0)).toBe(true);
    expect(at[1_061]).toBe(2_000);
    limiter.close();
  });

  it('leaves spot orders out of the sub-account limit (O1), on their instrument limit only', async () => {
    const { clock, limiter, send } = setup();
    const swaps = Array.from({ length: 20 }, (_, i) => `C${i}-USDT-SWAP`);
    const full = swaps.flatMap((id) => Array.from({ length: 50 }, () => send(PLACE, order(id))));
    const spot = send(PLACE, order('BTC-USDT'));
    const c = limiter.catalog.classify('POST', PLACE, order('BTC-USDT'));
    expect(c.limits.map((l) => l.key)).toEqual([`${PLACE}:BTC-USDT`]);
    expect((await instants(clock, [...full, spot]))[1_000]).toBe(0);
    limiter.close();
  });

  it('counts a batch per order on the tier, and a batch of one on the single-order limit', async () => {
    const { clock, limiter, send } = setup();
    const batch = (n: number, id = 'BTC-USDT-SWAP') =>
      send(
        '/api/v5/trade/batch-orders',
        Array.from({ length: n }, () => order(id)),
      );
    // Batches of 20 on ETH-USDT-SWAP: 300 orders per 2 s on its batch limit, 15 batches.
    const batches = Array.from({ length: 15 }, () => batch(20, 'ETH-USDT-SWAP'));
    // 59 singles and a batch of one fill BTC-USDT-SWAP's 60 places per 2 s.
    const singles = Array.from({ length: 59 }, () => send(PLACE, order('BTC-USDT-SWAP')));
    const one = batch(1);
    // Each over its limit: the 16th batch, and the next single.
    const overBatch = batch(20, 'ETH-USDT-SWAP');
    const single = send(PLACE, order('BTC-USDT-SWAP'));
    const at = await instants(clock, [...batches, ...singles, one, overBatch, single]);
    expect(at.slice(0, 75).every((t) => t === 0)).toBe(true);
    expect(at.slice(75)).toEqual([2_000, 2_000]);
    expect(
      limiter.catalog.classify('POST', '/api/v5/trade/batch-orders', [order('BTC-USDT-SWAP')]).limits[1]!.key,
    ).toBe(`${PLACE}:BTC-USDT-SWAP`);
    limiter.close();
  });

  it('reads a path from /api/v5/ on in a full URL of any host, and refuses what is not an OKX endpoint', () => {
    const { limiter } = setup();
    const c = limiter.catalog.classify('GET', 'https://www.okx.com/api/v5/account/balance?ccy=USDT');
    expect(c.limits).toEqual([{ key: 'GET /api/v5/account/balance', scope: 'account', limit: 10, windowMs: 2_000 }]);
    expect(() => limiter.request('main', 'POST', '/api/v4/futures/usdt/orders', () => 1, { body: {} })).toThrow(
      InvalidInputError,
    );
    expect(() => limiter.request('main', 'POST', PLACE, () => 1, { body: { instId: 'nonsense' } })).toThrow(/`instId`/);
    limiter.close();
  });

  it("refuses Gate's `contract` option by name, before anything runs or counts", async () => {
    const { clock, limiter } = setup();
    let ran = 0;
    const cancel = '/api/v5/trade/cancel-order';
    for (const call of [
      () =>
        limiter.request('main', 'POST', cancel, () => ran++, {
          body: { instId: 'BTC-USDT-SWAP', ordId: '1' },
          contract: 'BTC-USDT-SWAP',
        }),
      () =>
        limiter
          .roundTrip('main', {
            method: 'POST',
            path: cancel,
            body: { instId: 'BTC-USDT-SWAP', ordId: '1' },
            contract: 'BTC-USDT-SWAP',
          })
          .run(() => ran++),
      () =>
        limiter.requestWebSocket('main', 'cancel-order', () => ran++, {
          params: [{ instId: 'BTC-USDT-SWAP', ordId: '1' }],
          contract: 'BTC-USDT-SWAP',
        }),
    ])
      expect(call).toThrow(/`contract`.*instId/);
    await clock.advance(10);
    expect(ran).toBe(0);
    expect(limiter.snapshot().tracker.days).toEqual([]);
    limiter.close();
  });
});

describe("AccountLimiter on OKX: the exchange's answers", () => {
  /** A round trip answered with `body`; resolves when the answer is taken. */
  const answered = (limiter: AccountLimiter, path: string, request: unknown, body: unknown, status = 200) =>
    limiter
      .roundTrip('main', { method: 'POST', path, body: request })
      .run((t) => t.answered({ status, headers: {}, body }));

  it('pauses the sub-account limit on 50061 for its window; cancels and spot orders go on', async () => {
    const { clock, limiter, send } = setup();
    await answered(limiter, PLACE, order('BTC-USDT-SWAP'), {
      code: '1',
      msg: '',
      data: [{ sCode: '50061', sMsg: 'Sub-account rate limit reached' }],
    });
    const place = send(PLACE, order('ETH-USDT-SWAP'));
    const cancel = send('/api/v5/trade/cancel-order', { instId: 'ETH-USDT-SWAP', ordId: '1' });
    const spot = send(PLACE, order('ETH-USDT'));
    expect(await instants(clock, [place, cancel, spot])).toEqual([2_000, 0, 0]);
    limiter.close();
  });

  it("pauses the instrument's limit on a batch's 50011, and not the sub-account limit", async () => {
    const { clock, limiter, send } = setup();
    await answered(limiter, '/api/v5/trade/batch-orders', [order('BTC-USDT-SWAP'), order('BTC-USDT-SWAP')], {
      code: '2',
      msg: '',
      data: [{ sCode: '0' }, { sCode: '50011', sMsg: 'Rate limit reached' }],
    });
    const other = send(PLACE, order('ETH-USDT-SWAP'));
    const sameBatch = send('/api/v5/trade/batch-orders', [order('BTC-USDT-SWAP'), order('BTC-USDT-SWAP')]);
    expect(await instants(clock, [other, sameBatch])).toEqual([0, 2_000]);
    limiter.close();
  });

  it('reads a success as none refused, and an HTTP 429 without a code as a refusal of the first limit', async () => {
    const { clock, limiter, send } = setup();
    await answered(limiter, PLACE, order('BTC-USDT-SWAP'), { code: '0', msg: '', data: [{ sCode: '0', ordId: '1' }] });
    expect(await instants(clock, [send(PLACE, order('ETH-USDT-SWAP'))], 1)).toEqual([0]);
    await answered(limiter, PLACE, order('BTC-USDT-SWAP'), 'Too Many Requests', 429);
    const start = clock.now();
    expect(await instants(clock, [send(PLACE, order('SOL-USDT-SWAP'))])).toEqual([start + 2_000]);
    limiter.close();
  });

  it("takes GET /api/v5/public/time's ts as a sample of the exchange's clock (O7)", async () => {
    const { clock, limiter } = setup();
    await limiter.roundTrip('main', { method: 'GET', path: 'https://www.okx.com/api/v5/public/time' }).run((t) => {
      const ts = String(clock.wall() + 1_500);
      return t.answered({ status: 200, headers: {}, body: { code: '0', msg: '', data: [{ ts }] } });
    });
    expect(limiter.clockEstimate()).toMatchObject({ offsetMs: 1_500, samples: 1 });
    limiter.close();
  });

  it('adopts the account-rate-limit report (O9) and surfaces its forecast; a bad one changes nothing', () => {
    const { limiter } = setup();
    const ts = String(Date.parse('2026-11-19T08:00:00Z'));
    const row = { accRateLimit: '2000', fillRatio: '5.5', mainFillRatio: '5.5', nextAccRateLimit: '1750', ts };
    expect(() => limiter.reportRateLimit('main', { code: '0', data: [{ ...row, accRateLimit: '1999' }] })).toThrow(
      /`accRateLimit`/,
    );
    expect(limiter.limitNow('main')).toMatchObject({ limit: 1000, forecast: null });
    const r = limiter.reportRateLimit('main', { code: '0', msg: '', data: [row] });
    expect(r?.source).toBe('report');
    expect(limiter.limitNow('main')).toMatchObject({
      limit: 2000,
      source: 'exchange',
      reportEndpoint: 'open',
      forecast: { limit: 1750, tier: 4, reportedAt: Date.parse('2026-11-19T08:00:00Z') },
    });
    limiter.close();
  });
});

describe('AccountLimiter on OKX: the ratio and its timing', () => {
  it("counts each order request under its instrument's multiplier (O3)", async () => {
    const { clock, limiter, send } = setup();
    limiter.recordFill('main', { contract: 'ETH-USDT-SWAP', role: 'taker', volume: '1000' });
    // 100 places on a swap of multiplier 0.2 weigh 20: ratio 50, the top tier at the next 08:00.
    await instants(
      clock,
      Array.from({ length: 50 }, () => send(PLACE, order('SOL-USDT-SWAP'))),
      1,
    );
    await instants(
      clock,
      Array.from({ length: 50 }, () => send(PLACE, order('DOGE-USDT-SWAP'))),
      1,
    );
    expect(limiter.limitAtNext0800('main').limit).toBe(10_000);
    // 20 more on BTC-USDT-SWAP (multiplier 1): 40, ratio 25.
    await instants(
      clock,
      Array.from({ length: 20 }, () => send(PLACE, order('BTC-USDT-SWAP'))),
      1,
    );
    expect(limiter.limitAtNext0800('main').limit).toBe(3_000);
    expect(() => limiter.recordFill('main', { contract: 'BTC_USDT', role: 'maker', volume: '1' })).toThrow(
      /`contract`/,
    );
    expect(() =>
      limiter.recordFill('main', { contract: 'BTC-USDT', role: 'maker', volume: '1', market: 'spot' }),
    ).toThrow(/`market`/);
    limiter.close();
  });

  it('lowers a day late (O7): one window (2 s) before 08:00 of T+1, not at the snapshot nor a moment earlier', async () => {
    const { clock, limiter } = setup();
    // 11-18: ratio 12 (2,500 from 11-19 08:00); today 11-19, 2,000 more requests: ratio 4 at 11-20's snapshot.
    limiter.seed({
      days: [
        {
          account: 'main',
          day: '2026-11-18',
          contracts: [{ contract: 'BTC-USDT-SWAP', makerVolume: '12000', place: 1000 }],
        },
        { account: 'main', day: '2026-11-19', contracts: [{ contract: 'BTC-USDT-SWAP', place: 2000 }] },
      ],
    });
    const at = (iso: string) => clock.advanceTo(Date.parse(iso) - T0);
    expect(limiter.limitNow('main').limit).toBe(2_500);
    await at('2026-11-20T00:00:00Z');
    expect(limiter.limitNow('main').limit).toBe(2_500);
    await at('2026-11-20T08:00:00Z');
    expect(limiter.limitNow('main').limit).toBe(2_500);
    // A lowering is in force one window early (see docs/rules.md#r15): an order sent under 2,500 reaches OKX's
    // windows under 1,750 only if it is still unanswered at 07:59:58.
    await at('2026-11-21T07:59:57.999Z');
    expect(limiter.limitNow('main').limit).toBe(2_500);
    await at('2026-11-21T07:59:58Z');
    expect(limiter.limitNow('main')).toMatchObject({ limit: 1_750, tier: { tier: 4 } });
    await at('2026-11-21T08:00:00Z');
    expect(limiter.limitNow('main')).toMatchObject({ limit: 1_750, tier: { tier: 4 } });
    limiter.close();
  });

  it("keeps OKX's report to 08:00 of the next day, then its forecast (O9): lowered one window early, not before", async () => {
    const { clock, limiter } = setup();
    const at = (iso: string) => clock.advanceTo(Date.parse(iso) - T0);
    const ts = String(Date.parse('2026-11-19T08:00:00Z'));
    const report = (next: string) => ({
      code: '0',
      msg: '',
      data: [{ accRateLimit: '2500', fillRatio: '12', mainFillRatio: '12', nextAccRateLimit: next, ts }],
    });
    limiter.reportRateLimit('main', report('1750'));
    expect(limiter.limitNow('main')).toMatchObject({ limit: 2_500, source: 'exchange' });
    // Not dropped at the 00:00 snapshot: OKX's figures change at 08:00.
    await at('2026-11-20T00:00:00Z');
    expect(limiter.limitNow('main').limit).toBe(2_500);
    await at('2026-11-20T07:59:57.999Z');
    expect(limiter.limitNow('main').limit).toBe(2_500);
    await at('2026-11-20T07:59:58Z');
    expect(limiter.limitNow('main')).toMatchObject({ limit: 1_750, source: 'exchange', forecast: null });
    await at('2026-11-20T08:00:00Z');
    expect(limiter.limitNow('main')).toMatchObject({ limit: 1_750, source: 'exchange', forecast: null });
    // A forecast above the report is the next snapshot's to decide: not taken.
    const other = setup();
    other.limiter.reportRateLimit('main', report('3000'));
    await other.clock.advanceTo(Date.parse('2026-11-20T08:00:00Z') - T0);
    expect(other.limiter.limitNow('main').limit).toBe(1_000);
    other.limiter.close();
    limiter.close();
  });

  it('draws a WebSocket order operation (O11) on the limits of its REST twin', async () => {
    const { clock, limiter, send } = setup();
    const single = limiter.requestWebSocket('main', 'order', () => clock.now(), { params: [order('ETH-USDT-SWAP')] });
    const ws = Array.from({ length: 150 }, () =>
      limiter.requestWebSocket('main', 'batch-orders', () => clock.now(), {
        params: [order('BTC-USDT-SWAP'), order('BTC-USDT-SWAP')],
      }),
    );
    const rest = send('/api/v5/trade/batch-orders', [order('BTC-USDT-SWAP'), order('BTC-USDT-SWAP')]);
    const at = await instants(clock, [single, ...ws, rest]);
    // 300 orders per 2 s in batches on one instrument: 150 batches of 2 over WebSocket, then REST waits.
    expect(at.slice(0, 151).every((t) => t === 0)).toBe(true);
    expect(at[151]).toBe(2_000);
    expect(() => limiter.requestWebSocket('main', 'futures.order_place', () => 1)).toThrow(/the operation/);
    limiter.close();
  });
});
