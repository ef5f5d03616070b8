/** The longest an unanswered request counts after it was sent: an exchange silent that long has dropped it. */
export const UNANSWERED_MAX_MS = 60_000;

/** One request dispatched on a limit and not answered yet: what {@link Unanswered.add} gives. */
export interface UnansweredRequest {
  readonly weight: number;
  /** When its log entry leaves the window: it counts here from then. */
  readonly from: number;
  /** When it stops counting, answered or not. */
  readonly until: number;
  /** 0: not counted yet; 1: counted; 2: answered, or over. */
  state: 0 | 1 | 2;
}

/**
 * The requests of one limit whose answer has not come, oldest first. The exchange counts a request
 * from when it arrives (R13), and one not answered may not have arrived yet: once its log entry
 * leaves the window it counts here instead, until its answer comes (then the arrival it reports
 * tells how long it counts), for at most {@link UNANSWERED_MAX_MS} after it was sent. A request
 * answered within its window, the common case, never counts here.
 */
export class Unanswered {
  private list: UnansweredRequest[] = [];
  private head = 0;
  /** The first request whose `from` has not been reached. */
  private next = 0;
  /** The weight counted at the latest instant `advance` was given. */
  counted = 0;
  /** When the count next changes with time alone: `advance` is due then. */
  changesAt = Infinity;

  /** Whether any request is still waiting for its answer (or may be: those over are let go lazily). */
  get any(): boolean {
    return this.head < this.list.length;
  }

  /** A request of `weight` whose log entry leaves the window at `from`, sent at `sentAt`. */
  add(weight: number, from: number, sentAt: number): UnansweredRequest {
    const r: UnansweredRequest = { weight, from, until: sentAt + UNANSWERED_MAX_MS, state: 0 };
    this.list.push(r);
    if (from < this.changesAt) this.changesAt = from;
    return r;
  }

  /** Its answer came at `at`: it counts here no more. Whether it counted then (its entry had left the window). */
  answer(r: UnansweredRequest, at: number): boolean {
    if (r.state === 2) return false;
    if (r.state === 1) this.counted -= r.weight;
    r.state = 2;
    // Answers come back mostly in order: those answered at the head go at once, so that only the
    // requests in flight are kept and looked through.
    const list = this.list;
    while (this.head < list.length && list[this.head]!.state === 2) this.head++;
    if (this.next < this.head) this.next = this.head;
    if (this.head === list.length) {
      list.length = 0;
      this.head = this.next = 0;
    }
    return r.from <= at && r.until > at;
  }

  /** Counts, at `t`, the requests whose entry has left the window and drops those over. */
  advance(t: number): void {
    const list = this.list;
    while (this.next < list.length && list[this.next]!.from <= t) {
      const r = list[this.next++]!;
      if (r.state === 0 && r.until > t) {
        r.state = 1;
        this.counted += r.weight;
      }
    }
    while (this.head < list.length && (list[this.head]!.state === 2 || list[this.head]!.until <= t)) {
      const r = list[this.head++]!;
      if (r.state === 1) this.counted -= r.weight;
      r.state = 2;
    }
    if (this.next < this.head) this.next = this.head;
    if (this.head > 1024 && this.head * 2 > list.length) {
      this.list = list.slice(this.head);
      this.next -= this.head;
      this.head = 0;
    }
    const first = this.head < this.next ? this.list[this.head]!.until : Infinity;
    const coming = this.next < this.list.length ? this.list[this.next]!.from : Infinity;
    this.changesAt = first < coming ? first : coming;
  }

  /** The weight that will count at `x` (not before the latest `advance`) if no answer comes. */
  at(x: number): number {
    let weight = 0;
    for (let i = this.head; i < this.list.length; i++) {
      const r = this.list[i]!;
      if (r.state !== 2 && r.from <= x && r.until > x) weight += r.weight;
    }
    return weight;
  }

  /** The first instant after `x` at which one counted at `x` stops counting, if no answer comes. */
  endAfter(x: number): number {
    for (let i = this.head; i < this.list.length; i++) {
      const r = this.list[i]!;
      if (r.state !== 2 && r.from <= x && r.until > x) return r.until;
    }
    return Infinity;
  }
}
