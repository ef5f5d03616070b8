import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/index.js';
import { type RunningProxy, startProxy } from '../../src/proxy/server.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { ACCOUNTS } from './helpers.js';

let proxy: RunningProxy | undefined;
let exchange: RunningModelExchange | undefined;
const sockets: WebSocket[] = [];
afterEach(async () => {
  // A connection refused at its upgrade reports an error when terminated: not this test's to see.
  for (const s of sockets) s.on('error', () => {}).terminate();
  sockets.length = 0;
  await proxy?.close();
  await exchange?.close();
  proxy = exchange = undefined;
});

interface Reply {
  request_id: string;
  ack: boolean;
  header: Record<string, unknown>;
  data?: { result?: unknown; errs?: { label: string } };
}

/** A connection to `url`, with the replies it gets by request id. */
async function connect(url: string) {
  const socket = new WebSocket(url);
  sockets.push(socket);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const replies = new Map<string, Reply>();
  const order: string[] = [];
  const waiting = new Map<string, (r: Reply) => void>();
  socket.on('message', (data) => {
    const r = JSON.parse(String(data)) as Reply;
    replies.set(String(r.request_id), r);
    order.push(String(r.request_id));
    waiting.get(String(r.request_id))?.(r);
  });
  let n = 0;
  return {
    replies,
    /** The request ids of the replies, in the order they came. */
    order,
    /** Sends a request; resolves with its reply. */
    send(channel: string, payload: Record<string, unknown>): Promise<Reply> {
      const id = String(payload['req_id'] ?? `r${++n}`);
      const reply = new Promise<Reply>((resolve) => waiting.set(id, resolve));
      socket.send(
        JSON.stringify({
          time: Math.floor(Date.now() / 1000),
          channel,
          event: 'api',
          payload: { req_id: id, ...payload },
        }),
      );
      return reply;
    },
  };
}

describe('the WebSocket API through the proxy', () => {
  it('holds order messages on the limits the exchange sets for WebSocket orders (see docs/rules.md#r16), passes the rest, and relays every reply unchanged', async () => {
    const clock = new VirtualClock({ wallStart: Date.now() });
    exchange = await startModelExchange({ port: 0, clock, accounts: ACCOUNTS, fills: { maker: 0, taker: 0 } });
    proxy = await startProxy({ upstream: exchange.url, accounts: ACCOUNTS, clock });
    const ws = await connect(`${proxy.wsUrl}/v4/ws/usdt`);
    const login = await ws.send('futures.login', { api_key: 'main-key' });
    expect(login.header['status']).toBe('200');
    // Tier 1: futures placements 100 a second over REST and WebSocket together (see docs/rules.md#r16).
    const order = { contract: 'BTC_USDT', size: 1, price: '60000' };
    const placing = Array.from({ length: 110 }, (_, i) =>
      ws.send('futures.order_place', { req_id: `p${i}`, req_param: order }),
    );
    const first = await Promise.all(placing.slice(0, 100));
    expect(first.every((r) => r.header['status'] === '200')).toBe(true);
    // Relayed as the exchange wrote it: its rate-limit fields included.
    expect(first[0]!.header['x_gate_ratelimit_limit']).toBe(100);
    // Over the WebSocket API a cancel shares the 100 a second with placements (see docs/rules.md#r10), and goes first.
    const id = (first[0]!.data!.result as { id: number }).id;
    const cancel = ws.send('futures.order_cancel', { req_id: 'cancel', req_param: { order_id: String(id) } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ws.replies.has('p100') || ws.replies.has('cancel')).toBe(false);
    await clock.advance(1_000);
    expect((await cancel).header['status']).toBe('200');
    const rest = await Promise.all(placing.slice(100));
    expect(ws.order.indexOf('cancel')).toBeLessThan(ws.order.indexOf('p100'));
    expect(rest.every((r) => r.header['status'] === '200')).toBe(true);
    expect(exchange.stats().accounts[0]!.refused).toEqual({});
    expect(proxy.limiters.get('desk')!.abuseHeadroom('main').requests).toBe(111);
    // A channel the limiter does not know goes through as it is, and so does the model's answer.
    const other = await ws.send('futures.ping', {});
    expect(other.data?.errs?.label).toBe('INVALID_ARGUMENT');
  });

  it('answers an order of an unknown key at once, never forwarding it, and refuses paths it does not serve', async () => {
    exchange = await startModelExchange({ port: 0, accounts: ACCOUNTS });
    const lines: string[] = [];
    proxy = await startProxy({ upstream: exchange.url, accounts: ACCOUNTS, log: (l) => lines.push(l) });
    const ws = await connect(`${proxy.wsUrl}/ws/v4/`);
    const refused = await ws.send('spot.order_place', {
      api_key: 'nobody',
      req_param: { currency_pair: 'BTC_USDT', side: 'buy', amount: '1', price: '1' },
    });
    expect([refused.header['status'], refused.data?.errs?.label]).toEqual(['401', 'TRADERATIO_UNKNOWN_KEY']);
    expect(exchange.stats().accounts[0]!.accepted).toBe(0);
    expect(await (await fetch(`${proxy.url}/metrics`)).text()).toContain(
      'traderatio_proxy_answers_total{family="",account="",status="ws",label="TRADERATIO_UNKNOWN_KEY"} 1',
    );
    // Logged as a request of its own, its channel in place of a path, never its key.
    expect(lines).toEqual(['WS spot.order_place 401 by proxy TRADERATIO_UNKNOWN_KEY unknown key waited 0.0 ms']);
    const elsewhere = new WebSocket(`${proxy.wsUrl}/somewhere`);
    sockets.push(elsewhere);
    const status = await new Promise((resolve) =>
      elsewhere.once('unexpected-response', (_, res) => resolve(res.statusCode)).once('open', () => resolve('open')),
    );
    expect(status).toBe(404);
  });
});
