import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AccountLimiter } from '../../src/account/limiter.js';
import { InvalidInputError, NoReplyError } from '../../src/errors.js';
import type { RunningModelExchange } from '../../src/model-exchange/index.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { limitedWebSocket, type WebSocketLike } from '../../src/websocket/index.js';
import { call, model } from '../model-exchange/helpers.js';

const START = '2026-11-21T10:00:00Z';
const order = { contract: 'BTC_USDT', size: 1, price: '60000' };

let exchange: RunningModelExchange | undefined;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  await exchange?.close();
  exchange = undefined;
});

/** The model on a virtual clock, a limiter on the same clock, and a logged-in futures connection wrapped. */
async function setup(options: { websocketBudget?: 'shared' | 'separate' } = {}) {
  const { ex, clock } = await model(START, options);
  exchange = ex;
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, ...options });
  const socket = new WebSocket(`${ex.wsUrl}/v4/ws/usdt`);
  sockets.push(socket);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const api = limitedWebSocket(limiter, { account: 'main', socket });
  const login = await api.request('futures.login', undefined, { payload: { api_key: 'main-key' } });
  expect(login.header['status']).toBe('200');
  const accepted = (key: string) =>
    ex
      .stats()
      .accounts.find((a) => a.account === 'main')!
      .limits.find((l) => l.key === key)?.accepted ?? 0;
  return { ex, clock, limiter, socket, api, accepted };
}

/** Lets replies in flight over the loopback arrive (the virtual clock does not move). */
const settle = (ms = 30) => new Promise((r) => setTimeout(r, ms));

describe('limitedWebSocket', () => {
  it('sends order channels through their limits, counted as their REST twins, and passes login and other channels at once', async () => {
    const { limiter, api, accepted } = await setup();
    const replies = await Promise.all([
      api.request('futures.order_place', order),
      api.request('futures.order_batch_place', [order, order, order]),
      api.request('futures.order_cancel', { order_id: '1' }),
    ]);
    expect(replies.map((r) => r.header['status'])).toEqual(['200', '200', '200']);
    expect(replies.map((r) => r.header['channel'])).toEqual([
      'futures.order_place',
      'futures.order_batch_place',
      'futures.order_cancel',
    ]);
    // One placement and a batch of three, one per order (see docs/rules.md#r1), and a cancel; the model counts requests.
    expect(limiter.abuseHeadroom('main').requests).toBe(5);
    expect([accepted('futures.place'), accepted('ws.futures.orders'), accepted('futures.cancel')]).toEqual([2, 3, 1]);
    const used = (name: string) => limiter.scheduler.stats().limits.find((l) => l.name === name)?.used;
    // Four placements on the tier limit, five orders on the WebSocket limit. The batch's answer
    // says 5 counted of 100 (Limit less Remain: the WebSocket limit's count, the cancel sent before
    // it included), and both limits the batch drew on have N 100 (tier 1 and the WebSocket's):
    // each takes the exchange's count, the stricter reading (see docs/rules.md#r17).
    expect(replies[1]!.header['x_gate_ratelimit_limit']).toBe(100);
    expect(replies[1]!.header['x_gate_ratelimit_requests_remain']).toBe(95);
    expect([used('main:futures.place'), used('main:ws.futures.orders'), used('main:futures.cancel')]).toEqual([
      5, 5, 1,
    ]);
    limiter.close();
  });

  it('pauses placement on a 312 (the tier, a fill-ratio limit) until the reset the reply gives in ms, while cancels go on', async () => {
    const { ex, clock, limiter, api } = await setup();
    // The exchange's tier-1 100 per second spent over REST, behind the limiter's back.
    const rest = await Promise.all(
      Array.from({ length: 100 }, () => call(ex, 'POST', '/api/v4/futures/usdt/orders', 'main-key', order)),
    );
    expect(rest.every((r) => r.status === 200)).toBe(true);
    const refused = await api.request('futures.order_place', order);
    expect(refused.header['status']).toBe('312');
    expect(refused.data?.errs?.label).toBe('TOO_MANY_REQUESTS');
    const reset = Number(refused.header['x_gat_ratelimit_reset_timestamp']);
    expect(reset).toBeGreaterThan(clock.wall());
    let placed = false;
    const next = api.request('futures.order_place', order).then((r) => ((placed = true), r));
    const cancel = await api.request('futures.order_cancel', { order_id: '1' });
    expect(cancel.header['status']).toBe('200');
    await settle();
    expect(placed).toBe(false);
    await clock.advance(reset - clock.wall());
    expect((await next).header['status']).toBe('200');
    limiter.close();
  }, 60_000);

  it('takes the gateway times of every reply as clock samples (see docs/rules.md#r15)', async () => {
    const { limiter, api } = await setup();
    await api.request('futures.order_place', order);
    expect(limiter.clockEstimate()).not.toBeNull();
    limiter.close();
  });

  it('on a separate budget (see docs/rules.md#r16) places on the tier and cancels on the WebSocket 100 per second', async () => {
    const { limiter, api, accepted } = await setup({ websocketBudget: 'separate' });
    await Promise.all([
      api.request('futures.order_place', order),
      api.request('futures.order_cancel', { order_id: '1' }),
    ]);
    expect([accepted('ws.futures.place'), accepted('futures.place'), accepted('ws.futures.orders')]).toEqual([1, 0, 1]);
    limiter.close();
  });

  it('sends the deadline of a placement as x-gate-exptime in req_header, in Unix milliseconds', async () => {
    const clock = new VirtualClock({ start: 0, wallStart: Date.parse(START) });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    const { socket, sent, reply } = fakeSocket();
    const api = limitedWebSocket(limiter, { account: 'main', socket });
    const placed = api.request('futures.order_place', order, { deadline: 250, reqId: 'a' });
    const cancelled = api.request('futures.order_cancel', { order_id: '1' }, { deadline: 250, reqId: 'b' });
    await settle(1);
    expect(sent.map((m) => m.payload.req_header)).toEqual([
      { 'x-gate-exptime': String(Date.parse(START) + 250) },
      undefined,
    ]);
    expect(sent[0]).toMatchObject({
      channel: 'futures.order_place',
      event: 'api',
      payload: { req_id: 'a', req_param: order },
    });
    reply({ request_id: 'a', ack: true, header: {} });
    reply({ request_id: 'b', ack: false, header: { status: '200' } });
    reply({ request_id: 'a', ack: false, header: { status: '200' }, data: { result: { id: 9 } } });
    expect((await placed).data?.result).toEqual({ id: 9 });
    expect((await cancelled).header).toEqual({ status: '200' });
    limiter.close();
  });

  it('rejects a sent request with a NoReplyError when the connection closes or no reply comes in time; it was counted', async () => {
    const clock = new VirtualClock({ start: 0, wallStart: Date.parse(START) });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    const { socket, close } = fakeSocket();
    const api = limitedWebSocket(limiter, { account: 'main', socket, timeoutMs: 1_000 });
    const late = api.request('futures.order_place', order);
    const outcome = late.catch((e: unknown) => e);
    await settle(1);
    await clock.advance(1_000);
    expect(await outcome).toBeInstanceOf(NoReplyError);
    const cut = api.request('futures.order_place', order).catch((e: unknown) => e);
    await settle(1);
    close();
    expect(await cut).toMatchObject({ code: 'NO_REPLY', message: expect.stringContaining('connection closed') });
    expect(limiter.abuseHeadroom('main').requests).toBe(2);
    limiter.close();
  });

  it('refuses bad input naming it, before anything is sent', async () => {
    const clock = new VirtualClock({ start: 0, wallStart: Date.parse(START) });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
    const { socket, sent } = fakeSocket();
    expect(() => limitedWebSocket(limiter, { account: 'nobody', socket })).toThrow(InvalidInputError);
    expect(() => limitedWebSocket(limiter, { account: 'main', socket: {} as WebSocketLike })).toThrow(/`socket`/);
    expect(() => limitedWebSocket(limiter, { account: 'main', socket, settle: 'eur' })).toThrow(/`settle`/);
    expect(() => limitedWebSocket(limiter, { account: 'main', socket, timeoutMs: 0 })).toThrow(/`timeoutMs`/);
    const api = limitedWebSocket(limiter, { account: 'main', socket });
    expect(() => api.request('futures.order_place', order, { priority: 'high' as unknown as number })).toThrow(
      /`priority`/,
    );
    api.close();
    expect(() => api.request('futures.order_place', order)).toThrow(/closed/);
    await settle(1);
    expect(sent).toEqual([]);
    limiter.close();
  });
});

/** A connection that records what it is sent; `reply` delivers a message to the wrapper. */
function fakeSocket() {
  const listeners = {
    message: new Set<(e: { data: unknown }) => void>(),
    close: new Set<(e: { data: unknown }) => void>(),
  };
  const sent: {
    channel: string;
    event: string;
    payload: { req_id: string; req_param?: unknown; req_header?: unknown };
  }[] = [];
  const socket: WebSocketLike = {
    send: (data) => void sent.push(JSON.parse(data) as (typeof sent)[number]),
    addEventListener: (type: 'message' | 'close', l: (e: { data: unknown }) => void) => void listeners[type].add(l),
    removeEventListener: (type: 'message' | 'close', l: (e: { data: unknown }) => void) =>
      void listeners[type].delete(l),
  };
  return {
    socket,
    sent,
    reply: (message: unknown) => {
      for (const l of listeners.message) l({ data: JSON.stringify(message) });
    },
    close: () => {
      for (const l of listeners.close) l({ data: undefined });
    },
  };
}

describe('limitedWebSocket learns from the exchange', () => {
  // Ratio 10 the day before: tier 5 (300 per second) at the exchange; its own budget over WebSocket (see docs/rules.md#r16 `separate`).
  const tier5 = {
    activity: [
      {
        account: 'main',
        day: '2026-11-20',
        contracts: [{ contract: 'BTC_USDT', makerVolume: '1000000', place: 100_000 }],
      },
    ],
  };

  async function connected(
    options: { fills?: { maker: number; taker: number }; multipliers?: Record<string, string> } = {},
  ) {
    const { ex, clock } = await model(START, {
      websocketBudget: 'separate',
      history: tier5,
      ...(options.fills === undefined ? {} : { fills: options.fills }),
    });
    exchange = ex;
    const limiter = new AccountLimiter({
      accounts: [{ id: 'main', role: 'main' }],
      clock,
      websocketBudget: 'separate',
    });
    const socket = new WebSocket(`${ex.wsUrl}/v4/ws/usdt`);
    sockets.push(socket);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const api = limitedWebSocket(limiter, {
      account: 'main',
      socket,
      ...(options.multipliers === undefined ? {} : { multipliers: options.multipliers }),
    });
    await api.request('futures.login', undefined, { payload: { api_key: 'main-key' } });
    return { ex, clock, limiter, socket, api };
  }

  it('sends the first placement alone, and the rest at the limit its reply states: 300 at once at tier 5, none refused', async () => {
    const { ex, clock, limiter, api } = await connected();
    expect(limiter.limitNow('main').limit).toBe(100);
    const placing = Array.from({ length: 301 }, () => api.request('futures.order_place', order));
    const replies = await Promise.all(placing.slice(0, 300));
    expect(replies.every((r) => r.header['status'] === '200')).toBe(true);
    expect(limiter.limitNow('main')).toMatchObject({ limit: 300, source: 'exchange' });
    await clock.advance(1_000);
    await Promise.all(placing);
    expect(ex.stats().accounts[0]!.refused).toEqual({});
    api.close();
    limiter.close();
  });

  it('records the fills the futures.usertrades channel pushes, once each, at the multipliers given', async () => {
    const { limiter, socket, api } = await connected({
      fills: { maker: 0, taker: 1 },
      multipliers: { BTC_USDT: '0.0001' },
    });
    socket.send(
      JSON.stringify({ time: 0, channel: 'futures.usertrades', event: 'subscribe', payload: ['main', '!all'] }),
    );
    await api.request('futures.order_place', { contract: 'BTC_USDT', size: -3, price: '60000' });
    await api.request('futures.order_place', { contract: 'BTC_USDT', size: 2, price: '60000' });
    await settle();
    expect(limiter.abuseHeadroom('main').traded).toBe('30');
    api.close();
    limiter.close();
  });
});
