import { InvalidInputError, NoReplyError } from '../errors.js';
import type { AccountLimiter } from '../account/limiter.js';
import { WEBSOCKET_ORDER_CHANNELS } from '../catalog/channels.js';
import type { HeadersLike } from '../schedule/feedback.js';
import { unrefTimer } from '../schedule/clock.js';
import { type RoundTrip, type SendFailure, replyStatus } from '../account/round-trip.js';
import { type UserTradesMessage, recordTrades } from '../account/trades.js';

/**
 * What the wrapper needs of a connection: the WHATWG `WebSocket` interface, which the platform's
 * `WebSocket` and the `ws` package's both implement. It must be open.
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 * import { type WebSocketLike, limitedWebSocket } from 'traderatio/websocket'
 *
 * // A stand-in connection that answers every request with status 200.
 * const listeners = new Set<(event: { readonly data: unknown }) => void>()
 * const socket: WebSocketLike = {
 *   send(data) {
 *     const { payload } = JSON.parse(data)
 *     const reply = { request_id: payload.req_id, ack: false, header: { status: '200' }, data: { result: { echo: payload.req_param } } }
 *     queueMicrotask(() => { for (const listener of listeners) listener({ data: JSON.stringify(reply) }) })
 *   },
 *   addEventListener(type: string, listener: never) { if (type === 'message') listeners.add(listener) },
 *   removeEventListener(type: string, listener: never) { listeners.delete(listener) },
 * }
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const api = limitedWebSocket(limiter, { account: 'main', socket })
 * const reply = await api.request('futures.order_status', { order_id: '1' }, { contract: 'BTC_USDT' })
 * reply.data?.result // { echo: { order_id: '1' } }
 * api.close()
 * listeners.size // 0
 * limiter.close()
 * ```
 */
export interface WebSocketLike {
  send(data: string): void;
  addEventListener(type: 'message', listener: (event: { readonly data: unknown }) => void): void;
  addEventListener(type: 'close', listener: () => void): void;
  removeEventListener(type: 'message', listener: (event: { readonly data: unknown }) => void): void;
  removeEventListener(type: 'close', listener: () => void): void;
}

/**
 * Options of {@link limitedWebSocket}.
 *
 * @example
 * ```ts
 * import WebSocket from 'ws'
 * import { AccountLimiter } from 'traderatio'
 * import { type LimitedWebSocketOptions, limitedWebSocket } from 'traderatio/websocket'
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0 })
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * // The futures connection of BTC-settled contracts: its URL ends in /btc, and so does `settle`.
 * const socket = new WebSocket(`${exchange.wsUrl}/v4/ws/btc`)
 * await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
 * const options: LimitedWebSocketOptions = { account: 'main', socket, settle: 'btc', timeoutMs: 5_000 }
 * const api = limitedWebSocket(limiter, options)
 * await api.request('futures.login', undefined, { payload: { api_key: 'main-key' } })
 * const reply = await api.request('futures.order_place', { contract: 'BTC_USD', size: 1, price: '60000' })
 * reply.header['status'] // '200'
 * api.close()
 * socket.close()
 * limiter.close()
 * await exchange.close()
 * ```
 */
export interface LimitedWebSocketOptions {
  /** The account the connection is logged in as. */
  readonly account: string;
  /** The open connection to the WebSocket API. */
  readonly socket: WebSocketLike;
  /** The settlement currency of a futures connection (the last part of its URL). @default "usdt" */
  readonly settle?: string;
  /** How long a sent request waits for its reply before it rejects with a {@link NoReplyError}. @default 30000 */
  readonly timeoutMs?: number;
  /**
   * The `quanto_multiplier` of futures contracts, for the fills the `futures.usertrades` channel
   * pushes on this connection (recorded as they come, see docs/rules.md#r1, #r9). Those a REST adapter's answers
   * gave the same limiter are known already.
   */
  readonly multipliers?: Readonly<Record<string, string | number>>;
}

/**
 * Options of one request: those of `AccountLimiter.requestWebSocket`, and more of the payload.
 *
 * @example
 * ```ts
 * import WebSocket from 'ws'
 * import { AccountLimiter } from 'traderatio'
 * import { limitedWebSocket } from 'traderatio/websocket'
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0 })
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const socket = new WebSocket(`${exchange.wsUrl}/v4/ws/usdt`)
 * await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
 * const api = limitedWebSocket(limiter, { account: 'main', socket })
 * // The real exchange also wants `signature` and `timestamp` in the payload of the login.
 * const login = await api.request('futures.login', undefined, { reqId: 'login-1', payload: { api_key: 'main-key' } })
 * login.request_id // 'login-1'
 * // Sent within a second or refused unsent; the exchange gets the deadline too (x-gate-exptime).
 * const placed = await api.request('futures.order_place', { contract: 'BTC_USDT', size: 1, price: '60000' }, {
 *   deadline: limiter.scheduler.clock.now() + 1_000,
 *   priority: 1,
 * })
 * placed.header['status'] // '200'
 * api.close()
 * socket.close()
 * limiter.close()
 * await exchange.close()
 * ```
 */
export interface WebSocketCallOptions {
  /** @default a fresh id of this wrapper */
  readonly reqId?: string;
  /** Fields of `payload` besides `req_id` and `req_param`: `api_key`, `signature`, `timestamp`, `req_header`. */
  readonly payload?: Readonly<Record<string, unknown>>;
  readonly contract?: string;
  readonly priority?: number;
  readonly signal?: AbortSignal;
  /** An instant on the limiter's clock by which the request must have been sent; a placement also expires then at the exchange. */
  readonly deadline?: number;
}

/**
 * A reply of the WebSocket API (`ack: false`), as parsed: `header` holds its status, its gateway
 * times and, on order channels, its rate-limit fields; `data` its result or its errors.
 *
 * @example
 * ```ts
 * import WebSocket from 'ws'
 * import { AccountLimiter } from 'traderatio'
 * import { type WebSocketReply, limitedWebSocket } from 'traderatio/websocket'
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0 })
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const socket = new WebSocket(`${exchange.wsUrl}/v4/ws/usdt`)
 * await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
 * const api = limitedWebSocket(limiter, { account: 'main', socket })
 * await api.request('futures.login', undefined, { payload: { api_key: 'main-key' } })
 * const reply: WebSocketReply = await api.request('futures.order_place', { contract: 'BTC_USDT', size: 1, price: '60000' }, { reqId: 'place-1' })
 * reply.request_id // 'place-1'
 * reply.header['status'] // '200'
 * reply.header['x_gate_ratelimit_limit'] // 100
 * reply.header['x_gate_ratelimit_requests_remain'] // 99
 * const order = reply.data?.result as { contract: string; size: number; status: string }
 * ;[order.contract, order.size, order.status] // ['BTC_USDT', 1, 'open']
 * api.close()
 * socket.close()
 * limiter.close()
 * await exchange.close()
 * ```
 */
export interface WebSocketReply {
  readonly request_id: string;
  readonly header: Readonly<Record<string, unknown>>;
  readonly data?: { readonly result?: unknown; readonly errs?: { readonly label?: string; readonly message?: string } };
  readonly [field: string]: unknown;
}

/**
 * What {@link limitedWebSocket} returns.
 *
 * @example
 * ```ts
 * import WebSocket from 'ws'
 * import { AccountLimiter } from 'traderatio'
 * import { type LimitedWebSocket, limitedWebSocket } from 'traderatio/websocket'
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0 })
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const socket = new WebSocket(`${exchange.wsUrl}/v4/ws/usdt`)
 * await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
 * const api: LimitedWebSocket = limitedWebSocket(limiter, { account: 'main', socket })
 * // Not logged in: the exchange refuses, and the reply says so.
 * const refused = await api.request('futures.order_place', { contract: 'BTC_USDT', size: 1, price: '60000' })
 * refused.header['status'] === '200' // false
 * api.close()
 * // Closed: no more requests.
 * let error: unknown
 * try { api.request('futures.login') } catch (e) { error = e }
 * (error as Error).name // 'InvalidInputError'
 * socket.close()
 * limiter.close()
 * await exchange.close()
 * ```
 */
export interface LimitedWebSocket {
  /**
   * Sends a request on `channel` with `params` as its `req_param` and resolves with its reply,
   * whatever its status (a refusal too: read `header.status`). Order channels wait on their limits
   * first (see docs/rules.md#r16); others (`futures.login`, ...) are sent at once.
   */
  request(channel: string, params?: unknown, options?: WebSocketCallOptions): Promise<WebSocketReply>;
  /** Stops listening to the connection (which stays open); requests still waiting for a reply reject. */
  close(): void;
}

// Channels whose requests take `req_header` with the deadline in Unix milliseconds (x-gate-exptime).
const EXPIRING = new Set(['futures.order_place', 'futures.order_batch_place', 'spot.order_place']);

let wrappers = 0;

/**
 * Wraps a connection to the exchange's WebSocket API for `account` (see docs/rules.md#r16): each request on an order
 * channel (`futures.order_place`, `futures.order_batch_place`, `futures.order_amend`,
 * `futures.order_cancel`, their batch and spot twins) goes on its round trip (`limiter.roundTrip`):
 * it waits on its limits (REST and WebSocket shared by default) and counts when sent; its reply's
 * rate-limit fields (reset in ms), codes 211/212/311/312 (see docs/rules.md#r12, #r16) and `x_in_time`/`x_out_time`
 * (see docs/rules.md#r13, #r15) go back to the limiter. Replies are matched by `req_id`;
 * an acknowledgement (`ack: true`) is passed over for the reply that follows it.
 *
 * @example
 * ```ts
 * import WebSocket from 'ws'
 * import { AccountLimiter } from 'traderatio'
 * import { limitedWebSocket } from 'traderatio/websocket'
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * // The model exchange on localhost; the real one is wss://fx-ws.gateio.ws/v4/ws/usdt.
 * const exchange = await startModelExchange({ port: 0 })
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const socket = new WebSocket(`${exchange.wsUrl}/v4/ws/usdt`)
 * await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
 * const api = limitedWebSocket(limiter, { account: 'main', socket })
 *
 * // The login is sent at once; orders wait on their limits (see docs/rules.md#r16) and count when sent.
 * const login = await api.request('futures.login', undefined, { payload: { api_key: 'main-key' } })
 * login.header['status'] // '200'
 * const order = { contract: 'BTC_USDT', size: 1, price: '60000' }
 * const placed = await Promise.all([1, 2, 3].map(() => api.request('futures.order_place', order)))
 * placed.map((r) => r.header['status']) // ['200', '200', '200']
 * const { id } = placed[0]!.data!.result as { id: number }
 * const cancelled = await api.request('futures.order_cancel', { order_id: String(id) })
 * cancelled.header['status'] // '200'
 * limiter.abuseHeadroom('main').requests // 4
 * api.close()
 * socket.close()
 * limiter.close()
 * await exchange.close()
 * ```
 */
export function limitedWebSocket(limiter: AccountLimiter, options: LimitedWebSocketOptions): LimitedWebSocket {
  if (typeof (limiter as Partial<AccountLimiter> | null)?.requestWebSocket !== 'function')
    throw new InvalidInputError('the limiter', limiter, 'an AccountLimiter');
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('the options', options, 'an object { account, socket, settle?, timeoutMs? }');
  const { account, socket, settle = 'usdt', timeoutMs = 30_000, multipliers } = options;
  limiter.limitNow(account);
  if (typeof socket?.send !== 'function' || typeof socket.addEventListener !== 'function') {
    throw new InvalidInputError('`socket`', socket, 'a WebSocket (send, addEventListener)');
  }
  limiter.catalog.classifyChannel('futures.order_status', undefined, { settle });
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0))
    throw new InvalidInputError('`timeoutMs`', timeoutMs, 'a positive number of milliseconds');
  const clock = limiter.scheduler.clock;
  const prefix = `tr${(++wrappers).toString(36)}-`;
  let sent = 0;
  let closed = false;

  interface Pending {
    /** The round trip of an order request; none for other channels. */
    readonly trip: RoundTrip | undefined;
    readonly sentAt: number;
    readonly sentMono: number;
    readonly timer: unknown;
    readonly resolve: (reply: WebSocketReply) => void;
    readonly reject: (error: unknown) => void;
  }
  const pending = new Map<string, Pending>();
  // The first placement, sent alone while the tier is not the exchange's; 'done' once answered.
  let probe: Promise<void> | 'done' | null = null;

  const onMessage = (event: { readonly data: unknown }): void => {
    let reply: WebSocketReply;
    try {
      reply = JSON.parse(typeof event.data === 'string' ? event.data : String(event.data)) as WebSocketReply;
    } catch {
      return;
    }
    if (isUserTrades(reply)) {
      // Fills pushed by the user-trades channels count as they come (see docs/rules.md#r1, #r9, #r14), once each.
      try {
        recordTrades(limiter, account, reply, multipliers === undefined ? {} : { multipliers });
      } catch (error) {
        limiter.reportError('fills', error);
      }
      return;
    }
    const p =
      typeof reply === 'object' && reply !== null && reply.ack !== true
        ? pending.get(String(reply.request_id))
        : undefined;
    if (p === undefined) return;
    pending.delete(String(reply.request_id));
    clock.clearTimer(p.timer);
    const header = typeof reply.header === 'object' && reply.header !== null ? reply.header : {};
    try {
      if (p.trip !== undefined) {
        p.trip.answered({ status: replyStatus(header), headers: header as HeadersLike, body: reply });
      } else {
        // Not an order: its gateway times are a sample of the exchange's clock (see docs/rules.md#r15), nothing more.
        limiter.clockSample({
          sentAt: p.sentAt,
          receivedAt: clock.wall(),
          sentMono: p.sentMono,
          receivedMono: clock.now(),
          headers: header as HeadersLike,
        });
      }
    } catch (error) {
      // A reply the limiter cannot take is the caller's to see, not the connection's to throw.
      p.reject(error);
      return;
    }
    p.resolve(reply);
  };
  const fail = (id: string, failure: SendFailure, message: string): void => {
    const p = pending.get(id);
    if (p === undefined) return;
    pending.delete(id);
    clock.clearTimer(p.timer);
    p.trip?.failed(failure);
    p.reject(new NoReplyError(id, message));
  };
  const onClose = (): void => {
    for (const id of [...pending.keys()]) fail(id, 'unreachable', `the connection closed before the reply to ${id}`);
  };
  socket.addEventListener('message', onMessage);
  socket.addEventListener('close', onClose);

  return {
    request(channel, params, call = {}) {
      if (closed) throw new InvalidInputError('the WebSocket wrapper', 'closed', 'open (close() was called)');
      if (typeof call !== 'object' || call === null)
        throw new InvalidInputError(
          'the request options',
          call,
          'an object { reqId, payload, contract, priority, signal, deadline }',
        );
      const { reqId = `${prefix}${++sent}`, payload = {}, deadline, ...limits } = call;
      if (typeof reqId !== 'string' || reqId === '' || pending.has(reqId))
        throw new InvalidInputError('`reqId`', reqId, 'a request id not waiting for a reply');
      const send = (trip?: RoundTrip): Promise<WebSocketReply> =>
        new Promise((resolve, reject) => {
          const header =
            deadline !== undefined && EXPIRING.has(channel)
              ? // The deadline on the exchange's clock, as far as the wall clock tells it.
                {
                  req_header: {
                    'x-gate-exptime': String(Math.floor(clock.wall() + (deadline - clock.now()))),
                    ...(payload['req_header'] as object | undefined),
                  },
                }
              : {};
          const text = JSON.stringify({
            time: Math.floor(clock.wall() / 1000),
            channel,
            event: 'api',
            payload: { req_id: reqId, ...(params === undefined ? {} : { req_param: params }), ...payload, ...header },
          });
          const timer = unrefTimer(
            clock.setTimer(
              () => fail(reqId, 'timeout', `no reply to ${reqId} (${channel}) within ${timeoutMs} ms`),
              timeoutMs,
            ),
          );
          pending.set(reqId, { trip, sentAt: clock.wall(), sentMono: clock.now(), timer, resolve, reject });
          try {
            socket.send(text);
          } catch (error) {
            pending.delete(reqId);
            clock.clearTimer(timer);
            trip?.failed('unreachable');
            reject(error);
          }
        });
      if (!WEBSOCKET_ORDER_CHANNELS.includes(channel)) return send();
      const go = () => limiter.roundTrip(account, { channel, params, settle, ...limits, deadline }).run(send);
      if (probe === 'done' || !drawsOnTier(limiter, channel, params, settle)) return go();
      // Until the exchange has stated its figure for the tier (see docs/rules.md#r16), the first placement goes
      // alone: its reply's x_gate_ratelimit_limit sets the limit the others then go on.
      if (probe === null && limiter.limitNow(account).source !== 'exchange') {
        const first = go();
        probe = first
          .then(
            () => undefined,
            () => undefined,
          )
          .then(() => {
            probe = 'done';
          });
        return first;
      }
      if (probe === null) probe = 'done';
      return probe === 'done' ? go() : probe.then(go);
    },
    close() {
      closed = true;
      socket.removeEventListener('message', onMessage);
      socket.removeEventListener('close', onClose);
      for (const id of [...pending.keys()]) fail(id, 'aborted', `the wrapper was closed before the reply to ${id}`);
    },
  };
}

/** Whether a channel's request draws on the tier's limit (futures placement and amendment, see docs/rules.md#r3). */
function drawsOnTier(limiter: AccountLimiter, channel: string, params: unknown, settle: string): boolean {
  const c = limiter.catalog.classifyChannel(channel, params, { settle, budget: limiter.websocketBudget });
  return c.market === 'futures' && (c.action === 'place' || c.action === 'amend');
}

/** A message of a user-trades channel (`futures.usertrades`, `spot.usertrades`), not a reply. */
function isUserTrades(message: unknown): message is UserTradesMessage {
  const channel = (message as { channel?: unknown } | null)?.channel;
  return (
    (channel === 'futures.usertrades' || channel === 'spot.usertrades') &&
    (message as { request_id?: unknown }).request_id === undefined
  );
}
