/**
 * Throughput of `traderatio simulate`: the built command on a generated request log streamed from
 * disk. Run: npm run bench:simulate [lines]. Target: at least 1,000,000 log lines per second.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printTable } from './measure.js';

const lines = Number(process.argv[2] ?? 3_000_000);
const file = join(tmpdir(), `traderatio-bench-${process.pid}.csv`);

async function generate(): Promise<void> {
  const out = createWriteStream(file);
  const write = (s: string) =>
    new Promise<void>((resolve) => (out.write(s) ? resolve() : out.once('drain', () => resolve())));
  await write('at,account,method,path,contract,orders,fill_role,fill_volume\n');
  const t0 = Date.parse('2026-11-20T00:00:00Z');
  let chunk = '';
  // Four accounts quoting on three contracts, about 400 requests a second in all, fills now and then.
  for (let i = 0; i < lines; i++) {
    const at = t0 + Math.floor(i * 2.5);
    const account = `acc${i % 4}`;
    const contract = i % 3 === 0 ? 'BTC_USDT' : i % 3 === 1 ? 'ETH_USDT' : 'SOL_USDT';
    if (i % 50 === 49) chunk += `${at},${account},,,${contract},,maker,${(i % 997) + 0.5}\n`;
    else if (i % 4 === 3) chunk += `${at},${account},DELETE,/api/v4/futures/usdt/orders/${i},${contract},,,\n`;
    else if (i % 101 === 7) chunk += `${at},${account},GET,/api/v4/futures/usdt/positions,,,,\n`;
    else chunk += `${at},${account},POST,/api/v4/futures/usdt/orders,${contract},,,\n`;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  await new Promise<void>((resolve) => out.end(resolve));
}

await generate();
const size = statSync(file).size;
// The command as a user runs it, with its peak memory (resident set) from the kernel.
const run = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, 'dist/cli/bin.js', 'simulate', file, '--json'], {
  encoding: 'utf8',
  maxBuffer: 1 << 26,
});
rmSync(file);
if (run.status !== 0) throw new Error(`simulate failed: ${run.stderr}`);
const peakKiB = Number(run.stderr.trim().split('\n').at(-1));
const report = JSON.parse(run.stdout) as {
  lines: number;
  seconds: number;
  exchange: { refused: number };
  scheduler: { refusedByExchange: number; queueFull: number };
};
const seconds = report.seconds;
printTable('simulate: a generated log streamed from disk', [
  {
    lines: report.lines.toLocaleString('en-US'),
    'file MiB': (size / 2 ** 20).toFixed(0),
    seconds: seconds.toFixed(2),
    'lines/s': Math.round(report.lines / seconds).toLocaleString('en-US'),

    'peak memory MiB': (peakKiB / 1024).toFixed(0),
    'refused as sent': report.exchange.refused,
    'refused as scheduled': report.scheduler.refusedByExchange,
    'queue full': report.scheduler.queueFull,
  },
]);
