/**
 * The model exchange under load: the built server in a child process of its own (one core, one
 * thread), autocannon in this one, keep-alive connections. Run: npm run bench:exchange.
 * Targets: at least 20,000 requests per second; p99 added latency under 1 ms at 2,000 per second
 * (the model's p99 minus a bare node:http server's answering {} at the same rate).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { printTable } from './measure.js';

const seconds = Number(process.argv[2] ?? 5);

/** Starts a server in a child process; resolves with its URL. */
function serve(script: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve({ url: String(d).trim(), child }));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

const MODEL = (raised: boolean) => `
import { startExchange } from '${new URL('../dist/exchange.js', import.meta.url).href}';
const ex = await startExchange({ port: 0${raised ? ", family: { tiers: [{ minRatio: '0', limit: 1000000000 }] }, fills: { maker: 0.6, taker: 0.4 }" : ''} });
console.log(ex.url);
`;
const BARE = `
import { createServer } from 'node:http';
const s = createServer({ keepAlive: true }, (req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '2' }); res.end('{}'); }); });
s.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + s.address().port));
`;

const place = {
  method: 'POST' as const,
  path: '/api/v4/futures/usdt/orders',
  headers: { KEY: 'main-key', 'Content-Type': 'application/json' },
  body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' }),
};

async function load(url: string, options: { connections: number; overallRate?: number }) {
  const result = await autocannon({ url: `${url}${place.path}`, method: place.method, headers: place.headers, body: place.body, connections: options.connections, duration: seconds, ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }) });
  return result;
}

const rows: Record<string, string | number>[] = [];
const latency: Record<string, string | number>[] = [];
const bare = await serve(BARE);
const raised = await serve(MODEL(true));
const real = await serve(MODEL(false));
try {
  for (const [name, server] of [['model, limits raised (every placement accepted and filled)', raised], ['model, published limits (mostly 429 at tier 1)', real], ['bare node:http answering {}', bare]] as const) {
    await load(server.url, { connections: 10 }); // warm-up
    const r = await load(server.url, { connections: 10 });
    const codes = Object.entries(r.statusCodeStats ?? {}).map(([c, s]) => `${c}: ${(s as { count: number }).count}`).join(', ');
    rows.push({ server: name, 'requests/s': Math.round(r.requests.average).toLocaleString('en-US'), 'p99 ms': r.latency.p99, statuses: codes, errors: r.errors + r.timeouts });
  }
  const at2000 = await load(raised.url, { connections: 10, overallRate: 2000 });
  const real2000 = await load(real.url, { connections: 10, overallRate: 2000 });
  const bare2000 = await load(bare.url, { connections: 10, overallRate: 2000 });
  for (const [name, r] of [['model, limits raised', at2000], ['model, published limits', real2000], ['bare node:http', bare2000]] as const) {
    latency.push({ server: name, 'requests/s': Math.round(r.requests.average).toLocaleString('en-US'), 'p50 ms': r.latency.p50, 'p99 ms': r.latency.p99, 'max ms': r.latency.max });
  }
  latency.push({ server: 'added by the model', 'requests/s': '', 'p50 ms': (at2000.latency.p50 - bare2000.latency.p50).toFixed(2), 'p99 ms': (at2000.latency.p99 - bare2000.latency.p99).toFixed(2), 'max ms': '' });
} finally {
  for (const s of [bare, raised, real]) s.child.kill('SIGTERM');
}
printTable(`Throughput: futures placements, 10 keep-alive connections, ${seconds} s after a ${seconds} s warm-up`, rows);
printTable('Latency at 2,000 requests per second (10 connections)', latency);
