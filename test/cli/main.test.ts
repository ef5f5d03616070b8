import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';

async function capture(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('traderatio example', () => {
  it("prints the worked example's ratios and limits under both readings of the family rules (see docs/rules.md#r7)", async () => {
    const { code, out } = await capture(['example']);
    expect(code).toBe(0);
    expect(out).toContain('aggregated ratio  1057/129 = 8.1938');
    expect(out).toContain('account A  own 318/44 = 7.2273');
    expect(out).toContain('account B  own 427/54 = 7.9074');
    expect(out).toContain('account C  own 312/31 = 10.0645');
    const [asExample, stated] = out.split('With the default');
    expect([...asExample!.matchAll(/limit (\d+) r\/s/g)].map((m) => m[1])).toEqual(['250', '250', '300']);
    expect([...stated!.matchAll(/limit (\d+) r\/s/g)].map((m) => m[1])).toEqual(['250', '250', '250']);
  });

  it('refuses an unknown command with exit code 2', async () => {
    const { code, err } = await capture(['frobnicate']);
    expect(code).toBe(2);
    expect(err).toContain('unknown command "frobnicate"');
  });
});

describe('traderatio plan', () => {
  it('plans the example family from CSV: ratios, tiers, limits, margins and the family view', async () => {
    const { code, out } = await capture(['plan', 'examples/family.csv']);
    expect(code).toBe(0);
    expect(out).toContain('Aggregated ratio 13.1177 (2494057.5 / 190129): tier 5, 300 r/s');
    expect(out).toMatch(/^D\s+13\.1211\s+13\.1211\s+max-own\s+5\s+300 r\/s/m);
    expect(out).toMatch(/^A\s+7\.2273\s+13\.1177\s+aggregated\s+5\s+300 r\/s/m);
  });

  it('gives the least volume over every path of the family rules (see docs/rules.md#r7), and every tier above in --json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-plan-'));
    const file = join(dir, 'm.csv');
    writeFileSync(
      file,
      'account,contract,maker_volume,place\nsmall,BTC_USDT,600000,100000\nbig,BTC_USDT,1500000,100000\n',
    );
    const text = (await capture(['plan', file, '--threshold', '0'])).out;
    // By its own ratio 1,400,000 USDT more reaches 20; by the aggregated one, 1,900,000.
    expect(text).toMatch(/^small\s.*\+1400000\.00 maker USDT \(own\) or -70000 requests \(own\) -> 350 r\/s/m);
    const plan = JSON.parse((await capture(['plan', file, '--threshold', '0', '--json'])).out);
    expect(plan.accounts[0].up).toMatchObject({
      tier: 6,
      makerVolume: '1400000',
      makerPath: 'own',
      fewerRequests: 70_000,
      requestPath: 'own',
    });
    expect(plan.accounts[0].steps.map((s: { tier: number; makerVolume: string }) => [s.tier, s.makerVolume])).toEqual([
      [6, '1400000'],
      [7, '4400000'],
    ]);
    // Under the default threshold small (600,000 USDT) is rated by the aggregated ratio: 400,000 USDT
    // takes it over the threshold, and 1,400,000 takes its own ratio to 20, still before the aggregated one.
    const standard = JSON.parse((await capture(['plan', file, '--json'])).out);
    expect(standard.accounts[0].up).toMatchObject({ makerVolume: '1400000', makerPath: 'own' });
    rmSync(dir, { recursive: true });
  });

  it('reads the same family from JSON and prints JSON with --json', async () => {
    const { code, out } = await capture(['plan', 'examples/family.json', '--threshold', '0', '--json']);
    expect(code).toBe(0);
    const plan = JSON.parse(out);
    expect(plan.aggregated).toMatchObject({ numerator: '1057', denominator: '129', tier: 4, limit: 250 });
    expect(plan.accounts.map((a: { limit: number }) => a.limit)).toEqual([250, 250, 300]);
    expect(plan.accounts[2].down).toMatchObject({ limit: 250, spareRequests: 0 });
  });

  it('names the file, line and field of bad input, with exit code 1 and no stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const bad = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const cases: [string, string][] = [
      [
        bad('a.csv', 'account,contract,maker_volume\nA,BTC_USDT,100\nA,ETH_USDT,-5\n'),
        ':3: Expected `maker_volume` of ETH_USDT in account A to be a non-negative decimal string, got "-5"',
      ],
      [
        bad('b.csv', 'account,contract,place\nA,BTC_USDT,1.5\n'),
        ':2: Expected `place` to be a non-negative integer, got "1.5"',
      ],
      [
        bad('c.csv', 'account,contract\nA,BTC_USDT\nA,btc-usdt\n'),
        ':3: account A lists btc-usdt again (first on line 2)',
      ],
      [bad('d.csv', 'account,contract,colour\n'), ':1: unknown column "colour"'],
      [bad('e.csv', 'account,contract\nA,BTC_USDT,9\n'), ':2: 3 fields where the header (line 1) has 2'],
      [
        bad(
          'f.json',
          '[\n  { "account": "A", "contract": "BTC_USDT" },\n  { "account": "A", "contract": "ETH_USDT", "takerVolume": "x" }\n]\n',
        ),
        ':3: Expected `takerVolume`',
      ],
      [bad('g.json', '[\n  {"account": "A",\n'), ':3: not valid JSON'],
      [bad('h.csv', ''), ':1: the file is empty'],
    ];
    for (const [file, message] of cases) {
      const { code, err } = await capture(['plan', file]);
      expect({ file, code, err }).toMatchObject({ code: 1, err: expect.stringContaining(`${file}${message}`) });
      expect(err).not.toMatch(/\n\s+at /);
    }
    expect((await capture(['plan', join(dir, 'missing.csv')])).err).toBe(
      `traderatio: ${join(dir, 'missing.csv')}: cannot read it: no such file (ENOENT)`,
    );
    // A column given twice: which cell a row's value comes from would be a guess.
    writeFileSync(join(dir, 'twice.csv'), 'account,contract,maker_volume,place,Place\nmain,BTC_USDT,1,1,2\n');
    expect(await capture(['plan', join(dir, 'twice.csv')])).toEqual({
      code: 1,
      out: '',
      err: `traderatio: ${join(dir, 'twice.csv')}:1: the column "Place" is given twice; give each column once`,
    });
    writeFileSync(
      join(dir, 'twice.csv'),
      'at,account,method,path,at\n1795165200000,main,POST,/api/v4/futures/usdt/orders,5\n',
    );
    expect((await capture(['simulate', join(dir, 'twice.csv')])).err).toBe(
      `traderatio: ${join(dir, 'twice.csv')}:1: the column "at" is given twice; give each column once`,
    );
    expect(await capture(['simulate', 'examples/yesterday.csv', '--history', ''])).toEqual({
      code: 1,
      out: '',
      err: 'traderatio: "": cannot read it: the file name is empty',
    });
    expect((await capture(['plan', 'examples/family.csv', '--vip', 'high'])).code).toBe(2);
    expect((await capture(['plan', 'examples/family.csv', '--colour'])).code).toBe(2);
  });

  it('puts every account at tier 1 below VIP 14', async () => {
    const { out } = await capture(['plan', 'examples/family.csv', '--vip', '13', '--json']);
    expect(JSON.parse(out).accounts.map((a: { limit: number }) => a.limit)).toEqual([100, 100, 100, 100]);
  });
});

describe('traderatio plan: the spot low-fill throttle (see docs/rules.md#r14)', () => {
  const plan = async (spotRows: string[], extra: string[] = []) => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const file = join(dir, 'spot.csv');
    writeFileSync(
      file,
      ['account,contract,maker_volume,place,hour,spot_requests,spot_traded', 'A,BTC_USDT,100,30,,,', ...spotRows].join(
        '\n',
      ),
    );
    const r = await capture(['plan', file, ...extra]);
    return { ...r, file };
  };
  const spot = async (spotRows: string[]) => {
    const { code, out, err } = await plan(spotRows, ['--json']);
    expect(err).toBe('');
    expect(code).toBe(0);
    return JSON.parse(out).spotFill.accounts[0] as {
      now: { throttle: { reason: string } | null };
      next: {
        throttle: { reason: string } | null;
        requests: number;
        traded: string;
        remaining: number;
        needed: string;
      };
    };
  };

  it('shows the example: A throttled now and at the next check, with the USDT that would clear it; B with room', async () => {
    const { code, out } = await capture(['plan', 'examples/family-spot.csv']);
    expect(code).toBe(0);
    expect(out).toContain(
      "Spot low-fill throttle (R14) during the hour from 2026-11-20T16:00:00.000Z (the file's latest), and at the check of 2026-11-20T17:00:00.000Z:",
    );
    expect(out).toMatch(
      /^A\s+10 per 10 s \(low-fill-rate\)\s+10 per 10 s \(low-fill-rate\)\s+6900\s+550\.00\s+0\.0797\s+trade 140\.00 USDT more$/m,
    );
    expect(out).toMatch(/^B\s+none\s+none\s+1000\s+215\.00\s+0\.2150\s+1150 more spot requests fit$/m);
    // The 7-day figures are read as before: the worked example's aggregated ratio.
    expect(out).toContain('Aggregated ratio 8.1938 (1057 / 129)');
  });

  it('does not throttle at exactly 0.1 USDT per spot request, and leaves no room for one more', async () => {
    const a = await spot(['A,,,,2026-11-20T16:00:00Z,1000,100']);
    expect(a.next).toMatchObject({ throttle: null, requests: 1000, traded: '100', remaining: 0, needed: '0' });
  });

  it('throttles just under 0.1 at the next check, and asks for the USDT that makes it 0.1', async () => {
    const a = await spot(['A,,,,2026-11-20T16:00:00Z,1000,99.99']);
    expect(a.now.throttle).toBeNull();
    expect(a.next).toMatchObject({ throttle: { reason: 'low-fill-rate' }, remaining: -1, needed: '0.01' });
  });

  it('does not throttle an hour with no spot requests', async () => {
    const a = await spot(['A,,,,2026-11-20T16:00:00Z,0,0']);
    expect(a.now.throttle).toBeNull();
    expect(a.next).toMatchObject({ throttle: null, requests: 0, remaining: 0 });
  });

  it('shows a throttle in force now that the next check lifts, once the fills of the hour bring the window to 0.1', async () => {
    const a = await spot(['A,,,,2026-11-20T15:00:00Z,100,0', 'A,,,,2026-11-20T16:00:00Z,0,10']);
    expect(a.now.throttle?.reason).toBe('no-fills');
    expect(a.next).toMatchObject({ throttle: null, requests: 100, traded: '10' });
    const { out } = await plan(['A,,,,2026-11-20T15:00:00Z,100,0', 'A,,,,2026-11-20T16:00:00Z,0,10']);
    expect(out).toMatch(/^A\s+10 per 10 s \(no-fills\)\s+none\s+100\s+10\.00\s+0\.1000\s+0 more spot requests fit$/m);
  });

  it('names a column in an error as the header spells it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const file = join(dir, 'caps.csv');
    const header = 'Account,Contract,Maker_Volume,TAKER_VOLUME,Place,Hour,Spot_Requests,Spot_Traded';
    const cases: [string, string][] = [
      [
        'A,BTC_USDT,-5,,10,,,',
        'Expected `Maker_Volume` of BTC_USDT in account A to be a non-negative decimal string, got "-5"',
      ],
      [
        'A,BTC_USDT,5,x,10,,,',
        'Expected `TAKER_VOLUME` of BTC_USDT in account A to be a non-negative decimal string, got "x"',
      ],
      ['A,BTC_USDT,5,,-1,,,', 'Expected `Place` to be a non-negative integer, got "-1"'],
      [
        'A,BTC USDT,5,,1,,,',
        'Expected `Contract` in account A to be a contract name such as "BTC_USDT", got "BTC USDT"',
      ],
      [',BTC_USDT,5,,1,,,', 'the field `Account` is empty'],
      ['A,,,,,2026-11-20T16:00:00Z,-1,1', 'Expected `Spot_Requests` to be a non-negative integer, got "-1"'],
      ['A,BTC_USDT,,,,,10,', '`Spot_Requests` belongs to an hour of spot activity: give its `Hour`'],
    ];
    for (const [row, message] of cases) {
      writeFileSync(file, `${header}\n${row}\n`);
      for (const command of ['plan', 'advise']) {
        const { code, err } = await capture([command, file]);
        expect(code).toBe(1);
        expect(err).toContain(`${file}:2: ${message}`);
      }
    }
  });

  it('reads spot hours from JSON with the library spelling', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const file = join(dir, 'spot.json');
    writeFileSync(
      file,
      JSON.stringify([
        { account: 'A', contract: 'BTC_USDT', makerVolume: '100', place: 30 },
        { account: 'A', hour: '2026-11-20T16:00:00Z', spotRequests: 10, spotTraded: '0.5' },
      ]),
    );
    const r = JSON.parse((await capture(['plan', file, '--json'])).out);
    expect(r.spotFill.accounts[0].next).toMatchObject({ throttle: { reason: 'low-fill-rate' }, needed: '0.5' });
    expect(JSON.parse((await capture(['plan', 'examples/family.csv', '--json'])).out).spotFill).toBeNull();
  });

  it('names the line and field of bad spot rows', async () => {
    const cases: [string[], string][] = [
      [['A,,,,2026-11-20T16:30:00Z,10,1'], ':3: Expected `hour` to be a whole UTC hour'],
      [['A,,,,2026-11-20T16:00:00Z,-1,1'], ':3: Expected `spot_requests` to be a non-negative integer, got "-1"'],
      [
        ['A,,,,2026-11-20T16:00:00Z,10,1e3'],
        ':3: Expected `spot_traded` to be a non-negative decimal string, got "1e3"',
      ],
      [
        ['A,ETH_USDT,,,2026-11-20T16:00:00Z,10,1'],
        ':3: a row with an `hour` is an hour of spot activity (spot_requests, spot_traded): it takes no `contract`',
      ],
      [['A,ETH_USDT,,,,10,'], ':3: `spot_requests` belongs to an hour of spot activity: give its `hour`'],
      [
        ['A,,,,2026-11-20T16:00:00Z,10,1', 'A,,,,1795190400000,5,1'],
        ':4: account A lists the hour 1795190400000 again (first on line 3)',
      ],
    ];
    for (const [rows, message] of cases) {
      const { code, err, file } = await plan(rows);
      expect(code).toBe(1);
      expect(err).toContain(`${file}${message}`);
    }
  });
});

describe('traderatio timeline', () => {
  it('lists every change of the example with its instant, limits and reason', async () => {
    const { code, out } = await capture(['timeline', 'examples/timeline.json']);
    expect(code).toBe(0);
    expect(out).toMatch(/2026-11-02T08:00:00\.000Z\s+main\s+100\s+250\s+4\s+raised-at-0800/);
    expect(out).toMatch(/2026-11-04T15:30:00\.000Z\s+mm-bot\s+-\s+100\s+1\s+new-sub-account/);
    expect(out).toMatch(/2026-11-06T13:20:00\.000Z\s+main\s+300\s+100\s+1\s+vip-below-14/);
  });

  it.each([
    ['examples/timeline.json', 'docs/timeline.svg'],
    ['examples/timeline-90d.json', 'docs/timeline-90d.svg'],
    ['examples/timeline-1y.json', 'docs/timeline-1y.svg'],
  ])('renders %s as the chart committed in %s', async (input, chart) => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    expect((await capture(['timeline', input, '--svg', join(dir, 't.svg')])).code).toBe(0);
    expect(readFileSync(join(dir, 't.svg'), 'utf8')).toBe(readFileSync(chart, 'utf8'));
  });

  it('labels the tier bands with tier and limit, and ticks 90 days by the week with the year', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    await capture(['timeline', 'examples/timeline-90d.json', '--svg', join(dir, 't.svg')]);
    const svg = readFileSync(join(dir, 't.svg'), 'utf8');
    for (const band of ['tier 1 · 100', 'tier 4 · 250', 'tier 7 · 400']) expect(svg).toContain(`>${band}</text>`);
    expect(svg).toContain('Grid: weeks, from Monday (lighter: days).');
    const labels = [
      ...svg.matchAll(/<text x="([\d.]+)" y="[\d.]+" text-anchor="middle" fill="#555">([^<]+)<\/text>/g),
    ].map((m) => [Number(m[1]), m[2]] as const);
    expect(labels.slice(0, 3).map(([, l]) => l)).toEqual(['Sep 7', 'Sep 14', 'Sep 21']);
    expect(svg).toContain('font-weight="bold">2026</text>');
    // One panel's labels: never closer than 50 px.
    const panel = labels.slice(
      0,
      labels.findIndex(([x], i) => i > 0 && x < labels[i - 1]![0]),
    );
    expect(panel.length).toBe(14);
    for (let i = 1; i < panel.length; i++) expect(panel[i]![0] - panel[i - 1]![0]).toBeGreaterThanOrEqual(50);
  });

  it('writes a page with the chart and the table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const { code } = await capture(['timeline', 'examples/timeline.json', '--html', join(dir, 't.html'), '--json']);
    expect(code).toBe(0);
    const html = readFileSync(join(dir, 't.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).toContain(
      '<td>2026-11-07T04:00:00.000Z</td><td>main</td><td>100</td><td>300</td><td>5</td><td>vip-restored</td>',
    );
  });

  it('names the line of a bad value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const file = join(dir, 'x.json');
    writeFileSync(
      file,
      '{\n  "accounts": [{ "id": "main" }],\n  "activity": [\n    { "account": "main", "day": "2026-11-01", "contracts": [] },\n    { "account": "main", "day": "2026-13-01", "contracts": [] }\n  ]\n}\n',
    );
    const { code, err } = await capture(['timeline', file]);
    expect(code).toBe(1);
    expect(err).toContain(`${file}:5: Expected \`activity[1].day\` to be a UTC day`);
    writeFileSync(file, '{ "accounts": [{ "id": "b", "createdAt": "yesterday" }], "activity": [] }');
    expect((await capture(['timeline', file])).err).toContain(
      'Expected `accounts[0].createdAt` to be an instant from 2000-01-01 to 2200-01-01: epoch milliseconds (an integer), a Date, or ISO 8601 text',
    );
  });

  it('refuses a VIP level past the highest, 16', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const file = join(dir, 'x.json');
    const activity = '[{ "account": "main", "day": "2026-11-01", "contracts": [] }]';
    writeFileSync(file, `{ "accounts": [{ "id": "main" }], "activity": ${activity}, "vipLevel": 1e308 }`);
    const { code, err } = await capture(['timeline', file]);
    expect(code).toBe(1);
    expect(err).toContain('Expected `vipLevel` to be a VIP level (a whole number from 0 to 16), got 1e+308');
    writeFileSync(file, `{ "accounts": [{ "id": "main" }], "activity": ${activity}, "vipLevel": 16 }`);
    expect((await capture(['timeline', file])).code).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('traderatio timeline: the spot low-fill throttle (see docs/rules.md#r14)', () => {
  const H = '2026-11-03T09:00:00Z';
  const at = (hours: number) => new Date(Date.parse(H) + hours * 3_600_000).toISOString();
  /** A timeline file with one account, a day of futures activity and the given spot hours. */
  const spotFile = (hours: readonly object[]) => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const file = join(dir, 'spot.json');
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          accounts: [{ id: 'main', role: 'main' }],
          activity: [
            {
              account: 'main',
              day: '2026-11-03',
              contracts: [{ contract: 'BTC_USDT', makerVolume: '1000', place: 100 }],
            },
          ],
          spotHours: hours,
        },
        null,
        2,
      )}\n`,
    );
    return { dir, file };
  };
  const periods = async (hours: readonly object[]) => {
    const { code, out, err } = await capture(['timeline', spotFile(hours).file, '--json']);
    expect(err).toBe('');
    expect(code).toBe(0);
    return JSON.parse(out).spotThrottles as {
      from: string;
      until: string;
      reason: string;
      requests: number;
      traded: string;
    }[];
  };

  it('does not throttle at exactly 0.1 USDT per spot request', async () => {
    expect(await periods([{ account: 'main', hour: H, requests: 1000, traded: '100' }])).toEqual([]);
    const { out } = await capture([
      'timeline',
      spotFile([{ account: 'main', hour: H, requests: 1000, traded: '100' }]).file,
    ]);
    expect(out).toContain('Spot low-fill throttle (R14): never in force.');
  });

  it('throttles just under 0.1 from the next hourly check until the window clears', async () => {
    expect(await periods([{ account: 'main', hour: H, requests: 1000, traded: '99.99' }])).toEqual([
      {
        account: 'main',
        from: at(1),
        until: at(25),
        limit: 10,
        windowMs: 10_000,
        reason: 'low-fill-rate',
        requests: 1000,
        traded: '99.99',
      },
    ]);
  });

  it('does not throttle an hour with no spot requests, even with nothing traded', async () => {
    expect(await periods([{ account: 'main', hour: H, requests: 0, traded: '0' }])).toEqual([]);
    expect(await periods([{ account: 'main', hour: H, requests: 0, traded: '5' }])).toEqual([]);
  });

  it('lifts at the first hourly check that no longer trips it, and never before an hour', async () => {
    // Nothing traded in hour H: throttled from H + 1. The fill in hour H + 1 brings the window to
    // exactly 0.1: the check at H + 2 lifts it, one hour after it began, not at the fill itself.
    const lifted = await periods([
      { account: 'main', hour: H, requests: 100, traded: '0' },
      { account: 'main', hour: at(1), requests: 0, traded: '10' },
    ]);
    expect(lifted.map((p) => [p.from, p.until, p.reason])).toEqual([[at(1), at(2), 'no-fills']]);
    // 9.99 USDT in hour H + 1 is still under: the throttle holds until H + 1 leaves the window.
    const held = await periods([
      { account: 'main', hour: H, requests: 100, traded: '0' },
      { account: 'main', hour: at(1), requests: 0, traded: '9.99' },
    ]);
    expect(held.map((p) => [p.from, p.until, p.reason])).toEqual([
      [at(1), at(2), 'no-fills'],
      [at(2), at(25), 'low-fill-rate'],
    ]);
  });

  it('prints the throttled hours and draws them in the chart with a legend', async () => {
    const { dir, file } = spotFile([{ account: 'main', hour: H, requests: 300, traded: '0' }]);
    const { out } = await capture(['timeline', file, '--svg', join(dir, 't.svg'), '--html', join(dir, 't.html')]);
    expect(out).toContain('Spot low-fill throttle (R14): 1 period, 24 hours in all');
    expect(out).toMatch(
      /main\s+2026-11-03T10:00:00\.000Z\s+2026-11-04T10:00:00\.000Z\s+24\s+10 per 10 s\s+no-fills\s+300\s+0\.00\s+0\.0000/,
    );
    const svg = readFileSync(join(dir, 't.svg'), 'utf8');
    expect(svg).toContain('Orange: spot placement and amendment throttled');
    expect(svg).toContain(
      '<title>2026-11-03T10:00:00.000Z to 2026-11-04T10:00:00.000Z: spot 10 per 10 s (no-fills)</title>',
    );
    expect(readFileSync(join(dir, 't.html'), 'utf8')).toContain(
      '<td>main</td><td>2026-11-03T10:00:00.000Z</td><td>2026-11-04T10:00:00.000Z</td><td>10 per 10 s</td>',
    );
  });

  it('draws no spot legend for a file without spot activity', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    await capture(['timeline', 'examples/timeline-90d.json', '--svg', join(dir, 't.svg')]);
    expect(readFileSync(join(dir, 't.svg'), 'utf8')).not.toContain('spot');
    expect(
      JSON.parse((await capture(['timeline', 'examples/timeline-90d.json', '--json'])).out).spotThrottles,
    ).toBeNull();
  });

  it('names the line and field of bad spot hours', async () => {
    const cases: [object[], number, string, string][] = [
      [
        [{ account: 'main', hour: '2026-11-03T09:30:00Z', requests: 1 }],
        0,
        'hour',
        'Expected `spotHours[0].hour` to be a whole UTC hour',
      ],
      [
        [{ account: 'main', hour: H, requests: -1 }],
        0,
        'requests',
        'Expected `spotHours[0].requests` to be a non-negative integer, got -1',
      ],
      [
        [{ account: 'main', hour: H, requests: 1, traded: '1e3' }],
        0,
        'traded',
        'Expected `spotHours[0].traded` to be a non-negative decimal string, got "1e3"',
      ],
      [
        [{ account: 'hedge', hour: H, requests: 1 }],
        0,
        'account',
        'Expected `spotHours[0].account` to be an account of `accounts` (main), got "hedge"',
      ],
      [
        [{ account: 'main', hour: H, requests: 1, spot_traded: '1' }],
        0,
        'spot_traded',
        'Unknown field `spot_traded` in `spotHours[0]`',
      ],
      [
        [
          { account: 'main', hour: H, requests: 1 },
          { account: 'main', hour: Date.parse(H), requests: 2 },
        ],
        1,
        'hour',
        'Expected `spotHours[1].hour` to be each hour of account main once (first as `spotHours[0].hour`)',
      ],
    ];
    for (const [hours, index, field, message] of cases) {
      const { file } = spotFile(hours);
      const lines = readFileSync(file, 'utf8').split('\n');
      // The line of the field in the index-th spot hour.
      const after = lines.findIndex((l) => l.includes('"spotHours"'));
      const line = lines.map((l, i) => [l, i + 1] as const).filter(([l, i]) => i > after && l.includes(`"${field}":`))[
        index
      ]![1];
      const { code, err } = await capture(['timeline', file]);
      expect(code).toBe(1);
      expect(err).toContain(`traderatio: ${file}:${line}: ${message}`);
    }
  });
});

describe('traderatio timeline: the futures abuse throttle (see docs/rules.md#r9)', () => {
  it('reads the history file simulate --history and the model exchange read, its futures hours included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const file = 'examples/yesterday-history.json';
    const args = ['timeline', file, '--svg', join(dir, 't.svg'), '--html', join(dir, 't.html')];
    const { code, out, err } = await capture(args);
    expect(err).toBe('');
    expect(code).toBe(0);
    // bot's 86,401 requests without a fill in the hour from 01:00 on November 19: throttled from
    // the check of 02:00 until that hour leaves the window, 24 hours later.
    expect(out).toContain(
      'Futures abuse throttle (R9): 1 period, 24 hours in all, futures placement and amendment limited per account',
    );
    expect(out).toMatch(
      /bot\s+2026-11-19T02:00:00\.000Z\s+2026-11-20T02:00:00\.000Z\s+24\s+10 per 10 s\s+no-fills\s+86401\s+0\.00\s+0\.0000\n/,
    );
    // The hours are data: bot's last day is the 19th, main's (days only) the 18th.
    expect(out).toContain('Last day of data: main 2026-11-18, bot 2026-11-19.');
    expect(out).not.toContain('Spot low-fill throttle');
    const json = JSON.parse((await capture(['timeline', file, '--json'])).out);
    expect(json.abuseThrottles).toEqual([
      {
        account: 'bot',
        from: '2026-11-19T02:00:00.000Z',
        until: '2026-11-20T02:00:00.000Z',
        limit: 10,
        windowMs: 10000,
        reason: 'no-fills',
        requests: 86401,
        traded: '0',
      },
    ]);
    expect(json.spotThrottles).toBeNull();
    const svg = readFileSync(join(dir, 't.svg'), 'utf8');
    expect(svg).toContain('Purple: futures placement and amendment throttled (R9 abuse throttle');
    expect(svg).not.toContain('Orange:');
    expect(svg).toContain(
      '<title>2026-11-19T02:00:00.000Z to 2026-11-20T02:00:00.000Z: futures 10 per 10 s (no-fills)</title>',
    );
    expect(readFileSync(join(dir, 't.html'), 'utf8')).toContain(
      '<h2>Futures abuse throttle (R9)</h2>\n<table><thead><tr><th>account</th><th>from (UTC)</th><th>until (UTC)</th><th>futures limit</th>',
    );
    // A file without hours gives none.
    expect(JSON.parse((await capture(['timeline', 'examples/timeline.json', '--json'])).out).abuseThrottles).toBeNull();
  });

  it('names the line and field of bad futures hours', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const file = join(dir, 'h.json');
    const write = (hours: unknown) =>
      writeFileSync(
        file,
        `{\n  "accounts": [{ "id": "main" }],\n  "activity": [{ "account": "main", "day": "2026-11-01", "contracts": [] }],\n  "hours": [\n    { "account": "main", "hour": "2026-11-01T00:00:00Z", "requests": 1 },\n    ${JSON.stringify(hours)}\n  ]\n}\n`,
      );
    const cases: [unknown, string][] = [
      [
        { account: 'main', hour: '2026-11-01T01:00:00Z', requests: -1 },
        'Expected `hours[1].requests` to be a non-negative integer, got -1',
      ],
      [
        { account: 'main', hour: '2026-11-01T01:00:00Z', requests: 1, traded: '-2' },
        'Expected `hours[1].traded` to be a non-negative decimal string, got "-2"',
      ],
      [
        { account: 'bot', hour: '2026-11-01T01:00:00Z', requests: 1 },
        'Expected `hours[1].account` to be an account of `accounts` (main), got "bot"',
      ],
      [
        { account: 'main', hour: '2026-11-01T00:00:00Z', requests: 1 },
        'Expected `hours[1].hour` to be each hour of account main once (first as `hours[0].hour`)',
      ],
    ];
    for (const [hours, message] of cases) {
      write(hours);
      const { code, err } = await capture(['timeline', file]);
      expect(code).toBe(1);
      expect(err).toContain(`traderatio: ${file}:6: ${message}`);
    }
  });
});

describe('traderatio simulate', () => {
  it('replays the example log: what the exchange refuses as sent, and the delays the scheduler adds instead', async () => {
    const { code, out } = await capture(['simulate', 'examples/requests.csv', '--json']);
    expect(code).toBe(0);
    const r = JSON.parse(out);
    expect(r).toMatchObject({ lines: 569, requests: 537, fills: 31 });
    expect(r.exchange.refused).toBe(54);
    expect(r.exchange.byLimit).toEqual({ 'futures.place': 50, withdrawals: 2, 'spot.place:BTC_USDT': 2 });
    // Instants as ISO text, as every instant of the report's sections.
    expect(r.exchange.examples[0]).toEqual({
      line: 102,
      at: '2026-11-20T09:00:00.300Z',
      account: 'main',
      limit: 'futures.place',
    });
    expect(r.scheduler).toMatchObject({ refusedByExchange: 0, tooHeavy: 0, maxMs: 4000 });
    expect(r.scheduler.delayed).toBeGreaterThanOrEqual(54);
  });

  it('names the snapshot in force when the log starts, even long after the history ends', async () => {
    // examples/timeline.json ends on November 7, its activity out of the window from the 15th; the
    // log starts at 23:59 on the 19th, when the exchange's latest snapshot is that of the 19th.
    const args = ['simulate', 'examples/yesterday.csv', '--history', 'examples/timeline.json'];
    const r = JSON.parse((await capture([...args, '--json'])).out);
    expect(r.start.map((s: { account: string; snapshotAt: string }) => [s.account, s.snapshotAt])).toEqual([
      ['main', '2026-11-19T00:00:00.000Z'],
      ['hedge', '2026-11-19T00:00:00.000Z'],
      ['mm-bot', '2026-11-19T00:00:00.000Z'],
      ['bot', '2026-11-19T00:00:00.000Z'],
    ]);
    expect((await capture(args)).out).toMatch(
      /main\s+1\s+100 r\/s\s+2026-11-19T23:59:00\.000Z\s+history: the snapshot of 2026-11-19 00:00 UTC rates it none/,
    );
  });

  it('starts each account at the tier its history gives, says where it comes from, and reports by account and by minute', async () => {
    const args = ['simulate', 'examples/yesterday.csv', '--history', 'examples/yesterday-history.json'];
    const text = (await capture(args)).out;
    expect(text.indexOf('Starting tiers')).toBeLessThan(text.indexOf('As sent'));
    expect(text).toMatch(
      /^main\s+6\s+350 r\/s\s+2026-11-19T23:59:00.000Z\s+history: the snapshot of 2026-11-19 00:00 UTC rates it 24.5714 \(max-own\)/m,
    );
    expect(text).toMatch(
      /^bot\s+650\s+70\s+abuse-throttle 40 \(no-fills: 40\); futures.place 30 \(tier 4 \(raised-at-0800\): 30\)\s+280 in 1 s \(limit 250\)/m,
    );
    expect(text).toMatch(/^2026-11-20T00:00\s+360\s+40\s+futures.place 40$/m);
    const r = JSON.parse((await capture([...args, '--json'])).out);
    expect(r.start[0]).toMatchObject({
      account: 'main',
      tier: 6,
      limit: 350,
      source: 'history',
      snapshotAt: '2026-11-19T00:00:00.000Z',
      rating: { basis: 'max-own', own: { ratio: '24.57142857' } },
    });
    expect(r.minutes.map((m: { minute: string; refused: number }) => [m.minute, m.refused])).toEqual([
      ['2026-11-19T23:59:00.000Z', 20],
      ['2026-11-20T00:00:00.000Z', 40],
      ['2026-11-20T01:30:00.000Z', 20],
      ['2026-11-20T02:00:00.000Z', 0],
      ['2026-11-20T07:59:00.000Z', 30],
      ['2026-11-20T08:00:00.000Z', 0],
    ]);
    expect(r.accounts.find((a: { account: string }) => a.account === 'main')).toMatchObject({
      requests: 720,
      refused: 40,
      byLimit: { 'futures.place': { refused: 40, reasons: { 'tier 5 (lowered-at-snapshot)': 40 } } },
    });
    expect(
      r.peaks.find((p: { account: string; limit: string }) => p.account === 'main' && p.limit === 'futures.place'),
    ).toMatchObject({ most: 340, windowMs: 1000, n: 300 });
    // Without the history, every account starts at tier 1, and says so.
    const bare = JSON.parse((await capture(['simulate', 'examples/yesterday.csv', '--json'])).out);
    expect(bare.start.map((s: { limit: number; source: string }) => [s.limit, s.source])).toEqual([
      [100, 'assumed'],
      [100, 'assumed'],
    ]);
    expect(bare.exchange.refused).toBeGreaterThan(r.exchange.refused);
    // --vip below 14 puts every account at tier 1; --broker rates main by its own ratio only.
    const vip = JSON.parse((await capture([...args, '--vip', '13', '--json'])).out);
    expect(vip.start.map((s: { limit: number; source: string }) => [s.limit, s.source])).toEqual([
      [100, 'vip'],
      [100, 'vip'],
    ]);
    const broker = JSON.parse((await capture([...args, '--broker', '--json'])).out);
    expect(broker.start.map((s: { rating: { basis: string } }) => s.rating.basis)).toEqual(['own', 'own']);
  });

  it('refuses a history that runs into the log, naming the file, the line and the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const history = join(dir, 'h.json');
    writeFileSync(
      history,
      JSON.stringify({ activity: [{ account: 'main', day: '2026-11-19', contracts: [] }] }, null, 2),
    );
    const { code, err } = await capture(['simulate', 'examples/yesterday.csv', '--history', history]);
    expect(code).toBe(1);
    expect(err).toBe(
      `traderatio: ${history}:5: Expected \`activity[0].day\` to be a day before the log's first (2026-11-19): the history is what happened before the log, got "2026-11-19"`,
    );
    writeFileSync(history, '{ "activity": [], "hours": [{ "account": "main", "hour": "x", "requests": 1 }] }');
    expect((await capture(['simulate', 'examples/yesterday.csv', '--history', history])).err).toContain(
      `${history}:1: Expected \`hours[0].hour\``,
    );
    expect((await capture(['simulate', '-', '--history', '-'])).code).toBe(2);
    rmSync(dir, { recursive: true });
  });

  it("names the history file and the value's line for what only seeding the history refuses, never the log", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const history = join(dir, 'h.json');
    const refused = async (file: unknown): Promise<string> => {
      writeFileSync(history, JSON.stringify(file, null, 2));
      const { code, out, err } = await capture(['simulate', 'examples/yesterday.csv', '--history', history]);
      expect([code, out]).toEqual([1, '']);
      return err;
    };
    const day = (contracts: unknown) => ({
      activity: [
        { account: 'main', day: '2026-11-12', contracts: [] },
        { account: 'main', day: '2026-11-13', contracts },
      ],
    });
    expect(await refused(day([{ contract: 'BTC_USDT', makerVolume: 'NaN', place: 1 }]))).toBe(
      `traderatio: ${history}:8: Expected \`makerVolume\` of BTC_USDT in \`activity[1]\` (main, 2026-11-13) to be a non-negative decimal string, got "NaN"`,
    );
    expect(await refused(day([{ contract: 'BTC_USDT', place: '10' }]))).toMatch(
      new RegExp(`^traderatio: ${history}:8: Expected \`place\` of BTC_USDT in \`activity\\[1\\]\``),
    );
    expect(await refused(day({}))).toMatch(
      new RegExp(`^traderatio: ${history}:8: Expected \`contracts\` in \`activity\\[1\\]\``),
    );
    expect(
      await refused({
        activity: [
          { account: 'main', day: '2026-11-13', contracts: [] },
          { account: 'main', day: '2026-11-13', contracts: [] },
        ],
      }),
    ).toBe(
      `traderatio: ${history}:8: Expected \`activity[1]\` to be one entry per account and day (this one repeats), got "main on 2026-11-13"`,
    );
    expect(
      await refused({
        hours: [
          { account: 'main', hour: -1, requests: 1 },
          { account: 'main', hour: -1, requests: 2 },
        ],
      }),
    ).toBe(
      `traderatio: ${history}:10: Expected \`hours[1].hour\` to be each hour of account main once (first as \`hours[0].hour\`), got -1`,
    );
    expect(await refused({ accounts: {} })).toBe(
      `traderatio: ${history}:2: Expected \`accounts\` to be an array of { "id", "role"?, "createdAt"? }, got {}`,
    );
    // JSON.parse keeps the last of a key given twice: the first list would go unsaid.
    writeFileSync(
      history,
      '{\n  "activity": [{ "account": "main", "day": "2026-11-12", "contracts": [], "day": "2026-11-13" }],\n  "activity": []\n}',
    );
    expect((await capture(['simulate', 'examples/yesterday.csv', '--history', history])).err).toBe(
      `traderatio: ${history}:2: the key "day" is given twice in one object (first on line 2); JSON keeps only the last, so give it once`,
    );
    writeFileSync(
      history,
      '{\n  "activity": [{ "account": "main", "day": "2026-11-12", "contracts": [] }],\n  "a\\"ctivity": [], "hours": [],\n  "activity": []\n}',
    );
    expect((await capture(['simulate', 'examples/yesterday.csv', '--history', history])).err).toBe(
      `traderatio: ${history}:4: the key "activity" is given twice in one object (first on line 2); JSON keeps only the last, so give it once`,
    );
    rmSync(dir, { recursive: true });
  });

  it('draws the limit in force and the refusals by minute with --svg, and a page with --html', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const svg = join(dir, 'sim.svg');
    const html = join(dir, 'sim.html');
    const { code } = await capture([
      'simulate',
      'examples/yesterday.csv',
      '--history',
      'examples/yesterday-history.json',
      '--svg',
      svg,
      '--html',
      html,
    ]);
    expect(code).toBe(0);
    const chart = readFileSync(svg, 'utf8');
    expect(chart).toMatch(/^<svg /);
    expect(chart).toContain('throttled: futures placement 10 per 10 s (R9)');
    expect(chart).toContain('<title>2026-11-20T00:00: 40 refused</title>');
    expect(readFileSync(html, 'utf8')).toContain('Starting tiers');
    rmSync(dir, { recursive: true });
  });

  it('counts a batch once per order on the futures limit, and reads quoted fields', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const file = join(dir, 'log.csv');
    const t = Date.parse('2026-11-20T09:00:00Z');
    const lines = ['at,account,method,path,contract,orders'];
    for (let i = 0; i < 11; i++) lines.push(`${t + i},main,POST,"/api/v4/futures/usdt/batch_orders",BTC_USDT,10`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = JSON.parse((await capture(['simulate', file, '--json'])).out);
    // Tier 1: 100 orders a second; ten batches of ten fill it, the eleventh is refused.
    expect(r.exchange.byLimit).toEqual({ 'futures.place': 1 });
    expect(r.scheduler.maxMs).toBe(1000 - 10);
  });

  it('shows the spot low-fill throttle: refusals the hour after a fill ratio below 0.1, none at exactly 0.1 (see docs/rules.md#r14)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const run = async (traded: string) => {
      const file = join(dir, `spot-${traded}.csv`);
      const t = Date.parse('2026-11-20T09:00:00Z');
      const rows = ['at,account,method,path,contract,orders,fill_role,fill_volume'];
      for (let i = 0; i < 100; i++) rows.push(`${t + i * 1000},main,POST,/api/v4/spot/orders,ETH_USDT,1,,`);
      rows.push(`${t + 200_000},main,,/api/v4/spot/orders,ETH_USDT,,maker,${traded}`);
      // The hour after: 12 placements 150 ms apart (inside the pair's 10 per second) and a cancel.
      for (let i = 0; i < 12; i++) rows.push(`${t + 3_600_000 + i * 150},main,POST,/api/v4/spot/orders,ETH_USDT,1,,`);
      rows.push(`${t + 3_602_000},main,DELETE,/api/v4/spot/orders/1,ETH_USDT,1,,`);
      writeFileSync(file, `${rows.join('\n')}\n`);
      return JSON.parse((await capture(['simulate', file, '--json'])).out);
    };
    expect((await run('9.99')).exchange.byLimit).toEqual({ 'spot-fill-throttle': 2 });
    expect((await run('10')).exchange.byLimit).toEqual({});
  });

  it('reads CRLF line ends, comments, spaces around fields and account names past ASCII', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const file = join(dir, 'log.csv');
    const t = Date.parse('2026-11-20T09:00:00Z');
    const rows = ['at,account,method,path,contract', '# two accounts whose names differ only past ASCII'];
    for (let i = 0; i < 101; i++) rows.push(`${t + i}, compte-é ,POST,/futures/usdt/orders,BTC_USDT`);
    for (let i = 0; i < 101; i++) rows.push(`${t + 200 + i},compte-è,POST,/futures/usdt/orders,BTC_USDT`);
    writeFileSync(file, `${rows.join('\r\n')}\r\n`);
    const r = JSON.parse((await capture(['simulate', file, '--json'])).out);
    // Each account has its own 100 per second: one over for each, not 102 over one.
    expect(r.exchange.byLimit).toEqual({ 'futures.place': 2 });
    expect(r.requests).toBe(202);
  });

  it('holds at most --max-queue requests waiting, as an engine would, and says how many it refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const file = join(dir, 'burst.csv');
    const t = Date.parse('2026-11-20T09:00:00Z');
    // 130 placements at once: tier 1 sends 100, 30 wait; room for 20 of them.
    writeFileSync(
      file,
      `at,account,method,path,contract\n${Array.from({ length: 130 }, () => `${t},main,POST,/futures/usdt/orders,BTC_USDT`).join('\n')}\n`,
    );
    const text = await capture(['simulate', file, '--max-queue', '20']);
    expect(text.code).toBe(0);
    expect(text.out).toContain('Through the scheduler: 20 requests delayed;');
    expect(text.out).toContain('  refused by the scheduler, its queue full: 10 requests, never sent');
    expect(JSON.parse((await capture(['simulate', file, '--json'])).out).scheduler).toMatchObject({
      delayed: 30,
      queueFull: 0,
    });
    expect(
      JSON.parse((await capture(['simulate', file, '--json', '--max-queue', 'Infinity'])).out).scheduler,
    ).toMatchObject({ delayed: 30, queueFull: 0 });
    expect(JSON.parse((await capture(['simulate', file, '--json', '--max-queue', '0'])).out).scheduler).toMatchObject({
      delayed: 0,
      queueFull: 30,
    });
    for (const bad of ['x', '-1', '1.5']) {
      const { code, err } = await capture(['simulate', file, `--max-queue=${bad}`]);
      expect({ code, err }).toMatchObject({
        code: 2,
        err: expect.stringContaining(
          `--max-queue takes a number of requests (a whole number such as 100000, or Infinity), got "${bad}"`,
        ),
      });
    }
  });

  it('names the line and field of bad input', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const cases: [string, string][] = [
      [
        'at,account,method,path\n1793491200000,main,GET,/spot/tickers\n1793491199999,main,GET,/spot/tickers\n',
        ':3: Expected `at` to be at or after the line before',
      ],
      [
        'at,account,method,path\nyesterday,main,GET,/spot/tickers\n',
        ':2: Expected `at` to be an instant from 2000-01-01 to 2200-01-01: epoch milliseconds (an integer), a Date, or ISO 8601 text',
      ],
      ['at,account,method,path\n1793491200000,main,GET,/nowhere\n', ':2: Expected `path` to be a path of the API v4'],
      [
        'at,account,contract,fill_role,fill_volume\n1793491200000,main,BTC_USDT,buyer,5\n',
        ':2: Expected `fill_role` to be "maker" or "taker", got "buyer"',
      ],
      [
        'at,account,contract,fill_role,fill_volume\n1793491200000,main,BTC_USDT,maker,-5\n',
        ':2: Expected `fill_volume` to be a non-negative decimal string, got "-5"',
      ],
      // A column is named as the file spells it.
      [
        'At,Account,contract,Fill_Role,Fill_Volume\n1793491200000,main,BTC_USDT,maker,1e5\n',
        ':2: Expected `Fill_Volume` to be a non-negative decimal string, got "1e5"',
      ],
      [
        'AT,account,contract,fill_role,fill_volume\n1793491200000,main,BTC_USDT,maker,1\n1793491100000,main,BTC_USDT,maker,1\n',
        ':3: Expected `AT` to be at or after the line before',
      ],
      [
        'at,account,method,path,orders\n1793491200000,main,POST,/futures/usdt/batch_orders,zero\n',
        ':2: Expected `orders` to be a positive integer, got "zero"',
      ],
      ['at,who\n', ':1: unknown column "who"'],
      ['at,account\n1793491200000,main,extra\n', ':2: 3 fields where the header has 2'],
    ];
    for (const [i, [text, message]] of cases.entries()) {
      const file = join(dir, `bad${i}.csv`);
      writeFileSync(file, text);
      const { code, err } = await capture(['simulate', file]);
      expect({ code, err }).toMatchObject({ code: 1, err: expect.stringContaining(`${file}${message}`) });
    }
  });
});

describe('traderatio with an instant out of range', () => {
  it('names the file, line and field, not "Invalid time value"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-'));
    const json = join(dir, 'x.json');
    writeFileSync(
      json,
      '{\n  "accounts": [\n    { "id": "main", "role": "main" },\n    { "id": "b", "createdAt": 9000000000000000 }\n  ],\n  "activity": [{ "account": "main", "day": "2026-11-01", "contracts": [] }],\n  "vipChanges": [{ "at": "2300-01-01T00:00:00Z", "level": 12 }]\n}\n',
    );
    const timeline = await capture(['timeline', json]);
    expect(timeline.code).toBe(1);
    expect(timeline.err).toContain(
      `${json}:4: Expected \`accounts[1].createdAt\` to be an instant from 2000-01-01 to 2200-01-01: epoch milliseconds (an integer), a Date, or ISO 8601 text with a zone (2026-11-05T10:00:00Z) or a day (2026-11-05), got 9000000000000000`,
    );
    writeFileSync(
      json,
      '{\n  "accounts": [{ "id": "main", "role": "main" }],\n  "activity": [],\n  "vipChanges": [\n    { "at": "2300-01-01T00:00:00Z", "level": 12 }\n  ]\n}\n',
    );
    expect((await capture(['timeline', json])).err).toContain(
      `${json}:5: Expected \`vipChanges[0].at\` to be an instant`,
    );
    const csv = join(dir, 'x.csv');
    writeFileSync(
      csv,
      'at,account,method,path,contract\n1793491200000,main,POST,/futures/usdt/orders,BTC_USDT\n1793491200000000,main,POST,/futures/usdt/orders,BTC_USDT\n',
    );
    const simulate = await capture(['simulate', csv]);
    expect(simulate.code).toBe(1);
    expect(simulate.err).toContain(
      `${csv}:3: Expected \`at\` to be an instant from 2000-01-01 to 2200-01-01: epoch milliseconds (an integer), a Date, or ISO 8601 text with a zone (2026-11-05T10:00:00Z) or a day (2026-11-05), got 1793491200000000`,
    );
    for (const r of [timeline, simulate]) expect(r.err).not.toContain('Invalid time value');
  });
});
