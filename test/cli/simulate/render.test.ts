import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHARACTER, LEFT, RIGHT, WIDTH } from '../../../src/cli/chart.js';
import { run } from '../../../src/cli/main.js';

describe('simulationSvg', () => {
  it('writes its legend in lines that fit the width of the chart', async () => {
    const svg = join(mkdtempSync(join(tmpdir(), 'traderatio-')), 'sim.svg');
    const argv = ['simulate', 'examples/yesterday.csv', '--history', 'examples/yesterday-history.json', '--svg', svg];
    expect(await run(argv, { out: () => {}, err: () => {} })).toBe(0);
    const text = readFileSync(svg, 'utf8');
    const legend = [
      ...text.matchAll(new RegExp(`<text x="${LEFT}" y="(?:40|56)" fill="#555">([^<]+)</text>`, 'g')),
    ].map((m) => m[1]!.replace(/&[a-z]+;/g, '&'));
    expect(legend).toHaveLength(2);
    expect(legend.join(' ')).toContain('Orange band: throttled by an hourly check (R9, R14).');
    for (const line of legend) expect(LEFT + line.length * CHARACTER).toBeLessThanOrEqual(WIDTH - RIGHT);
  });
});
