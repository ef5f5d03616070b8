import { createHmac } from 'node:crypto';
import { ApiError } from '../api-error.js';
import { sameBase64 } from '../auth.js';
import type { Account } from '../core.js';
import { micros } from '../http.js';
import { okxError, perOrder } from './answers.js';
import { OKX_BATCH_MOST, ORDER_ROUTES, type OkxVenue } from './venue.js';

// OKX's private WebSocket (see docs/okx.md#o11): `login`, then the order operations, each the REST endpoint it
// stands for (the same limits, O4 and O5, and the same rows per order).

type Json = Record<string, unknown>;

/** A WebSocket connection as OKX's operations read it: the account it logged in as. */
export interface OkxConnection {
  account: Account | null;
  readonly id: string;
}

/** The order operations and the REST path each stands for. */
export const OKX_WS_OPERATIONS: ReadonlyMap<string, string> = new Map([
  ['order', '/api/v5/trade/order'],
  ['batch-orders', '/api/v5/trade/batch-orders'],
  ['amend-order', '/api/v5/trade/amend-order'],
  ['batch-amend-orders', '/api/v5/trade/amend-batch-orders'],
  ['cancel-order', '/api/v5/trade/cancel-order'],
  ['batch-cancel-orders', '/api/v5/trade/cancel-batch-orders'],
]);

/** OKX's login codes (WebSocket). */
const LOGIN_CODES = {
  badRequest: ['60012', 'Invalid request'],
  key: ['60005', 'Invalid apiKey'],
  passphrase: ['60024', 'Wrong passphrase'],
  timestamp: ['60004', 'Invalid timestamp'],
  expired: ['60006', 'Timestamp request expired'],
  sign: ['60007', 'Invalid sign'],
  notLoggedIn: ['60011', 'Please log in'],
} as const;

/**
 * The signature of OKX's WebSocket login (see docs/okx.md#o10): Base64 HMAC-SHA256 with the secret over the
 * timestamp (Unix seconds), `GET` and `/users/self/verify`.
 */
export function signOkxLogin(secret: string, timestamp: string): string {
  return createHmac('sha256', secret).update(`${timestamp}GET/users/self/verify`).digest('base64');
}

/** Answers one message of a private connection: `ping`, `login` or an order operation. */
export function okxMessage(v: OkxVenue, conn: OkxConnection, text: string, inAt: number): string {
  if (text === 'ping') return 'pong';
  let msg: { id?: unknown; op?: unknown; args?: unknown };
  try {
    msg = JSON.parse(text) as typeof msg;
  } catch {
    return event(conn, LOGIN_CODES.badRequest, `the message is not JSON: ${text.slice(0, 100)}`);
  }
  if (typeof msg !== 'object' || msg === null) return event(conn, LOGIN_CODES.badRequest, 'a message is an object');
  if (msg.op === 'login') return login(v, conn, msg.args);
  const path = typeof msg.op === 'string' ? OKX_WS_OPERATIONS.get(msg.op) : undefined;
  if (path === undefined)
    return event(
      conn,
      LOGIN_CODES.badRequest,
      `op ${JSON.stringify(msg.op)}: login, ${[...OKX_WS_OPERATIONS.keys()].join(', ')}`,
    );
  const id = typeof msg.id === 'string' ? msg.id : '';
  const head = { id, op: msg.op };
  try {
    if (conn.account === null) {
      const [code, m] = LOGIN_CODES.notLoggedIn;
      throw new ApiError(401, code, m);
    }
    const route = ORDER_ROUTES.get(path)!;
    const args = msg.args;
    if (!Array.isArray(args) || args.length === 0 || args.length > (route.batch ? OKX_BATCH_MOST : 1))
      throw okxError(400, '51000', `args: an array of ${route.batch ? `1 to ${OKX_BATCH_MOST} orders` : 'one order'}`);
    const body = route.batch ? args : args[0];
    const groups = v.classify('POST', path, body);
    const rows = v.orderRows(conn.account, route.action, args, groups, inAt);
    return JSON.stringify({ ...head, ...perOrder(rows), inTime: micros(inAt), outTime: micros(v.model.now()) });
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    v.model.noteRefusal(conn.account, e.label!);
    return JSON.stringify({
      ...head,
      code: e.label,
      msg: e.message,
      data: [],
      inTime: micros(inAt),
      outTime: micros(v.model.now()),
    });
  }
}

function login(v: OkxVenue, conn: OkxConnection, args: unknown): string {
  const a = (Array.isArray(args) && typeof args[0] === 'object' && args[0] !== null ? args[0] : {}) as Json;
  const k = typeof a.apiKey === 'string' ? v.model.keyOf(a.apiKey) : undefined;
  if (k === undefined) return event(conn, LOGIN_CODES.key, JSON.stringify(a.apiKey));
  const fail = (code: readonly [string, string], detail?: string) => {
    v.model.noteRefusal(k.account, code[0]);
    return event(conn, code, detail);
  };
  if (k.passphrase !== undefined && a.passphrase !== k.passphrase) return fail(LOGIN_CODES.passphrase);
  const ts = typeof a.timestamp === 'string' && /^\d+(\.\d+)?$/.test(a.timestamp) ? Number(a.timestamp) : Number.NaN;
  if (!Number.isFinite(ts)) return fail(LOGIN_CODES.timestamp, `${JSON.stringify(a.timestamp)}: Unix seconds`);
  try {
    v.checkTime(k.account, ts * 1000);
  } catch {
    return fail(LOGIN_CODES.expired);
  }
  if (
    v.model.options.verifySignatures === true &&
    (typeof a.sign !== 'string' || !sameBase64(signOkxLogin(k.secret, a.timestamp as string), a.sign))
  )
    return fail(LOGIN_CODES.sign);
  conn.account = k.account;
  return JSON.stringify({ event: 'login', code: '0', msg: '', connId: conn.id });
}

function event(conn: OkxConnection, [code, msg]: readonly [string, string], detail?: string): string {
  return JSON.stringify({
    event: 'error',
    code,
    msg: detail === undefined ? msg : `${msg}: ${detail}`,
    connId: conn.id,
  });
}
