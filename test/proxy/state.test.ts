// --state FILE: the families' counts kept across a restart, written atomically, refused when they
// are not of this proxy's accounts.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/index.js';
import { type RunningProxy, startProxy } from '../../src/proxy/server.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { ACCOUNTS } from './helpers.js';

const bin = resolve(import.meta.dirname, '../../dist/cli/bin.js');
const ORDER = JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' });
let exchange: RunningModelExchange | undefined;
let proxy: RunningProxy | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child !== undefined && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((done) => child!.once('exit', done));
  }
  await proxy?.close();
  await exchange?.close();
  proxy = exchange = child = undefined;
});

const dir = () => mkdtempSync(join(tmpdir(), 'traderatio-state-'));
const place = (url: string, n: number) =>
  Promise.all(
    Array.from({ length: n }, () =>
      fetch(`${url}/api/v4/futures/usdt/orders`, { method: 'POST', headers: { KEY: 'main-key' }, body: ORDER }).then(
        (r) => r.status,
      ),
    ),
  );

describe('traderatio proxy --state FILE', () => {
  it('keeps the 24-hour, 7-day and hourly counts across a restart, and writes them every few seconds', async () => {
    // The model on the proxy's clock, which crosses a whole hour between the two batches: the
    // counts of both hours are kept, whatever the hour the test runs at.
    const hour = 3_600_000;
    const clock = new VirtualClock({ wallStart: Math.ceil(Date.now() / hour) * hour - 2_000 });
    exchange = await startModelExchange({ port: 0, accounts: ACCOUNTS, fills: { maker: 0, taker: 0 }, clock });
    const file = join(dir(), 'state.json');
    proxy = await startProxy({ upstream: exchange.url, accounts: ACCOUNTS, stateFile: file, clock });
    expect(proxy.restoredFrom).toBeNull();
    expect(await place(proxy.url, 30)).toEqual(Array(30).fill(200));
    expect(existsSync(file)).toBe(false);
    await clock.advance(5_000);
    // Written by the timer, atomically: no temporary file left beside it.
    expect(JSON.parse(readFileSync(file, 'utf8')).families.desk.accounts).toEqual([{ id: 'main', role: 'main' }]);
    expect(readdirSync(join(file, '..'))).toEqual(['state.json']);
    expect(await place(proxy.url, 12)).toEqual(Array(12).fill(200));
    const before = proxy.limiters.get('desk')!.abuseHeadroom('main');
    await proxy.close();
    proxy = await startProxy({ upstream: exchange.url, accounts: ACCOUNTS, stateFile: file, clock });
    expect(proxy.restoredFrom).toBe(clock.wall());
    const after = proxy.limiters.get('desk')!.abuseHeadroom('main');
    expect(after.requests).toBe(42);
    expect(after).toEqual(before);
    // What the exchange counted, the proxy counts: 42 each.
    expect(exchange.stats().accounts[0]!.limits.find((l) => l.key === 'futures.place')!.accepted).toBe(42);
  });

  it('keeps what each limit counted in its window: a restart within a second sends no more than the limit', async () => {
    const clock = new VirtualClock({ wallStart: Date.now() });
    // The model on the same clock: its window of 100 a second is the one the proxy keeps to.
    exchange = await startModelExchange({ port: 0, accounts: ACCOUNTS, fills: { maker: 0, taker: 0 }, clock });
    const file = join(dir(), 'state.json');
    proxy = await startProxy({ upstream: exchange.url, accounts: ACCOUNTS, stateFile: file, clock });
    expect(await place(proxy.url, 90)).toEqual(Array(90).fill(200));
    await clock.advance(300);
    await proxy.close();
    proxy = await startProxy({ upstream: exchange.url, accounts: ACCOUNTS, stateFile: file, clock });
    const used = () =>
      proxy!.limiters
        .get('desk')!
        .scheduler.stats()
        .limits.find((l) => l.name === 'main:futures.place')!.used;
    // The 90 of the last second, counted again: 10 more go now, the rest when those 90 leave the window.
    expect(used()).toBe(90);
    const sent = place(proxy.url, 20);
    await expect.poll(() => proxy!.limiters.get('desk')!.scheduler.stats().queued).toBe(10);
    expect(used()).toBe(100);
    await clock.advance(700);
    expect(await sent).toEqual(Array(20).fill(200));
    expect(exchange.stats().accounts[0]!.limits.find((l) => l.key === 'futures.place')!.most).toBeLessThanOrEqual(100);
  });

  it('says when the state file cannot be written, whatever the log, and carries on', async () => {
    const file = join(dir(), 'no-such-dir', 'state.json');
    const clock = new VirtualClock({ wallStart: Date.now() });
    const warnings: string[] = [];
    proxy = await startProxy({
      upstream: 'http://127.0.0.1:1',
      accounts: ACCOUNTS,
      stateFile: file,
      clock,
      warn: (m) => warnings.push(m),
    });
    await clock.advance(5_000);
    expect(warnings).toEqual([expect.stringMatching(/^the state file was not written: ENOENT/)]);
    await proxy.close();
    proxy = undefined;
    expect(warnings).toHaveLength(2);
  });

  it('refuses, by name, a file of another version or of other families or accounts, and starts nothing', async () => {
    const d = dir();
    const file = join(d, 'state.json');
    proxy = await startProxy({ upstream: 'http://127.0.0.1:1', accounts: ACCOUNTS, stateFile: file });
    await proxy.close();
    proxy = undefined;
    const good = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const cases: [unknown, string][] = [
      [{ ...good, version: 2 }, 'Expected the state file `version` to be version 1 (this proxy reads no other), got 2'],
      [{ ...good, format: 'x' }, 'Expected the state file `format` to be "traderatio.proxy-state"'],
      [
        { ...good, families: { other: (good.families as Record<string, unknown>).desk } },
        'Expected the state file `families` to be the families of the accounts file (desk); not in it: other; missing: desk, got "other"',
      ],
    ];
    for (const [state, message] of cases) {
      writeFileSync(file, JSON.stringify(state));
      await expect(startProxy({ upstream: 'http://127.0.0.1:1', accounts: ACCOUNTS, stateFile: file })).rejects.toThrow(
        message,
      );
      // Refused, never overwritten.
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(state);
    }
    const two = {
      families: [
        {
          id: 'desk',
          accounts: [
            { id: 'main', role: 'main', keys: [{ key: 'main-key', secret: 's' }] },
            { id: 'sub1', role: 'sub', keys: [{ key: 'sub-key', secret: 's' }] },
          ],
        },
      ],
    };
    writeFileSync(file, JSON.stringify(good));
    await expect(startProxy({ upstream: 'http://127.0.0.1:1', accounts: two, stateFile: file })).rejects.toThrow(
      'Expected the state file\'s family `desk` accounts to be the accounts of the accounts file\'s family desk (main, sub1), got "main"',
    );
  });

  it('keeps the counts across a restart of the command, SIGTERM then start again', async () => {
    exchange = await startModelExchange({ port: 0, accounts: ACCOUNTS, fills: { maker: 0, taker: 0 } });
    const d = dir();
    const accounts = join(d, 'accounts.json');
    writeFileSync(accounts, JSON.stringify(ACCOUNTS));
    const state = join(d, 'state.json');
    const start = async () => {
      const proc = spawn(
        process.execPath,
        [bin, 'proxy', '--port', '0', '--upstream', exchange!.url, '--accounts', accounts, '--state', state],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      child = proc;
      let out = '';
      proc.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
      const ended = new Promise<string>((done) => proc.once('exit', () => done(out)));
      const url = await new Promise<string>((done, fail) => {
        proc.stdout!.on('data', () => {
          const m = /traderatio proxy: (http:\/\/\S+) ->/.exec(out);
          if (m !== null && out.includes('counts')) done(m[1]!);
        });
        void ended.then(() => fail(new Error(out)));
      });
      return { url, ended, out: () => out };
    };
    const abuse = async (url: string) =>
      (
        (await (await fetch(`${url}/status.json`)).json()) as {
          accounts: { throttles: { kind: string; requests: number }[] }[];
        }
      ).accounts[0]!.throttles.find((t) => t.kind === 'abuse')!.requests;
    const first = await start();
    expect(first.out()).toContain(`counts kept in ${state} (none there yet`);
    await place(first.url, 25);
    const counted = await abuse(first.url);
    child!.kill('SIGTERM');
    await first.ended;
    const second = await start();
    expect(second.out()).toContain(`counts restored from ${state}`);
    const restored = await abuse(second.url);
    const atModel = exchange.stats().accounts[0]!.limits.find((l) => l.key === 'futures.place')!.accepted;
    console.log(
      `restart: ${counted} requests in the 24-hour window before, ${restored} after; the model counted ${atModel}`,
    );
    expect([counted, restored, atModel]).toEqual([25, 25, 25]);
  });
});
