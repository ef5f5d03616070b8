// Any engine behind `traderatio proxy --exchange okx`: here ccxt's okx with no limiter of its own,
// its URLs pointed at the proxy, against the model exchange on OKX. An engine in another language
// does the same: its base URL the proxy's, its requests signed as for OKX.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ccxt from 'ccxt';
import { startModelExchange } from 'traderatio/model-exchange';

// The model exchange stands in for www.okx.com: one main account at VIP 5, key main-key; its
// orders rest (none fills).
const exchange = await startModelExchange({ exchange: 'okx', port: 0, fills: { maker: 0, taker: 0 } });

// The proxy's accounts file: each family's accounts and their keys (no secret: the proxy never signs).
const accounts = join(mkdtempSync(join(tmpdir(), 'okx-proxy-')), 'accounts.json');
writeFileSync(
  accounts,
  JSON.stringify({
    families: [{ id: 'desk', vipLevel: 5, accounts: [{ id: 'main', role: 'main', keys: [{ key: 'main-key' }] }] }],
  }),
);

// In a terminal of its own: npx traderatio proxy --exchange okx --accounts accounts.json
// (it forwards to https://www.okx.com). Here the same command, run by node so that SIGTERM reaches
// it, forwarding to the model on a free port.
const bin = join(dirname(fileURLToPath(import.meta.resolve('traderatio/package.json'))), 'dist/cli/bin.js');
const proxy = spawn(
  process.execPath,
  [bin, 'proxy', '--exchange', 'okx', '--accounts', accounts, '--upstream', exchange.url, '--port', '0'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
// It prints its URL first: "traderatio proxy: http://127.0.0.1:PORT -> UPSTREAM".
const url = await new Promise<string>((resolve, reject) => {
  let out = '';
  proxy.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    const found = /^traderatio proxy: (http:\/\/\S+) -> /m.exec(out)?.[1];
    if (found !== undefined) resolve(found);
  });
  proxy.once('exit', (code) => reject(new Error(`the proxy exited (${code}): ${out}`)));
});

// The engine: its base URL the proxy's, ccxt's own throttle off (the proxy keeps the limits).
const okx = new ccxt.okx({ apiKey: 'main-key', secret: 'main-secret', password: 'main-pass', enableRateLimit: false });
const api = okx.urls['api'] as Record<string, string>;
for (const name of Object.keys(api)) api[name] = url;
okx.options['fetchMarkets'] = { types: ['spot', 'swap'] }; // the kinds the model trades
await okx.loadMarkets();

// 70 placements on one swap at once: 60 go now, 10 two seconds later; none refused with 50011.
const started = Date.now();
const placing = Array.from({ length: 70 }, () => okx.createOrder('SOL/USDT:USDT', 'limit', 'buy', 1, 10));
const first = await Promise.race(placing);
// A cancel does not wait behind the placements: it has its own limit, and goes first.
await okx.cancelOrder(first.id!, 'SOL/USDT:USDT');
const cancelledAfter = Date.now() - started;
await Promise.all(placing);
const tookMs = Date.now() - started;
assert.ok(tookMs >= 1_900, `the 10 over the limit went after ${tookMs} ms`); // held for the 2 s window
assert.ok(cancelledAfter < 1_500, `the cancel went after ${cancelledAfter} ms`);
assert.deepEqual(exchange.stats().accounts[0]!.refused, {});

proxy.kill('SIGTERM');
await new Promise((resolve) => proxy.once('exit', resolve));
await exchange.close();
console.log(
  `okx-proxy: 70 placements in ${(tookMs / 1000).toFixed(1)} s and a cancel after ${cancelledAfter} ms, none refused`,
);
