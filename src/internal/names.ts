/**
 * The known name a mistyped one was most likely meant to be, or undefined when none is close:
 * the same name in the other spelling (`maker_volume` for `makerVolume`, `MakerVolume`), a known
 * name it begins (`takerVol` for `takerVolume`), else the nearest by edit distance, within a third
 * of its length.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const folded = fold(name);
  const same = known.find((k) => fold(k) === folded);
  if (same !== undefined) return same;
  if (folded.length >= 3) {
    const begun = known.filter((k) => fold(k).startsWith(folded));
    if (begun.length === 1) return begun[0];
  }
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(folded.length / 3)) + 1;
  for (const k of known) {
    const d = editDistance(folded, fold(k));
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** A name without its spelling: lower case, without underscores and dashes. */
function fold(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

/**
 * Edit distance: the fewest insertions, deletions, substitutions and swaps of two neighbours from
 * `a` to `b` (a swap, `plcae` for `place`, is the commonest typo).
 */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      next[j] = d;
    }
    before = row;
    row = next;
  }
  return row[b.length]!;
}
