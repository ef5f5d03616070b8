import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';

async function capture(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const dir = mkdtempSync(join(tmpdir(), 'traderatio-okx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

describe('--exchange', () => {
  it.each([
    [
      ['plan', 'examples/family.csv', '--exchange', 'binance'],
      '--exchange takes the name of an exchange, one of gate, okx, got "binance"',
    ],
    [['advise', 'examples/family.csv', '--exchange', 'gate.io'], 'got "gate.io"'],
    [
      ['timeline', 'examples/timeline.json', '--exchange='],
      '--exchange takes the name of an exchange, one of gate, okx, got ""',
    ],
  ])('refuses a name no rulebook has, naming the option and the value: %j', async (argv, message) => {
    const { code, err } = await capture(argv);
    expect(code).toBe(2);
    expect(err).toContain(message);
  });

  it('is an option of simulate, whose help says what an OKX log holds', async () => {
    const { out } = await capture(['simulate', '--help']);
    expect(out).toMatch(/--exchange NAME\s+the exchange whose rules apply: gate or okx \(default gate\)/);
    expect(out).toContain("with --exchange okx, OKX's v5 paths");
  });

  it('takes gate by default, in any case, with the same figures', async () => {
    const plain = await capture(['plan', 'examples/family.csv', '--json']);
    const named = await capture(['plan', 'examples/family.csv', '--json', '--exchange', 'GATE']);
    expect(named.out).toBe(plain.out);
    expect(JSON.parse(plain.out)).toMatchObject({ exchange: 'gate', windowMs: 1000, vipLevel: 14 });
  });

  it('is listed in the help of plan, timeline, simulate and advise', async () => {
    for (const command of ['plan', 'timeline', 'simulate', 'advise']) {
      const { out } = await capture([command, '--help']);
      expect(out).toMatch(/--exchange NAME\s+the exchange whose rules apply: gate or okx \(default gate\)/);
    }
  });
});

describe('traderatio plan --exchange okx', () => {
  it("follows the help article's worked example: A 2,500, B 1,750, C 1,750 per 2 s", async () => {
    const { code, out } = await capture([
      'plan',
      'examples/okx-worked-example.csv',
      '--exchange',
      'okx',
      '--threshold',
      '0',
    ]);
    expect(code).toBe(0);
    expect(out).toContain('Family: 3 accounts, VIP 5; OKX API v5, fill-ratio sub-account limit');
    expect(out).toContain('Aggregated ratio 3.0137 (660 / 219): tier 4, 1750 per 2 s');
    expect(out).toMatch(/^A\s+10\.4348\s+10\.4348\s+max-own\s+6\s+2500 per 2 s/m);
    expect(out).toMatch(/^B\s+2\.1359\s+3\.0137\s+max-aggregated\s+4\s+1750 per 2 s/m);
    expect(out).toMatch(/^C\s+3\.0622\s+3\.0622\s+max-own\s+4\s+1750 per 2 s/m);
    expect(out).toContain(
      'Requests are counted at multiplier 1 (the heaviest); at multiplier 0.2, 5 times as many; at 0.1, 10 times as many.',
    );
  });

  it('rates small accounts by the aggregated ratio under 1,000,000 USDT, and the large one by max()', async () => {
    const { out } = await capture(['plan', 'examples/okx-family.csv', '--exchange', 'okx', '--json']);
    const plan = JSON.parse(out);
    expect(plan).toMatchObject({ exchange: 'okx', windowMs: 2000, vipLevel: 5 });
    // (660 + 3,400,000) / (219 + 200,000 x 1 + 30,000 x 0.3): cancels never count.
    expect(plan.aggregated).toMatchObject({ numerator: '3400660', denominator: '209219', tier: 6, limit: 2500 });
    expect(plan.accounts.map((a: { basis: string; limit: number }) => [a.basis, a.limit])).toEqual([
      ['aggregated', 2500],
      ['aggregated', 2500],
      ['aggregated', 2500],
      ['max-own', 2500],
    ]);
    expect(plan.accounts[3].up).toMatchObject({ tier: 7, limit: 3000, makerPath: 'own', fewerRequests: 39_000 });
  });

  it('puts every account at 1,000 per 2 s below VIP 5, and tiers from VIP 5', async () => {
    const below = JSON.parse(
      (await capture(['plan', 'examples/okx-family.csv', '--exchange', 'okx', '--vip', '4', '--json'])).out,
    );
    expect(below.accounts.map((a: { limit: number }) => a.limit)).toEqual([1000, 1000, 1000, 1000]);
    const text = (await capture(['plan', 'examples/okx-family.csv', '--exchange', 'okx', '--vip', '4'])).out;
    expect(text).toContain('VIP 4 (below 5: every account at tier 1)');
  });

  it("gives OKX's figures where nothing is counted: 9999 with volume, 0 without", async () => {
    const f = file(
      'sentinels.csv',
      'account,contract,maker_volume,place,cancel\nA,BTC-USDT-SWAP,500,0,30\nB,ETH-USDT-SWAP,0,0,10\n',
    );
    const plan = JSON.parse((await capture(['plan', f, '--exchange', 'okx', '--broker', '--json'])).out);
    expect(plan.accounts.map((a: { own: { ratio: string }; limit: number }) => [a.own.ratio, a.limit])).toEqual([
      ['9999.00000000', 10_000],
      ['0.00000000', 1000],
    ]);
  });

  it('refuses a Gate contract name and an hour of spot activity, naming the field and the value', async () => {
    const gate = await capture(['plan', 'examples/family.csv', '--exchange', 'okx']);
    expect(gate.code).toBe(1);
    expect(gate.err).toContain('examples/family.csv:3: Expected `contract` in account A to be an OKX instrument id');
    expect(gate.err).toContain('got "BTC_USDT"');
    const hours = file(
      'hours.csv',
      'account,contract,maker_volume,place,hour,spot_requests,spot_traded\nA,BTC-USDT-SWAP,100,10,,,\nA,,,,2026-11-03T09:00:00Z,100,5\n',
    );
    const spot = await capture(['plan', hours, '--exchange', 'okx']);
    expect(spot.code).toBe(1);
    expect(spot.err).toContain(
      `${hours}:3: Expected no \`hour\` under OKX API v5, fill-ratio sub-account limit, got "2026-11-03T09:00:00Z"`,
    );
    const kind = file('kind.csv', 'account,contract,place\nA,BTC-USDT-PERP,1\n');
    expect((await capture(['plan', kind, '--exchange', 'okx'])).err).toContain('got "BTC-USDT-PERP"');
  });

  it('names an account listing one instrument twice, whatever its case', async () => {
    const twice = file('twice.csv', 'account,contract,place\nA,BTC-USDT-SWAP,1\nA,btc-usdt-swap,2\n');
    expect((await capture(['plan', twice, '--exchange', 'okx'])).err).toContain(
      ':3: account A lists btc-usdt-swap again (first on line 2)',
    );
  });
});

describe('traderatio timeline --exchange okx', () => {
  it('raises at 08:00 and lowers after a day of grace, a VIP demotion too, a new sub-account at tier 1', async () => {
    const { code, out } = await capture(['timeline', 'examples/okx-timeline.json', '--exchange', 'okx']);
    expect(code).toBe(0);
    expect(out).toMatch(/2026-11-02T08:00:00\.000Z\s+main\s+1000\s+2500\s+6\s+raised-at-0800/);
    expect(out).toMatch(/2026-11-03T15:30:00\.000Z\s+arb\s+-\s+1000\s+1\s+new-sub-account/);
    expect(out).toMatch(/2026-11-04T08:00:00\.000Z\s+arb\s+1000\s+2500\s+6\s+new-sub-account-rules-begin/);
    // The worse snapshot of 11-06 lowers at 08:00 of 11-07; the demotion to VIP 4 read by the
    // snapshot of 11-08 at 08:00 of 11-09.
    expect(out).toMatch(/2026-11-07T08:00:00\.000Z\s+main\s+2500\s+2000\s+5\s+lowered-after-grace/);
    expect(out).toMatch(/2026-11-09T08:00:00\.000Z\s+main\s+2000\s+1000\s+1\s+lowered-after-grace/);
    expect(out).toMatch(
      /^main\s+2026-11-03T08:00:00\.000Z\s+2026-11-04T08:00:00\.000Z\s+2500 per 2 s\s+1750 per 2 s\s+cancelled$/m,
    );
    expect(out).toMatch(
      /^main\s+2026-11-06T08:00:00\.000Z\s+2026-11-07T08:00:00\.000Z\s+2500 per 2 s\s+2000 per 2 s\s+lowered$/m,
    );
    expect(out).toMatch(
      /^main\s+2026-11-08T08:00:00\.000Z\s+2026-11-09T08:00:00\.000Z\s+2000 per 2 s\s+1000 per 2 s\s+lowered$/m,
    );
  });

  it('gives the days of grace in --json, and Gate none', async () => {
    const okx = JSON.parse(
      (await capture(['timeline', 'examples/okx-timeline.json', '--exchange', 'okx', '--json'])).out,
    );
    expect(okx).toMatchObject({ exchange: 'okx', windowMs: 2000 });
    expect(okx.grace[0]).toEqual({
      account: 'main',
      from: '2026-11-03T08:00:00.000Z',
      until: '2026-11-04T08:00:00.000Z',
      kept: 2500,
      snapshotLimit: 1750,
      outcome: 'cancelled',
    });
    const gate = JSON.parse((await capture(['timeline', 'examples/timeline.json', '--json'])).out);
    expect(gate.grace).toEqual([]);
  });

  it('draws each day of grace in the chart, with its legend, and the tiers per 2 s', async () => {
    const out = join(dir, 'okx.svg');
    expect((await capture(['timeline', 'examples/okx-timeline.json', '--exchange', 'okx', '--svg', out])).code).toBe(0);
    const svg = readFileSync(out, 'utf8');
    expect(svg).toContain('New and amend orders limit by account (requests per 2 s)');
    expect(svg).toContain("red: lowered after a day's grace");
    expect(svg).toContain("Yellow: a lowering's day of grace");
    for (const band of ['tier 1 · 1000', 'tier 6 · 2500', 'tier 8 · 10000']) expect(svg).toContain(`>${band}</text>`);
    const grace = [
      ...svg.matchAll(
        /<rect x="([\d.]+)" y="\d+" width="([\d.]+)" [^>]*class="grace-(lowered|cancelled)"><title>([^<]+)<\/title>/g,
      ),
    ];
    expect(grace.map((m) => m[3])).toEqual(['cancelled', 'lowered', 'lowered', 'lowered', 'lowered']);
    expect(grace[0]![4]).toBe(
      '2026-11-03T08:00:00.000Z to 2026-11-04T08:00:00.000Z: 2500 kept, the snapshot giving 1750 (cancelled by a better snapshot)',
    );
    // A day wide, as the 08:00 to 08:00 of the axis.
    const widths = grace.map((m) => Number(m[2]));
    for (const w of widths) expect(w).toBeCloseTo(widths[0]!, 0);
  });

  it('renders examples/okx-timeline.json as the chart committed in docs/okx-timeline.svg', async () => {
    const out = join(dir, 'committed.svg');
    await capture(['timeline', 'examples/okx-timeline.json', '--exchange', 'okx', '--svg', out]);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync('docs/okx-timeline.svg', 'utf8'));
  });

  it('refuses the hourly activity of the throttles OKX does not have, naming the field', async () => {
    const { code, err } = await capture(['timeline', 'examples/timeline.json', '--exchange', 'okx']);
    expect(code).toBe(1);
    expect(err).toMatch(
      /examples\/timeline\.json:\d+: Expected no `spotHours` under OKX API v5, fill-ratio sub-account limit/,
    );
    const hours = file('h.json', '{ "accounts": [{ "id": "m" }], "activity": [], "hours": [] }');
    expect((await capture(['timeline', hours, '--exchange', 'okx'])).err).toContain('Expected no `hours` under OKX');
  });

  it('refuses a Gate contract name in the activity, naming its line and field', async () => {
    const f = file(
      'g.json',
      '{\n  "accounts": [{ "id": "m" }],\n  "activity": [\n    { "account": "m", "day": "2026-11-01", "contracts": [{ "contract": "BTC_USDT", "place": 1 }] }\n  ]\n}\n',
    );
    const { code, err } = await capture(['timeline', f, '--exchange', 'okx']);
    expect(code).toBe(1);
    expect(err).toContain(
      `${f}:4: Expected \`contract\` in \`activity[0]\` (m, 2026-11-01) to be an OKX instrument id`,
    );
    expect(err).toContain('got "BTC_USDT"');
  });
});

describe('traderatio advise --exchange okx', () => {
  it('advises on OKX figures: limits per 2 s, instruments by multiplier, no maker/taker weighting to gain', async () => {
    const { code, out } = await capture(['advise', 'examples/okx-family.csv', '--exchange', 'okx']);
    expect(code).toBe(0);
    expect(out).toContain('Family: 4 accounts, VIP 5; OKX API v5, fill-ratio sub-account limit');
    expect(out).toContain('Now: aggregated ratio 16.2541 (tier 6); limits A 2500, B 2500, C 2500, D 2500 per 2 s');
    expect(out).toContain('D: 39000 requests fewer (39000 on BTC-USDT-SWAP) for tier 7 (3000 per 2 s)');
    expect(out).toContain("quote on an instrument of its kind's default multiplier");
    const json = JSON.parse((await capture(['advise', 'examples/okx-family.csv', '--exchange', 'okx', '--json'])).out);
    expect(json).toMatchObject({ exchange: 'okx', windowMs: 2000, vipLevel: 5 });
    // Volume is unweighted on OKX: filling taker volume as maker changes nothing.
    expect(json.findings.map((f: { kind: string }) => f.kind)).not.toContain('taker-to-maker');
  });

  it('refuses Gate contract names, naming the line, field and value', async () => {
    const { code, err } = await capture(['advise', 'examples/family.csv', '--exchange', 'okx']);
    expect(code).toBe(1);
    expect(err).toContain('examples/family.csv:3: Expected `contract` in account A to be an OKX instrument id');
  });
});

describe('simulate --exchange okx', () => {
  const args = ['simulate', 'examples/okx-requests.csv', '--exchange', 'okx'];

  it("replays the example log under OKX's rules: 50061 over the sub-account limit, 50011 over an instrument's", async () => {
    const { code, out } = await capture([...args, '--json']);
    expect(code).toBe(0);
    const r = JSON.parse(out);
    expect(r).toMatchObject({ lines: 312, requests: 308, fills: 3 });
    // 13 batches of 20 refused whole (each order answered 50061), and one order with 50011.
    expect(r.exchange.refused).toBe(261);
    expect(r.exchange.byCode).toEqual({ '50061': 260, '50011': 1 });
    expect(r.exchange.byLimit).toEqual({ 'sub-account': 260, '/api/v5/trade/order:ETH-USDT-SWAP': 1 });
    // The burst before 08:00 is refused past 1,000 orders; the same burst after the raise is not.
    expect(r.exchange.examples[0]).toEqual({
      line: 166,
      at: '2026-11-21T07:59:58.500Z',
      account: 'sub1',
      limit: 'sub-account',
    });
    expect(
      r.limits.map((l: { at: string; account: string; limit: number; reason: string }) => [
        l.at,
        l.account,
        l.limit,
        l.reason,
      ]),
    ).toEqual([
      ['2026-11-20T10:00:00.000Z', 'sub1', 1000, 'initial'],
      ['2026-11-20T10:00:00.000Z', 'main', 1000, 'initial'],
      ['2026-11-21T08:00:00.000Z', 'sub1', 2500, 'raised-at-0800'],
      ['2026-11-21T08:00:00.000Z', 'main', 2500, 'raised-at-0800'],
      ['2026-11-23T08:00:00.000Z', 'sub1', 1000, 'lowered-after-grace'],
      ['2026-11-23T08:00:00.000Z', 'main', 1000, 'lowered-after-grace'],
    ]);
    expect(r.scheduler).toMatchObject({ refusedByExchange: 0, tooHeavy: 0, queueFull: 0 });
  });

  it('tells the refusals by code in text and in the chart', async () => {
    const svg = join(dir, 'okx-simulate.svg');
    const { code, out } = await capture([...args, '--svg', svg]);
    expect(code).toBe(0);
    expect(out).toContain(
      'As sent, the exchange would refuse 261 orders with 50061 (sub-account limit) or 50011 (rate limit):',
    );
    expect(out).toMatch(/ 260 {2}answered 50061\n +1 {2}answered 50011\n +260 {2}over sub-account \(50061\)\n/);
    expect(out).toContain('over /api/v5/trade/order:ETH-USDT-SWAP (50011)');
    expect(out).toContain('Starting tiers (sub-account limit of new and amend orders as each account enters the log):');
    expect(out).toMatch(/sub1 +1 +1000 per 2 s/);
    const chart = readFileSync(svg, 'utf8');
    expect(chart).toContain('Blue: new and amend orders limit (per 2 s, left axis).');
    expect(chart).toContain(
      'Red bars: requests refused with 50061 (sub-account limit) or 50011 (rate limit) in each minute',
    );
    expect(chart).not.toContain('Orange band');
    expect(chart).toContain('>2000</text>');
  });

  it('prints the sample docs/cli.md shows, but for the time it took', async () => {
    const docs = readFileSync('docs/cli.md', 'utf8');
    const command = '$ traderatio simulate examples/okx-requests.csv --exchange okx\n';
    const from = docs.indexOf(command) + command.length;
    const sample = docs.slice(from, docs.indexOf('\n```', from));
    const timing = /read in [0-9.]+ s \([0-9,]+ lines\/s\)/;
    const { out } = await capture(args);
    expect(out.replace(timing, '')).toBe(sample.replace(timing, ''));
  });

  it("starts each account at the tier a history of OKX's instruments gives it, an option's kind and strike included", async () => {
    // The snapshot of Nov 20 rates sub1 1,200 / (100 x 1 + 10 x 0.1) = 11.88: 2,500 per 2 s from 08:00,
    // before the log's first line; the burst at 07:59:58 on the 21st then fits.
    const history = file(
      'okx-history.json',
      JSON.stringify({
        vipLevel: 5,
        accounts: [{ id: 'sub1' }, { id: 'main', role: 'main' }],
        activity: [
          {
            account: 'sub1',
            day: '2026-11-19',
            contracts: [
              { contract: 'BTC-USDT-SWAP', makerVolume: '1200', place: 100 },
              { contract: 'eth-usd-261225-1750.5-p', kind: 'OPTION', place: 10 },
            ],
          },
        ],
      }),
    );
    const { code, out } = await capture([...args, '--history', history, '--json']);
    expect(code).toBe(0);
    const r = JSON.parse(out);
    expect(r.start.find((s: { account: string }) => s.account === 'sub1')).toMatchObject({
      tier: 6,
      limit: 2500,
      source: 'history',
      snapshotAt: '2026-11-20T00:00:00.000Z',
      rating: { effective: { ratio: '11.88118812' } },
    });
    expect(r.exchange.byLimit['sub-account']).toBeUndefined();
  });

  it("refuses a Gate log under OKX's rules, naming the line, the field and the value", async () => {
    const { code, err } = await capture(['simulate', 'examples/requests.csv', '--exchange', 'okx']);
    expect(code).not.toBe(0);
    expect(err).toMatch(/examples\/requests\.csv:2: Expected `method` and `path` to be an OKX endpoint/);
  });
});

describe('advise --exchange okx on a request log', () => {
  // 50 batches of 20 new orders on four instruments of multiplier 1 fit tier 1's 1,000 per 2 s;
  // the 51st is refused (50061). With 1,000 USDT traded the ratio is 1 (1,250 per 2 s) on the
  // admitted orders; 1000 / 1020 (tier 1) if the refused batch counted.
  const swaps = ['BTC-USDT-SWAP', 'ETH-USDT-SWAP', 'BTC-USD-SWAP', 'ETH-USD-SWAP'];
  const log = [
    'at,account,method,path,contract,orders,fill_role,fill_volume',
    ...Array.from(
      { length: 51 },
      (_, i) =>
        `2026-11-20T10:00:00.${String(i).padStart(3, '0')}Z,sub1,POST,/api/v5/trade/batch-orders,${swaps[i % 4]},20,,`,
    ),
    '2026-11-20T11:00:00.000Z,sub1,,,BTC-USDT-SWAP,,maker,1000',
  ].join('\n');

  it('rates the orders OKX would admit, leaving the refused batch out', async () => {
    const { code, out } = await capture(['advise', file('okx-log.csv', log), '--exchange', 'okx', '--json']);
    expect(code).toBe(0);
    const r = JSON.parse(out);
    expect(r).toMatchObject({ exchange: 'okx', format: 'log' });
    expect(r.now.aggregated).toMatchObject({ numerator: '1000', denominator: '1000', tier: 2, limit: 1250 });
  });

  it('says in text that OKX has no hourly throttle', async () => {
    const { out } = await capture(['advise', 'examples/okx-requests.csv', '--exchange', 'okx']);
    expect(out).toContain('Family: 2 accounts, VIP 5; OKX API v5, fill-ratio sub-account limit');
    expect(out).toContain(
      '24-hour throttles: none (okx has no hourly check: OKX API v5, fill-ratio sub-account limit)',
    );
    expect(out).not.toContain('R9 futures');
  });

  it('reads the example log with its instrument ids', async () => {
    const { code, out } = await capture(['advise', 'examples/okx-requests.csv', '--exchange', 'okx', '--json']);
    expect(code).toBe(0);
    const r = JSON.parse(out);
    // 960 USDT over the admitted new and amend requests x multipliers of November 20-23.
    expect(r.now.aggregated).toMatchObject({ numerator: '960', denominator: '1289', tier: 1 });
    expect(JSON.stringify(r.findings)).toContain('BTC-USDT-SWAP');
    expect(r.throttles).toEqual([]);
  });
});
