/** A log-scale histogram of delays: 1% buckets, constant memory, quantiles read as bucket tops. */
export class Histogram {
  private readonly counts = new Float64Array(2200);
  private zero = 0;
  total = 0;
  max = 0;
  add(ms: number): void {
    this.total++;
    if (ms > this.max) this.max = ms;
    if (ms <= 0.001) {
      this.zero++;
      return;
    }
    const i = Math.min(this.counts.length - 1, Math.max(0, Math.ceil(Math.log(ms / 0.001) / Math.log(1.01))));
    this.counts[i]!++;
  }
  quantile(q: number): number {
    if (this.total === 0) return 0;
    let rank = Math.ceil(q * this.total);
    if (rank <= this.zero) return 0;
    rank -= this.zero;
    for (let i = 0; i < this.counts.length; i++) {
      rank -= this.counts[i]!;
      if (rank <= 0) return Math.min(this.max, 0.001 * 1.01 ** i);
    }
    return this.max;
  }
}
