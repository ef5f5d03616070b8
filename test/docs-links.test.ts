import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Links in the README and docs/ are relative, so that they work in a clone and on any host; each
// must reach a file of the repository and, with a #fragment, one of its headings.
const root = resolve(import.meta.dirname, '..');
const pages = [
  ...readdirSync(root).filter((f) => f.endsWith('.md')),
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The anchor a Markdown renderer gives a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a (?:name|id)="([^"]+)"/g)) out.add(m[1]!);
  return out;
}

function links(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

describe('links in the README and docs', () => {
  it('finds the pages and their links', () => {
    expect(pages).toContain('README.md');
    expect(pages.length).toBeGreaterThan(5);
    expect(links('README.md').length).toBeGreaterThan(5);
  });

  it.each(pages)('%s links to no repository on the web, only to files here', (page) => {
    expect(links(page).filter((l) => /github\.com\/traderatio/.test(l))).toEqual([]);
  });

  it.each(pages)('%s: every relative link reaches a file and a heading of it', (page) => {
    const broken: string[] = [];
    for (const link of links(page)) {
      if (/^[a-z]+:/i.test(link)) continue;
      const [path, fragment] = link.split('#') as [string, string | undefined];
      const target = path === '' ? join(root, page) : resolve(dirname(join(root, page)), path);
      // The API reference is built by `npm run docs`, not committed.
      if (relative(root, target).startsWith(join('docs', 'api')) && !existsSync(join(root, 'docs', 'api'))) continue;
      if (!target.startsWith(root) || !existsSync(target)) {
        broken.push(`${link} (no file ${relative(root, target)})`);
        continue;
      }
      if (
        fragment !== undefined &&
        statSync(target).isFile() &&
        target.endsWith('.md') &&
        !anchors(target).has(fragment)
      ) {
        broken.push(`${link} (no heading #${fragment} in ${relative(root, target)})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('gives a heading the anchor a renderer gives it', () => {
    expect(slug('Headline: four engine processes on one account')).toBe(
      'headline-four-engine-processes-on-one-account',
    );
    expect(slug("`limitCcxt` (R16) and R7's max path")).toBe('limitccxt-r16-and-r7s-max-path');
    expect(slug('WebSocket API')).toBe('websocket-api');
  });
});
