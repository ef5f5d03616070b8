// Two proxies, each a `traderatio proxy --redis` process of the build, in front of one tier-4
// account of the model exchange: the Python engine of examples/proxy through each at once (16
// threads apiece, 10 s). They share the account's limits and counts in Redis (the tests' Redis,
// REDIS_URL; a key prefix of the test's own, cleaned after).
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startModelExchange } from '../../src/model-exchange/index.js';
import { REDIS_URL } from '../redis/address.js';
import { cleanPrefix, connect, uniquePrefix } from '../redis/harness.js';
import { ACCOUNTS, TIER4_HISTORY, runEngine } from './helpers.js';

const bin = resolve(import.meta.dirname, '../../dist/cli/bin.js');
const prefix = uniquePrefix('proxy');
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(
    children.map((c) => new Promise((done) => (c.exitCode === null ? c.once('exit', done) : done(undefined)))),
  );
  const client = connect();
  await cleanPrefix(client, `${prefix}:desk`);
  client.disconnect();
});

/** A proxy process; resolves with its URL once it listens. */
function proxyProcess(upstream: string, accounts: string, history: string): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      bin,
      'proxy',
      '--port',
      '0',
      '--upstream',
      upstream,
      '--accounts',
      accounts,
      '--history',
      history,
      '--redis',
      REDIS_URL,
      '--redis-prefix',
      prefix,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  return new Promise((done, fail) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const url = /traderatio proxy: (http:\/\/\S+) ->/.exec(out)?.[1];
      if (url !== undefined) done(url);
    });
    child.once('exit', (code) => fail(new Error(`the proxy exited ${code}: ${out}`)));
  });
}

/** One futures placement of the account, signed as section 5 of the description says. */
function signedOrder(url: string): Promise<Response> {
  const body = JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const payload = [
    'POST',
    '/api/v4/futures/usdt/orders',
    '',
    createHash('sha512').update(body).digest('hex'),
    timestamp,
  ].join('\n');
  const headers = {
    KEY: 'main-key',
    Timestamp: timestamp,
    SIGN: createHmac('sha512', 'main-secret').update(payload).digest('hex'),
    'Content-Type': 'application/json',
  };
  return fetch(`${url}/api/v4/futures/usdt/orders`, { method: 'POST', headers, body });
}

describe('two proxies sharing one account through Redis', () => {
  it('keep a Python engine through each from 429s, and the window at the model', async () => {
    const exchange = await startModelExchange({
      port: 0,
      accounts: ACCOUNTS,
      history: TIER4_HISTORY,
      verifySignatures: true,
      fills: { maker: 0, taker: 0 },
    });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'traderatio-proxies-'));
      writeFileSync(join(dir, 'accounts.json'), JSON.stringify(ACCOUNTS));
      writeFileSync(join(dir, 'history.json'), JSON.stringify(TIER4_HISTORY));
      const urls = await Promise.all(
        [0, 1].map(() => proxyProcess(exchange.url, join(dir, 'accounts.json'), join(dir, 'history.json'))),
      );
      // On a budget Redis has never seen, each limit lets one request through alone and goes on
      // once its answer states the exchange's count (docs/distributed.md#redis-restarts-and-failovers):
      // one placement through each, before the run, answered at once.
      for (const url of urls) expect((await signedOrder(url)).status).toBe(200);
      const runs = await Promise.all(urls.map((url) => runEngine(url, 10, 16)));
      const stats = exchange.stats().accounts[0]!;
      const place = stats.limits.find((l) => l.key === 'futures.place')!;
      console.log(
        `two proxies, Redis: ${runs.map((r) => `${r.statuses['429'] ?? 0} x 429 (${JSON.stringify(r.statuses)})`).join(' and ')}; ${place.accepted} placements accepted (${((place.accepted / 2500) * 100).toFixed(1)}% of 250/s over 10 s), at most ${place.most} in a window; refused by the model ${JSON.stringify(stats.refused)}`,
      );
      // A grant counts in Redis until one window after the latest instant its requests can have
      // reached the exchange, their answers (and on while one is not answered), so however late a
      // busy machine has a request reach the model, it cannot meet the next grants in one window
      // there (see docs/rules.md#r13). And the two proxies share the one limit: each alone would let its engine
      // send the account's whole 250 a second, and half the placements of the two would be 429
      // (straight at the model, most are: python.e2e.test.ts).
      const tooMany = runs.reduce((sum, r) => sum + (r.statuses['429'] ?? 0), 0);
      expect(tooMany).toBe(0);
      expect(stats.refused).toEqual({});
      expect(place.most).toBeLessThanOrEqual(250);
      expect(runs.every((r) => r.placed > 0)).toBe(true);
    } finally {
      await exchange.close();
    }
  }, 150_000);
});
