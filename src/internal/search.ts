/**
 * The first index in [0, `length`) at which `predicate` is false, or `length` when it never is.
 * `predicate` must hold on a prefix of the indices and fail on the rest (true, ..., true, false,
 * ..., false), as "the element is before the one sought" does on a sorted array; it is asked about
 * O(log length) indices. Every binary search of the rules is this one.
 */
export function partitionPoint(length: number, predicate: (index: number) => boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (predicate(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
