// Ctrl-C while clients wait: `traderatio proxy` (the build's command line) in front of the model
// exchange, 16 Python threads placing spot orders on one pair (10 a second: most wait in the
// proxy), then SIGINT. Every request ends in an answer (the exchange's, relayed, or the proxy's
// 503 TRADERATIO_CLOSED with its body) or, once the proxy no longer listens, in a refused
// connection: never a reset. With urllib (a connection per request) and a kept-alive client.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/index.js';
import { ACCOUNTS, runPython } from './helpers.js';

const bin = resolve(import.meta.dirname, '../../dist/cli/bin.js');
const clients = resolve(import.meta.dirname, 'stop_clients.py');
let exchange: RunningModelExchange | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child !== undefined && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((done) => child!.once('exit', done));
  }
  await exchange?.close();
  exchange = child = undefined;
});

/** `traderatio proxy` as a process; resolves with its URL, and its output and exit when it ends. */
async function proxyProcess(
  args: readonly string[],
): Promise<{ url: string; ended: Promise<[number | null, string]> }> {
  const proc = spawn(process.execPath, [bin, 'proxy', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child = proc;
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
  proc.stderr!.setEncoding('utf8').on('data', (s: string) => (out += s));
  const ended = new Promise<[number | null, string]>((done) => proc.once('exit', (code) => done([code, out])));
  const url = await new Promise<string>((done, fail) => {
    proc.stdout!.on('data', () => {
      const url = /traderatio proxy: (http:\/\/\S+) ->/.exec(out)?.[1];
      if (url !== undefined) done(url);
    });
    void ended.then(([code]) => fail(new Error(`the proxy exited ${code}: ${out}`)));
  });
  return { url, ended };
}

describe('traderatio proxy stopped by Ctrl-C (SIGINT)', () => {
  for (const mode of ['urllib', 'keep-alive'] as const) {
    it(`answers every waiting request of a ${mode} client 503 TRADERATIO_CLOSED, resets none, exits 0 and counts them`, async () => {
      exchange = await startModelExchange({ port: 0, accounts: ACCOUNTS, fills: { maker: 0, taker: 0 } });
      const accounts = join(mkdtempSync(join(tmpdir(), 'traderatio-stop-')), 'accounts.json');
      writeFileSync(accounts, JSON.stringify(ACCOUNTS));
      const proxy = await proxyProcess(['--upstream', exchange.url, '--accounts', accounts]);
      const run = runPython(clients, { GATE_URL: proxy.url, MODE: mode, THREADS: '16' }, 60_000);
      // Stopped once every thread's request waits on the pair's limit (one between two requests
      // would be a connection the proxy has not read yet: a request it never received).
      await expect
        .poll(
          async () => {
            const status = (await (await fetch(`${proxy.url}/status.json`)).json()) as {
              accounts: { limits: { limit: string; waiting: number }[] }[];
            };
            return status.accounts[0]!.limits.find((l) => l.limit === 'spot.place:BTC_USDT')?.waiting ?? 0;
          },
          { timeout: 20_000, interval: 50 },
        )
        .toBe(16);
      child!.kill('SIGINT');
      const [code, out] = await proxy.ended;
      const r = await run;
      expect(r.err).toBe('');
      const outcomes = JSON.parse(r.out.trim()) as Record<string, number>;
      console.log(`${mode}: ${JSON.stringify(outcomes)}`);
      expect(Object.keys(outcomes).filter((k) => k.startsWith('error'))).toEqual([]);
      const closed = outcomes['503 TRADERATIO_CLOSED'] ?? 0;
      expect(closed).toBe(16);
      expect(code).toBe(0);
      // The summary counts what the proxy refused, and what it sent is what the model accepted.
      const sent = exchange.stats().accounts[0]!.limits.find((l) => l.key === 'spot.place:BTC_USDT')!.accepted;
      expect(out).toContain(
        `desk: ${outcomes['200'] ?? 0} sent, ${closed} answered by the proxy (${closed} TRADERATIO_CLOSED)`,
      );
      expect(sent).toBe(outcomes['200'] ?? 0);
    });
  }
});
