// Every recipe of docs/integrations.md is a program in examples/integrations/: each runs here
// against the model exchange, as a user would run it against the exchange, and must end well.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExchange, type RunningExchange } from '../../src/exchange/index.js';

const run = promisify(execFile);
const dir = join(import.meta.dirname, '../../examples/integrations');
const examples = readdirSync(dir).filter((f) => f.endsWith('.ts')).sort();

let exchange: RunningExchange;
beforeAll(async () => {
  exchange = await startExchange({ port: 0 });
});
afterAll(async () => exchange.close());

describe('examples/integrations against the model exchange', () => {
  it('has a recipe for Node\'s fetch', () => {
    expect(examples).toContain('fetch.ts');
  });

  it.each(examples)('%s runs to its end without a 429', async (file) => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', join(dir, file)], {
      env: { ...process.env, GATE_URL: exchange.url, GATE_WS_URL: exchange.wsUrl, GATE_KEY: 'main-key', GATE_SECRET: 'model' },
      timeout: 60_000,
    });
    expect(stdout).toMatch(/limit: \d+ r\/s/);
    const stats = exchange.stats().accounts.find((a) => a.account === 'main')!;
    for (const l of stats.limits) expect(l.refused, l.key).toBe(0);
  }, 90_000);

  it('fetch.ts places its forty orders and records the fills my_trades reports', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', join(dir, 'fetch.ts')], {
      env: { ...process.env, GATE_URL: exchange.url, GATE_KEY: 'main-key', GATE_SECRET: 'model' },
      timeout: 60_000,
    });
    expect(stdout).toContain('placed: 40 of 40');
    expect(stdout).toMatch(/cancel: 20\d/);
    expect(stdout).toMatch(/fills recorded: \d+/);
  }, 90_000);
});
