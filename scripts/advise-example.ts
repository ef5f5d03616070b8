// Writes examples/advise.csv: a week of a family's request log for `traderatio advise`.
// Run: node --import tsx scripts/advise-example.ts
import { writeFileSync } from 'node:fs';

const HOUR = 3_600_000;
const rows: [number, string][] = [];
const row = (at: number, text: string) => rows.push([at, `${at},${text}`]);
const start = Date.parse('2026-11-14T00:00:00Z');
// A deterministic sequence, so that the example is the same on every run.
let seed = 7;
const next = (n: number): number => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed % n;
};

for (let day = 0; day < 7; day++) {
  const d = start + day * 24 * HOUR;
  // main quotes BTC_USDT: 50 cancels each followed within 400 ms by a new order (one amend could
  // do it), 10 re-quotes a few seconds later, 12 amends, 25 orders on SOL_USDT; maker fills.
  for (let i = 0; i < 50; i++) {
    const t = d + 8 * HOUR + i * 600_000 + next(60_000);
    row(t, 'main,DELETE,/api/v4/futures/usdt/orders/1001,BTC_USDT,,,');
    row(t + 50 + next(350), 'main,POST,/api/v4/futures/usdt/orders,BTC_USDT,,,');
  }
  for (let i = 0; i < 10; i++) {
    const t = d + 9 * HOUR + i * 900_000 + 300_000;
    row(t, 'main,DELETE,/api/v4/futures/usdt/orders/1002,BTC_USDT,,,');
    row(t + 3000 + next(4000), 'main,POST,/api/v4/futures/usdt/orders,BTC_USDT,,,');
  }
  for (let i = 0; i < 12; i++)
    row(d + 10 * HOUR + i * 1_000_000 + 123, 'main,PUT,/api/v4/futures/usdt/orders/1003,BTC_USDT,,,');
  for (let i = 0; i < 25; i++)
    row(d + 11 * HOUR + i * 700_000 + 77, 'main,POST,/api/v4/futures/usdt/orders,SOL_USDT,,,');
  // Maker volume grows through the week; the last two days are quieter.
  const maker = [64, 80, 96, 108, 120, 92, 76][day]!;
  for (let i = 0; i < 10; i++) row(d + 12 * HOUR + i * 1_200_000 + 999, `main,,,BTC_USDT,,maker,${maker + next(10)}.5`);
  // hedge takes liquidity on BTC_USDT.
  for (let i = 0; i < 25; i++)
    row(d + 13 * HOUR + i * 600_000 + 11, 'hedge,POST,/api/v4/futures/usdt/orders,BTC_USDT,,,');
  for (let i = 0; i < 5; i++) row(d + 14 * HOUR + i * 1_800_000 + 500, `hedge,,,BTC_USDT,,taker,${40 + next(20)}`);
  // main also places spot orders that rarely fill (R14).
  for (let i = 0; i < 20; i++) row(d + 15 * HOUR + i * 90_000 + 5, 'main,POST,/api/v4/spot/orders,ETH_USDT,,,');
  row(d + 16 * HOUR, `main,,/api/v4/spot/orders,ETH_USDT,,maker,${day === 3 ? '1.5' : '2.5'}`);
}
rows.sort((a, b) => a[0] - b[0]);
writeFileSync(
  'examples/advise.csv',
  `at,account,method,path,contract,orders,fill_role,fill_volume\n${rows.map((r) => r[1]).join('\n')}\n`,
);
