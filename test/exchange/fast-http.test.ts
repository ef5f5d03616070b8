import { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { RunningExchange } from '../../src/exchange/server.js';
import { model } from './helpers.js';

const ORDERS = '/api/v4/futures/usdt/orders';
let running: RunningExchange[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(running.map((ex) => ex.close()));
  running = [];
});

async function start(options = {}): Promise<RunningExchange> {
  const { ex } = await model('2026-11-21T10:00:00Z', { fills: { maker: 0.5, taker: 0.25, seed: 7 }, ...options });
  running.push(ex);
  return ex;
}

/** A placement as raw HTTP/1.1 text. */
function placement(size: number, extra = '', text = 'x'): string {
  const body = JSON.stringify({ contract: 'BTC_USDT', size, price: '60000', text: `t-${text}` });
  return `POST ${ORDERS} HTTP/1.1\r\nHost: x\r\nKEY: main-key\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

const closing = `GET /api/v4/futures/usdt/contracts HTTP/1.1\r\nHost: x\r\nKEY: main-key\r\nConnection: close\r\n\r\n`;

interface Answer { status: number; headers: Map<string, string>; body: any }

/** Writes each piece (apart by `gapMs`) on one connection; the answers read until the server closes it. */
async function exchange(ex: RunningExchange, pieces: string[], gapMs = 0): Promise<Answer[]> {
  const socket = connect(ex.port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (d) => chunks.push(d));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  for (const piece of pieces) {
    socket.write(piece);
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
  }
  await closed;
  return parse(Buffer.concat(chunks));
}

function parse(all: Buffer): Answer[] {
  const answers: Answer[] = [];
  let pos = 0;
  while (pos < all.length) {
    const end = all.indexOf('\r\n\r\n', pos);
    const [line, ...lines] = all.toString('latin1', pos, end).split('\r\n');
    const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = Number(headers.get('content-length'));
    answers.push({ status: Number(line!.split(' ')[1]), headers, body: JSON.parse(all.toString('utf8', end + 4, end + 4 + length)) });
    pos = end + 4 + length;
  }
  return answers;
}

/** What the client sees of an answer, without what differs from run to run (times, trace ids, the date). */
function seen(a: Answer) {
  const keep = ['content-type', 'content-length', 'connection', 'keep-alive', 'x-gate-ratelimit-requests-remain', 'x-gate-ratelimit-limit', 'x-gate-ratelimit-reset-timestamp'];
  return { status: a.status, headers: [...a.headers.keys()], kept: keep.map((k) => a.headers.get(k)), body: a.body };
}

describe('the HTTP front', () => {
  it('answers plain keep-alive requests itself, as node:http answers the same requests', async () => {
    const writes = vi.spyOn(ServerResponse.prototype, 'writeHead');
    const fast = await exchange(await start(), [placement(1), placement(2, '', 'é€'), placement(-3), closing]);
    expect(writes).not.toHaveBeenCalled();
    // The same requests on a connection that starts with a chunked one, which goes to node:http for good.
    const chunked = `GET /_model/clock HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`;
    const [first, ...viaNode] = await exchange(await start(), [chunked, placement(1), placement(2, '', 'é€'), placement(-3), closing], 30);
    expect(writes.mock.calls.length).toBe(5);
    expect(first!.status).toBe(200);
    expect(fast.map(seen)).toEqual(viaNode.map(seen));
    expect(fast.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(fast[1]!.body.text).toBe('t-é€');
    expect(fast[0]!.headers.get('x-gate-ratelimit-limit')).toBe('100');
    for (const a of fast) expect(Number(a.headers.get('x-out-time'))).toBeGreaterThanOrEqual(Number(a.headers.get('x-in-time')));
  });

  it('answers pipelined requests in order, and each request split across writes', async () => {
    const ex = await start();
    const all = [placement(1), placement(2), placement(3)].join('');
    const pipelined = await exchange(ex, [all + closing]);
    expect(pipelined.map((a) => a.body.size ?? 'contracts')).toEqual([1, 2, 3, 'contracts']);
    // 7 bytes at a time: each request is read once whole.
    const writes = vi.spyOn(ServerResponse.prototype, 'writeHead');
    const text = placement(4) + placement(5) + closing;
    const split = await exchange(ex, [...text.match(/[^]{1,7}/g)!], 1);
    expect(writes).not.toHaveBeenCalled();
    expect(split.map((a) => a.body.size ?? 'contracts')).toEqual([4, 5, 'contracts']);
    expect(split.map((a) => a.status)).toEqual([200, 200, 200]);
  });

  it('hands a connection to node:http at the first request it does not read itself, with nothing lost', async () => {
    const ex = await start({ bodyLimitBytes: 512 });
    const writes = vi.spyOn(ServerResponse.prototype, 'writeHead');
    const chunked = `POST ${ORDERS} HTTP/1.1\r\nHost: x\r\nKEY: main-key\r\nTransfer-Encoding: chunked\r\n\r\n` +
      `6\r\n{"cont\r\n2f\r\nract": "BTC_USDT", "size": 7, "price": "60000"}\r\n0\r\n\r\n`;
    // Fast, then chunked (node:http from here on), then plain again: all answered in order.
    const answers = await exchange(ex, [placement(6) + chunked + placement(8) + closing]);
    expect(answers.map((a) => [a.status, a.body.size ?? 'contracts'])).toEqual([[200, 6], [200, 7], [200, 8], [200, 'contracts']]);
    expect(writes.mock.calls.length).toBe(3);
    // Over the body cap: node:http answers 413 in the exchange's error shape and closes.
    const big = await exchange(ex, [placement(9, '', 'x'.repeat(600))]);
    expect(big.map((a) => [a.status, a.body.label, a.headers.get('connection')])).toEqual([[413, 'INVALID_REQUEST_BODY', 'close']]);
  });

  it('leaves malformed requests to node:http: 400 in the error shape, the server serving on', async () => {
    const ex = await start();
    for (const bad of [
      `POST ${ORDERS} HTTP/1.1\r\nHost: x\r\nBad Name: v\r\nContent-Length: 2\r\n\r\n{}`,
      `POST ${ORDERS} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      `POST ${ORDERS} HTTP/1.1\r\nHost: x\r\nContent-Length: -2\r\n\r\n{}`,
      `GARBAGE\r\n\r\n`,
    ]) {
      const [a, ...rest] = await exchange(ex, [bad]);
      expect([a!.status, a!.body.label, rest.length]).toEqual([400, 'BAD_REQUEST', 0]);
    }
    expect((await exchange(ex, [placement(1) + closing])).map((a) => a.status)).toEqual([200, 200]);
    // Without Host, as node:http is told to take it too.
    expect((await exchange(ex, [placement(2).replace('Host: x\r\n', '') + closing])).map((a) => a.status)).toEqual([200, 200]);
  });

  it('closes an idle connection after the keep-alive timeout it announces', async () => {
    const ex = await start();
    const t0 = performance.now();
    const answers = await exchange(ex, [placement(1)]);
    const idle = performance.now() - t0;
    expect(answers[0]!.headers.get('keep-alive')).toBe('timeout=5');
    expect(idle).toBeGreaterThanOrEqual(4_900);
    expect(idle).toBeLessThan(9_000);
  }, 15_000);

  it('upgrades to the WebSocket API after plain requests on other connections', async () => {
    const ex = await start();
    expect((await exchange(ex, [placement(1) + closing])).length).toBe(2);
    const ws = new WebSocket(ex.wsUrl);
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    ws.close();
  });
});

describe('the HTTP front under a client that does not read', () => {
  it('stops reading while its answers wait, and answers every request once they are read', async () => {
    const ex = await start({ family: { tiers: [{ minRatio: '0', limit: 1_000_000 }] } });
    const socket = connect(ex.port, '127.0.0.1');
    const n = 30_000;
    const all = Array.from({ length: n }, (_, i) => placement(i + 1)).join('') + closing;
    socket.pause();
    socket.write(all);
    // About 30 MB of answers, of which the buffers between the two hold a few MB: the server
    // answers until they are full, then reads no further (its count stops short of n).
    const count = () => ex.stats().accounts.reduce((sum, a) => sum + a.accepted + Object.values(a.refused).reduce((x, y) => x + y, 0), 0);
    let answered = -1;
    for (let last = -2; answered !== last || answered === 0; ) {
      last = answered;
      await new Promise((r) => setTimeout(r, 250));
      answered = count();
    }
    expect(answered).toBeLessThan(n);
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.resume();
    await new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const answers = parse(Buffer.concat(chunks));
    expect(answers.length).toBe(n + 1);
    expect(answers.slice(0, n).map((a) => a.body.size)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  }, 30_000);
});
