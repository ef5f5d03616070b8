import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readReplayHistory } from '../../../src/cli/simulate/history.js';
import type { Refusal } from '../../../src/cli/simulate/replay.js';
import { simulate } from '../../../src/cli/simulate/simulate.js';
import { ModelExchange } from '../../../src/model-exchange/model.js';
import { VirtualClock } from '../../../src/testing/virtual-clock.js';

// examples/yesterday.csv: a night's log of main and bot from 23:59 UTC, over 00:00 (main's tier
// lowered at the snapshot), the abuse throttle's check of 02:00 (bot's no-fill throttle lifted)
// and 08:00 (bot's tier raised); examples/yesterday-history.json: the week before it.
const LOG = readFileSync('examples/yesterday.csv', 'utf8');
const HISTORY = readFileSync('examples/yesterday-history.json', 'utf8');

interface Line {
  readonly line: number;
  readonly at: number;
  readonly account: string;
  readonly method: string;
  readonly path: string;
  readonly contract: string;
}

function lines(text: string): Line[] {
  return text
    .trim()
    .split('\n')
    .slice(1)
    .map((l, i) => {
      const [at, account, method, path, contract] = l.split(',');
      return { line: i + 2, at: Number(at), account: account!, method: method!, path: path!, contract: contract! };
    });
}

/** The log sent to the model exchange on its own clock, each request at its instant: the refused ones, by line. */
function throughTheModel(rows: readonly Line[]): { line: number; limit: string }[] {
  const clock = new VirtualClock({ start: 0, wallStart: rows[0]!.at });
  const accounts = {
    families: [
      {
        id: 'desk',
        accounts: [
          { id: 'main', role: 'main' as const, keys: [{ key: 'main-key', secret: 's' }] },
          { id: 'bot', keys: [{ key: 'bot-key', secret: 's' }] },
        ],
      },
    ],
  };
  // No fills: the log has none, and the model's own would move the ratio and the throttle.
  const model = new ModelExchange({ accounts, history: JSON.parse(HISTORY), fills: { maker: 0, taker: 0 } }, clock);
  const refused: { line: number; limit: string }[] = [];
  for (const r of rows) {
    clock.moveTo(r.at - rows[0]!.at);
    const body = r.method === 'POST' ? JSON.stringify({ contract: r.contract, size: 1, price: '100' }) : '';
    const answer = model.handle({
      method: r.method,
      path: r.path,
      query: '',
      key: `${r.account}-key`,
      timestamp: undefined,
      sign: undefined,
      body,
      ip: '127.0.0.1',
    });
    if (answer.status === 429)
      refused.push({ line: r.line, limit: /on (\S+):/.exec((answer.body as { message: string }).message)![1]! });
  }
  return refused;
}

describe('simulate and the model exchange', () => {
  it('refuse the same requests of a log that crosses 00:00, an hourly throttle check and 08:00', async () => {
    const rows = lines(LOG);
    const refusals: Refusal[] = [];
    const report = await simulate(
      {
        name: 'yesterday.csv',
        size: null,
        chunks: (async function* () {
          yield Buffer.from(LOG);
        })(),
      },
      { history: readReplayHistory('yesterday-history.json', HISTORY), onRefusal: (r) => refusals.push(r) },
    );
    const model = throughTheModel(rows);
    expect(refusals.map((r) => ({ line: r.line, limit: r.limit }))).toEqual(model);
    // What the log crosses, as the report shows it: main from 350 to 300 r/s at 00:00, bot's
    // throttle lifted at 02:00 and its tier raised at 08:00.
    expect(report.start.map((s) => [s.account, s.limit, s.source])).toEqual([
      ['main', 350, 'history'],
      ['bot', 250, 'history'],
    ]);
    expect(report.exchange.byLimit).toEqual({ 'futures.place': 70, 'abuse-throttle': 40 });
    const hour = (iso: string) => refusals.filter((r) => r.at >= Date.parse(iso) && r.at < Date.parse(iso) + 3_600_000);
    expect(hour('2026-11-20T00:00:00Z').map((r) => [r.account, r.reason])).toEqual(
      Array(40).fill(['main', 'tier 5 (lowered-at-snapshot)']),
    );
    expect(hour('2026-11-20T01:00:00Z').map((r) => r.reason)).toEqual(Array(20).fill('no-fills'));
    expect(hour('2026-11-20T02:00:00Z')).toEqual([]);
    expect(hour('2026-11-20T07:00:00Z').map((r) => r.reason)).toEqual(Array(30).fill('tier 4 (raised-at-0800)'));
    expect(hour('2026-11-20T08:00:00Z')).toEqual([]);
    expect(
      report.limits.filter((l) => l.account === 'bot').map((l) => [new Date(l.at).toISOString(), l.limit, l.throttle]),
    ).toEqual([
      ['2026-11-19T23:00:00.000Z', 250, 10],
      ['2026-11-20T02:00:00.000Z', 250, null],
      ['2026-11-20T08:00:00.000Z', 300, null],
    ]);
  });
});
