import { describe, expect, it, vi } from 'vitest';
import { startModelExchange } from '../../src/model-exchange/index.js';
import { AccountLimiter } from '../../src/account/limiter.js';
import { InvalidInputError, RefusedError } from '../../src/errors.js';
import { type LimitedRequestInit, limitedFetch } from '../../src/fetch/index.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const T0 = Date.parse('2026-11-21T10:00:00Z');
const HOST = 'https://api.example.test';
const order = JSON.stringify({ contract: 'ETH_USDT', size: 1, price: '3000' });

/** A limiter on a virtual clock and a fetch that answers what `answer` says, recording what it was sent. */
function setup(answer: (url: string) => Response = () => Response.json({ id: 1 })) {
  const clock = new VirtualClock({ start: 0, wallStart: T0 });
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
  const sent: { at: number; url: string; init: RequestInit | undefined; input: unknown }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    sent.push({ at: clock.now(), url, init, input });
    return answer(url);
  };
  // The exchange's own figure is asked for in tests of its own, below.
  return { clock, limiter, sent, fetch: limitedFetch(limiter, { account: 'main', fetch, askRateLimit: false }) };
}

const tooMany = () =>
  new Response('{"label":"TOO_MANY_REQUESTS","message":"slow down"}', {
    status: 429,
    headers: {
      'X-Gate-RateLimit-Limit': '100',
      'X-Gate-RateLimit-Requests-Remain': '0',
      'X-Gate-RateLimit-Reset-Timestamp': String((T0 + 2_000) / 1000),
    },
  });

describe('limitedFetch', () => {
  it('classifies by method and full URL, counts a batch per order when sent, and passes the request on as given', async () => {
    const { limiter, sent, fetch } = setup();
    const init = { method: 'POST', headers: { KEY: 'k' }, body: `[${order},${order},${order}]` };
    const res = await fetch(`${HOST}/api/v4/futures/usdt/batch_orders?settle=usdt`, init);
    expect(await res.json()).toEqual({ id: 1 });
    expect(sent.map((s) => [s.url, s.init])).toEqual([[`${HOST}/api/v4/futures/usdt/batch_orders?settle=usdt`, init]]);
    expect(limiter.abuseHeadroom('main').requests).toBe(3);
    limiter.close();
  });

  it('reads the path from /api/v4/ on, behind a proxy prefix, and a Request with its body', async () => {
    const { limiter, sent, fetch } = setup();
    const request = new Request(`${HOST}/gate/api/v4/futures/usdt/orders`, { method: 'POST', body: order });
    const res = await fetch(request);
    expect(res.status).toBe(200);
    // The body was read from a clone: the request that was sent still has it.
    expect(await (sent[0]!.input as Request).json()).toEqual(JSON.parse(order));
    expect(limiter.abuseHeadroom('main').requests).toBe(1);
    limiter.close();
  });

  it('pauses placements after a 429 until the reset, leaves the 429 body to the caller, and cancels go on', async () => {
    const { clock, limiter, sent, fetch } = setup((url) =>
      url.endsWith('/orders') && answered === 0 ? tooMany() : Response.json({}),
    );
    let answered = 0;
    const refused = await fetch(`${HOST}/api/v4/futures/usdt/orders`, { method: 'POST', body: order });
    answered = 1;
    expect(await refused.json()).toEqual({ label: 'TOO_MANY_REQUESTS', message: 'slow down' });
    const next = fetch(`${HOST}/api/v4/futures/usdt/orders`, { method: 'POST', body: order });
    await fetch(`${HOST}/api/v4/futures/usdt/orders/12`, { method: 'DELETE', contract: 'ETH_USDT' });
    await clock.advance(1_999);
    expect(sent.map((s) => s.at)).toEqual([0, 0]);
    await clock.advance(1);
    await next;
    expect(sent.map((s) => s.at)).toEqual([0, 0, 2_000]);
    limiter.close();
  });

  it('tells the exchange the deadline in Unix milliseconds on a futures order, and only where it is accepted', async () => {
    const { limiter, sent, fetch } = setup();
    await fetch(`${HOST}/api/v4/futures/usdt/orders`, { method: 'POST', body: order, deadline: 250 });
    await fetch(`${HOST}/api/v4/spot/batch_orders`, {
      method: 'POST',
      body: '[{"currency_pair":"ETH_USDT"}]',
      deadline: 40,
      headers: { 'x-gate-exptime': '7' },
    });
    await fetch(`${HOST}/api/v4/futures/usdt/batch_orders`, { method: 'POST', body: `[${order}]`, deadline: 250 });
    const header = (i: number) => new Headers(sent[i]!.init!.headers).get('x-gate-exptime');
    expect([header(0), header(1), header(2)]).toEqual([String(T0 + 250), '7', null]);
    limiter.close();
  });

  it('refuses unsent a request still waiting at its deadline', async () => {
    const clock = new VirtualClock({ start: 0, wallStart: T0 });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    let sends = 0;
    const fetch = limitedFetch(limiter, {
      account: 'main',
      fetch: async () => {
        sends++;
        return tooMany();
      },
      askRateLimit: false,
    });
    await fetch(`${HOST}/api/v4/futures/usdt/orders`, { method: 'POST', body: order });
    const late = fetch(`${HOST}/api/v4/futures/usdt/orders`, { method: 'POST', body: order, deadline: 100 });
    const refusal = expect(late).rejects.toThrow(RefusedError);
    await clock.advance(101);
    await refusal;
    expect(sends).toBe(1);
    limiter.close();
  });

  it.each([
    ['a Uint8Array', (text: string) => new TextEncoder().encode(text)],
    ['an ArrayBuffer', (text: string) => new TextEncoder().encode(text).buffer],
    ['a DataView', (text: string) => new DataView(new TextEncoder().encode(text).buffer)],
    ['a Blob', (text: string) => new Blob([text])],
  ])('reads a body given as %s: the pair of a spot order and the orders of a batch', async (_, encode) => {
    const { limiter, sent, fetch } = setup();
    await fetch(`${HOST}/api/v4/spot/orders`, {
      method: 'POST',
      body: encode('{"currency_pair":"SOL_USDT","amount":"1","price":"100"}'),
    });
    await fetch(`${HOST}/api/v4/futures/usdt/batch_orders`, { method: 'POST', body: encode(`[${order},${order}]`) });
    expect(limiter.scheduler.stats().limits.map((l) => l.name)).toContain('main:spot.place:SOL_USDT');
    expect(limiter.abuseHeadroom('main').requests).toBe(2);
    expect(limiter.spotFillHeadroom('main').requests).toBe(1);
    expect(sent.length).toBe(2);
    limiter.close();
  });

  it('reads a form body (URLSearchParams) for the pair it names', async () => {
    const { limiter, fetch } = setup();
    await fetch(`${HOST}/api/v4/spot/orders`, {
      method: 'POST',
      body: new URLSearchParams({ currency_pair: 'SOL_USDT', amount: '1' }),
    });
    expect(limiter.scheduler.stats().limits.map((l) => l.name)).toContain('main:spot.place:SOL_USDT');
    limiter.close();
  });

  it("draws a spot amend by id on the limit of the pair its query names, with that pair's placements (see docs/rules.md#r10)", async () => {
    const { clock, limiter, sent, fetch } = setup();
    const place = () =>
      fetch(`${HOST}/api/v4/spot/orders`, {
        method: 'POST',
        body: '{"currency_pair":"BTC_USDT","amount":"1","price":"1"}',
      });
    await Promise.all(Array.from({ length: 10 }, place));
    await fetch(`${HOST}/api/v4/spot/orders/13?currency_pair=ETH_USDT`, { method: 'PATCH', body: '{"amount":"2"}' });
    const amend = fetch(`${HOST}/api/v4/spot/orders/12?currency_pair=BTC_USDT`, {
      method: 'PATCH',
      body: '{"amount":"2"}',
    });
    await clock.advance(999);
    expect(sent.length).toBe(11);
    await clock.advance(1);
    await amend;
    expect(sent.map((s) => s.at)).toEqual([...Array.from({ length: 11 }, () => 0), 1_000]);
    expect(sent.at(-1)!.url).toBe(`${HOST}/api/v4/spot/orders/12?currency_pair=BTC_USDT`);
    limiter.close();
  });

  it("passes fetch's own `priority` hint on, and takes the limiter's as `queuePriority`", async () => {
    const { limiter, sent, fetch } = setup();
    // Node's types leave `priority` out of RequestInit; the DOM's have it.
    await fetch(`${HOST}/api/v4/spot/accounts`, { priority: 'high', queuePriority: 3 } as LimitedRequestInit);
    expect(sent[0]!.init).toEqual({ priority: 'high' });
    limiter.close();
  });

  it.each([
    ['a URL outside the API', `${HOST}/status`, { method: 'GET' }, 'Expected `path`'],
    ['a relative URL', '/api/v4/spot/accounts', { method: 'GET' }, 'Expected the URL to be an absolute URL'],
    [
      'a batch whose body is not JSON',
      `${HOST}/api/v4/futures/usdt/batch_orders`,
      { method: 'POST', body: 'orders' },
      'Expected the body of POST /futures/{settle}/batch_orders',
    ],
    [
      'a body given as a stream',
      `${HOST}/api/v4/futures/usdt/orders`,
      { method: 'POST', body: new Blob([order]).stream(), duplex: 'half' as const },
      'Expected `init.body` to be a string, Uint8Array',
    ],
    [
      'a body given as FormData',
      `${HOST}/api/v4/spot/orders`,
      { method: 'POST', body: new FormData() },
      'got "a FormData"',
    ],
  ])('rejects %s with an InvalidInputError and sends nothing', async (_, url, init, message) => {
    const { limiter, sent, fetch } = setup();
    await expect(fetch(url, init)).rejects.toThrow(InvalidInputError);
    await expect(fetch(url, init)).rejects.toThrow(message);
    expect(sent).toEqual([]);
    expect(limiter.abuseHeadroom('main').requests).toBe(0);
    limiter.close();
  });

  it.each([
    ['an unknown account', { account: 'other' }, 'Expected `account`'],
    ['a fetch that is not a function', { account: 'main', fetch: 'fetch' }, 'Expected `fetch`'],
  ])('refuses %s when made', (_, options, message) => {
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] });
    expect(() => limitedFetch(limiter, options as never)).toThrow(message);
    expect(() => limitedFetch({} as never, { account: 'main' })).toThrow(
      'Expected the limiter to be an AccountLimiter',
    );
    limiter.close();
  });
});

describe('limitedFetch learns from the exchange', () => {
  // Ratio 10 the day before 10:00: tier 5, 300 per second, at the exchange (see docs/rules.md#r3, #r5).
  const tier5 = {
    activity: [
      {
        account: 'main',
        day: '2026-11-20',
        contracts: [{ contract: 'BTC_USDT', makerVolume: '1000000', place: 100_000 }],
      },
    ],
  };
  const keyed = (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set('KEY', 'main-key');
    return globalThis.fetch(input, { ...init, headers });
  };

  async function model(options: { history?: unknown; fills?: { maker: number; taker: number } } = {}) {
    const clock = new VirtualClock({ start: 0, wallStart: T0 });
    const exchange = await startModelExchange({
      port: 0,
      clock,
      fills: options.fills ?? { maker: 0, taker: 0 },
      ...(options.history === undefined ? {} : { history: options.history }),
    });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    return { clock, exchange, limiter };
  }

  it('asks GET /account/rate_limit before the first request goes, and places at the tier the exchange reports', async () => {
    const { clock, exchange, limiter } = await model({ history: tier5 });
    const gate = limitedFetch(limiter, { account: 'main', fetch: keyed });
    const place = () =>
      gate(`${exchange.url}/api/v4/futures/usdt/orders`, {
        method: 'POST',
        body: order.replace('ETH_USDT', 'BTC_USDT'),
      });
    const placing = Array.from({ length: 301 }, place);
    await Promise.all(placing.slice(0, 300));
    expect(limiter.limitNow('main')).toMatchObject({ limit: 300, source: 'exchange', reportEndpoint: 'open' });
    await clock.advance(1_000);
    await Promise.all(placing);
    const stats = exchange.stats().accounts[0]!;
    expect(stats.refused).toEqual({});
    expect(stats.limits.find((l) => l.key === 'futures.place')?.accepted).toBe(301);
    limiter.close();
    await exchange.close();
  });

  it("marks the endpoint not open on a 404 and goes on, the placements' headers raising the limit instead", async () => {
    const { exchange, limiter } = await model({ history: tier5 });
    const events: string[] = [];
    limiter.on((e) => events.push(e.type));
    const notOpen = (input: string | URL | Request, init?: RequestInit) =>
      String(input).endsWith('/account/rate_limit')
        ? Promise.resolve(Response.json({ label: 'NOT_FOUND' }, { status: 404 }))
        : keyed(input, init);
    const gate = limitedFetch(limiter, { account: 'main', fetch: notOpen });
    const res = await gate(`${exchange.url}/api/v4/futures/usdt/orders`, {
      method: 'POST',
      body: order.replace('ETH_USDT', 'BTC_USDT'),
    });
    expect(res.status).toBe(200);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 300, source: 'exchange', reportEndpoint: 'not-open' });
    expect(events).toEqual(['report-unavailable', 'assumed-tier', 'limit', 'exchange-limit']);
    limiter.close();
    await exchange.close();
  });

  it('records the fills of my_trades and my_trades_timerange once each, at the multiplier of the contract it asks for', async () => {
    const { exchange, limiter } = await model({ fills: { maker: 1, taker: 0 } });
    const gate = limitedFetch(limiter, { account: 'main', fetch: keyed });
    for (const size of [2, -3])
      await gate(`${exchange.url}/api/v4/futures/usdt/orders`, {
        method: 'POST',
        body: JSON.stringify({ contract: 'BTC_USDT', size, price: '60000' }),
      });
    await gate(`${exchange.url}/api/v4/spot/orders`, {
      method: 'POST',
      body: JSON.stringify({ currency_pair: 'ETH_USDT', side: 'buy', amount: '0.5', price: '3000' }),
    });
    const trades = await (await gate(`${exchange.url}/api/v4/futures/usdt/my_trades_timerange`)).json();
    expect(trades).toHaveLength(2);
    // 5 contracts x 0.0001 x 60000, as maker; none twice.
    expect(limiter.abuseHeadroom('main').traded).toBe('30');
    await gate(`${exchange.url}/api/v4/futures/usdt/my_trades?contract=BTC_USDT`);
    await gate(`${exchange.url}/api/v4/spot/my_trades`);
    expect(limiter.abuseHeadroom('main').traded).toBe('30');
    expect(limiter.spotFillHeadroom('main').traded).toBe('1500');
    limiter.close();
    await exchange.close();
  });

  it('polls the fills of an engine that never asks for them, with `fills: { everyMs }`', async () => {
    const { clock, exchange, limiter } = await model({ fills: { maker: 0, taker: 1 } });
    const gate = limitedFetch(limiter, { account: 'main', fetch: keyed, fills: { everyMs: 5_000 } });
    await gate(`${exchange.url}/api/v4/futures/usdt/orders`, {
      method: 'POST',
      body: JSON.stringify({ contract: 'BTC_USDT', size: 10, price: '60000' }),
    });
    expect(limiter.abuseHeadroom('main').traded).toBe('0');
    await clock.advance(5_000);
    await vi.waitFor(() => expect(limiter.abuseHeadroom('main').traded).toBe('60'));
    expect(() => limitedFetch(limiter, { account: 'main', fills: { everyMs: 0 } })).toThrow(
      'Expected `fills` to be an object { everyMs: a positive number of milliseconds }',
    );
    limiter.close();
    await exchange.close();
  });
});
