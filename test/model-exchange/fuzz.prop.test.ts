// Random bytes, random headers and random WebSocket frames, for a fixed budget of runs: the model
// exchange answers each in the exchange's shape or closes that connection, and keeps serving the
// others (a connection held open beside the fuzzing is served before and after every run).
import { connect } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { WebSocket } from 'ws';
import type { RunningModelExchange } from '../../src/model-exchange/server.js';
import { call, model } from './helpers.js';

const NOW = '2026-11-21T10:00:00Z';
const ORDERS = '/api/v4/futures/usdt/orders';
let ex: RunningModelExchange;
beforeAll(async () => {
  ({ ex } = await model(NOW, { slowClientMs: 2000, bodyLimitBytes: 4096, fills: { maker: 0.3, taker: 0.3 } }));
});
afterAll(async () => ex.close());

/** The answers read from one connection's bytes: status, and the body parsed from JSON (none for a first request that was HEAD). */
function answers(bytes: Buffer, toHead = false): { status: number; body: unknown }[] {
  const out: { status: number; body: unknown }[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const end = bytes.indexOf('\r\n\r\n', pos);
    if (end < 0)
      throw new Error(`an answer cut in its head: ${JSON.stringify(bytes.toString('latin1', pos, pos + 200))}`);
    const head = bytes.toString('latin1', pos, end);
    const m = /^HTTP\/1\.1 (\d{3}) /.exec(head);
    if (m === null) throw new Error(`not an HTTP/1.1 answer: ${JSON.stringify(head.slice(0, 200))}`);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
    if (!Number.isSafeInteger(length)) throw new Error(`an answer without Content-Length: ${JSON.stringify(head)}`);
    // The answer to a HEAD request has a head alone; a 400 for bytes that are not a request has its body.
    const bodiless =
      toHead &&
      out.length === 0 &&
      (end + 4 === bytes.length || bytes.toString('latin1', end + 4, end + 9) === 'HTTP/');
    out.push({
      status: Number(m[1]),
      body: bodiless ? undefined : JSON.parse(bytes.toString('utf8', end + 4, end + 4 + length)),
    });
    pos = end + 4 + (bodiless ? 0 : length);
  }
  return out;
}

/** Sends `bytes` on a connection of its own, ends its side, and reads until the server closes it. */
function exchangeBytes(bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(ex.port, '127.0.0.1', () => socket.end(bytes));
    const timer = setTimeout(
      () => reject(new Error('the connection was neither answered nor closed within 5 s')),
      5000,
    );
    socket.on('data', (d: Buffer) => chunks.push(d));
    // A reset after the answers is a close: what was read is checked.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
  });
}

/** An answer is the exchange's: JSON, and an error is `{ label, message }`. */
function inShape(a: { status: number; body: unknown }): void {
  if (a.status >= 400 && a.body !== undefined)
    expect(a.body).toEqual({ label: expect.stringMatching(/^[A-Z_]+$/), message: expect.any(String) });
  expect(a.status).not.toBe(500);
}

/** A keep-alive connection held beside the fuzzing, placing an order after every run. */
let steady: { send(): Promise<number> } | undefined;
async function served(): Promise<void> {
  if (steady === undefined) {
    const socket = connect(ex.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    // Closed by the server after its keep-alive timeout (5 s idle): the next run opens another.
    socket.once('close', () => (steady = undefined));
    let buffered = Buffer.alloc(0);
    let waiting: ((status: number) => void) | undefined;
    socket.on('data', (d: Buffer) => {
      buffered = Buffer.concat([buffered, d]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffered.toString('latin1', 0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.subarray(end + 4 + length);
      waiting?.(Number(head.slice(9, 12)));
    });
    const body = JSON.stringify({ contract: 'ETH_USDT', size: 1, price: '3000' });
    const request = `POST ${ORDERS} HTTP/1.1\r\nHost: x\r\nKEY: main-key\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    steady = { send: () => new Promise((resolve) => ((waiting = resolve), socket.write(request))) };
  }
  expect([200, 429]).toContain(await steady.send());
}

const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}$/);
const printable = fc.stringMatching(/^[\x20-\x7e]{0,60}$/);
const path = fc.oneof(
  fc.constantFrom(
    ORDERS,
    `${ORDERS}/1`,
    '/api/v4/futures/usdt/batch_orders',
    '/api/v4/spot/orders',
    '/api/v4/spot/orders/1?currency_pair=BTC_USDT',
    '/api/v4/futures/usdt/contracts',
    '/api/v4/spot/currency_pairs',
    '/api/v4/account/rate_limit',
    '/api/v4/futures/usdt/my_trades',
    '/_model/stats',
    '/api/v4/',
  ),
  fc.webPath().map((p) => `/api/v4${p}`),
  printable.map((p) => `/${p.replace(/ /g, '')}`),
);
const body = fc.oneof(
  fc.constant(''),
  fc.json(),
  fc
    .record({
      contract: fc.constantFrom('BTC_USDT', 'NOPE', ''),
      size: fc.oneof(fc.integer(), fc.string()),
      price: fc.oneof(fc.string(), fc.double()),
    })
    .map((o) => JSON.stringify(o)),
  fc.string({ maxLength: 200 }),
);

/** A request line and headers, some of them mangled. */
const request = fc.record({
  method: fc.oneof(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'), token),
  path,
  version: fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/1.1', 'HTTP/2.0', 'HTTP/x'),
  headers: fc.array(
    fc.oneof(
      fc.tuple(
        fc.constantFrom(
          'KEY',
          'Timestamp',
          'SIGN',
          'Content-Type',
          'Authorization',
          'Transfer-Encoding',
          'Expect',
          'Connection',
          'Content-Length',
        ),
        printable,
      ),
      fc.tuple(token, printable),
    ),
    { maxLength: 8 },
  ),
  body,
});

describe('random input over HTTP', () => {
  test.prop([fc.uint8Array({ minLength: 1, maxLength: 600 })], { numRuns: 60 })(
    "random bytes: answered in the exchange's shape, or the connection closed",
    async (bytes) => {
      for (const a of answers(await exchangeBytes(Buffer.from(bytes)))) inShape(a);
      await served();
    },
    60_000,
  );

  test.prop([request, fc.boolean()], { numRuns: 120 })(
    "random requests and headers: answered in the exchange's shape, or the connection closed",
    async (r, lengthRight) => {
      const headers = r.headers.map(([k, v]) => `${k}: ${v}\r\n`).join('');
      const length = lengthRight ? `Content-Length: ${Buffer.byteLength(r.body)}\r\n` : '';
      const text = `${r.method} ${r.path} ${r.version}\r\nHost: x\r\n${length}${headers}\r\n${r.body}`;
      for (const a of answers(await exchangeBytes(Buffer.from(text)), r.method === 'HEAD')) inShape(a);
      await served();
    },
    60_000,
  );
});

const channel = fc.constantFrom(
  'futures.login',
  'spot.login',
  'futures.order_place',
  'futures.order_batch_place',
  'futures.order_amend',
  'futures.order_cancel',
  'futures.order_cancel_ids',
  'futures.order_cancel_cp',
  'futures.order_status',
  'futures.order_list',
  'spot.order_place',
  'spot.order_amend',
  'spot.order_cancel',
  'spot.order_cancel_ids',
  'spot.order_cancel_cp',
  'spot.order_status',
  'spot.order_list',
  'futures.ping',
  '',
);
const anyValue = fc.oneof(
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.constant('%zz'),
  fc.constant('%E0%A4%A'),
);
const frame = fc.oneof(
  fc.string({ maxLength: 200 }).map((s) => ({ text: s })),
  fc.json().map((s) => ({ text: s })),
  fc.uint8Array({ maxLength: 200 }).map((b) => ({ binary: Buffer.from(b) })),
  fc
    .record(
      {
        channel,
        payload: fc.oneof(
          anyValue,
          fc.record(
            {
              req_id: anyValue,
              api_key: fc.oneof(fc.constant('main-key'), anyValue),
              timestamp: anyValue,
              req_param: fc.oneof(
                anyValue,
                fc.array(fc.oneof(anyValue, fc.dictionary(fc.string({ maxLength: 12 }), anyValue)), { maxLength: 4 }),
                fc.record(
                  {
                    contract: fc.oneof(fc.constantFrom('BTC_USDT', 'NOPE'), anyValue),
                    currency_pair: fc.oneof(fc.constant('BTC_USDT'), anyValue),
                    size: anyValue,
                    amount: anyValue,
                    price: anyValue,
                    order_id: anyValue,
                    side: fc.oneof(fc.constantFrom('buy', 'sell'), anyValue),
                  },
                  { requiredKeys: [] },
                ),
              ),
            },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: [] },
    )
    .map((m) => ({ text: JSON.stringify({ time: 0, event: 'api', ...m }) })),
);

describe('random input over WebSocket', () => {
  test.prop(
    [fc.array(frame, { minLength: 1, maxLength: 12 }), fc.constantFrom('/v4/ws/usdt', '/v4/ws/btc', '/ws/v4/', '/')],
    { numRuns: 60 },
  )(
    "random frames: each answered in the API's shape, or the connection closed; a new connection is served after",
    async (frames, where) => {
      const ws = new WebSocket(`${ex.wsUrl}${where}`);
      const replies: any[] = [];
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      ws.on('message', (d) => replies.push(JSON.parse(String(d))));
      ws.on('error', () => {});
      await new Promise((resolve) => ws.once('open', resolve));
      for (const f of frames) ws.send('text' in f ? f.text : f.binary);
      // Answered in order: wait for as many replies as frames, or the close.
      const deadline = Date.now() + 5000;
      while (replies.length < frames.length && ws.readyState === WebSocket.OPEN && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 5));
      if (ws.readyState === WebSocket.OPEN) expect(replies.length).toBe(frames.length);
      for (const r of replies) {
        expect(r).toMatchObject({
          ack: false,
          header: { status: expect.stringMatching(/^\d{3}$/), channel: expect.any(String), event: 'api' },
        });
        expect(r.header.status).not.toBe('500');
        if (r.header.status !== '200')
          expect(r.data.errs).toEqual({ label: expect.stringMatching(/^[A-Z_]+$/), message: expect.any(String) });
      }
      ws.close();
      await closed;
      await served();
      const fresh = await call(ex, 'GET', '/api/v4/futures/usdt/contracts');
      expect(fresh.status).toBe(200);
    },
    60_000,
  );
});
