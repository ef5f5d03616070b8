// One engine saturates futures placement over the WebSocket API on a tier-4 account (250 per
// second, `separate`, see docs/rules.md#r16: the tier replaces the WebSocket 100 per second) with cancels mixed in,
// against the model exchange, through limitedWebSocket and bare beside it; then across an 08:00
// raise and into an abuse throttle (see docs/rules.md#r9). `npm test` runs it after the rest of the suite, alone.
// What depends on the machine's speed (refusals when a busy machine delays requests by more than
// the margin, the share of the limit used, the cancels' wait) is printed, not asserted;
// test/fetch/controlled-delay.test.ts asserts it where the delay is under the test's control.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AccountLimiter } from '../../src/account/limiter.js';
import { RefusedError } from '../../src/errors.js';
import { startModelExchange, type RunningModelExchange } from '../../src/model-exchange/index.js';
import type { Clock } from '../../src/schedule/clock.js';
import { limitedWebSocket, type WebSocketLike } from '../../src/websocket/index.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const WORKERS = 32;
const CANCEL_EVERY_MS = 20;
// The margin on the arrival window (see docs/rules.md#r13) beside what limiter.arrived learns from the replies' gateway times.
const MARGIN_MS = Number(process.env.TRADERATIO_E2E_MARGIN_MS ?? 5);
const order = { contract: 'BTC_USDT', size: 1, price: '60000' };

let exchange: RunningModelExchange | undefined;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  await exchange?.close();
  exchange = undefined;
});

/** The machine's clock moved so that it reads `at` now. */
function clockAt(at: number): Clock {
  const offset = at - Date.now();
  return {
    now: () => performance.now(),
    wall: () => Date.now() + offset,
    setTimer: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
    clearTimer: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
  };
}

interface Reply {
  readonly header: Readonly<Record<string, unknown>>;
  readonly data?: { readonly result?: unknown } | undefined;
}
type Send = (channel: string, params: unknown, signal?: AbortSignal) => Promise<Reply | null>;

/** A logged-in futures connection; `bare` sends on it as is, matching replies by req_id. */
async function connect(ex: RunningModelExchange) {
  const socket = new WebSocket(`${ex.wsUrl}/v4/ws/usdt`);
  sockets.push(socket);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const waiting = new Map<string, (r: Reply) => void>();
  socket.on('message', (raw) => {
    const m = JSON.parse(String(raw)) as Reply & { request_id: string };
    waiting.get(m.request_id)?.(m);
    waiting.delete(m.request_id);
  });
  let n = 0;
  const bare = (channel: string, params: unknown, more = {}) =>
    new Promise<Reply>((resolve) => {
      const id = `bare-${++n}`;
      waiting.set(id, resolve);
      socket.send(
        JSON.stringify({ time: 0, channel, event: 'api', payload: { req_id: id, req_param: params, ...more } }),
      );
    });
  expect((await bare('futures.login', undefined, { api_key: 'main-key' })).header['status']).toBe('200');
  return { socket, bare: bare as Send };
}

/**
 * Placements from WORKERS loops and a cancel every CANCEL_EVERY_MS, for `ms`: the refusals (311 and
 * 312), the placements accepted per second of the model's clock, and each cancel's wait before it
 * was sent.
 */
async function saturate(send: Send, clock: Clock, ms: number, sentAt: Map<string, number> | null) {
  const end = performance.now() + ms;
  // Requests still waiting on their limits at the end are given up, not sent.
  const stop = new AbortController();
  setTimeout(() => stop.abort(), ms);
  let refused = 0;
  let lastId = 1;
  const acceptedAt: number[] = [];
  const cancelWaits: number[] = [];
  const worker = async () => {
    while (performance.now() < end) {
      const r = await send('futures.order_place', order, stop.signal);
      if (r === null) break;
      const status = r.header['status'];
      if (status === '311' || status === '312') refused++;
      else if (status === '200') {
        acceptedAt.push(Number(r.header['x_in_time']) / 1000);
        lastId = (r.data?.result as { id?: number } | undefined)?.id ?? lastId;
      }
    }
  };
  const canceller = async () => {
    while (performance.now() < end) {
      await new Promise((r) => setTimeout(r, CANCEL_EVERY_MS));
      const asked = performance.now();
      const before = new Set(sentAt?.keys());
      const r = await send('futures.order_cancel', { order_id: String(lastId) }, stop.signal);
      if (r === null) break;
      if (r.header['status'] === '311' || r.header['status'] === '312') refused++;
      const id = [...(sentAt?.keys() ?? [])].find((k) => !before.has(k) && k.startsWith('c'));
      if (id !== undefined) cancelWaits.push(sentAt!.get(id)! - asked);
    }
  };
  const from = clock.wall();
  await Promise.all([...Array.from({ length: WORKERS }, worker), canceller()]);
  cancelWaits.sort((a, b) => a - b);
  return {
    refused,
    acceptedAt,
    from,
    p99: cancelWaits[Math.floor(cancelWaits.length * 0.99)] ?? 0,
    cancels: cancelWaits.length,
  };
}

/** The model on a shifted clock at `at` (separate WebSocket budget), seeded with `history`. */
async function start(at: number, history: { activity: unknown[]; hours?: unknown[] }) {
  const clock = clockAt(at);
  exchange = await startModelExchange({
    port: 0,
    clock,
    history: history as never,
    fills: { maker: 0, taker: 0 },
    websocketBudget: 'separate',
  });
  return { ex: exchange, clock };
}

/** limitedWebSocket on a fresh limiter seeded as the model; each request's send instant kept by req_id. */
async function throughTraderatio(
  ex: RunningModelExchange,
  clock: Clock,
  history: { activity: unknown[]; hours?: unknown[] },
) {
  const limiter = new AccountLimiter({
    accounts: [{ id: 'main', role: 'main' }],
    clock,
    websocketBudget: 'separate',
    marginMs: MARGIN_MS,
  });
  limiter.seed({
    days: history.activity as never,
    ...(history.hours === undefined ? {} : { hours: history.hours as never }),
  });
  const { socket } = await connect(ex);
  const sentAt = new Map<string, number>();
  const timed: WebSocketLike = {
    send: (data) => {
      const id = (JSON.parse(data) as { payload: { req_id: string } }).payload.req_id;
      if (data.includes('order_cancel')) sentAt.set(`c${id}`, performance.now());
      socket.send(data);
    },
    addEventListener: (type: 'message' | 'close', l: (e: { data: unknown }) => void) =>
      socket.addEventListener(type as 'message', l),
    removeEventListener: (type: 'message' | 'close', l: (e: { data: unknown }) => void) =>
      socket.removeEventListener(type as 'message', l),
  };
  const api = limitedWebSocket(limiter, { account: 'main', socket: timed });
  const send: Send = (channel, params, signal) =>
    api.request(channel, params, signal === undefined ? {} : { signal }).catch((e: unknown) => {
      if (e instanceof RefusedError && e.reason === 'aborted') return null;
      throw e;
    });
  return { limiter, send, sentAt };
}

/** The most instants (ms) in any window of `windowMs`. */
function mostInAnyWindow(instants: readonly number[], windowMs: number): number {
  const sorted = [...instants].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

const per = (acceptedAt: readonly number[], from: number, to: number) =>
  acceptedAt.filter((t) => t >= from && t < to).length;
const yesterdayOf = (at: number) => new Date(at - DAY).toISOString().slice(0, 10);

describe('limitedWebSocket against the model exchange', () => {
  it("keeps the model's window within the tier-4 placement limit; the bare connection beside it", async () => {
    const RUN_MS = 5_000;
    const LIMIT = 250;
    const at = Math.floor(Date.now() / DAY) * DAY + 9 * HOUR;
    // Ratio 9 yesterday: tier 4 since 08:00.
    const history = {
      activity: [
        {
          account: 'main',
          day: yesterdayOf(at),
          contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }],
        },
      ],
    };
    let { ex, clock } = await start(at, history);
    const t = await throughTraderatio(ex, clock, history);
    expect(t.limiter.limitNow('main').limit).toBe(LIMIT);
    const through = await saturate(t.send, clock, RUN_MS, t.sentAt);
    t.limiter.close();
    await ex.close();
    ({ ex, clock } = await start(at, history));
    const bare = await saturate((await connect(ex)).bare, clock, RUN_MS, null);
    const used = (r: typeof through) => r.acceptedAt.length / ((LIMIT * RUN_MS) / 1000);
    console.log(
      `WebSocket through traderatio: ${through.refused} refused (311/312), ${through.acceptedAt.length} placements accepted, ${(used(through) * 100).toFixed(1)}% of ${LIMIT}/s over ${RUN_MS} ms; p99 cancel wait ${through.p99.toFixed(2)} ms over ${through.cancels} cancels`,
    );
    console.log(
      `WebSocket bare: ${bare.refused} refused (311/312), ${bare.acceptedAt.length} placements accepted, ${(used(bare) * 100).toFixed(1)}%`,
    );
    expect(through.acceptedAt.length).toBeGreaterThan(0);
    expect(mostInAnyWindow(through.acceptedAt, 1000)).toBeLessThanOrEqual(LIMIT);
    expect(mostInAnyWindow(bare.acceptedAt, 1000)).toBeLessThanOrEqual(LIMIT);
  }, 60_000);

  it('follows the 08:00 raise from tier 1 to tier 4 during a run', async () => {
    const at = Math.floor(Date.now() / DAY) * DAY + 8 * HOUR - 3_000;
    // Only yesterday's activity: the snapshot of 00:00 today gives tier 4, in force from 08:00.
    const history = {
      activity: [
        {
          account: 'main',
          day: yesterdayOf(at),
          contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }],
        },
      ],
    };
    const { ex, clock } = await start(at, history);
    const t = await throughTraderatio(ex, clock, history);
    expect(t.limiter.limitNow('main').limit).toBe(100);
    const run = await saturate(t.send, clock, 6_000, t.sentAt);
    const raised = t.limiter.limitNow('main').limit;
    t.limiter.close();
    const raise = Math.floor(Date.now() / DAY) * DAY + 8 * HOUR;
    const before = per(run.acceptedAt, raise - 2_000, raise);
    const after = per(run.acceptedAt, raise + 1_000, raise + 3_000);
    console.log(
      `08:00 raise: ${run.refused} refused; ${before} placements in the 2 s before, ${after} in 2 s from 08:00:01`,
    );
    expect(raised).toBe(250);
    expect(before).toBeLessThanOrEqual(200);
    expect(mostInAnyWindow(run.acceptedAt, 1000)).toBeLessThanOrEqual(250);
  }, 60_000);

  it('follows an abuse throttle starting at the whole hour during a run', async () => {
    const at = Math.floor(Date.now() / DAY) * DAY + 10 * HOUR - 3_000;
    // 90,000 requests and nothing traded this hour: the check at 10:00 starts the no-fill throttle (10 per 10 s, see docs/rules.md#r9).
    const hours = [{ account: 'main', hour: new Date(at).toISOString(), requests: 90_000, traded: '0' }];
    const history = {
      activity: [
        {
          account: 'main',
          day: yesterdayOf(at),
          contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }],
        },
      ],
      hours,
    };
    const { ex, clock } = await start(at, history);
    const t = await throughTraderatio(ex, clock, history);
    const run = await saturate(t.send, clock, 6_000, t.sentAt);
    const throttled = t.limiter.limitNow('main').throttle;
    t.limiter.close();
    const hour = Math.floor(Date.now() / DAY) * DAY + 10 * HOUR;
    const after = per(run.acceptedAt, hour, hour + 3_000);
    console.log(
      `abuse throttle at 10:00: ${run.refused} refused; ${per(run.acceptedAt, hour - 2_000, hour)} placements in the 2 s before, ${after} in 3 s after`,
    );
    expect(throttled).toMatchObject({ reason: 'no-fills', limit: 10 });
    expect(after).toBeLessThanOrEqual(10);
  }, 60_000);
});
