/**
 * The model exchange under load: the built server in a child process of its own (one thread runs
 * JavaScript), the load in this one, keep-alive connections. Run: npm run bench:model-exchange [seconds].
 * The model serves with node:http alone, in a node started with no flags. Targets: at least 10,000
 * requests per second on one core with every placement accepted; p99 added latency under 1 ms at
 * 2,000 per second (the model's p99 minus a bare node:http server's at the same rate).
 *
 * Throughput: autocannon, 10 connections, as fast as they go, the servers in alternate rounds; beside it the server's CPU time per
 * request (user + system, all its threads, from process.cpuUsage), which says what one core can
 * serve even when the load generator and other work share the machine.
 * Latency: a small paced client of this file: 10 raw keep-alive connections, requests sent on a
 * fixed schedule, each timed with process.hrtime from the write to the last byte of its answer,
 * read in microseconds (autocannon reports whole milliseconds); bare and model in alternate
 * rounds at the same rate. Each server's garbage-collection pauses in each round come from a
 * PerformanceObserver in its process. Every server runs in a node started with no flags, as
 * `traderatio exchange` runs the model. A round on this kind of shared virtual machine swings by
 * a third; the targets are judged on the medians over the rounds, printed last.
 *
 * Before and after: `npm run bench:model-exchange 5 /path/to/other/dist` serves the model of that
 * build too (limits raised), in the same throughput rounds, beside this one's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { type Socket, connect } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { ModelExchange } from '../src/model-exchange/model.js';
import { systemClock } from '../src/schedule/clock.js';
import { median, printTable } from './measure.js';

const seconds = Number(process.argv[2] ?? 5);
/** Another build's dist, whose model is served beside this one's in the throughput rounds. */
const other = process.argv[3];
const RATE = 2000;
const CONNECTIONS = 10;
/** Alternate rounds of throughput, and of latency: a round on this shared virtual machine can swing by a third, the median of several does not. */
const ROUNDS = 5;
const LATENCY_ROUNDS = 6;

interface Served {
  readonly url: string;
  readonly child: ChildProcess;
  /** Starts counting CPU time and GC pauses. */
  start(): void;
  /** Stops; what was counted since `start`. */
  stop(): Promise<{ cpuMs: number; minor: Pauses; major: Pauses }>;
}

/** Garbage-collection pauses of one kind: how many, the longest. */
interface Pauses {
  n: number;
  maxMs: number;
}

/** The part of every server script that reports CPU time and GC pauses over IPC. */
const REPORT = `
import { PerformanceObserver, constants } from 'node:perf_hooks';
let gc = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) gc.push(e); }).observe({ entryTypes: ['gc'] });
let base = process.cpuUsage();
const pauses = (kind) => { const d = gc.filter((e) => e.detail.kind === kind).map((e) => e.duration); return { n: d.length, maxMs: Math.max(0, ...d) }; };
process.on('message', (m) => {
  if (m === 'start') { base = process.cpuUsage(); gc = []; return; }
  const u = process.cpuUsage(base);
  process.send({ cpuMs: (u.user + u.system) / 1000, minor: pauses(constants.NODE_PERFORMANCE_GC_MINOR), major: pauses(constants.NODE_PERFORMANCE_GC_MAJOR) });
});
`;

/** Starts a server in a child process; resolves once it listens. */
function serve(script: string): Promise<Served> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', REPORT + script], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => {
      const url = (m as { url: string }).url;
      resolve({
        url,
        child,
        start: () => child.send('start'),
        stop: () =>
          new Promise((done) => {
            child.once('message', (r) => done(r as Awaited<ReturnType<Served['stop']>>));
            child.send('stop');
          }),
      });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

const MODEL = (raised: boolean, dist = new URL('../dist/', import.meta.url)) => `
import { startModelExchange } from '${new URL('model-exchange.js', dist).href}';
const ex = await startModelExchange({ port: 0${raised ? ", family: { tiers: [{ minRatio: '0', limit: 1000000000 }] }, fills: { maker: 0.6, taker: 0.4 }" : ''} });
process.send({ url: ex.url });
`;
const BARE = `
import { createServer } from 'node:http';
const s = createServer({ keepAlive: true }, (req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '2' }); res.end('{}'); }); });
s.listen(0, '127.0.0.1', () => process.send({ url: 'http://127.0.0.1:' + s.address().port }));
`;

const place = {
  method: 'POST' as const,
  path: '/api/v4/futures/usdt/orders',
  headers: { KEY: 'main-key', 'Content-Type': 'application/json' },
  body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' }),
};

async function load(url: string) {
  return autocannon({
    url: `${url}${place.path}`,
    method: place.method,
    headers: place.headers,
    body: place.body,
    connections: CONNECTIONS,
    duration: seconds,
  });
}

/**
 * Sends `rate` placements per second for `ms` milliseconds over `connections` keep-alive
 * connections, on a fixed schedule (a request due while every connection waits goes on the first
 * one free); returns each answer's latency in microseconds, the statuses seen, and how many
 * requests went out more than 1 ms after their time (the client's own lag).
 */
async function paced(
  url: string,
  rate: number,
  ms: number,
  connections: number,
): Promise<{ latencies: Float64Array; count: number; statuses: Map<string, number>; late: number }> {
  const { hostname, port } = new URL(url);
  const request = Buffer.from(
    `${place.method} ${place.path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nKEY: ${place.headers.KEY}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(place.body)}\r\n\r\n${place.body}`,
  );
  const total = Math.floor((rate * ms) / 1000);
  const latencies = new Float64Array(total);
  const statuses = new Map<string, number>();
  let count = 0;
  let late = 0;
  const idle: Conn[] = [];
  interface Conn {
    socket: Socket;
    sentAt: bigint;
    buffered: Buffer;
  }
  const conns: Conn[] = await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<Conn>((resolve, reject) => {
          const socket = connect(Number(port), hostname, () => resolve(conn));
          socket.setNoDelay(true);
          const conn: Conn = { socket, sentAt: 0n, buffered: Buffer.alloc(0) };
          socket.on('error', reject);
          socket.on('data', (chunk: Buffer) => {
            conn.buffered = conn.buffered.length === 0 ? chunk : Buffer.concat([conn.buffered, chunk]);
            const end = conn.buffered.indexOf('\r\n\r\n');
            if (end < 0) return;
            const head = conn.buffered.toString('latin1', 0, end);
            const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
            if (conn.buffered.length < end + 4 + length) return;
            const at = process.hrtime.bigint();
            if (count < total) latencies[count++] = Number(at - conn.sentAt) / 1000;
            const status = head.slice(9, 12);
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
            conn.buffered = Buffer.alloc(0);
            idle.push(conn);
          });
        }),
    ),
  );
  idle.push(...conns);
  const t0 = process.hrtime.bigint();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor((Number(process.hrtime.bigint() - t0) / 1e9) * rate) + 1);
      while (sent < due && idle.length > 0) {
        const conn = idle.pop()!;
        conn.sentAt = process.hrtime.bigint();
        if (Number(conn.sentAt - t0) / 1e6 - (sent * 1000) / rate > 1) late++;
        conn.socket.write(request);
        sent++;
      }
      if (count >= total) resolve();
      else setTimeout(tick, 0);
    };
    tick();
  });
  for (const c of conns) c.socket.destroy();
  return { latencies: latencies.subarray(0, count), count, statuses, late };
}

/**
 * The model alone, in this process, without HTTP: CPU time per accepted and filled placement
 * (`handle` and the JSON of its answer), the median of 5 runs of 50,000 after one of warm-up.
 */
function inProcess(): number {
  const clock = { ...systemClock, wall: () => performance.timeOrigin + performance.now() };
  const model = new ModelExchange(
    { family: { tiers: [{ minRatio: '0', limit: 1_000_000_000 }] }, fills: { maker: 0.6, taker: 0.4 } },
    clock,
  );
  const request = {
    method: 'POST',
    path: place.path,
    query: '',
    key: 'main-key',
    timestamp: undefined,
    sign: undefined,
    body: place.body,
    ip: '127.0.0.1',
  };
  const runs: number[] = [];
  for (let run = 0; run < 6; run++) {
    const before = process.cpuUsage();
    for (let i = 0; i < 50_000; i++) {
      const answer = model.handle(request);
      if (answer.status !== 200 || JSON.stringify(answer.body).length === 0)
        throw new Error(`placement answered ${answer.status}`);
    }
    const used = process.cpuUsage(before);
    if (run > 0) runs.push((used.user + used.system) / 50_000);
  }
  return runs.sort((a, b) => a - b)[2]!;
}

function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const fmt = (us: number) => (us / 1000).toFixed(3);
const rows: Record<string, string | number>[] = [];
const latency: Record<string, string | number>[] = [];
/** Per server: CPU µs per request and requests per second of each round; p50 and p99 latency (µs) of each round. */
const perServer = new Map<string, { cpu: number[]; rate: number[] }>();
const perLatency = new Map<string, { p50: number[]; p99: number[] }>();
const bare = await serve(BARE);
const raised = await serve(MODEL(true));
const real = await serve(MODEL(false));
const otherDist = other === undefined ? undefined : pathToFileURL(`${resolve(other)}/`);
const earlier = otherDist === undefined ? undefined : await serve(MODEL(true, otherDist));
try {
  const servers: (readonly [string, Served])[] = [
    ['model, limits raised (every placement accepted and filled)', raised],
    ...(earlier === undefined ? [] : [[`model of ${other}, limits raised`, earlier] as const]),
    ['model, published limits (mostly 429 at tier 1)', real],
    ['bare node:http answering {}', bare],
  ];
  for (const [, server] of servers) await load(server.url); // warm-up
  // Alternate rounds: the machine's load changes by the second, and each round's ratio to the bare
  // server measured beside it is what the load moves least.
  for (let round = 1; round <= ROUNDS; round++) {
    const cpu: number[] = [];
    for (const [name, server] of servers) {
      server.start();
      const r = await load(server.url);
      const used = await server.stop();
      const codes = Object.entries(r.statusCodeStats ?? {})
        .map(([c, s]) => `${c}: ${(s as { count: number }).count}`)
        .join(', ');
      const answered = r.requests.total;
      cpu.push((used.cpuMs * 1000) / answered);
      const mine = perServer.get(name) ?? { cpu: [], rate: [] };
      mine.cpu.push(cpu.at(-1)!);
      mine.rate.push(r.requests.average);
      perServer.set(name, mine);
      rows.push({
        round,
        server: name,
        'requests/s': Math.round(r.requests.average).toLocaleString('en-US'),
        'p99 ms': r.latency.p99,
        'server CPU µs/request': cpu.at(-1)!.toFixed(1),
        'one core, requests/s': Math.round(answered / (used.cpuMs / 1000)).toLocaleString('en-US'),
        'CPU / bare': '',
        statuses: codes,
        errors: r.errors + r.timeouts,
      });
    }
    for (let i = 0; i < servers.length; i++)
      rows[rows.length - servers.length + i]!['CPU / bare'] = (cpu[i]! / cpu[servers.length - 1]!).toFixed(2);
  }
  const ms = seconds * 1000;
  for (const s of [bare, raised]) await paced(s.url, RATE, 1000, CONNECTIONS); // warm-up
  for (let round = 1; round <= LATENCY_ROUNDS; round++) {
    const measured: { name: string; sorted: Float64Array; statuses: Map<string, number>; late: number; gc: string }[] =
      [];
    for (const [name, server] of [
      ['bare node:http', bare],
      ['model, limits raised', raised],
    ] as const) {
      server.start();
      const r = await paced(server.url, RATE, ms, CONNECTIONS);
      const used = await server.stop();
      measured.push({
        name,
        sorted: r.latencies.slice().sort(),
        statuses: r.statuses,
        late: r.late,
        gc: `${used.minor.n} minor (max ${used.minor.maxMs.toFixed(1)} ms), ${used.major.n} major (max ${used.major.maxMs.toFixed(1)} ms)`,
      });
    }
    for (const m of measured) {
      latency.push({
        round,
        server: m.name,
        answers: [...m.statuses].map(([s, n]) => `${s}: ${n}`).join(', '),
        'p50 ms': fmt(quantile(m.sorted, 0.5)),
        'p99 ms': fmt(quantile(m.sorted, 0.99)),
        'p99.9 ms': fmt(quantile(m.sorted, 0.999)),
        'max ms': fmt(m.sorted[m.sorted.length - 1]!),
        'sent late': m.late,
        'GC pauses': m.gc,
      });
    }
    for (const m of measured) {
      const mine = perLatency.get(m.name) ?? { p50: [], p99: [] };
      mine.p50.push(quantile(m.sorted, 0.5));
      mine.p99.push(quantile(m.sorted, 0.99));
      perLatency.set(m.name, mine);
    }
    const [b, m] = measured as [(typeof measured)[0], (typeof measured)[0]];
    latency.push({
      round,
      server: 'added by the model',
      answers: '',
      'p50 ms': fmt(quantile(m.sorted, 0.5) - quantile(b.sorted, 0.5)),
      'p99 ms': fmt(quantile(m.sorted, 0.99) - quantile(b.sorted, 0.99)),
      'p99.9 ms': fmt(quantile(m.sorted, 0.999) - quantile(b.sorted, 0.999)),
      'max ms': '',
      'sent late': '',
      'GC pauses': '',
    });
  }
} finally {
  for (const s of [bare, raised, real, earlier]) s?.child.kill('SIGTERM');
}
const alone = inProcess();
console.log(`\nThe model alone (in process, no HTTP): ${alone.toFixed(1)} µs of CPU per accepted and filled placement`);
printTable(
  `Throughput: futures placements, ${CONNECTIONS} keep-alive connections, ${seconds} s per server and round after a ${seconds} s warm-up, ${ROUNDS} rounds`,
  rows,
);
printTable(
  `Latency at ${RATE.toLocaleString('en-US')} requests per second (${CONNECTIONS} connections, paced, timed in microseconds, ${seconds} s per round, ${LATENCY_ROUNDS} rounds)`,
  latency,
);
printTable(`Medians over the rounds (the figures the targets are judged on)`, [
  ...[...perServer].map(([name, m]) => ({
    measure: `throughput: ${name}`,
    value: `${median(m.cpu).toFixed(1)} µs CPU per request = ${Math.round(1e6 / median(m.cpu)).toLocaleString('en-US')} per second on one core (${Math.round(median(m.rate)).toLocaleString('en-US')}/s reached)`,
  })),
  ...[...perLatency].map(([name, m]) => ({
    measure: `latency: ${name}`,
    value: `p50 ${fmt(median(m.p50))} ms, p99 ${fmt(median(m.p99))} ms`,
  })),
  {
    measure: 'latency added by the model (p99 of each round, model minus bare)',
    value: (() => {
      const bare = perLatency.get('bare node:http')!.p99;
      const added = perLatency.get('model, limits raised')!.p99.map((p, i) => p - bare[i]!);
      return `median ${fmt(median(added))} ms; rounds ${added.map(fmt).join(', ')}`;
    })(),
  },
]);
