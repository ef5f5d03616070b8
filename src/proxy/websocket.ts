import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import type { AccountLimiter } from '../account/limiter.js';
import { WEBSOCKET_ORDER_CHANNELS } from '../catalog/channels.js';
import { isRefusedError } from '../errors.js';
import { type LimitedWebSocket, type WebSocketLike, limitedWebSocket } from '../websocket/limited-websocket.js';
import { LABELS } from './labels.js';

/** Where a WebSocket connection goes, and how its order messages find their account. */
export interface WebSocketProxyOptions {
  /** The origin spot connections (`/ws/v4/`) go to, `ws:` or `wss:`. */
  readonly spot: URL;
  /** The origin futures connections (`/v4/ws/{settle}`) go to, `ws:` or `wss:`. */
  readonly futures: URL;
  /** The limiter and account of a key; null for a key of no account. */
  readonly route: (key: string) => { readonly limiter: AccountLimiter; readonly account: string } | null;
  /** The proxy's own refusals, counted by label. */
  /** An order request the proxy answered itself: its limiter and account (null and `""` for an unknown key), label, channel and the reply's status. */
  readonly refused: (
    limiter: AccountLimiter | null,
    account: string,
    label: string,
    channel: string,
    status: number,
  ) => void;
}

/** Messages one side may send before the other is open, at most. */
const MAX_PAYLOAD = 1 << 20;

/**
 * The WebSocket API through the proxy, on the HTTP server's port: `/ws/v4/` (spot) and
 * `/v4/ws/{settle}` (futures) are relayed both ways unchanged. A request on an order channel
 * (`futures.order_place`, `spot.order_cancel`, ...) waits first on the limits the exchange sets for WebSocket orders (see docs/rules.md#r16) for the
 * account of its key (the connection's login, or the `api_key` of its own payload), through
 * `limitedWebSocket`, which takes its reply's rate-limit fields, codes and gateway times; every
 * other message (logins, subscriptions, pings) passes at once. Returns what closes every
 * connection.
 */
export function attachWebSocketProxy(server: Server, options: WebSocketProxyOptions): { close(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  const open = new Set<WebSocket>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = req.url ?? '/';
    const path = url.split('?')[0]!;
    const origin = path.startsWith('/ws/v4') ? options.spot : path.startsWith('/v4/ws/') ? options.futures : null;
    if (origin === null) {
      refuse(
        socket,
        404,
        'NOT_FOUND',
        `${path}: the WebSocket API is under /ws/v4/ (spot) and /v4/ws/{settle} (futures)`,
      );
      return;
    }
    const upstream = new WebSocket(new URL(url, origin), { maxPayload: MAX_PAYLOAD });
    const failed = (message: string): void => {
      refuse(socket, 502, LABELS.upstreamUnreachable, `the upstream WebSocket API: ${message}`);
      upstream.terminate();
    };
    upstream.once('unexpected-response', (_, res) => failed(`answered ${res.statusCode ?? 'nothing'}`));
    upstream.once('error', (e) => failed(e.message));
    upstream.once('open', () => {
      upstream.removeAllListeners('error');
      upstream.removeAllListeners('unexpected-response');
      wss.handleUpgrade(req, socket, head, (client) => {
        open.add(client);
        open.add(upstream);
        relay(client, upstream, settleOf(path), options);
      });
    });
  });
  return {
    close() {
      for (const ws of open) ws.terminate();
      wss.close();
    },
  };
}

/** The settlement currency of a futures connection: the last part of its path (usdt otherwise). */
function settleOf(path: string): string {
  const last = path
    .split('/')
    .filter((s) => s.length > 0)
    .at(-1)
    ?.toLowerCase();
  return last === 'btc' || last === 'usd' ? last : 'usdt';
}

/** A message of the WebSocket API, as far as the proxy reads it. */
interface ApiMessage {
  readonly channel?: unknown;
  readonly event?: unknown;
  readonly payload?: { readonly req_id?: unknown; readonly req_param?: unknown; readonly api_key?: unknown };
}

/** One connection: messages relayed both ways, order requests through their account's limits. */
function relay(client: WebSocket, upstream: WebSocket, settle: string, options: WebSocketProxyOptions): void {
  // What limitedWebSocket sends goes out as the client wrote it: its own text only names the request.
  const outgoing = new Map<string, WebSocket.RawData>();
  const messageListeners = new Set<(event: { readonly data: unknown }) => void>();
  const closeListeners = new Set<() => void>();
  const adapter: WebSocketLike = {
    send(text: string) {
      const id = String((JSON.parse(text) as { payload: { req_id: unknown } }).payload.req_id);
      const raw = outgoing.get(id);
      outgoing.delete(id);
      if (raw !== undefined) upstream.send(raw, { binary: false });
    },
    addEventListener(type: 'message' | 'close', listener: never) {
      (type === 'message' ? messageListeners : closeListeners).add(listener);
    },
    removeEventListener(type: 'message' | 'close', listener: never) {
      (type === 'message' ? messageListeners : closeListeners).delete(listener);
    },
  } as WebSocketLike;
  const wrappers = new Map<string, LimitedWebSocket>();
  let loginKey: string | null = null;

  const answer = (
    request: { channel: string; reqId: unknown },
    status: number,
    label: string,
    message: string,
  ): void => {
    client.send(
      JSON.stringify({
        request_id: request.reqId,
        ack: false,
        header: { response_time: String(Date.now()), status: String(status), channel: request.channel, event: 'api' },
        data: { errs: { label, message } },
      }),
    );
  };

  upstream.on('message', (data, isBinary) => {
    if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
    if (!isBinary && messageListeners.size > 0) {
      const text = data.toString();
      for (const l of messageListeners) l({ data: text });
    }
  });
  client.on('message', (data, isBinary) => {
    const text = isBinary ? null : data.toString();
    let msg: ApiMessage | null;
    try {
      msg = text === null ? null : (JSON.parse(text) as ApiMessage | null);
    } catch {
      msg = null;
    }
    const channel = typeof msg?.channel === 'string' ? msg.channel : null;
    const payload = typeof msg?.payload === 'object' && msg.payload !== null ? msg.payload : {};
    if (channel?.endsWith('.login') === true && typeof payload.api_key === 'string') loginKey = payload.api_key;
    const key = typeof payload.api_key === 'string' ? payload.api_key : loginKey;
    if (channel === null || msg?.event !== 'api' || !WEBSOCKET_ORDER_CHANNELS.includes(channel) || key === null) {
      // Not an order request, or one of no account (the exchange refuses it): passed as it is.
      upstream.send(data, { binary: isBinary });
      return;
    }
    const request = { channel, reqId: payload.req_id };
    const target = options.route(key);
    if (target === null) {
      answer(request, 401, LABELS.unknownKey, "the api_key names no account of the proxy's accounts file");
      options.refused(null, '', LABELS.unknownKey, channel, 401);
      return;
    }
    const { limiter, account } = target;
    const reqId =
      typeof payload.req_id === 'string' || typeof payload.req_id === 'number' ? String(payload.req_id) : '';
    if (reqId === '' || outgoing.has(reqId)) {
      answer(request, 400, LABELS.invalidRequest, 'an order request needs a req_id not already waiting for its reply');
      options.refused(limiter, account, LABELS.invalidRequest, channel, 400);
      return;
    }
    let wrapper = wrappers.get(account);
    if (wrapper === undefined)
      wrappers.set(account, (wrapper = limitedWebSocket(limiter, { account, socket: adapter, settle })));
    outgoing.set(reqId, data);
    let sent: Promise<unknown>;
    try {
      sent = wrapper.request(channel, payload.req_param, { reqId });
    } catch (e) {
      outgoing.delete(reqId);
      answer(request, 400, LABELS.invalidRequest, e instanceof Error ? e.message : String(e));
      options.refused(limiter, account, LABELS.invalidRequest, channel, 400);
      return;
    }
    sent.catch((e: unknown) => {
      outgoing.delete(reqId);
      // Refused by the limiter, never sent; a request sent whose reply never came is the
      // upstream's to answer (its reply, if any, is relayed as it comes).
      if (!isRefusedError(e) || e.reason === 'aborted') return;
      const label =
        e.reason === 'queue-full' ? LABELS.queueFull : e.reason === 'too-heavy' ? LABELS.tooHeavy : LABELS.closed;
      const status = e.reason === 'too-heavy' ? 400 : 503;
      if (client.readyState === WebSocket.OPEN) answer(request, status, label, `${e.message}; never forwarded`);
      options.refused(limiter, account, label, channel, status);
    });
  });
  const end = (): void => {
    for (const w of wrappers.values()) w.close();
    wrappers.clear();
    for (const l of closeListeners) l();
    outgoing.clear();
    if (client.readyState === WebSocket.OPEN || client.readyState === WebSocket.CONNECTING) client.close();
    if (upstream.readyState === WebSocket.OPEN || upstream.readyState === WebSocket.CONNECTING) upstream.close();
  };
  client.on('close', end);
  upstream.on('close', end);
  client.on('error', () => client.terminate());
  upstream.on('error', () => upstream.terminate());
}

/** An HTTP answer on a socket not upgraded, in the exchange's error shape. */
function refuse(socket: Duplex, status: number, label: string, message: string): void {
  const text = JSON.stringify({ label, message });
  socket.end(
    `HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Bad Gateway'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
