/** Weight counted in [from, until) besides a limit's log. */
interface Hold {
  weight: number;
  from: number;
  until: number;
}

/**
 * The holds of a limit: weight counted in an interval besides its log. A shrink from the
 * exchange's headers holds from now; a request that arrived late holds from when its entry leaves
 * the window, until a window after it arrived (see docs/rules.md#r13).
 */
export class Holds {
  #list: Hold[] = [];
  /** The earliest `until` among the holds: none ends before it. */
  #end = Infinity;

  /** Whether there is none. */
  get isEmpty(): boolean {
    return this.#list.length === 0;
  }

  /** The earliest instant a hold ends (Infinity when none). */
  get end(): number {
    return this.#end;
  }

  /** The weight held at `t`. */
  at(t: number): number {
    let held = 0;
    for (const h of this.#list) if (h.until > t && h.from <= t) held += h.weight;
    return held;
  }

  /** Holds `weight` in [from, until). */
  add(weight: number, from: number, until: number): void {
    this.#list.push({ weight, from, until });
    if (until < this.#end) this.#end = until;
  }

  /**
   * Holds `weight` in [from, until), joined to the last hold when both of its ends are within
   * `granularity` of this one's: it then starts at the earlier start and ends at the later end, so
   * that it counts at least as long as each would have.
   */
  join(weight: number, from: number, until: number, granularity: number): void {
    const last = this.#list.length > 0 ? this.#list[this.#list.length - 1]! : undefined;
    if (
      last !== undefined &&
      last.from > -Infinity &&
      Math.abs(last.from - from) < granularity &&
      Math.abs(last.until - until) < granularity
    ) {
      last.weight += weight;
      if (from < last.from) last.from = from;
      if (until > last.until) last.until = until;
      return;
    }
    this.add(weight, from, until);
  }

  /** Lets go of the holds ended at `t`, in place. */
  drop(t: number): void {
    let k = 0;
    let end = Infinity;
    for (const h of this.#list) {
      if (h.until <= t) continue;
      this.#list[k++] = h;
      if (h.until < end) end = h.until;
    }
    this.#list.length = k;
    this.#end = end;
  }

  /** The first instant after `from` and before `next` at which a hold starts or ends, else `next`. */
  nextChange(from: number, next: number): number {
    for (const h of this.#list) {
      if (h.until > from && h.until < next) next = h.until;
      if (h.from > from && h.from < next) next = h.from;
    }
    return next;
  }

  /** The holds as [weight, until] pairs (what a limit's state keeps of them). */
  pairs(): (readonly [number, number])[] {
    return this.#list.map((h) => [h.weight, h.until] as const);
  }
}
