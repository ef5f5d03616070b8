/**
 * Throughput of `traderatio advise` on a request log: the built command on a generated log streamed
 * from disk. Run: npm run bench:advise [lines]. Target: at least 1,000,000 log lines per second,
 * in constant memory.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printTable } from './measure.js';

const lines = Number(process.argv[2] ?? 3_000_000);
const file = join(tmpdir(), `traderatio-advise-bench-${process.pid}.csv`);

async function generate(): Promise<void> {
  const out = createWriteStream(file);
  const write = (s: string) =>
    new Promise<void>((resolve) => (out.write(s) ? resolve() : out.once('drain', () => resolve())));
  await write('at,account,method,path,contract,orders,fill_role,fill_volume\n');
  const t0 = Date.parse('2026-11-14T00:00:00Z');
  let chunk = '';
  // Four accounts quoting on three contracts over up to a week (200 ms a line, or less for a longer log): cancels each followed by a placement
  // (most within a second), amends, fills now and then, a spot order now and then.
  const step = Math.min(200, (7 * 86_400_000) / lines);
  for (let i = 0; i < lines; i++) {
    const at = t0 + Math.floor(i * step);
    const account = `acc${i % 4}`;
    const contract = (i >> 3) % 3 === 0 ? 'BTC_USDT' : (i >> 3) % 3 === 1 ? 'ETH_USDT' : 'SOL_USDT';
    if (i % 50 === 49)
      chunk += `${at},${account},,,${contract},,${i % 100 === 49 ? 'maker' : 'taker'},${(i % 997) + 0.5}\n`;
    else if (i % 8 < 3) chunk += `${at},${account},DELETE,/api/v4/futures/usdt/orders/${i},${contract},,,\n`;
    else if (i % 8 < 6) chunk += `${at},${account},POST,/api/v4/futures/usdt/orders,${contract},,,\n`;
    else if (i % 8 === 6) chunk += `${at},${account},PUT,/api/v4/futures/usdt/orders/${i},${contract},,,\n`;
    else if (i % 1000 === 7) chunk += `${at},${account},POST,/api/v4/spot/orders,BTC_USDT,,,\n`;
    else chunk += `${at},${account},GET,/api/v4/futures/usdt/positions,,,,\n`;
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
// The command as a user runs it, with its CPU time and peak memory (resident set) from the kernel.
const run = spawnSync(
  '/usr/bin/time',
  ['-f', '%U %S %M', process.execPath, 'dist/cli/bin.js', 'advise', file, '--json'],
  { encoding: 'utf8', maxBuffer: 1 << 26 },
);
rmSync(file);
if (run.status !== 0) throw new Error(`advise failed: ${run.stderr}`);
const [user, system, peakKiB] = run.stderr.trim().split('\n').at(-1)!.split(' ').map(Number) as [
  number,
  number,
  number,
];
const report = JSON.parse(run.stdout) as {
  log: { lines: number; seconds: number };
  findings: { kind: string; figures: Record<string, unknown> }[];
};
printTable('advise: a generated log streamed from disk', [
  {
    lines: report.log.lines.toLocaleString('en-US'),
    'file MiB': (size / 2 ** 20).toFixed(0),
    'read seconds': report.log.seconds.toFixed(2),
    'lines/s': Math.round(report.log.lines / report.log.seconds).toLocaleString('en-US'),
    'CPU seconds': (user + system).toFixed(2),
    'lines per CPU second': Math.round(report.log.lines / (user + system)).toLocaleString('en-US'),
    'peak memory MiB': (peakKiB / 1024).toFixed(0),
    pairs: String(report.findings.find((f) => f.kind === 'amend-pairs')?.figures.pairs ?? 0),
  },
]);
