// Every recipe of docs/integrations.md is a complete program in examples/integrations/, shown in
// the guide as it is (test/scripts/integrations.test.ts): each runs here against the model exchange
// (one it starts itself, or the one given as GATE_URL or OKX_URL, as a user points a recipe at the
// exchange) and must end well.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelExchange, type RunningModelExchange } from '../../src/model-exchange/index.js';

const run = promisify(execFile);
const dir = join(import.meta.dirname, '../../examples/integrations');
const examples = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .sort();

let exchange: RunningModelExchange;
let okx: RunningModelExchange;
beforeAll(async () => {
  exchange = await startModelExchange({ port: 0 });
  okx = await startModelExchange({ exchange: 'okx', port: 0, verifySignatures: true, fills: { maker: 0, taker: 0 } });
});
afterAll(async () => {
  await exchange.close();
  await okx.close();
});

/** Runs one recipe pointed at the model exchange; its output. */
async function recipe(file: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(dir, file)], {
    env: {
      ...process.env,
      GATE_URL: exchange.url,
      GATE_WS_URL: exchange.wsUrl,
      GATE_KEY: 'main-key',
      GATE_SECRET: 'model',
      OKX_URL: okx.url,
      OKX_KEY: 'main-key',
      OKX_SECRET: 'main-secret',
      OKX_PASSPHRASE: 'main-pass',
    },
    timeout: 60_000,
  });
  return stdout;
}

describe('examples/integrations against the model exchange', () => {
  it("has a recipe for Node's fetch and the WebSocket API, and OKX's for ccxt, fetch and the proxy", () => {
    expect(examples).toEqual(
      expect.arrayContaining(['fetch.ts', 'websocket.ts', 'okx-ccxt.ts', 'okx-fetch.ts', 'okx-proxy.ts']),
    );
  });

  it.each(examples)(
    '%s runs to its end without a refusal',
    async (file) => {
      expect(await recipe(file)).toContain(`${file.replace(/\.ts$/, '')}:`);
      const model = file.startsWith('okx-') ? okx : exchange;
      const stats = model.stats().accounts.find((a) => a.account === 'main');
      for (const l of stats?.limits ?? []) expect(l.refused, l.key).toBe(0);
    },
    90_000,
  );

  it('fetch.ts places its forty orders, cancels one and records the fills my_trades reports', async () => {
    const out = await recipe('fetch.ts');
    expect(out).toContain('placed: 40 of 40');
    expect(out).toMatch(/cancel: 20\d/);
    expect(out).toMatch(/fills counted: [\d.]+ USDT/);
    // The model's tier-1 account: the exchange's own figure, asked before the first order.
    expect(out).toMatch(/fetch: limit 100 r\/s \(tier 1, exchange\)/);
  }, 90_000);

  it('okx-fetch.ts places its forty orders, cancels one, on the limit the exchange reports', async () => {
    const out = await recipe('okx-fetch.ts');
    expect(out).toContain('placed: 40 of 40');
    expect(out).toContain('cancel: 0');
    expect(out).toMatch(/okx-fetch: limit 1000 per 2 s \(exchange\); exchange clock [\d.-]+ ms off/);
    expect(okx.stats().accounts[0]!.refused).toEqual({});
  }, 90_000);
});
