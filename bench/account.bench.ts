/**
 * Recording the engine's own requests and fills (the tracker behind the account limiter).
 * Run: npm run bench:account. Target: at least 5,000,000 recorded requests per second.
 */
import { performance } from 'node:perf_hooks';
import { Tracker } from '../dist/index.js';
import { median, printTable } from './measure.js';

const contracts = Array.from({ length: 50 }, (_, i) => (i === 0 ? 'BTC_USDT' : i === 1 ? 'ETH_USDT' : `C${i}_USDT`));
const actions = ['place', 'amend', 'cancel'] as const;
const T0 = Date.parse('2026-11-01T00:00:00Z');

function requests(count: number): number {
  const t = new Tracker();
  let at = T0;
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    // 1,000 requests a second of virtual time: the run crosses hours and days.
    at += 1;
    t.recordRequest(i % 7 === 0 ? 'sub' : 'main', contracts[i % 50]!, actions[i % 3]!, at);
  }
  return count / ((performance.now() - t0) / 1000);
}

function fills(count: number): number {
  const t = new Tracker();
  let at = T0;
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    at += 10;
    t.recordFill('main', contracts[i % 50]!, i % 2 === 0 ? 'maker' : 'taker', '1234.56', at);
  }
  return count / ((performance.now() - t0) / 1000);
}

requests(1_000_000);
fills(100_000);
const req = median(Array.from({ length: 5 }, () => requests(10_000_000)));
const fil = median(Array.from({ length: 5 }, () => fills(1_000_000)));
printTable('Tracker: records per second (median of 5 runs)', [
  {
    case: 'recordRequest (50 contracts, 2 accounts, crossing hours and days)',
    'per second': Math.round(req).toLocaleString('en-US'),
    target: '5,000,000',
  },
  { case: 'recordFill (decimal text volumes)', 'per second': Math.round(fil).toLocaleString('en-US'), target: '' },
]);
