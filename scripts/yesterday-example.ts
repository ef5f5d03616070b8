// Writes examples/yesterday.csv and examples/yesterday-history.json: a night's request log of a
// family (main and bot) that crosses 00:00 UTC, an hourly check of the abuse throttle and 08:00
// UTC, and the week of activity before it, for `traderatio simulate --history`.
// Run: node --import tsx scripts/yesterday-example.ts
import { writeFileSync } from 'node:fs';

const DAY = 86_400_000;
const at = (iso: string): number => Date.parse(iso);

// The week before the log (2026-11-12 to 2026-11-18). On the 12th main quotes a great deal at a
// high ratio and bot sends 3,500,000 placements on SOL_USDT without a fill; then main trades
// 1,200,000 USDT as maker on 100,000 placements a day. In the hour from 01:00 on the 19th bot
// sends 86,401 order requests without a fill (the abuse throttle's window, R9).
const activity: unknown[] = [
  {
    account: 'main',
    day: '2026-11-12',
    contracts: [{ contract: 'BTC_USDT', makerVolume: '10000000', place: 100_000 }],
  },
];
activity.push({ account: 'bot', day: '2026-11-12', contracts: [{ contract: 'SOL_USDT', place: 3_500_000 }] });
for (let d = at('2026-11-13T00:00:00Z'); d <= at('2026-11-18T00:00:00Z'); d += DAY) {
  activity.push({
    account: 'main',
    day: new Date(d).toISOString().slice(0, 10),
    contracts: [{ contract: 'BTC_USDT', makerVolume: '1200000', place: 100_000 }],
  });
}
const history = {
  accounts: [{ id: 'main', role: 'main' }, { id: 'bot' }],
  activity,
  hours: [{ account: 'bot', hour: '2026-11-19T01:00:00Z', requests: 86_401, traded: '0' }],
};
writeFileSync('examples/yesterday-history.json', `${JSON.stringify(history, null, 2)}\n`);

// The log: bursts of placements (and a few cancels) either side of 00:00, the check of 02:00 and 08:00.
const rows: string[] = [];
const burst = (from: string, account: string, n: number, contract: string, cancels = 0): void => {
  const t0 = at(from);
  for (let i = 0; i < n; i++)
    rows.push(`${t0 + Math.floor((i * 1000) / n)},${account},POST,/api/v4/futures/usdt/orders,${contract},,,`);
  for (let i = 0; i < cancels; i++)
    rows.push(`${t0 + 1000 + i * 10},${account},DELETE,/api/v4/futures/usdt/orders/${1000 + i},${contract},,,`);
};
burst('2026-11-19T23:59:00Z', 'main', 340, 'BTC_USDT', 20);
burst('2026-11-19T23:59:30Z', 'bot', 30, 'SOL_USDT');
burst('2026-11-20T00:00:30Z', 'main', 340, 'BTC_USDT', 20);
burst('2026-11-20T01:30:00Z', 'bot', 30, 'SOL_USDT');
burst('2026-11-20T02:00:30Z', 'bot', 30, 'SOL_USDT');
burst('2026-11-20T07:59:30Z', 'bot', 280, 'SOL_USDT');
burst('2026-11-20T08:00:30Z', 'bot', 280, 'SOL_USDT');
// In time order; the sort is stable, so requests of the same millisecond keep their order.
rows.sort((a, b) => Number(a.split(',')[0]) - Number(b.split(',')[0]));
writeFileSync(
  'examples/yesterday.csv',
  `${['at,account,method,path,contract,orders,fill_role,fill_volume', ...rows].join('\n')}\n`,
);
