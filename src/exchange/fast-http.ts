import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { type AdminHandler, type HttpLimits, closingAnswer, micros, respond, tooSlowText, traceId } from './http.js';
import type { ExchangeModel } from './model.js';

/** Methods read here; any other (HEAD, CONNECT, ...) goes to node:http. */
const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
/** A header name: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Control characters other than a tab, in a header line. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;
/** A request target of visible ASCII only. */
const TARGET = /^\/[\x21-\x7e]*$/;
const DIGITS = /^[0-9]{1,15}$/;
const END_OF_HEAD = Buffer.from('\r\n\r\n', 'latin1');
/** node:http's default limit on a request's head. */
const MAX_HEAD_BYTES = 16 * 1024;
/** serveOne: the connection goes to node:http from this request on. */
const HAND_OFF = -1;
/** serveOne: the connection was closed as the request asked. */
const CLOSED = -2;
/** serveOne: the request has not arrived whole yet. */
const PARTIAL = -3;

/**
 * The model's HTTP front: plain HTTP/1.1 requests (a request line, headers, a Content-Length
 * body within the cap, no Transfer-Encoding, Expect or Upgrade) are read and answered here, one
 * `write` each, without node:http's per-request objects and streams; a request not whole in what
 * was read waits for the rest (408 past `slowClientMs`, as node:http answers). The first request
 * that is anything else (chunked, HTTP/1.0, HEAD, an upgrade to the WebSocket API, malformed,
 * too large) hands its connection to node:http, with every byte not yet answered, for the rest
 * of the connection's life. Both answer through the same `respond`.
 *
 * Takes over `server`'s connections: call before it listens. An idle connection is closed after
 * `server.keepAliveTimeout`, as node:http does. Returns what closes the sockets still read here.
 */
export function serveFast(server: Server, model: ExchangeModel, limits: HttpLimits, admin: AdminHandler): { destroyAll(): void } {
  const nodeListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  const open = new Set<Socket>();
  const idleMs = server.keepAliveTimeout;
  const keepAlive = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(idleMs / 1000)}\r\n`;
  let dateSecond = -1;
  let dateText = '';

  const handOff = (socket: Socket, rest: Buffer | null, drained: () => void): void => {
    socket.pause();
    socket.off('drain', drained);
    socket.removeAllListeners('data');
    socket.removeAllListeners('error');
    socket.removeAllListeners('timeout');
    socket.setTimeout(0);
    open.delete(socket);
    if (rest !== null && rest.length > 0) socket.unshift(rest);
    for (const listener of nodeListeners) listener.call(server, socket);
    process.nextTick(() => socket.resume());
  };

  const serveOne = (socket: Socket, buf: Buffer, pos: number): number => {
    const end = buf.indexOf(END_OF_HEAD, pos);
    if (end < 0) return buf.length - pos > MAX_HEAD_BYTES ? HAND_OFF : PARTIAL;
    if (end - pos > MAX_HEAD_BYTES) return HAND_OFF;
    const lines = buf.toString('latin1', pos, end).split('\r\n');
    const line = lines[0]!;
    const s1 = line.indexOf(' ');
    const s2 = line.indexOf(' ', s1 + 1);
    if (s1 <= 0 || s2 < 0 || line.indexOf(' ', s2 + 1) >= 0 || line.slice(s2 + 1) !== 'HTTP/1.1') return HAND_OFF;
    const method = line.slice(0, s1);
    const url = line.slice(s1 + 1, s2);
    if (!METHODS.has(method) || !TARGET.test(url)) return HAND_OFF;
    let length = -1;
    let close = false;
    let key: string | undefined;
    let timestamp: string | undefined;
    let sign: string | undefined;
    for (let i = 1; i < lines.length; i++) {
      const l = lines[i]!;
      const colon = l.indexOf(':');
      if (colon <= 0 || CONTROL.test(l)) return HAND_OFF;
      const name = l.slice(0, colon);
      if (!TOKEN.test(name)) return HAND_OFF;
      const value = trimSpaces(l, colon + 1);
      switch (name.toLowerCase()) {
        case 'content-length':
          if (length >= 0 || !DIGITS.test(value)) return HAND_OFF;
          length = Number(value);
          if (length > limits.bodyLimitBytes) return HAND_OFF;
          break;
        case 'connection': {
          const v = value.toLowerCase();
          if (v.includes('upgrade')) return HAND_OFF;
          if (v.includes('close')) close = true;
          break;
        }
        case 'key':
          if (key !== undefined) return HAND_OFF;
          key = value;
          break;
        case 'timestamp':
          if (timestamp !== undefined) return HAND_OFF;
          timestamp = value;
          break;
        case 'sign':
          if (sign !== undefined) return HAND_OFF;
          sign = value;
          break;
        case 'transfer-encoding':
        case 'upgrade':
        case 'expect':
          return HAND_OFF;
      }
    }
    if (length < 0) length = 0;
    const start = end + 4;
    if (buf.length - start < length) return PARTIAL;
    const inAt = model.now();
    const body = length === 0 ? '' : buf.toString('utf8', start, start + length);
    const { status, rate, text } = respond(model, admin, { method, url, key, timestamp, sign, body, ip: socket.remoteAddress ?? '', inAt });
    const second = Math.floor(Date.now() / 1000);
    if (second !== dateSecond) {
      dateSecond = second;
      dateText = new Date(second * 1000).toUTCString();
    }
    // The headers in node:http's order for the same answer, then the body: one write.
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n` +
      (rate === null ? '' : `X-Gate-RateLimit-Requests-Remain: ${rate.remain}\r\nX-Gate-RateLimit-Limit: ${rate.limit}\r\nX-Gate-RateLimit-Reset-Timestamp: ${rate.reset}\r\n`) +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nX-In-Time: ${micros(inAt)}\r\n` +
      `X-Service-Trace-ID: ${traceId()}\r\nX-Out-Time: ${micros(model.now())}\r\nDate: ${dateText}\r\n` +
      `${close ? 'Connection: close\r\n' : keepAlive}\r\n${text}`,
    );
    if (close) {
      socket.end();
      return CLOSED;
    }
    return start + length;
  };

  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.setNoDelay(true);
    socket.on('error', () => socket.destroy());
    // An idle connection is closed after node:http's keep-alive timeout, as node:http closes its
    // own; while a request is on its way, `slowClientMs` applies instead.
    socket.setTimeout(idleMs);
    socket.on('timeout', () => socket.destroy());
    socket.once('close', () => open.delete(socket));
    // The start of a request not yet whole, and the timer that answers 408 if the rest is slower
    // than `slowClientMs` (from the first byte of the request, as node:http counts).
    let held: Buffer | null = null;
    let slow: NodeJS.Timeout | null = null;
    const tooSlow = (): void => {
      socket.removeAllListeners('data');
      socket.end(closingAnswer(model, 408, tooSlowText(limits.slowClientMs)));
    };
    const drained = (): void => {
      socket.resume();
    };
    socket.on('data', (chunk: Buffer) => {
      // A client that sends without reading its answers is read no further until they drain.
      if (socket.writableNeedDrain && !socket.isPaused()) {
        socket.pause();
        socket.once('drain', drained);
      }
      const buf = held === null ? chunk : Buffer.concat([held, chunk]);
      held = null;
      let pos = 0;
      while (pos < buf.length) {
        const next = serveOne(socket, buf, pos);
        if (next >= 0) {
          pos = next;
          if (slow !== null) {
            clearTimeout(slow);
            slow = null;
            socket.setTimeout(idleMs);
          }
          continue;
        }
        if (next === PARTIAL) {
          held = buf.subarray(pos);
          if (slow === null) {
            slow = setTimeout(tooSlow, limits.slowClientMs);
            socket.setTimeout(0);
          }
          return;
        }
        if (slow !== null) clearTimeout(slow);
        slow = null;
        socket.removeAllListeners('data');
        if (next === HAND_OFF) handOff(socket, buf.subarray(pos), drained);
        return;
      }
    });
    socket.once('close', () => {
      if (slow !== null) clearTimeout(slow);
    });
  });
  return {
    destroyAll: () => {
      for (const socket of open) socket.destroy();
      open.clear();
    },
  };
}

/** `s` from `from`, without the spaces and tabs around it (what HTTP allows around a header's value). */
function trimSpaces(s: string, from: number): string {
  let a = from;
  let b = s.length;
  while (a < b && (s.charCodeAt(a) === 32 || s.charCodeAt(a) === 9)) a++;
  while (b > a && (s.charCodeAt(b - 1) === 32 || s.charCodeAt(b - 1) === 9)) b--;
  return s.slice(a, b);
}
