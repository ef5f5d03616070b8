// The command line as a user runs it, in this process: the CLI's `run` with the arguments, its
// standard streams and its standard input given, as bin.ts gives them. What needs a process of its
// own (the shebang, exit codes, a closed pipe, the exchange's relaunch and Ctrl-C) runs the built
// binary; `npm test` builds dist/ first when it is older than the sources.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildIsStale } from '../../scripts/built.js';
import { run } from '../../src/cli/main.js';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'dist/cli/bin.js');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Runs the command line in this process; standard output and error as a process would write them. */
async function cli(args: readonly string[], input?: string | Buffer) {
  let out = '';
  let err = '';
  const stdin = (async function* () {
    if (input !== undefined && input.length > 0) yield input;
  })();
  const code = await run(args, { out: (line) => (out += `${line}\n`), err: (line) => (err += `${line}\n`) }, { stdin });
  return { code, out, err };
}

/** The command with its standard output closed before it writes a byte. */
function closedOutput(args: readonly string[]): Promise<{ code: number | null; signal: string | null; err: string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  return new Promise((done) => child.on('close', (code, signal) => done({ code, signal, err })));
}

let dir: string;
beforeAll(() => {
  if (buildIsStale(root))
    throw new Error('dist/cli/bin.js is missing or older than src/: run `npm run build` first (npm test does it)');
  dir = mkdtempSync(join(tmpdir(), 'traderatio-bin-'));
});

const file = (name: string, content: string | Buffer): string => {
  writeFileSync(join(dir, name), content);
  return join(dir, name);
};

describe('the binary', () => {
  it('runs as a program of its own (its shebang) and exits with the status of the command', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    const ok = spawnSync(bin, ['--version'], { cwd: root, encoding: 'utf8' });
    expect([ok.status, ok.stdout, ok.stderr]).toEqual([0, `${version}\n`, '']);
    const usage = spawnSync(bin, ['plan', 'examples/family.csv', '--json=yes'], { cwd: root, encoding: 'utf8' });
    expect([usage.status, usage.stdout, usage.stderr]).toEqual([
      2,
      '',
      'traderatio: --json takes no value, got "yes"\n',
    ]);
  });
});

describe('a closed pipe', () => {
  // One command that writes at once, one that streams its input first.
  it.each([['help'], ['simulate', 'examples/requests.csv']])(
    'ends %s quietly with status 141, as a tool ended by SIGPIPE',
    async (...args) => {
      const r = await closedOutput(args);
      expect(r).toEqual({ code: 141, signal: null, err: '' });
    },
  );
});

describe('a byte-order mark', () => {
  const inputs: [string, string, string[]][] = [
    ['plan', 'examples/family.csv', []],
    ['plan', 'examples/family.json', []],
    ['timeline', 'examples/timeline.json', []],
    ['simulate', 'examples/requests.csv', ['--json']],
  ];
  // simulate reports how long it took: everything else must be the same.
  const stable = (out: string) => out.replace(/"seconds": [\d.e-]+/, '"seconds": 0');

  it.each(inputs)('is read past in a %s file (%s) and on standard input', async (command, path, flags) => {
    const plain = await cli([command, path, ...flags]);
    expect(plain.code).toBe(0);
    const withBom = Buffer.concat([BOM, readFileSync(join(root, path))]);
    const named = file(`bom-${path.replace(/\W/g, '-')}${path.slice(path.lastIndexOf('.'))}`, withBom);
    const fromFile = await cli([command, named, ...flags]);
    expect({ code: fromFile.code, err: fromFile.err }).toEqual({ code: 0, err: '' });
    expect(stable(fromFile.out)).toBe(stable(plain.out));
    const fromStdin = await cli([command, '-', ...flags], withBom);
    expect({ code: fromStdin.code, err: fromStdin.err }).toEqual({ code: 0, err: '' });
    expect(stable(fromStdin.out)).toBe(stable(plain.out));
  });

  it('is not taken for part of the first column name when the log has no newline at all', async () => {
    const r = await cli(
      ['simulate', '-', '--json'],
      Buffer.concat([BOM, Buffer.from('at,account,method,path\r\n1763629200000,main,GET,/api/v4/spot/tickers')]),
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ lines: 2, requests: 1 });
  });
});

describe('standard input', () => {
  it.each([
    ['plan', 'examples/family.csv'],
    ['plan', 'examples/family.json'],
    ['timeline', 'examples/timeline.json'],
  ])('is read for - (%s %s)', async (command, path) => {
    const r = await cli([command, '-'], readFileSync(join(root, path)));
    expect(r).toEqual({ ...(await cli([command, path])), code: 0 });
  });

  it('streams a request log for simulate -', async () => {
    const r = await cli(['simulate', '-', '--json'], readFileSync(join(root, 'examples/requests.csv')));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ lines: 569, requests: 537, fills: 31, exchange: { refused: 54 } });
  });

  it('is named <stdin> in messages', async () => {
    expect((await cli(['plan', '-'], 'account,contract,place\nA,BTC_USDT,x\n')).err).toBe(
      'traderatio: <stdin>:2: Expected `place` to be a non-negative integer, got "x"\n',
    );
  });
});

describe('empty and odd inputs', () => {
  it('says that a timeline without activity has nothing to show, and draws no chart', async () => {
    const input = file('no-activity.json', '{\n  "accounts": [{ "id": "main" }],\n  "activity": []\n}\n');
    const svg = join(dir, 'no-activity.svg');
    const r = await cli(['timeline', input, '--svg', svg]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `traderatio: ${input}:3: no activity: \`activity\` is empty, and without it every limit stays at tier 1; give each account's daily figures ({ "account", "day", "contracts" })\n`,
    );
    expect(r.out).toBe('');
    expect(statSync(svg, { throwIfNoEntry: false })).toBeUndefined();
  });

  it.each([
    ['plan', 'empty.csv', '', ':1: the file is empty: it needs a header row'],
    ['plan', 'header.csv', 'account,contract\n', ':1: no activity: the file needs at least one row'],
    ['plan', 'empty.json', '\n', ':1: the file is empty: it needs a JSON value'],
    ['timeline', 'empty.json', '', ':1: the file is empty: it needs a JSON value'],
    ['simulate', 'empty.csv', '', ':1: the file is empty: it needs a header row'],
    [
      'simulate',
      'header.csv',
      'at,account,method,path\n# nothing yet\n',
      ':2: no requests and no fills: the log has a header and nothing else',
    ],
  ])('refuses an empty %s input (%s) in plain words', async (command, name, content, message) => {
    const path = file(`${command}-${name}`, content);
    expect(await cli([command, path])).toEqual({ code: 1, out: '', err: `traderatio: ${path}${message}\n` });
  });

  it.each(['plan', 'timeline', 'simulate'])('names a directory given to %s as its file', async (command) => {
    const d = join(dir, `a-directory-${command}`);
    mkdirSync(d);
    expect(await cli([command, d])).toEqual({
      code: 1,
      out: '',
      err: `traderatio: ${d}: cannot read it: it is a directory, not a file (EISDIR)\n`,
    });
  });

  it.each(['plan', 'timeline', 'simulate'])(
    'refuses a binary file given to %s without echoing its bytes',
    async (command) => {
      // The start of a PNG: bytes past ASCII, an escape sequence, a NUL.
      const path = file(
        `image-${command}.png`,
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x1b, 0x5b, 0x32, 0x4a, 0x00, 0x00, 0x0d]),
      );
      const r = await cli([command, path]);
      expect(r).toEqual({
        code: 1,
        out: '',
        err: `traderatio: ${path}:1: not UTF-8 text: byte 1 of the line is 0x89; save the file as UTF-8 (or is it a binary file?)\n`,
      });
    },
  );

  it('names the line of a NUL byte in a file that starts as text', async () => {
    const path = file('nul.csv', 'account,contract\nA,BTC_USDT\nB,ETH\u0000USDT\n');
    expect((await cli(['plan', path])).err).toBe(
      `traderatio: ${path}:3: not text: a NUL byte at byte 6 of the line; is it a binary file?\n`,
    );
    const log = file(
      'nul-log.csv',
      'at,account,method,path\n1793491200000,main,GET,/api/v4/spot/tickers\n1793491200001,main,GET,/api/v4/spot/tick\u0000ers\n',
    );
    expect((await cli(['simulate', log])).err).toBe(
      `traderatio: ${log}:3: not text: a NUL byte at byte 41 of the line; is it a binary file?\n`,
    );
  });

  it('refuses UTF-16 by name', async () => {
    const path = file(
      'utf16.csv',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('account,contract\n', 'utf16le')]),
    );
    expect((await cli(['plan', path])).err).toBe(`traderatio: ${path}:1: the file is UTF-16 text; save it as UTF-8\n`);
  });

  it('shows control characters of a message as escapes', async () => {
    const path = file('escape.csv', 'account,contract,\u001b[2Jplace\u0007\nA,BTC_USDT,1\n');
    const r = await cli(['plan', path]);
    expect(r.err).toMatch(new RegExp(`^traderatio: ${path}:1: `));
    expect(r.err).toContain('\\x1b[2Jplace\\x07');
    expect(r.err).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });
});

describe('commands and options', () => {
  it('prints the version with --version', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(await cli(['--version'])).toEqual({ code: 0, out: `${version}\n`, err: '' });
  });

  it('prints the worked example as JSON with example --json, under both readings of the family rules (see docs/rules.md#r7)', async () => {
    const r = await cli(['example', '--json']);
    expect(r.code).toBe(0);
    const { readings } = JSON.parse(r.out) as {
      readings: {
        ownVolumeThreshold: string;
        aggregated: { numerator: string; denominator: string };
        accounts: { limit: number }[];
      }[];
    };
    expect(readings.map((x) => x.ownVolumeThreshold)).toEqual(['0', '1000000']);
    expect(readings[0]!.aggregated).toMatchObject({ numerator: '1057', denominator: '129' });
    expect(readings.map((x) => x.accounts.map((a) => a.limit))).toEqual([
      [250, 250, 300],
      [250, 250, 250],
    ]);
  });

  it.each([
    ['example', '--help'],
    ['example', '-h'],
    ['help', 'example'],
  ])('prints the help of example for %s %s', async (...args) => {
    const r = await cli(args);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: traderatio example \[options\]\n/);
    expect(r.out).toContain('--json');
    expect(r.out).not.toContain('318/44');
  });

  it.each([
    [['example', '--bogus'], 'example has no option --bogus; its options are --json, --help'],
    [['example', 'family.csv'], 'example takes no FILE, got "family.csv"'],
    [
      ['help', 'bogus'],
      'no command "bogus"; the commands are plan, timeline, simulate, advise, exchange, proxy, example',
    ],
    [['bogus'], 'unknown command "bogus"; the commands are plan, timeline, simulate, advise, exchange, proxy, example'],
    [['--bogus'], 'unknown option --bogus; run "traderatio --help"'],
    [
      ['timeline', 'examples/timeline.json', '--vip', '13'],
      'timeline has no option --vip (the VIP level is in the file: "vipLevel", and "vipChanges" over time); its options are --svg, --html, --exchange, --threshold, --broker, --json, --help',
    ],
    [
      ['plan', 'examples/family.csv', '--threshold', '-5'],
      '--threshold takes a non-negative amount of USDT (such as 1000000 or 250000.50), got "-5"',
    ],
    [
      ['plan', 'examples/family.csv', '--threshold=1,000'],
      '--threshold takes a non-negative amount of USDT (such as 1000000 or 250000.50), got "1,000"',
    ],
    [
      ['timeline', 'examples/timeline.json', '--threshold', 'lots'],
      '--threshold takes a non-negative amount of USDT (such as 1000000 or 250000.50), got "lots"',
    ],
    [
      ['plan', 'examples/family.csv', '--threshold'],
      '--threshold needs a value (--threshold X): own 7-day volume (USDT) from which an account takes max(own, aggregated) (default 1000000)',
    ],
    [
      ['timeline', 'examples/timeline.json', '--svg', '--json'],
      '--svg needs a value (--svg OUT), got the option --json',
    ],
    [
      ['plan', 'examples/family.csv', '--vip', 'high'],
      '--vip takes a VIP level (a whole number such as 14), got "high"',
    ],
    [
      ['simulate', 'examples/requests.csv', '--vip=-1'],
      '--vip takes a VIP level (a whole number such as 14), got "-1"',
    ],
    [['plan', 'examples/family.csv', '--json=yes'], '--json takes no value, got "yes"'],
    [
      ['plan', 'examples/family.csv', '-x'],
      'plan has no option -x; its options are --exchange, --vip, --threshold, --broker, --json, --help',
    ],
  ])('refuses %j with exit code 2, naming what was typed', async (args, message) => {
    expect(await cli(args)).toEqual({ code: 2, out: '', err: `traderatio: ${message}\n` });
  });

  it('reads a file whose name starts with a dash after --', async () => {
    file('-family.csv', readFileSync(join(root, 'examples/family.csv')));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const r = await cli(['plan', '--json', '--', '-family.csv']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out).accounts).toHaveLength(4);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('unknown fields', () => {
  const timeline = (contract: string, extra = '') =>
    `{\n  "accounts": [{ "id": "main", "role": "main" }],${extra}\n  "activity": [\n    { "account": "main", "day": "2026-11-01", "contracts": [${contract}] }\n  ]\n}\n`;
  it.each([
    [
      'timeline',
      'snake.json',
      timeline('{ "contract": "BTC_USDT", "maker_volume": "800000", "place": 10 }'),
      ':4: Unknown field `maker_volume` in `contracts[0]` in `activity[0]` (main, 2026-11-01): did you mean `makerVolume`?',
    ],
    [
      'timeline',
      'short.json',
      timeline('{ "contract": "BTC_USDT", "takerVol": "800000", "place": 10 }'),
      ':4: Unknown field `takerVol` in `contracts[0]` in `activity[0]` (main, 2026-11-01): did you mean `takerVolume`?',
    ],
    [
      'timeline',
      'top.json',
      timeline('{ "contract": "BTC_USDT", "place": 10 }', '\n  "vip_level": 12,'),
      ':3: Unknown field `vip_level` in the timeline input: did you mean `vipLevel`?',
    ],
    [
      'timeline',
      'foo.json',
      timeline('{ "contract": "BTC_USDT", "place": 10 }', '\n  "foo": 1,'),
      ':3: Unknown field `foo` in the timeline input. The fields are accounts, activity, vipLevel, vipChanges, hours, spotHours',
    ],
    [
      'plan',
      'snake.json',
      '[\n  { "account": "A", "contract": "BTC_USDT",\n    "maker_volume": "5" }\n]\n',
      ':3: Unknown field `maker_volume` in row 0: did you mean `makerVolume`?',
    ],
    [
      'plan',
      'camel.csv',
      'account,contract,makerVolume\nA,BTC_USDT,5\n',
      ':1: unknown column "makerVolume": did you mean "maker_volume"? The columns are account, contract, maker_volume',
    ],
    [
      'simulate',
      'camel.csv',
      'at,account,method,path,fillRole\n',
      ':1: unknown column "fillRole": did you mean "fill_role"?',
    ],
    [
      'plan',
      'proto.csv',
      'account,contract,maker_volume,__proto__\nA,BTC_USDT,5,1\n',
      ':1: unknown column "__proto__". The columns are account, contract, maker_volume',
    ],
  ])(
    '%s refuses an unknown field in %s, naming its line and the closest known one',
    async (command, name, content, message) => {
      const path = file(`unknown-${command}-${name}`, content);
      const r = await cli([command, path]);
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
      expect(r.err).toContain(`traderatio: ${path}${message}`);
    },
  );

  it('reads a plan in JSON with the library spelling', async () => {
    const r = await cli(['plan', 'examples/family.json', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).accounts).toHaveLength(3);
  });
});

describe('plan margins', () => {
  it('offers no margin below VIP 14, and says why', async () => {
    const r = await cli(['plan', 'examples/family.csv', '--vip', '13']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^A\s+7\.2273\s+13\.1177\s+aggregated\s+1\s+100 r\/s\s+-\s+-$/m);
    expect(r.out).not.toContain('maker USDT');
    expect(r.out).toContain(
      'Below VIP 14 every account is at tier 1 whatever its ratio: no volume and no request count changes the limit.',
    );
    const json = JSON.parse((await cli(['plan', 'examples/family.csv', '--vip', '13', '--json'])).out);
    expect(json.accounts[0]).toMatchObject({ tier: 1, up: null, down: null });
  });

  it('gives the spare before the tier below in one meaning, 0 and 0 at a ratio exactly on the bound', async () => {
    const r = await cli(['plan', '-'], 'account,contract,maker_volume,place\nA,BTC_USDT,1000,100\n');
    expect(r.code).toBe(0);
    expect(r.out).toContain('0.00 maker USDT or 0 requests, then 250 r/s');
    expect(r.out).not.toContain('-0.00');
    expect(r.out).toContain(
      'Spare before the tier below: the maker volume that may be lost, or the requests that may be added, with the tier kept;\nany more drops it.',
    );
  });
});

describe('numbers', () => {
  it.each([['1e5'], ['1e400'], ['+5'], ['.5'], ['5.']])(
    'refuses the amount %s in a plan, naming the line and field',
    async (amount) => {
      const path = file(`amount-${amount}.csv`, `account,contract,maker_volume,place\nA,BTC_USDT,${amount},100\n`);
      expect(await cli(['plan', path])).toEqual({
        code: 1,
        out: '',
        err: `traderatio: ${path}:2: Expected \`maker_volume\` of BTC_USDT in account A to be a non-negative decimal string, got "${amount}"\n`,
      });
    },
  );

  it('refuses the count 1e3, as every count is digits', async () => {
    const path = file('count.csv', 'account,contract,maker_volume,place\nA,BTC_USDT,5,1e3\n');
    expect((await cli(['plan', path])).err).toBe(
      `traderatio: ${path}:2: Expected \`place\` to be a non-negative integer, got "1e3"\n`,
    );
  });

  it('prints ratios to 8 places in JSON with the exact fraction beside them, and huge counts as integers', async () => {
    const json = JSON.parse(
      (await cli(['plan', '-', '--json'], 'account,contract,maker_volume,place\nA,BTC_USDT,1000,3\n')).out,
    );
    expect(json.accounts[0].own).toMatchObject({ ratio: '333.33333333', numerator: '1000', denominator: '3' });
    const huge = await cli(['plan', '-'], `account,contract,maker_volume,place\nA,BTC_USDT,1${'0'.repeat(60)},1\n`);
    expect(huge.code).toBe(0);
    expect(huge.out).not.toMatch(/\de\+\d/);
  });

  it('says which account each refused request came from, and counts in the singular for 1', async () => {
    const r = await cli(['simulate', 'examples/requests.csv']);
    expect(r.out).toMatch(/^ {2}e\.g\. line 102 at 2026-11-20T09:00:00\.300Z: account main over futures\.place$/m);
    const one = await cli(
      ['simulate', '-'],
      'at,account,method,path,fill_role,fill_volume,contract\n2026-11-20T09:00:00Z,main,GET,/spot/tickers,,,\n2026-11-20T09:00:01Z,main,,,maker,5,BTC_USDT\n',
    );
    expect(one.out).toMatch(/^3 lines \(1 request, 1 fill\) from/);
    expect(one.out).toContain('As sent, the exchange would refuse 0 requests with 429.');
  });
});

describe('exchange', () => {
  it('runs the model in its own node, and stops on a Ctrl-C with its summary', async () => {
    // A process group of its own, as a terminal's foreground job: a Ctrl-C reaches all of it.
    const child = spawn(process.execPath, [bin, 'exchange', '--port', '0'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (s: string) => {
        out += s;
        const m = /^traderatio exchange: (http:\S+)$/m.exec(out);
        if (m !== null) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`exited with ${code} before its URL: ${out}`)));
    });
    // One process: node is not started again with other flags.
    expect(spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).stdout.trim()).toBe('');
    const placed = await fetch(`${url}/api/v4/futures/usdt/orders`, {
      method: 'POST',
      headers: { KEY: 'main-key' },
      body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' }),
    });
    expect(placed.status).toBe(200);
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    process.kill(-child.pid!, 'SIGINT');
    expect(await closed).toBe(0);
    expect(out).toContain('traderatio exchange: stopped (SIGINT)');
    expect(out).toMatch(/account main \(default\): 1 accepted, refused none/);
  });
});
