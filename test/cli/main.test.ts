import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';

function capture(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = run(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('traderatio example', () => {
  it("prints the worked example's ratios and limits under both readings of R7", () => {
    const { code, out } = capture(['example']);
    expect(code).toBe(0);
    expect(out).toContain('aggregated ratio  1057/129 = 8.1938');
    expect(out).toContain('account A  own 318/44 = 7.2273');
    expect(out).toContain('account B  own 427/54 = 7.9074');
    expect(out).toContain('account C  own 312/31 = 10.0645');
    const [asExample, stated] = out.split('With the default');
    expect([...asExample!.matchAll(/limit (\d+) r\/s/g)].map((m) => m[1])).toEqual(['250', '250', '300']);
    expect([...stated!.matchAll(/limit (\d+) r\/s/g)].map((m) => m[1])).toEqual(['250', '250', '250']);
  });

  it('refuses an unknown command with exit code 2', () => {
    const { code, err } = capture(['frobnicate']);
    expect(code).toBe(2);
    expect(err).toContain('unknown command "frobnicate"');
  });
});
