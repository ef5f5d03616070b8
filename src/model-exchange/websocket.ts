import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Classification, EndpointLimit } from '../catalog/catalog.js';
import { type ChannelRequest, WEBSOCKET_ORDER_CHANNELS, channelRequest } from '../catalog/channels.js';
import { ApiError, badRequest } from './api-error.js';
import { signWebSocket } from './auth.js';
import type { Account } from './core.js';
import { micros, traceId } from './http.js';
import type { ModelExchange, RateInForce } from './model.js';
import { okxMessage } from './okx/websocket.js';

/** WebSocket connections one IP may hold (see docs/rules.md#r16). */
export const MAX_CONNECTIONS_PER_IP = 300;

interface Connection {
  account: Account | null;
  readonly settle: string;
  readonly ip: string;
  /** The user-trades channels subscribed to, and the id of the last fill each has pushed. */
  readonly userTrades: Map<'futures' | 'spot', number>;
}

// The channels that push the account's fills, by market.
const USER_TRADES: Readonly<Record<string, 'futures' | 'spot'>> = {
  'futures.usertrades': 'futures',
  'spot.usertrades': 'spot',
};

/**
 * The WebSocket API on the HTTP server's port: `futures.login` / `spot.login`, the user-trades
 * channels (`futures.usertrades`, `spot.usertrades`: subscribed, the account's new fills are
 * pushed as `update`s after each message of the connection), then the order channels, each counted on its WebSocket limit (see docs/rules.md#r10) and, by default, on the REST limit of the
 * same action (see docs/rules.md#r16), answered with the rate-limit fields of WebSocket answers (see docs/rules.md#r16) and error codes (311/312 futures,
 * 211/212 spot: per-endpoint limit / fill-ratio limit). A futures connection's settlement currency
 * is the last part of its path (`/v4/ws/usdt`, `/v4/ws/btc`; usdt otherwise).
 */
export function attachWebSocket(server: Server, model: ModelExchange): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const perIp = new Map<string, number>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const ip = req.socket.remoteAddress ?? '';
    const open = perIp.get(ip) ?? 0;
    if (open >= MAX_CONNECTIONS_PER_IP) {
      const text = JSON.stringify({
        label: 'TOO_MANY_REQUESTS',
        message: `${open} WebSocket connections from ${ip}; at most ${MAX_CONNECTIONS_PER_IP}`,
      });
      socket.end(
        `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      perIp.set(ip, (perIp.get(ip) ?? 0) + 1);
      const last = (req.url ?? '')
        .split('?')[0]!
        .split('/')
        .filter((s) => s.length > 0)
        .at(-1)
        ?.toLowerCase();
      const conn: Connection = {
        account: null,
        settle: last === 'btc' || last === 'usd' ? last : 'usdt',
        ip,
        userTrades: new Map(),
      };
      ws.on('close', () => perIp.set(ip, (perIp.get(ip) ?? 1) - 1));
      const okx = model.okx === null ? null : { account: null, id: traceId() };
      ws.on('message', (data) => {
        const inAt = model.now();
        // OKX's private connection (see docs/okx.md#o11): its login and order operations.
        if (okx !== null && model.okx !== null) {
          ws.send(okxMessage(model.okx, okx, String(data), inAt));
          return;
        }
        ws.send(JSON.stringify(respond(model, conn, String(data), inAt)));
        // Fills made since the last push, on the channels subscribed to: pushed after each message.
        for (const [market, after] of conn.userTrades) {
          const { rows, last: id } = model.trading.tradesAfter(conn.account!, market, after);
          if (rows.length === 0) continue;
          conn.userTrades.set(market, id);
          const channel = `${market}.usertrades`;
          ws.send(
            JSON.stringify({
              time: Math.floor(model.now() / 1000),
              time_ms: Math.floor(model.now()),
              channel,
              event: 'update',
              result: rows,
            }),
          );
        }
      });
      ws.on('error', () => ws.terminate());
    });
  });
  return wss;
}

const combined = new WeakMap<Classification, Map<string, Classification>>();

function respond(model: ModelExchange, conn: Connection, text: string, inAt: number): unknown {
  let channel = '';
  let reqId: unknown = null;
  let rate: Record<string, number> = {};
  // Whom a refusal is counted for: the connection's account, or the one the message names.
  let who: Account | null = conn.account;
  try {
    let msg: {
      channel?: unknown;
      event?: unknown;
      payload?: { req_id?: unknown; req_param?: unknown; api_key?: string; timestamp?: string; signature?: string };
    };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch (e) {
      throw badRequest('INVALID_REQUEST_BODY', `the message is not JSON: ${(e as Error).message}`);
    }
    if (typeof msg !== 'object' || msg === null || typeof msg.channel !== 'string')
      throw badRequest('INVALID_REQUEST_BODY', 'a message is an object { time, channel, event, payload }');
    channel = msg.channel;
    const payload = typeof msg.payload === 'object' && msg.payload !== null ? msg.payload : {};
    reqId = payload.req_id ?? null;
    const params = payload.req_param;
    if (channel === 'futures.login' || channel === 'spot.login') {
      conn.account = model.identify(
        payload.api_key,
        payload.timestamp === undefined ? undefined : String(payload.timestamp),
        payload.signature,
        (secret, ts) => signWebSocket(secret, channel, '', ts),
      );
      return reply(
        model,
        channel,
        reqId,
        inAt,
        '200',
        { data: { result: { api_key: payload.api_key, uid: String(conn.account.id) } } },
        {},
      );
    }
    const market = Object.hasOwn(USER_TRADES, channel) ? USER_TRADES[channel] : undefined;
    if (market !== undefined && (msg.event === 'subscribe' || msg.event === 'unsubscribe')) {
      if (conn.account === null) throw new ApiError(401, 'INVALID_KEY', `${channel} before a login`);
      if (msg.event === 'subscribe') conn.userTrades.set(market, model.trading.lastTradeId(conn.account));
      else conn.userTrades.delete(market);
      return { time: Math.floor(model.now() / 1000), channel, event: msg.event, result: { status: 'success' } };
    }
    // The catalogue's table of order channels, read as the REST request each stands for (see docs/rules.md#r16).
    if (!WEBSOCKET_ORDER_CHANNELS.includes(channel))
      throw new ApiError(
        400,
        'INVALID_ARGUMENT',
        `channel ${JSON.stringify(channel)} is not one of ${WEBSOCKET_ORDER_CHANNELS.join(', ')}, futures.login, spot.login`,
      );
    const account =
      payload.api_key !== undefined
        ? model.identify(
            payload.api_key,
            payload.timestamp === undefined ? undefined : String(payload.timestamp),
            payload.signature,
            (secret, ts) => signWebSocket(secret, channel, params === undefined ? '' : JSON.stringify(params), ts),
          )
        : conn.account;
    if (account === null)
      throw new ApiError(401, 'INVALID_CREDENTIALS', `${channel} before a login (or an api_key in the payload)`);
    who = account;
    const spec = channelRequest(channel, params, conn.settle);
    const { body, id } = spec;
    const query = new URLSearchParams(spec.query);
    const rest = model.classify(spec.method, `/api/v4${spec.path}`, body, query);
    const c = spec.action === 'other' ? rest : budget(model, rest, spec);
    const at = inAt;
    const refused = model.core.admit(account, c, at, model.instrumentOf(account, c, body, query, id));
    if (spec.action === 'place' || spec.action === 'amend') rate = rateFields(model.rateOf(account, c, at, refused));
    if (refused !== null) {
      const code = (spec.market === 'futures' ? 300 : 200) + (refused.fillRatio ? 12 : 11);
      return reply(
        model,
        channel,
        reqId,
        inAt,
        String(code),
        {
          data: {
            errs: {
              label: refused.label,
              message: `too many requests on ${refused.key}: at most ${refused.n} per ${refused.w / 1000} s`,
            },
          },
        },
        rate,
      );
    }
    return reply(
      model,
      channel,
      reqId,
      inAt,
      '200',
      { data: { result: model.execute(account, c, body, query, id, at) } },
      rate,
    );
  } catch (e) {
    // A fault of the model itself is answered too, never let through to stop the process.
    const error = e instanceof ApiError ? e : new ApiError(500, 'INTERNAL', (e as Error)?.message ?? String(e));
    model.noteRefusal(error.account ?? who, error.label!);
    return reply(model, channel, reqId, inAt, String(error.status), { data: { errs: error.body() } }, rate);
  }
}

/** The limits a WebSocket order draws on (see docs/rules.md#r16): its WebSocket limit and, shared by default, the REST one. */
function budget(model: ModelExchange, rest: Classification, spec: ChannelRequest): Classification {
  const mode = model.options.websocketBudget ?? 'shared';
  let byMode = combined.get(rest);
  if (byMode === undefined) combined.set(rest, (byMode = new Map()));
  let c = byMode.get(mode);
  if (c === undefined) {
    // Under `separate` the tier (see docs/rules.md#r3) replaces the WebSocket 100 per second, on a budget of its own.
    const ws: readonly EndpointLimit[] = model.catalog.classifyWebSocket(spec.market, spec.action, mode);
    c = { ...rest, limits: mode === 'shared' ? [...ws, ...rest.limits] : ws };
    byMode.set(mode, c);
  }
  return c;
}

/** The rate-limit fields of a WebSocket answer (see docs/rules.md#r16) from those of the headers (#r12); hidden when 0, the reset in milliseconds. */
function rateFields(rate: RateInForce | null): Record<string, number> {
  const out: Record<string, number> = {};
  if (rate === null) return out;
  if (rate.remain !== 0) out.x_gate_ratelimit_requests_remain = rate.remain;
  if (rate.limit !== 0) out.x_gate_ratelimit_limit = rate.limit;
  if (rate.reset !== 0) out.x_gat_ratelimit_reset_timestamp = rate.reset * 1000;
  return out;
}

function reply(
  model: ModelExchange,
  channel: string,
  reqId: unknown,
  inAt: number,
  status: string,
  data: { data: unknown },
  rate: Record<string, number>,
): unknown {
  const out = model.now();
  return {
    request_id: reqId,
    ack: false,
    header: {
      response_time: String(Math.floor(out)),
      status,
      channel,
      event: 'api',
      trace_id: traceId(),
      x_in_time: Number(micros(inAt)),
      x_out_time: Number(micros(out)),
      ...rate,
    },
    ...data,
  };
}
