import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runModelExchange } from '../../../src/cli/commands/model-exchange.js';

function args(values: Record<string, string | true>, positionals: string[] = []) {
  return {
    values: new Map(Object.entries(values)),
    typed: new Map(Object.keys(values).map((k) => [k, `--${k}`])),
    positionals,
  };
}

describe('traderatio exchange', () => {
  it('prints its URL, serves until stopped, then prints what it counted per account', async () => {
    const lines: string[] = [];
    let stop!: (signal: string) => void;
    const stopped = new Promise<string>((resolve) => (stop = resolve));
    const run = runModelExchange(args({ port: '0', window: 'fixed' }), {
      out: (line) => {
        lines.push(line);
        const url = /^traderatio exchange: (http:\/\/\S+)$/.exec(line)?.[1];
        if (url === undefined) return;
        void fetch(`${url}/api/v4/futures/usdt/orders`, {
          method: 'POST',
          headers: { KEY: 'main-key' },
          body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' }),
        })
          .then((res) => res.text())
          .then(() => stop('SIGINT'));
      },
      stop: stopped,
      stdin: (async function* () {})(),
    });
    await run;
    expect(lines[0]).toMatch(/^traderatio exchange: http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[2]).toContain('window fixed');
    expect(lines).toContain('traderatio exchange: stopped (SIGINT)');
    expect(lines.at(-1)).toMatch(/^ {2}account main \(default\): 1 accepted, refused none; tier 1 /);
  });

  it('prints the token the administration requires, and requires it', async () => {
    const lines: string[] = [];
    let stop!: (signal: string) => void;
    const stopped = new Promise<string>((resolve) => (stop = resolve));
    const statuses: number[] = [];
    await runModelExchange(args({ port: '0', 'admin-token': 'a-long-token' }), {
      out: (line) => {
        lines.push(line);
        const url = /^traderatio exchange: (http:\/\/\S+)$/.exec(line)?.[1];
        if (url === undefined) return;
        void (async () => {
          statuses.push((await fetch(`${url}/_model/stats`)).status);
          statuses.push(
            (await fetch(`${url}/_model/stats`, { headers: { Authorization: 'Bearer a-long-token' } })).status,
          );
          stop('SIGTERM');
        })();
      },
      stop: stopped,
      stdin: (async function* () {})(),
    });
    expect(lines).toContain('  administration requires the header Authorization: Bearer a-long-token');
    expect(statuses).toEqual([401, 200]);
    const run = { out: () => {}, stop: new Promise<string>(() => {}), stdin: (async function* () {})() };
    await expect(runModelExchange(args({ port: '0', 'admin-token': 'short' }), run)).rejects.toThrow(
      '--admin-token takes a token of at least 8 characters',
    );
  });

  it('refuses a FILE argument and a window it does not know', async () => {
    const run = { out: () => {}, stop: new Promise<string>(() => {}), stdin: (async function* () {})() };
    await expect(runModelExchange(args({}, ['accounts.json']), run)).rejects.toThrow(
      'exchange takes no FILE, got "accounts.json"',
    );
    await expect(runModelExchange(args({ port: '0', window: 'rolling' }), run)).rejects.toThrow('rolling');
  });

  it('names the history file and the field when its spotHours are wrong', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-exchange-'));
    const file = join(dir, 'history.json');
    writeFileSync(file, JSON.stringify({ spotHours: [{ account: 'main', hour: -1, requests: 'many' }] }));
    const run = { out: () => {}, stop: new Promise<string>(() => {}), stdin: (async function* () {})() };
    await expect(runModelExchange(args({ port: '0', history: file }), run)).rejects.toThrow(
      /history\.json.*`spotHours\[0\]\.requests`.*"many"/s,
    );
    // The line is the value's, in a file laid out over many.
    writeFileSync(
      file,
      JSON.stringify(
        {
          activity: [
            { account: 'main', day: -2, contracts: [] },
            { account: 'main', day: -1, contracts: [{ contract: 'BTC_USDT', place: -1 }] },
          ],
        },
        null,
        2,
      ),
    );
    await expect(runModelExchange(args({ port: '0', history: file }), run)).rejects.toThrow(
      `${file}:8: Expected \`place\` of BTC_USDT in \`activity[1]\``,
    );
  });
});
