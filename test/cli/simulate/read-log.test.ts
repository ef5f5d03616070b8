import { describe, expect, it } from 'vitest';
import type { Classification } from '../../../src/catalog/catalog.js';
import { createCatalog } from '../../../src/catalog/catalog.js';
import { readLog } from '../../../src/cli/simulate/read-log.js';

/** Reads `text` as a log in chunks of `size` bytes, and gives the rows it handed on. */
async function rowsOf(text: string, size = 7): Promise<string[]> {
  const bytes = Buffer.from(text);
  const seen: string[] = [];
  await readLog(
    {
      name: 'log.csv',
      size: null,
      chunks: (async function* () {
        for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
      })(),
    },
    createCatalog(),
    {
      time: () => {},
      account: (id) => id,
      request: (at, account, c: Classification, contract, line) =>
        seen.push(`${line} ${at} ${account} ${c.market} ${contract}`),
      fill: (at, account, market, contract, role, volume, line) =>
        seen.push(`${line} ${at} ${account} ${market} fill ${contract} ${role} ${volume}`),
    },
  );
  return seen;
}

const T = Date.parse('2026-11-20T09:00:00Z');

describe('readLog', () => {
  it('skips comments indented or not, blank lines and lines of spaces and tabs, and drops spaces and tabs around fields', async () => {
    const text = `# a log\nat,account,method,path,contract\n  # indented\n\t# after a tab\n\n \t\n${T},\tmain ,POST, /api/v4/futures/usdt/orders ,BTC_USDT\r\n${T + 1},"sub",POST,/api/v4/spot/orders,"ETH_USDT"\n`;
    for (const size of [3, 7, 1 << 16]) {
      expect(await rowsOf(text, size)).toEqual([`7 ${T} main futures BTC_USDT`, `8 ${T + 1} sub spot ETH_USDT`]);
    }
  });

  it('refuses a quoted field that runs onto the next line, naming the line it opens on', async () => {
    await expect(
      rowsOf(`at,account,method,path,contract\n${T},main,POST,/api/v4/spot/orders,"ETH\n_USDT"\n`),
    ).rejects.toThrow('log.csv:2: a quote is not closed on its line');
  });

  it('refuses a stray quote with its line', async () => {
    await expect(
      rowsOf(`at,account,method,path,contract\n\n${T},ma"in,POST,/api/v4/spot/orders,ETH_USDT\n`),
    ).rejects.toThrow('log.csv:3: a quote out of place');
  });
});
