/** The longest a request counts unanswered once its window is over: an exchange silent that long has dropped it. */
export const UNANSWERED_MAX_MS = 60_000;

/** One request dispatched on a limit and not answered yet: what {@link Unanswered.add} gives. */
export interface UnansweredRequest {
  /** The list that gave it: an answer is taken only by the limit it was sent on. */
  readonly list: object;
  readonly weight: number;
  /** When it was sent. */
  readonly sentAt: number;
  /** When its log entry leaves the window: it counts here from then. */
  from: number;
  /** When it stops counting, answered or not. */
  until: number;
  /** 0: not counted yet; 1: counted; 2: answered; 3: over, unanswered. */
  state: 0 | 1 | 2 | 3;
}

/**
 * The requests of one limit whose answer has not come, in the order they were sent. The exchange
 * counts a request from when it arrives (see docs/rules.md#r13), and one not answered may not have arrived yet: once
 * its log entry leaves the window it counts here instead, until its answer comes, for at most
 * {@link UNANSWERED_MAX_MS} more. A request answered within its window, the common case, never
 * counts here.
 */
export class Unanswered {
  private list: UnansweredRequest[] = [];
  private head = 0;
  /** The first request whose `from` was after the latest instant `advance` was given. */
  private next = 0;
  /** The latest instant `advance` was given. */
  private latest = -Infinity;
  /** Requests neither answered nor over. */
  private live = 0;
  /** Their weight. */
  private liveWeight = 0;
  /**
   * Whether they are in the order of their `from`, each sent no earlier than those before it (as a
   * scheduler sends them): then those counting at an instant are the ones between two bounds.
   */
  private inOrder = true;
  /** The latest `from` given, at or after every one of theirs. */
  private lastFrom = -Infinity;
  /** The weight counted at `latest`. */
  counted = 0;
  /** When the count may next change with time alone: `advance` is due then. */
  changesAt = Infinity;

  /** Whether any request is still waiting for its answer (or may be: those over are let go lazily). */
  get any(): boolean {
    return this.live > 0;
  }

  /** Whether `r` is a request this list gave (answered or not). */
  holds(r: unknown): r is UnansweredRequest {
    return typeof r === 'object' && r !== null && Object.hasOwn(r, 'list') && (r as { list: unknown }).list === this;
  }

  /** A request of `weight` sent at `sentAt` on a limit whose dispatches count for `span`. */
  add(weight: number, sentAt: number, span: number): UnansweredRequest {
    const from = sentAt + span;
    const r: UnansweredRequest = { list: this, weight, sentAt, from, until: from + UNANSWERED_MAX_MS, state: 0 };
    this.list.push(r);
    this.live++;
    this.liveWeight += weight;
    if (from < this.lastFrom) this.inOrder = false;
    else this.lastFrom = from;
    if (from < this.changesAt) this.changesAt = from;
    return r;
  }

  /**
   * Its answer came at `at`: it counts here no more. Whether it had outlived its window by then (it
   * may have reached the exchange as late as `at`).
   */
  answer(r: UnansweredRequest, at: number): boolean {
    if (r.state === 2) return false;
    if (r.state === 3) {
      // Over already, and let go: its answer still says it may have arrived as late as `at`.
      r.state = 2;
      return r.from <= at;
    }
    if (r.state === 1) this.counted -= r.weight;
    r.state = 2;
    this.live--;
    this.liveWeight -= r.weight;
    const list = this.list;
    // Answers come back mostly in order: those answered at the head go at once, so that only the
    // requests in flight are kept and looked through.
    while (this.head < list.length && list[this.head]!.state >= 2) this.head++;
    if (this.live === 0) {
      list.length = 0;
      this.head = this.next = 0;
      this.inOrder = true;
      this.lastFrom = -Infinity;
    } else if (list.length - this.head > 64 && list.length - this.head > 4 * this.live) {
      this.compact();
    }
    if (this.next < this.head) this.next = this.head;
    this.reckon();
    return r.from <= at;
  }

  /** Counts, at `t`, the requests whose entry has left the window, and drops those over. */
  advance(t: number): void {
    const list = this.list;
    if (t > this.latest) this.latest = t;
    while (this.next < list.length && list[this.next]!.from <= t) {
      const r = list[this.next++]!;
      if (r.state === 0 && r.until > t) {
        r.state = 1;
        this.counted += r.weight;
      }
    }
    while (this.head < list.length && (list[this.head]!.state >= 2 || list[this.head]!.until <= t)) {
      const r = list[this.head++]!;
      if (r.state >= 2) continue;
      if (r.state === 1) this.counted -= r.weight;
      this.live--;
      this.liveWeight -= r.weight;
      r.state = 3;
    }
    if (this.next < this.head) this.next = this.head;
    if (this.head > 1024 && this.head * 2 > list.length) {
      this.list = list.slice(this.head);
      this.next -= this.head;
      this.head = 0;
    }
    this.reckon();
  }

  /** W changed: every request waiting counts from its send plus the new `span`, reckoned again at `t`. */
  rebase(span: number, t: number): void {
    this.inOrder = true;
    this.lastFrom = -Infinity;
    for (let i = this.head; i < this.list.length; i++) {
      const r = this.list[i]!;
      if (r.state >= 2) continue;
      r.from = r.sentAt + span;
      r.until = r.from + UNANSWERED_MAX_MS;
      r.state = 0;
      if (r.from < this.lastFrom) this.inOrder = false;
      else this.lastFrom = r.from;
    }
    this.counted = 0;
    this.next = this.head;
    this.advance(t);
  }

  /** The weight that will count at `x` (not before the latest `advance`) if no answer comes. */
  at(x: number): number {
    // Those answered or over at the head are let go at once: the head is neither, when there is one.
    const first = this.list[this.head];
    if (first === undefined) return 0;
    if (this.inOrder) {
      // In the order of `from`, and so of `until`: at `x` none counts, or every one, unless `x`
      // falls among their `from` or among their `until`.
      if (x < first.from || x >= this.lastFrom + UNANSWERED_MAX_MS) return 0;
      if (x >= this.lastFrom && x < first.until) return this.liveWeight;
    }
    let weight = 0;
    for (let i = this.head; i < this.list.length; i++) {
      const r = this.list[i]!;
      if (r.state < 2 && r.from <= x && r.until > x) weight += r.weight;
    }
    return weight;
  }

  /** The first instant after `x` at which one counted at `x` stops counting, if no answer comes. */
  endAfter(x: number): number {
    for (let i = this.head; i < this.list.length; i++) {
      const r = this.list[i]!;
      if (r.state < 2 && r.from <= x && r.until > x) return r.until;
    }
    return Infinity;
  }

  /** Keeps only the requests still waiting: many were answered behind one that is not. */
  private compact(): void {
    this.list = this.list.slice(this.head).filter((r) => r.state < 2);
    this.head = 0;
    let next = 0;
    while (next < this.list.length && this.list[next]!.from <= this.latest) next++;
    this.next = next;
  }

  /** When the count next changes with time alone: the first counted one's end, or the next `from`. */
  private reckon(): void {
    const list = this.list;
    let first = Infinity;
    for (let i = this.head; i < this.next; i++) {
      const r = list[i]!;
      if (r.state === 1) {
        first = r.until;
        break;
      }
    }
    const coming = this.next < list.length ? list[this.next]!.from : Infinity;
    this.changesAt = first < coming ? first : coming;
  }
}
