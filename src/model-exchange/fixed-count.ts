import type { ArrivalCount } from './arrival-count.js';

/**
 * Weight arrived in the aligned window [kW, (k + 1)W) that holds the instant: the counters many
 * exchanges keep, reset at every multiple of W on the exchange's clock (see docs/rules.md#r13, the fixed reading).
 * Up to 2N can arrive within one W across a boundary.
 */
export class FixedCount implements ArrivalCount {
  private start = -Infinity;
  private width = 0;
  private count = 0;
  most = 0;

  fits(at: number, weight: number, n: number, w: number): boolean {
    this.roll(at, w);
    return this.count + weight <= n;
  }

  add(_at: number, weight: number): void {
    this.count += weight;
    if (this.count > this.most) this.most = this.count;
  }

  used(at: number, w: number): number {
    this.roll(at, w);
    return this.count;
  }

  freeAt(at: number, weight: number, n: number, w: number): number {
    this.roll(at, w);
    if (this.count + weight <= n) return at;
    return weight <= n ? this.start + w : Infinity;
  }

  private roll(at: number, w: number): void {
    if (at >= this.start + this.width || w !== this.width) {
      const start = at - (((at % w) + w) % w);
      // A window of another width (a throttle of another kind) starts counting afresh.
      if (start !== this.start || w !== this.width) this.count = 0;
      this.start = start;
      this.width = w;
    }
  }
}
