import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { rateFamily } from '../../src/rules/family.js';
import { advise } from '../../src/advise/advise.js';

async function capture(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const dir = mkdtempSync(join(tmpdir(), 'traderatio-advise-'));
const t0 = Date.parse('2026-11-20T09:00:00Z');
const PLACE = 'POST,/api/v4/futures/usdt/orders';
const CANCEL = 'DELETE,/api/v4/futures/usdt/orders/123';

/**
 * A day's log of account m on BTC_USDT: 1,000 cancels each followed by a placement 500 ms later (a
 * pair), 500 followed 2 s later (not a pair), 10 followed exactly 1,000 ms later (a pair) and 10
 * 1,001 ms later (not), each five seconds from the next; maker fills of 9,000 USDT in all.
 */
function pairsLog(): string {
  const rows = ['at,account,method,path,contract,orders,fill_role,fill_volume'];
  let t = t0;
  const unit = (gap: number) => {
    rows.push(`${t},m,${CANCEL},BTC_USDT,,,`, `${t + gap},m,${PLACE},BTC_USDT,,,`);
    t += 5000;
  };
  for (let i = 0; i < 1000; i++) unit(500);
  for (let i = 0; i < 500; i++) unit(2000);
  for (let i = 0; i < 10; i++) unit(1000);
  for (let i = 0; i < 10; i++) unit(1001);
  rows.push(`${t},m,,,BTC_USDT,,maker,9000`);
  return `${rows.join('\n')}\n`;
}

describe('traderatio advise on a request log', () => {
  const file = join(dir, 'pairs.csv');
  writeFileSync(file, pairsLog());

  it('counts the cancel + place pairs within 1 s, not those 2 s apart, and rates the amends with the rules', async () => {
    const { code, out, err } = await capture(['advise', file, '--json']);
    expect(err).toBe('');
    expect(code).toBe(0);
    const r = JSON.parse(out);
    const pairs = r.findings.find((f: { kind: string }) => f.kind === 'amend-pairs');
    expect(pairs.rules).toEqual(['R1']);
    expect(pairs.figures).toEqual({ pairs: 1010, requestsSaved: 1010 });
    // The edited activity by hand: 1,520 placements and cancels, 1,010 of each made an amend.
    const now = rateFamily([
      { account: 'm', contracts: [{ contract: 'BTC_USDT', makerVolume: '9000', place: 1520, cancel: 1520 }] },
    ]);
    const edited = rateFamily([
      {
        account: 'm',
        contracts: [{ contract: 'BTC_USDT', makerVolume: '9000', place: 510, amend: 1010, cancel: 510 }],
      },
    ]);
    expect(r.now.aggregated.denominator).toBe(now.aggregated.denominator.toString());
    // JSON gives ratios to 8 places, the exact numerator and denominator beside them.
    expect(pairs.outcome.aggregated).toMatchObject({
      numerator: '9000',
      denominator: edited.aggregated.denominator.toString(),
      ratio: edited.aggregated.ratio!.toFixed(8),
    });
    // 9000 / 3040 = 2.96 (tier 2, 150 r/s); 9000 / 2030 = 4.43 (tier 3, 200 r/s).
    expect([r.now.accounts[0].limit, pairs.outcome.accounts[0].limit]).toEqual([150, 200]);
    expect([now.accounts[0]!.tier.limit, edited.accounts[0]!.tier.limit]).toEqual([150, 200]);
    expect(r.findings[0].kind).toBe('amend-pairs');
  });

  it('takes the pair window as an option', async () => {
    const r = JSON.parse((await capture(['advise', file, '--json', '--pair-window', '2000'])).out);
    expect(r.findings.find((f: { kind: string }) => f.kind === 'amend-pairs').figures.pairs).toBe(1520);
    expect((await capture(['advise', file, '--pair-window', 'soon'])).err).toContain(
      '--pair-window takes a whole number of milliseconds (such as 1000), got "soon"',
    );
  });

  it("gives the figures of the library advise run on the log's 7-day activity", async () => {
    const r = JSON.parse((await capture(['advise', file, '--json'])).out);
    const library = advise({
      accounts: [
        { account: 'm', contracts: [{ contract: 'BTC_USDT', makerVolume: '9000', place: 1520, cancel: 1520 }] },
      ],
      pairs: [{ account: 'm', contract: 'BTC_USDT', pairs: 1010 }],
    });
    expect(r.findings.map((f: { change: string }) => f.change)).toEqual(library.findings.map((f) => f.change));
    expect(r.combination.outcome.aggregated.ratio).toBe(library.combination!.outcome.aggregated.ratio!.toFixed(8));
  });

  it('prints a ranked table naming each rule, the combination, and the throttle near misses', async () => {
    const { out } = await capture(['advise', file]);
    expect(out).toMatch(
      /^1\s+R1\s+free\s+send 1010 cancel \+ place pairs as one amend each\s+4\.4335\s+m 200\s+\+50 r\/s$/m,
    );
    expect(out.indexOf('What to change')).toBeLessThan(out.indexOf('Informational (where to quote'));
    expect(out).toContain('Together (amend-pairs, heavy-contracts)');
    expect(out).toContain(
      '24-hour throttles (R9 futures, R14 spot): no hourly check tripped or came within 10% of tripping',
    );
  });

  it('reports the hours within 10% of the abuse throttle, with the fill volume that keeps them clear (see docs/rules.md#r9)', async () => {
    // 80,000 placements in an hour, 100 USDT traded: 88,000 would trip the abuse throttle (see docs/rules.md#r9) at a fill rate under 0.01.
    const rows = ['at,account,method,path,contract,orders,fill_role,fill_volume'];
    for (let i = 0; i < 80_000; i++) rows.push(`${t0 + Math.floor(i * 45)},m,${PLACE},SOL_USDT,,,`);
    rows.push(`${t0 + 3_599_999},m,,,SOL_USDT,,taker,100`);
    const busy = join(dir, 'busy.csv');
    writeFileSync(busy, `${rows.join('\n')}\n`);
    const r = JSON.parse((await capture(['advise', busy, '--json'])).out);
    expect(r.throttles).toHaveLength(24);
    expect(r.throttles[0]).toMatchObject({
      account: 'm',
      rule: 'R9',
      requests: 80_000,
      traded: '100',
      tripped: null,
      withMargin: 88_000,
      clearVolume: '780',
    });
  });

  it('writes a page with the chart of the ratio by day, with and without the changes', async () => {
    const html = join(dir, 'a.html');
    expect((await capture(['advise', file, '--html', html])).code).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<svg');
    expect(page).toContain('with the changes together');
    expect(page.match(/<polyline/g)).toHaveLength(2);
  });
});

describe('traderatio advise on standard input', () => {
  it('tells a log from 7-day figures when the header comes in pieces', async () => {
    const text = readFileSync('examples/advise.csv', 'utf8');
    async function* pieces() {
      yield 'a';
      yield 't,acc';
      yield text.slice(6);
    }
    const out: string[] = [];
    const code = await run(['advise', '-', '--json'], { out: (l) => out.push(l), err: () => {} }, { stdin: pieces() });
    expect(code).toBe(0);
    expect(JSON.parse(out.join('\n'))).toMatchObject({ format: 'log', log: { lines: 1527 } });
  });
});

describe('traderatio advise on 7-day figures', () => {
  it('reads the plan format and ranks the findings', async () => {
    const { code, out } = await capture(['advise', 'examples/family.csv', '--json']);
    expect(code).toBe(0);
    const r = JSON.parse(out);
    expect(r.format).toBe('plan');
    expect(r.findings[0]).toMatchObject({ kind: 'next-tier-maker', rules: ['R1', 'R3'] });
    for (let i = 1; i < r.findings.length; i++)
      expect(r.findings[i - 1].outcome.gain).toBeGreaterThanOrEqual(r.findings[i].outcome.gain);
  });

  it('refuses a share out of range by the option as typed', async () => {
    expect((await capture(['advise', 'examples/family.csv', '--taker-share', '2'])).err).toContain(
      '--taker-share takes a share from 0 to 1 (such as 0.5), got "2"',
    );
  });
});

describe('traderatio advise with bad input', () => {
  it('accepts what simulate accepts: a spot order on a pair no contract name fits, a futures order without a contract', async () => {
    const file = join(dir, 'lenient.csv');
    writeFileSync(
      file,
      'at,account,method,path,contract\n1793491200000,main,POST,/api/v4/spot/orders,BTC USDT\n1793491200001,main,POST,/api/v4/futures/usdt/orders,\n',
    );
    expect((await capture(['simulate', file])).code).toBe(0);
    const r = JSON.parse((await capture(['advise', file, '--json'])).out);
    // The futures order counts under BTC_USDT, as the exchange model counts it.
    expect(r.now.aggregated).toMatchObject({ denominator: '1' });
  });

  it('refuses what simulate refuses, with the same file, line and message', async () => {
    const cases = [
      'at,account,method,path\n1793491200000,main,GET,/spot/tickers\n1793491199999,main,GET,/spot/tickers\n',
      'at,account,method,path\nyesterday,main,GET,/spot/tickers\n',
      'at,account,method,path\n1793491200000,main,GET,/nowhere\n',
      'at,account,contract,fill_role,fill_volume\n1793491200000,main,BTC_USDT,buyer,5\n',
      'at,account,contract,fill_role,fill_volume\n1793491200000,main,BTC_USDT,maker,-5\n',
      'at,account,contract,fill_role,fill_volume\n1793491200000,main,BTC USDT,maker,5\n',
      'at,account,method,path,orders\n1793491200000,main,POST,/futures/usdt/batch_orders,zero\n',
      'at,account,method,path,contract\n1793491200000,main,POST,/futures/usdt/orders,BTC USDT\n',
      'at,who\n',
      'at,account\n1793491200000,main,extra\n',
      'at,account,method,path\n# nothing yet\n',
      'at,account,method,path\n1793491200000,,GET,/spot/tickers\n',
      'at,account,method,path\n"1793491200000,main,GET,/spot/tickers\n',
      'at,account,method,path,contract\n1793491200000000,main,POST,/futures/usdt/orders,BTC_USDT\n',
      '',
    ];
    for (const [i, text] of cases.entries()) {
      const file = join(dir, `bad${i}.csv`);
      writeFileSync(file, text);
      const simulate = await capture(['simulate', file]);
      const advised = await capture(['advise', file]);
      expect(simulate.code, text).toBe(1);
      expect({ text, code: advised.code, err: advised.err }).toEqual({ text, code: 1, err: simulate.err });
    }
  });
});

describe('traderatio advise --svg', () => {
  it('renders examples/advise.csv as the chart committed in docs/advise.svg', async () => {
    const svg = join(dir, 'advise.svg');
    expect((await capture(['advise', 'examples/advise.csv', '--svg', svg])).code).toBe(0);
    expect(readFileSync(svg, 'utf8')).toBe(readFileSync('docs/advise.svg', 'utf8'));
  });

  it('refuses --svg for 7-day figures, which have no days to draw', async () => {
    const { code, err } = await capture(['advise', 'examples/family.csv', '--svg', join(dir, 'x.svg')]);
    expect(code).toBe(2);
    expect(err).toContain(
      '--svg draws the ratio over the days of a request log; examples/family.csv holds 7-day figures',
    );
  });
});
