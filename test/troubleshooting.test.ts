import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, LABELS, LIMITER_EVENTS, PROXY_LABELS, render } from '../scripts/troubleshooting.js';
import { LABELS as PROXY_LABEL_NAMES } from '../src/proxy/labels.js';

const root = resolve(import.meta.dirname, '..');

/** Every label a source file gives an error body or error: `badRequest('X'`, `new ApiError(400, 'X'`, `label: 'X'`. */
function labelsInSources(): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        const text = readFileSync(path, 'utf8');
        for (const m of text.matchAll(/(?:badRequest\(\s*|ApiError\(\s*\d{3},\s*|\blabel:\s*)'([A-Z][A-Z_]+)'/g))
          found.set(m[1]!, path.slice(root.length + 1));
      }
    }
  };
  walk(join(root, 'src'));
  return found;
}

describe('docs/troubleshooting.md', () => {
  it('is the rendering of scripts/troubleshooting.ts (run `npm run docs:troubleshooting` after changing it)', () => {
    expect(readFileSync(join(root, 'docs', 'troubleshooting.md'), 'utf8')).toBe(render());
  });

  it('has a line for every label the sources give an error', () => {
    const found = labelsInSources();
    expect(found.size).toBeGreaterThan(10);
    expect(
      [...found].filter(([label]) => LABELS[label] === undefined).map(([label, file]) => `${label} (${file})`),
    ).toEqual([]);
  });

  it("lists every label of the proxy's own answers, from src/proxy/labels.ts", () => {
    const names = Object.values(PROXY_LABEL_NAMES);
    expect(names.length).toBeGreaterThanOrEqual(9);
    expect(Object.keys(PROXY_LABELS)).toEqual(names);
    for (const label of names) expect(render()).toContain(`| \`${label}\` |`);
  });

  it('says what each line means and what to do', () => {
    for (const entry of [...Object.values(LABELS), ...Object.values(ERROR_CODES), ...Object.values(LIMITER_EVENTS)]) {
      expect(entry.means.length).toBeGreaterThan(10);
      expect(entry.todo.length).toBeGreaterThan(3);
    }
    expect(render()).toContain('| `REFUSED_DEADLINE` |');
    expect(render()).toContain('| `abuse-warning` |');
  });
});
