// The Python example of docs/proxy.md, run as a reader would: through the proxy, against the model
// exchange verifying its signatures.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { proxyLabelsTable } from '../../scripts/troubleshooting.js';
import { proxyCommand } from '../../src/cli/commands/proxy.js';
import { withConfig } from '../../src/cli/proxy-config.js';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/index.js';
import { type RunningProxy, startProxy } from '../../src/proxy/server.js';
import { ACCOUNTS, runPython } from './helpers.js';

const doc = readFileSync(resolve(import.meta.dirname, '../../docs/proxy.md'), 'utf8');
const blocks = [...doc.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]!);

let exchange: RunningModelExchange | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await exchange?.close();
  proxy = exchange = undefined;
});

describe('docs/proxy.md', () => {
  it("lists the proxy's own labels as src/proxy/labels.ts has them (the table of troubleshooting.md)", () => {
    const rows = proxyLabelsTable()
      .split('\n')
      .filter((l) => l.startsWith('|'))
      .join('\n');
    expect(doc).toContain(rows);
  });

  it('gives a config file that --config takes as it is written', async () => {
    const json = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(json).toHaveLength(1);
    const file = join(mkdtempSync(join(tmpdir(), 'traderatio-docs-')), 'proxy.json');
    writeFileSync(file, json[0]!);
    const merged = await withConfig(
      { values: new Map([['config', file]]), typed: new Map([['config', '--config']]), positionals: [] },
      proxyCommand.options,
      (async function* () {})(),
    );
    expect(merged.args.values.get('upstream')).toBe('https://api.gateio.ws');
    expect(merged.args.values.get('log')).toBe('json');
    expect(merged.inline.get('accounts')?.value).toMatchObject({ families: [{ id: 'desk' }] });
  });

  it('points only to files that exist', () => {
    const root = resolve(import.meta.dirname, '../..');
    const paths = [...doc.matchAll(/(?:\]\(\.\.\/|`)((?:src|test|examples|bench|scripts)\/[\w./-]+\.\w+)/g)].map(
      (m) => m[1]!,
    );
    expect(paths.length).toBeGreaterThan(5);
    expect(paths.filter((p) => !existsSync(join(root, p)))).toEqual([]);
  });

  it('has one Python example', () => {
    expect(blocks).toHaveLength(1);
  });

  it('runs its Python example through the proxy, and the proxy counts its requests and fills', async () => {
    exchange = await startModelExchange({
      port: 0,
      accounts: ACCOUNTS,
      verifySignatures: true,
      fills: { seed: 3, maker: 0.5, taker: 0 },
    });
    proxy = await startProxy({ upstream: exchange.url, accounts: ACCOUNTS });
    const file = join(mkdtempSync(join(tmpdir(), 'traderatio-docs-')), 'example.py');
    writeFileSync(file, blocks[0]!);
    const r = await runPython(file, { GATE_URL: proxy.url }, 30_000);
    expect(r.err).toBe('');
    const [, cancelled, filled] = /^4 placed, (\d+) cancelled, (\d+) filled\n$/.exec(r.out)!.map(Number);
    // Some filled and some were cancelled with this seed: both paths ran.
    expect([cancelled! > 0, filled! > 0, cancelled! + filled!]).toEqual([true, true, 4]);
    const limiter = proxy.limiters.get('desk')!;
    expect(limiter.abuseHeadroom('main').requests).toBe(4 + cancelled!);
    // Each fill is 1 contract (0.0001 BTC) at 60,000 USDT: recorded from the my_trades answer.
    await expect.poll(() => limiter.abuseHeadroom('main').traded).toBe(String(6 * filled!));
    expect(exchange.stats().accounts[0]!.refused).toEqual({});
  });
});
