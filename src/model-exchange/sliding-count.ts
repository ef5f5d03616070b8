import type { ArrivalCount } from './arrival-count.js';

/**
 * Weight arrived in (t - W, t], counted exactly, one entry per arrival (see docs/rules.md#r13, the sliding
 * reading): the exchange's view of a log of requests, and an independent check of a schedule.
 * Holds at most `keep` entries.
 */
export class SlidingCount implements ArrivalCount {
  private times: number[] = [];
  private weights: number[] = [];
  private head = 0;
  private sum = 0;
  most = 0;
  /**
   * `keep`: the largest N this limit can have. Keeping only that many entries decides exactly for
   * any N up to it (each weighs at least 1: when they are all in the window, it is full).
   */
  constructor(private readonly keep: number) {}

  fits(at: number, weight: number, n: number, w: number): boolean {
    this.expire(at, w);
    return this.sum + weight <= n;
  }

  add(at: number, weight: number): void {
    this.times.push(at);
    this.weights.push(weight);
    this.sum += weight;
    if (this.times.length - this.head > this.keep) {
      this.sum -= this.weights[this.head]!;
      this.head++;
    }
    if (this.sum > this.most) this.most = this.sum;
  }

  used(at: number, w: number): number {
    this.expire(at, w);
    return this.sum;
  }

  freeAt(at: number, weight: number, n: number, w: number): number {
    this.expire(at, w);
    let left = this.sum + weight;
    for (let i = this.head; i < this.times.length; i++) {
      if (left <= n) return i === this.head ? at : this.times[i - 1]! + w;
      left -= this.weights[i]!;
    }
    return left <= n ? (this.times.length > this.head ? this.times[this.times.length - 1]! + w : at) : Infinity;
  }

  private expire(at: number, w: number): void {
    while (this.head < this.times.length && this.times[this.head]! <= at - w) {
      this.sum -= this.weights[this.head]!;
      this.head++;
    }
    if (this.head > 4096 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.weights = this.weights.slice(this.head);
      this.head = 0;
    }
  }
}
