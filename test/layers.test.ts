// The layers of src/ and the one way imports go between them: a module imports only from its own
// folder and from layers below it, and a folder's index re-exports its own folder only.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');

// Lowest first. A layer may import from those below it; folders of one layer not from each other.
const LAYERS: readonly (readonly string[])[] = [
  ['errors.ts'],
  ['internal'],
  ['schedule', 'rules'],
  ['catalog'],
  ['account', 'family-files'],
  ['advise', 'redis', 'model-exchange', 'testing', 'fetch', 'ccxt', 'gate-api', 'websocket', 'metrics'],
  ['proxy'],
  ['cli'],
  ['index.ts'],
];
const rankOf = new Map(LAYERS.flatMap((layer, i) => layer.map((name) => [name, i] as const)));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The top folder (or file) of src/ a path is in: `schedule`, `errors.ts`. */
function layerOf(path: string): string {
  return relative(src, path).split('/')[0]!;
}

/** Every relative module a file imports or re-exports (types, and the Lua scripts it reads, included), as paths. */
function importsOf(file: string): { readonly target: string; readonly reexport: boolean }[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gm)].map((m) => ({
    target: resolve(dirname(file), m[2]!).replace(/\.js$/, '.ts'),
    reexport: m[1] === 'export',
  }));
}

const all = files(src);
const edges = all.flatMap((file) => importsOf(file).map((i) => ({ from: file, ...i })));
const show = (e: { from: string; target: string }): string => `${relative(src, e.from)} -> ${relative(src, e.target)}`;

describe('the layers of src/', () => {
  it('name every top folder of src/', () => {
    expect(readdirSync(src).filter((name) => !rankOf.has(name))).toEqual([]);
  });

  it('are read from the imports of every file', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(
      edges.filter((e) => !(all.includes(e.target) || (!e.target.endsWith('.ts') && existsSync(e.target)))).map(show),
    ).toEqual([]);
  });

  it('import only from their own folder or a layer below', () => {
    const upward = edges.filter((e) => {
      const from = layerOf(e.from);
      const to = layerOf(e.target);
      return from !== to && !(rankOf.get(to)! < rankOf.get(from)!);
    });
    expect(upward.map(show)).toEqual([]);
  });

  it('have indexes that re-export their own folder only (and the error classes)', () => {
    const indexes = all.filter((f) => f.endsWith('/index.ts') && dirname(f) !== src);
    expect(indexes.length).toBeGreaterThan(5);
    const foreign = edges.filter(
      (e) =>
        indexes.includes(e.from) &&
        e.reexport &&
        layerOf(e.target) !== layerOf(e.from) &&
        layerOf(e.target) !== 'errors.ts',
    );
    expect(foreign.map(show)).toEqual([]);
  });

  it('keep every file under 700 lines, as the formatter lays them out', () => {
    const long = [...formattedLines(all)]
      .filter(([, lines]) => lines > 700)
      .map(([f, lines]) => ({ f: relative(src, f), lines }));
    expect(long.map((x) => x.f).sort(), long.map((x) => `${x.f} (${x.lines} lines)`).join(', ')).toEqual([]);
  });
});

/**
 * The number of lines of each file as the formatter lays it out (biome.json: 120 columns), whatever
 * layout the file has now: a file is as long as its code, not its line breaks. The files are
 * formatted in a copy of src/, by one run of Biome.
 */
function formattedLines(list: readonly string[]): Map<string, number> {
  const dir = mkdtempSync(join(tmpdir(), 'traderatio-layers-'));
  try {
    const config = JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8')) as Record<string, unknown>;
    // The copy is outside the repository: no .gitignore to read, no schema beside it.
    delete config['$schema'];
    config['vcs'] = { enabled: false };
    writeFileSync(join(dir, 'biome.json'), JSON.stringify(config));
    cpSync(src, join(dir, 'src'), { recursive: true });
    const biome = join(dirname(createRequire(import.meta.url).resolve('@biomejs/biome/package.json')), 'bin', 'biome');
    execFileSync(process.execPath, [biome, 'format', '--write', 'src'], { cwd: dir, stdio: 'pipe' });
    return new Map(list.map((f) => [f, readFileSync(join(dir, relative(root, f)), 'utf8').split('\n').length]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
