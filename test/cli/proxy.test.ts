import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { proxyCommand as proxyCommandSpec } from '../../src/cli/commands/proxy.js';
import { proxyCommand } from '../../src/cli/proxy.js';
import { startModelExchange } from '../../src/model-exchange/index.js';

function args(values: Record<string, string | true>, positionals: string[] = []) {
  return {
    values: new Map(Object.entries(values)),
    typed: new Map(Object.keys(values).map((k) => [k, `--${k}`])),
    positionals,
  };
}

const proxyOptions = proxyCommandSpec.options;
const idle = () => ({ out: () => {}, stop: new Promise<string>(() => {}), stdin: (async function* () {})() });

describe('traderatio proxy', () => {
  it('prints its URL, forwards until stopped, logs without secrets, then prints what each family sent', async () => {
    const exchange = await startModelExchange({ port: 0 });
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-proxy-'));
    const accounts = join(dir, 'accounts.json');
    // The model's file, less its secrets: the proxy never signs.
    writeFileSync(
      accounts,
      JSON.stringify({
        families: [{ id: 'default', accounts: [{ id: 'main', role: 'main', keys: [{ key: 'main-key' }] }] }],
      }),
    );
    const lines: string[] = [];
    let stop!: (signal: string) => void;
    const stopped = new Promise<string>((resolve) => (stop = resolve));
    await proxyCommand(args({ port: '0', upstream: exchange.url, accounts, log: 'text' }), {
      out: (line) => {
        lines.push(line);
        const url = /^traderatio proxy: (http:\/\/\S+) -> /.exec(line)?.[1];
        if (url === undefined) return;
        void fetch(`${url}/api/v4/futures/usdt/orders`, {
          method: 'POST',
          headers: { KEY: 'main-key', SIGN: 'not-logged' },
          body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' }),
        })
          .then((res) => res.text())
          .then(() => stop('SIGTERM'));
      },
      stop: stopped,
      stdin: (async function* () {})(),
    });
    await exchange.close();
    expect(lines[0]).toMatch(/^traderatio proxy: http:\/\/127\.0\.0\.1:\d+ -> http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[2]).toMatch(/^ {2}1 family; stop with Ctrl-C$/);
    expect(lines).toContainEqual(
      expect.stringMatching(/^POST \/api\/v4\/futures\/usdt\/orders 200 by exchange default\/main waited /),
    );
    expect(lines).toContain('traderatio proxy: stopped (SIGTERM)');
    expect(lines).toContain('  default: 1 sent, 0 answered by the proxy');
    expect(lines).toContain('  ip: 0 sent, 0 answered by the proxy');
    expect(lines.join('\n')).not.toMatch(/main-key|not-logged/);
  });

  it('reads its options from --config FILE, accounts inline, the command line overriding it', async () => {
    const exchange = await startModelExchange({ port: 0 });
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-proxy-'));
    const config = join(dir, 'proxy.json');
    writeFileSync(
      config,
      JSON.stringify(
        {
          upstream: exchange.url,
          port: 0,
          'timeout-ms': 5000,
          log: 'text',
          state: 'state.json',
          accounts: { families: [{ id: 'desk', accounts: [{ id: 'main', role: 'main', keys: [{ key: 'k1' }] }] }] },
        },
        null,
        2,
      ),
    );
    const lines: string[] = [];
    let stop!: (signal: string) => void;
    const stopped = new Promise<string>((resolve) => (stop = resolve));
    await proxyCommand(
      args({ config, log: 'json' }),
      {
        out: (line) => {
          lines.push(line);
          const url = /^traderatio proxy: (http:\/\/\S+) -> /.exec(line)?.[1];
          if (url === undefined) return;
          void fetch(`${url}/api/v4/spot/accounts`, { headers: { KEY: 'k1' } })
            .then((res) => res.text())
            .then(() => stop('SIGTERM'));
        },
        stop: stopped,
        stdin: (async function* () {})(),
      },
      proxyOptions,
    );
    await exchange.close();
    // The file's accounts and state (beside it), the command line's log format.
    expect(lines).toContain(
      `  counts kept in ${join(dir, 'state.json')} (none there yet: it is written every 5 s and on stopping)`,
    );
    expect(lines).toContainEqual(expect.stringMatching(/^\{"time":.*"family":"desk","account":"main"/));
    expect(readdirSync(dir).sort()).toEqual(['proxy.json', 'state.json']);
  });

  it('refuses a config file key that is no option, or a value of the wrong kind, naming the key and its line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-proxy-'));
    const config = join(dir, 'proxy.json');
    const cases: [Record<string, unknown>, string][] = [
      [
        { upstream: 'http://127.0.0.1:1', 'timout-ms': 5 },
        `${config}:3: "timout-ms" is not an option of traderatio proxy; the config file takes "upstream"`,
      ],
      [{ upstream: 'http://127.0.0.1:1', port: [1] }, `${config}:3: "port" takes a whole number, got [1]`],
      [
        { upstream: 'http://127.0.0.1:1', 'timeout-ms': 'soon' },
        '"timeout-ms" of ' + config + ' takes a whole number from 1, got "soon"',
      ],
      [{ upstream: 7 }, `${config}:2: "upstream" takes a string, got 7`],
      [
        { upstream: 'http://127.0.0.1:1', accounts: 5 },
        `${config}:3: "accounts" takes a file's path or its JSON, got 5`,
      ],
      [
        {
          upstream: 'http://127.0.0.1:1',
          accounts: { families: [{ id: 'desk', accounts: [{ id: 'main', role: 'boss' }] }] },
        },
        `${config}:1: Expected`,
      ],
    ];
    for (const [value, message] of cases) {
      writeFileSync(config, JSON.stringify(value, null, 2));
      await expect(proxyCommand(args({ config }), idle(), proxyOptions)).rejects.toThrow(message);
    }
  });

  it('refuses a --log that is neither text nor json', async () => {
    await expect(proxyCommand(args({ upstream: 'http://127.0.0.1:1', log: 'yaml' }), idle())).rejects.toThrow(
      '--log takes text or json, got "yaml"',
    );
  });

  it('refuses a missing or bad --upstream, a FILE argument, a bad port and --redis-prefix alone', async () => {
    await expect(proxyCommand(args({}), idle())).rejects.toThrow('proxy needs --upstream URL');
    await expect(proxyCommand(args({ upstream: 'gate' }), idle())).rejects.toThrow(
      '--upstream takes an http or https URL, got "gate"',
    );
    await expect(proxyCommand(args({ upstream: 'http://u:p@127.0.0.1:1' }), idle())).rejects.toThrow(
      '--upstream takes an http or https URL without credentials, query or fragment, got "http://u:p@127.0.0.1:1"',
    );
    await expect(proxyCommand(args({ upstream: 'http://127.0.0.1:1' }, ['accounts.json']), idle())).rejects.toThrow(
      'proxy takes no FILE, got "accounts.json"',
    );
    await expect(proxyCommand(args({ upstream: 'http://127.0.0.1:1', port: '70000' }), idle())).rejects.toThrow(
      '--port takes a whole number to 65535',
    );
    await expect(proxyCommand(args({ upstream: 'http://127.0.0.1:1', 'redis-prefix': 'x' }), idle())).rejects.toThrow(
      '--redis-prefix takes a name, and goes with --redis URL',
    );
    await expect(
      proxyCommand(args({ upstream: 'http://127.0.0.1:1', 'futures-ws': 'http://x' }), idle()),
    ).rejects.toThrow('--futures-ws takes a ws or wss URL, got "http://x"');
  });

  it('names the history file, the line of the value and the field of what the limits refuse', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-proxy-'));
    const file = join(dir, 'history.json');
    const refused = (history: unknown) => {
      writeFileSync(file, JSON.stringify(history, null, 2));
      return proxyCommand(args({ upstream: 'http://127.0.0.1:1', port: '0', history: file }), idle());
    };
    const day = { account: 'main', day: -2, contracts: [] };
    await expect(
      refused({
        activity: [
          day,
          { account: 'main', day: -1, contracts: [{ contract: 'BTC_USDT', makerVolume: 'NaN', place: 1 }] },
        ],
      }),
    ).rejects.toThrow(`${file}:8: Expected \`makerVolume\` of BTC_USDT in \`activity[1]\``);
    await expect(
      refused({
        activity: [day],
        spotHours: [
          { account: 'main', hour: -1, requests: 1 },
          { account: 'bot', hour: -1, requests: 1 },
        ],
      }),
    ).rejects.toThrow(`${file}:16: Expected \`spotHours[1].account\` to be an account of the accounts file, got "bot"`);
  });

  it('names the accounts file and the field when a key is wrong', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-proxy-'));
    const file = join(dir, 'accounts.json');
    writeFileSync(file, JSON.stringify({ families: [{ id: 'd', accounts: [{ id: 'A', keys: [{ key: '' }] }] }] }));
    await expect(
      proxyCommand(args({ upstream: 'http://127.0.0.1:1', port: '0', accounts: file }), idle()),
    ).rejects.toThrow(/accounts\.json.*`families\[0\]\.accounts\[0\]`\.keys\[0\].*got \{"key":""\}/s);
  });

  it('serves OKX with --exchange okx, forwarding to https://www.okx.com unless told otherwise', async () => {
    const lines: string[] = [];
    await proxyCommand(args({ port: '0', exchange: 'okx' }), {
      out: (line) => lines.push(line),
      stop: Promise.resolve('SIGTERM'),
      stdin: (async function* () {})(),
    });
    expect(lines[0]).toMatch(/^traderatio proxy: http:\/\/127\.0\.0\.1:\d+ -> https:\/\/www\.okx\.com$/);
    expect(lines[1]).toMatch(
      /^ {2}OKX REST under http:\/\/127\.0\.0\.1:\d+\/api\/v5 \(the account by OK-ACCESS-KEY\), metrics at /,
    );
    await expect(proxyCommand(args({ port: '0', exchange: 'kraken' }), idle())).rejects.toThrow(
      '--exchange takes the name of an exchange, one of gate, okx, got "kraken"',
    );
  });
});
