import { describe, expect, it } from 'vitest';
import { LEFT, RIGHT, WIDTH, timelineSvg } from '../../src/cli/chart.js';
import { isProjected, projectedFrom } from '../../src/cli/projection.js';
import { readTimeline, renderTimeline, timelineJson } from '../../src/cli/timeline.js';

/** Two days of quoting by one account, November 1 and 2, 2026, then nothing; spot hours as given. */
function run(spotHours?: readonly unknown[], id = 'main') {
  const day = (d: string) => ({
    account: id,
    day: d,
    contracts: [{ contract: 'BTC_USDT', makerVolume: '6000', place: 1000 }],
  });
  const file = {
    accounts: [{ id, role: 'main' }],
    activity: [day('2026-11-01'), day('2026-11-02')],
    ...(spotHours === undefined ? {} : { spotHours }),
  };
  return readTimeline('t.json', JSON.stringify(file), {});
}

/** The x of each point of the chart's step lines, solid and dashed apart. */
function lines(svg: string): { solid: number[]; dashed: number[] } {
  const xs = (m: RegExpMatchArray) => m[1]!.split(' ').map((p) => Number(p.split(',')[0]));
  const all = [...svg.matchAll(/<polyline points="([^"]+)" fill="none" stroke="#1f4e8c" stroke-width="2"([^/]*)\/>/g)];
  return { solid: all.filter((m) => m[2] === '').flatMap(xs), dashed: all.filter((m) => m[2] !== '').flatMap(xs) };
}

describe('timelineSvg', () => {
  it('ends the data with the last day of the file, and draws the rest as a projection', () => {
    const r = run();
    expect(new Date(r.dataEnd).toISOString()).toBe('2026-11-03T00:00:00.000Z');
    // The snapshot at the end of the last day counts only days the file gives; the next counts one it does not.
    expect(new Date(projectedFrom(r, 'main')).toISOString()).toBe('2026-11-04T00:00:00.000Z');
    // The 7-day window empties on November 10: the chart goes on past the data.
    expect(r.to).toBeGreaterThan(r.dataEnd);
    const svg = timelineSvg(r);
    const xEnd = LEFT + ((projectedFrom(r, 'main') - r.from) / (r.to - r.from)) * (WIDTH - LEFT - RIGHT);
    const shades = [...svg.matchAll(/<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"[^>]*class="projection">/g)];
    expect(shades).toHaveLength(1);
    expect(Number(shades[0]![1])).toBeCloseTo(xEnd, 1);
    expect(Number(shades[0]![1]) + Number(shades[0]![2])).toBeCloseTo(WIDTH - RIGHT, 1);
    expect(svg).toMatch(new RegExp(`<line x1="${xEnd.toFixed(1)}" [^>]*class="data-ends"/>`));
    expect(svg).toContain(
      'Hatched, right of the dashed rule: projected, as if the account did nothing after its last day of data.',
    );
    expect(svg).toContain('>projected: no activity after 2026-11-02</text>');
  });

  it('draws the limit solid up to the end of the data and dashed after it', () => {
    const r = run();
    const svg = timelineSvg(r);
    const xEnd = LEFT + ((projectedFrom(r, 'main') - r.from) / (r.to - r.from)) * (WIDTH - LEFT - RIGHT);
    const { solid, dashed } = lines(svg);
    expect(solid.length).toBeGreaterThan(0);
    expect(dashed.length).toBeGreaterThan(0);
    for (const x of solid) expect(x).toBeLessThanOrEqual(xEnd + 0.05);
    for (const x of dashed) expect(x).toBeGreaterThanOrEqual(xEnd - 0.05);
    // The raise the data brought is history; the lowering the empty days bring, a projection.
    expect(svg).toContain('<title>2026-11-02T08:00:00.000Z 100 -&gt; 250 (raised-at-0800)</title>');
    expect(svg).toContain('<title>2026-11-10T00:00:00.000Z 250 -&gt; 100 (lowered-at-snapshot, projected)</title>');
  });

  it("writes the projection's label past the account's name", () => {
    const id = 'market-making-desk-on-the-quarterly-contracts';
    const svg = timelineSvg(run(undefined, id));
    const name = new RegExp(`<text x="${LEFT}" y="(\\d+)" font-weight="bold" font-size="12">${id}</text>`).exec(svg);
    expect(name).not.toBeNull();
    const label = new RegExp(
      `<text x="([\\d.]+)" y="${name![1]}"[^>]*>projected: no activity after 2026-11-02</text>`,
    ).exec(svg);
    expect(label).not.toBeNull();
    // The bold name takes at most 7.5 pixels a character.
    expect(Number(label![1])).toBeGreaterThanOrEqual(LEFT + id.length * 7.5);
  });

  it('counts spot hours after the last day of activity as data', () => {
    const r = run([{ account: 'main', hour: '2026-11-04T10:00:00Z', requests: 10, traded: '5' }]);
    expect(new Date(r.dataEnd).toISOString()).toBe('2026-11-05T00:00:00.000Z');
  });

  it("starts each account's projection after its own last day of data", () => {
    const day = (account: string, d: string) => ({
      account,
      day: d,
      contracts: [{ contract: 'BTC_USDT', makerVolume: '6000', place: 1000 }],
    });
    const file = {
      accounts: [
        { id: 'main', role: 'main' },
        { id: 'sub', role: 'sub' },
      ],
      activity: [
        day('main', '2026-11-01'),
        day('sub', '2026-11-01'),
        day('main', '2026-11-02'),
        day('main', '2026-11-03'),
      ],
    };
    const r = readTimeline('t.json', JSON.stringify(file), {});
    expect(new Date(projectedFrom(r, 'main')).toISOString()).toBe('2026-11-05T00:00:00.000Z');
    expect(new Date(projectedFrom(r, 'sub')).toISOString()).toBe('2026-11-03T00:00:00.000Z');
    const svg = timelineSvg(r);
    const xOf = (t: number) => (LEFT + ((t - r.from) / (r.to - r.from)) * (WIDTH - LEFT - RIGHT)).toFixed(1);
    const rules = [...svg.matchAll(/<line x1="([\d.]+)" [^>]*class="data-ends"\/>/g)].map((m) => m[1]);
    expect(rules).toEqual([xOf(projectedFrom(r, 'main')), xOf(projectedFrom(r, 'sub'))]);
    expect(svg).toContain('>projected: no activity after 2026-11-03</text>');
    expect(svg).toContain('>projected: no activity after 2026-11-01</text>');
    // A change at the first projected snapshot is projected; one the instant before it is not.
    const at = projectedFrom(r, 'sub');
    const change = r.timeline.changes.find((c) => c.account === 'sub')!;
    expect(isProjected(r, { ...change, at })).toBe(true);
    expect(isProjected(r, { ...change, at: at - 1 })).toBe(false);
  });

  it('marks the projected changes in the table and the JSON', () => {
    const r = run();
    const json = timelineJson(r) as { changes: { at: string; projected: boolean }[]; lastDataDay: unknown };
    expect(json.lastDataDay).toEqual({ main: '2026-11-02' });
    expect(json.changes.map((c) => [c.at, c.projected])).toEqual([
      ['2026-11-02T08:00:00.000Z', false],
      ['2026-11-10T00:00:00.000Z', true],
    ]);
    const text = renderTimeline(r);
    expect(text).toMatch(/2026-11-02T08:00:00\.000Z .* no\n/);
    expect(text).toMatch(/2026-11-10T00:00:00\.000Z .* yes\n/);
    expect(text).toContain('Last day of data: main 2026-11-02.');
  });
});
