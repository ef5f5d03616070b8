import { randomBytes } from 'node:crypto';
import { type IncomingMessage, STATUS_CODES, type Server, type ServerResponse, createServer } from 'node:http';
import type { Socket } from 'node:net';
import type { ModelExchange, RateInForce } from './model.js';
import { FuturesOrderJson } from './order-json.js';

/** Limits of the HTTP layer. */
export interface HttpLimits {
  /** The largest request body read, in bytes; a larger one gets 413 and the connection is closed. */
  readonly bodyLimitBytes: number;
  /** Time a client has to send a whole request (headers and body), in milliseconds; past it, 408. */
  readonly slowClientMs: number;
}

/** Microseconds on the model's clock (X-In-Time and X-Out-Time, see docs/rules.md#r15): `String(Math.floor(ms * 1000))`. */
export function micros(ms: number): string {
  const us = Math.floor(ms * 1000);
  // Past 2^31 a number is not one of V8's small integers, and `String` of it runs the general
  // double-to-text algorithm, twice per answer: written instead as its seconds (small integers
  // until 2038; their text kept while the second lasts) and six digits.
  if (!(us >= 1_000_000 && us < 2 ** 52)) return String(us);
  let s = Math.floor(us / 1_000_000);
  let f = us - s * 1_000_000;
  // The division rounds: the remainder puts a second off by one right.
  if (f < 0) {
    s--;
    f += 1_000_000;
  } else if (f >= 1_000_000) {
    s++;
    f -= 1_000_000;
  }
  if (s !== microsSecond) {
    microsSecond = s;
    microsSecondText = String(s);
  }
  return microsSecondText + String(f + 1_000_000).slice(1);
}

let microsSecond = -1;
let microsSecondText = '';

const TRACE_PREFIX = randomBytes(6).toString('hex');
let traces = 0;

/** A trace id for X-Service-Trace-ID: unique within the run. */
export const traceId = (): string => `${TRACE_PREFIX}${(++traces).toString(16).padStart(8, '0')}`;

function errorText(label: string, message: string): string {
  return JSON.stringify({ label, message });
}

/**
 * The HTTP server in front of the model (node:http): keep-alive, JSON in and out, every response
 * with the rate-limit headers (see docs/rules.md#r12) where a limit applies, X-In-Time and X-Out-Time (see docs/rules.md#r15) and
 * X-Service-Trace-ID. A body over the cap is read to its end and discarded, then answered 413
 * and the connection closed (closed while the upload still arrives, the client would see a reset
 * instead of the answer); a request slower than `slowClientMs` gets 408; bytes that cannot be read
 * as HTTP get 400 once the requests read before them are answered. Each in the exchange's error
 * shape; every other client is served meanwhile.
 */
export function createHttpServer(model: ModelExchange, limits: HttpLimits, admin: AdminHandler): Server {
  /** Per connection, its requests read and not yet answered: a 400 for what follows them waits for their answers. */
  const pending = new WeakMap<Socket, Map<IncomingMessage, ServerResponse>>();
  const closing = new WeakSet<Socket>();
  const server = createServer(
    {
      keepAlive: true,
      // The exchange answers a request without Host as any other.
      requireHostHeader: false,
      requestTimeout: limits.slowClientMs,
      headersTimeout: limits.slowClientMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.slowClientMs / 4))),
    },
    (req, res) => {
      let open = pending.get(req.socket);
      if (open === undefined) pending.set(req.socket, (open = new Map()));
      open.set(req, res);
      // 'close' comes once: no once-wrapper needed.
      res.on('close', () => open.delete(req));
      const declared = Number(req.headers['content-length'] ?? 0);
      const chunks: Buffer[] = [];
      let size = 0;
      let refused = declared > limits.bodyLimitBytes;
      req.on('data', (chunk: Buffer) => {
        if (refused) return;
        size += chunk.length;
        if (size > limits.bodyLimitBytes) {
          refused = true;
          chunks.length = 0;
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => {
        // The request reaches the exchange once read whole: it counts from then, in the order the
        // requests are read (see docs/rules.md#r13), and X-In-Time says that instant. Taken when its head
        // came instead, a request whose body came after another's whole request would be counted
        // after it while saying it came first.
        const inAt = model.now();
        if (refused) {
          tooLarge(model, res, inAt, limits.bodyLimitBytes);
          return;
        }
        const body =
          chunks.length === 0
            ? ''
            : chunks.length === 1
              ? chunks[0]!.toString('utf8')
              : Buffer.concat(chunks).toString('utf8');
        answer(model, req, res, inAt, body, admin);
      });
    },
  );
  // An Expect other than 100-continue: node's own answer would be an empty 417.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const text = errorText(
      'BAD_REQUEST',
      `Expect ${JSON.stringify(req.headers.expect ?? '')} cannot be met: only 100-continue`,
    );
    req.resume();
    res.writeHead(417, {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(text)),
      'X-Service-Trace-ID': traceId(),
    });
    res.end(text);
  });
  // A request that cannot be read, or not in time: the exchange's error shape, then the connection closed.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (closing.has(socket)) return;
    closing.add(socket);
    const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const status = timeout ? 408 : 400;
    const text = timeout
      ? tooSlowText(limits.slowClientMs)
      : errorText('BAD_REQUEST', `the request could not be read as HTTP (${err.code ?? err.message})`);
    const close = () => {
      if (socket.writable) socket.end(closingAnswer(model, status, text));
    };
    const waiting = [...(pending.get(socket) ?? new Map<IncomingMessage, ServerResponse>())];
    if (!timeout && waiting.length > 0 && waiting.every(([req]) => req.complete)) {
      // The requests read whole before the bytes that could not be read are answered first, and
      // the 400 follows them; after an answer that closes the connection (HTTP/1.0), nothing does.
      socket.pause();
      let left = waiting.length;
      for (const [, res] of waiting) res.once('close', () => --left === 0 && close());
      return;
    }
    const inflight = (socket as unknown as { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!socket.writable || inflight?.headersSent === true) {
      socket.destroy();
      return;
    }
    close();
  });
  return server;
}

/** The 408 answer's text to a client that did not send its whole request within `slowClientMs`. */
export const tooSlowText = (slowClientMs: number): string =>
  errorText('BAD_REQUEST', `the request was not received in full within ${slowClientMs} ms`);

/** A whole answer, as written on a connection that is then closed (a request that could not be read, or read in time). */
export function closingAnswer(model: ModelExchange, status: number, text: string): string {
  const now = model.now();
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
    `X-In-Time: ${micros(now)}\r\nX-Out-Time: ${micros(model.now())}\r\nX-Service-Trace-ID: ${traceId()}\r\nConnection: close\r\n\r\n${text}`
  );
}

/** The administration entry: `/_model/...` requests, with their Authorization header. */
export type AdminHandler = (req: { method: string; path: string; body: string; authorization: string | undefined }) => {
  status: number;
  body: unknown;
};

/** One request as both HTTP paths read it. */
export interface ApiRequest {
  readonly method: string;
  /** The request target: path and query. */
  readonly url: string;
  readonly key: string | undefined;
  readonly timestamp: string | undefined;
  readonly sign: string | undefined;
  /** OKX's OK-ACCESS-PASSPHRASE. */
  readonly passphrase?: string | undefined;
  /** The Authorization header: the administration's token, when one is required. */
  readonly authorization?: string | undefined;
  readonly body: string;
  readonly ip: string;
  /** X-In-Time: when the request was read whole, on the model's clock; it counts from then. */
  readonly inAt: number;
}

/** The answer to one request, before it is written: status, the limit it was counted on, the JSON text. */
export interface ApiAnswer {
  readonly status: number;
  readonly rate: RateInForce | null;
  readonly text: string;
}

/** Answers one request: the model's API, or the administration under `/_model/`. */
export function respond(model: ModelExchange, admin: AdminHandler, req: ApiRequest): ApiAnswer {
  const url = req.url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  let status: number;
  let payload: unknown;
  let rate: RateInForce | null = null;
  try {
    if (path.startsWith('/_model/') || path === '/_model') {
      ({ status, body: payload } = admin({
        method: req.method,
        path,
        body: req.body,
        authorization: req.authorization,
      }));
    } else {
      ({
        status,
        body: payload,
        rate,
      } = model.handle({
        method: req.method,
        path,
        query: q < 0 ? '' : url.slice(q + 1),
        key: req.key,
        timestamp: req.timestamp,
        sign: req.sign,
        passphrase: req.passphrase,
        body: req.body,
        ip: req.ip,
        at: req.inAt,
      }));
    }
  } catch (e) {
    // A fault of the model itself: answered, never a crash, and the others are served on.
    status = 500;
    payload = { label: 'INTERNAL', message: (e as Error).message };
  }
  return { status, rate, text: payload instanceof FuturesOrderJson ? payload.json() : JSON.stringify(payload) };
}

function answer(
  model: ModelExchange,
  req: IncomingMessage,
  res: ServerResponse,
  inAt: number,
  body: string,
  admin: AdminHandler,
): void {
  const h = req.headers;
  // OKX signs with its own headers (O10); Gate with KEY, Timestamp and SIGN (section 5).
  const okx = model.exchange === 'okx';
  const { status, rate, text } = respond(model, admin, {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    key: header(okx ? h['ok-access-key'] : h.key),
    timestamp: header(okx ? h['ok-access-timestamp'] : h.timestamp),
    sign: header(okx ? h['ok-access-sign'] : h.sign),
    passphrase: okx ? header(h['ok-access-passphrase']) : undefined,
    authorization: h.authorization,
    body,
    ip: req.socket.remoteAddress ?? '',
    inAt,
  });
  const length = String(Buffer.byteLength(text));
  const trace = traceId();
  const inTime = micros(inAt);
  const outTime = micros(model.now());
  // One flat list, in the order the exchange writes them: node:http reads it without a copy.
  const headers =
    rate === null
      ? []
      : [
          'X-Gate-RateLimit-Requests-Remain',
          String(rate.remain),
          'X-Gate-RateLimit-Limit',
          String(rate.limit),
          'X-Gate-RateLimit-Reset-Timestamp',
          String(rate.reset),
        ];
  headers.push(
    'Content-Type',
    'application/json',
    'Content-Length',
    length,
    'X-In-Time',
    inTime,
    'X-Service-Trace-ID',
    trace,
    'X-Out-Time',
    outTime,
  );
  res.writeHead(status, headers);
  res.end(text);
}

/** The 413 answer, once the body has been read to its end (and discarded): the connection is then closed. */
function tooLarge(model: ModelExchange, res: ServerResponse, inAt: number, cap: number): void {
  if (res.headersSent) return;
  const text = errorText('INVALID_REQUEST_BODY', `the body is larger than ${cap} bytes`);
  res.writeHead(413, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    Connection: 'close',
    'X-In-Time': micros(inAt),
    'X-Out-Time': micros(model.now()),
    'X-Service-Trace-ID': traceId(),
  });
  res.end(text);
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
