// The log keeps about this many entries: a dispatch within one granule (keep / SLOTS) of the
// FIRST instant of the newest entry joins it, and the entry counts at its last instant.
// Counting weight later than it was sent only ever over-counts, so the guarantee holds; and as an
// entry never spans more than a granule, no dispatch counts more than a granule late, whatever
// the load: it costs at most 1/SLOTS of a window. (Merging on the gap to the LAST instant would
// let a steady stream push one entry forward forever.)
const SLOTS = 1024;

/**
 * The weight a limit counted, as a sliding log of [instant, weight] entries in a ring, oldest
 * first: each entry counts for `span` (the window and its margin) from its instant, and is kept
 * for `keep` (the longest window the limit may be given, and the margin) so that a longer window
 * takes it back. Instants never go back: an earlier one is read as the latest seen, which only
 * counts weight later (safely).
 *
 * Its fields are read as they are by the limit's wait (a walk forward through the ring, inlined
 * where the limit's hot path needs it); only this file changes them.
 */
export class SlidingLog {
  /** How long an entry counts: the window and the margin. */
  span: number;
  /** How long an entry is kept: the longest window and the margin. */
  readonly keep: number;
  /** Dispatches closer than this to the first instant of the newest entry join it. */
  readonly granularity: number;
  readonly times = new Float64Array(SLOTS + 2);
  readonly weights = new Float64Array(SLOTS + 2);
  // [head, tail) are kept (for the longest window allowed); [start, tail) are in the window now
  // and their weights sum to `used`.
  head = 0;
  start = 0;
  tail = 0;
  count = 0;
  inWindow = 0;
  used = 0;
  /** The latest instant seen. */
  latest = -Infinity;
  /** The first instant of the newest entry: later dispatches join it for one granule from it. */
  first = -Infinity;

  constructor(span: number, keep: number) {
    this.span = span;
    this.keep = keep;
    this.granularity = keep / SLOTS;
  }

  /** Counts `weight` at `at` (or at the latest instant seen, if later). */
  add(weight: number, at: number): void {
    const t = at > this.latest ? at : this.latest;
    this.latest = t;
    this.used += weight;
    if (this.inWindow > 0 && t - this.first < this.granularity) {
      const last = this.tail === 0 ? this.times.length - 1 : this.tail - 1;
      this.times[last] = t;
      this.weights[last] = this.weights[last]! + weight;
    } else {
      // Apart, so that the common case above stays small enough to be inlined where it is called.
      this.#push(weight, t);
    }
  }

  /** Counts `weight` at `at` in an entry of its own, never joined by a later dispatch (a restored entry). */
  addApart(weight: number, at: number): void {
    this.add(weight, at);
    this.first = -Infinity;
  }

  /** Counts `weight` (already in `used`) at `t` in a new entry. */
  #push(weight: number, t: number): void {
    const size = this.times.length;
    // Entries start at least a granule apart, so those still kept fit in the ring once what has
    // left is let go; rounding aside, which the last resort covers.
    if (this.count === size && this.inWindow > 0) this.expire(t);
    if (this.count === size) {
      if (this.inWindow < this.count) {
        // Full of entries older than the window but kept for a longer one: drop the oldest.
        if (++this.head === size) this.head = 0;
        this.count--;
      } else {
        // The last resort: count it with the newest entry, later than sent (never earlier).
        const last = this.tail === 0 ? size - 1 : this.tail - 1;
        this.times[last] = t;
        this.weights[last] = this.weights[last]! + weight;
        return;
      }
    }
    if (this.inWindow === 0) this.start = this.tail;
    this.first = t;
    this.times[this.tail] = t;
    this.weights[this.tail] = weight;
    if (++this.tail === size) this.tail = 0;
    this.count++;
    this.inWindow++;
  }

  /** Lets go of the entries that have left the window at `t`, and of those no longer kept. */
  expire(t: number): void {
    const size = this.times.length;
    while (this.inWindow > 0 && this.times[this.start]! + this.span <= t) {
      this.used -= this.weights[this.start]!;
      if (++this.start === size) this.start = 0;
      this.inWindow--;
    }
    if (this.inWindow === 0) this.used = 0;
    while (this.count > this.inWindow && this.times[this.head]! + this.keep <= t) {
      if (++this.head === size) this.head = 0;
      this.count--;
    }
  }

  /**
   * Makes every entry count for `span` from now on: a longer span takes back entries kept from
   * before, a shorter one lets some go at once.
   */
  respan(span: number): void {
    this.span = span;
    const size = this.times.length;
    this.inWindow = 0;
    this.used = 0;
    let i = this.tail;
    for (let k = 0; k < this.count; k++) {
      const prev = i === 0 ? size - 1 : i - 1;
      if (this.times[prev]! + span <= this.latest) break;
      i = prev;
      this.inWindow++;
      this.used += this.weights[i]!;
    }
    this.start = i;
  }

  /** The entries kept, as [instant, weight] pairs, oldest first. */
  entries(): [number, number][] {
    const size = this.times.length;
    const out: [number, number][] = [];
    for (let k = 0, i = this.head; k < this.count; k++, i = i + 1 === size ? 0 : i + 1)
      out.push([this.times[i]!, this.weights[i]!]);
    return out;
  }
}
