/** Small helpers shared by the benchmarks: timing, medians and a plain table. */
import { performance } from 'node:perf_hooks';

/** Runs `fn` three times to warm up (the JIT), then `runs` times; returns each run's milliseconds. */
export function time(fn: () => unknown, runs: number): number[] {
  for (let i = 0; i < 3; i++) fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    out.push(performance.now() - t0);
  }
  return out;
}

/** The median of a list of numbers. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The value at fraction `p` (0.5: the median, 0.99: p99) of a list of numbers. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

/** Prints rows as an aligned Markdown table under a title. */
export function printTable(title: string, rows: readonly Record<string, string | number>[]): void {
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]!);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(width[i]!)).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(line(cols));
  console.log(line(width.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(cols.map((c) => String(r[c]))));
}
