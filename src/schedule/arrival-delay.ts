/**
 * How much later than the quickest a request reached the exchange (R13: the exchange counts
 * arrivals). Each sample is the gateway's receive instant minus the local send instant: the
 * one-way delay plus the offset between the two clocks. The offset cancels out of the difference
 * to the smallest recent sample, which leaves the delay beyond the quickest: how much later than
 * its send instant (plus the quickest way there) the exchange starts counting a request. A
 * request counted from its send instant plus that excess never reaches the exchange within one
 * window of another counted so, whatever the way there takes, so long as no request is quicker
 * than the quickest seen (the limit's margin covers what is).
 *
 * The smallest of the last `size` samples, kept in a monotone queue: O(1) a sample.
 */
export class ArrivalDelay {
  private readonly values: Float64Array;
  private readonly seqs: Float64Array;
  // The queue [head, tail) of candidates for the minimum, increasing in value and in sequence.
  private head = 0;
  private tail = 0;
  private seq = 0;
  // The same for the maximum, decreasing in value.
  private readonly highs: Float64Array;
  private readonly highSeqs: Float64Array;
  private highHead = 0;
  private highTail = 0;

  constructor(private readonly size = 512) {
    this.values = new Float64Array(size + 1);
    this.seqs = new Float64Array(size + 1);
    this.highs = new Float64Array(size + 1);
    this.highSeqs = new Float64Array(size + 1);
  }

  /** The largest of the recent samples: minus the clocks' offset, the slowest way there (-Infinity before any). */
  get max(): number {
    return this.highHead === this.highTail ? -Infinity : this.highs[this.highHead]!;
  }

  /** Takes one sample (milliseconds); returns its excess over the smallest of the recent ones. */
  add(sample: number): number {
    const n = this.values.length;
    const seq = this.seq++;
    // Candidates no smaller than the new sample will never be the minimum again.
    while (this.tail !== this.head) {
      const last = this.tail === 0 ? n - 1 : this.tail - 1;
      if (this.values[last]! < sample) break;
      this.tail = last;
    }
    this.values[this.tail] = sample;
    this.seqs[this.tail] = seq;
    this.tail = this.tail + 1 === n ? 0 : this.tail + 1;
    // The oldest candidate leaves once `size` samples are newer.
    if (this.seqs[this.head]! <= seq - this.size) this.head = this.head + 1 === n ? 0 : this.head + 1;
    while (this.highTail !== this.highHead) {
      const last = this.highTail === 0 ? n - 1 : this.highTail - 1;
      if (this.highs[last]! > sample) break;
      this.highTail = last;
    }
    this.highs[this.highTail] = sample;
    this.highSeqs[this.highTail] = seq;
    this.highTail = this.highTail + 1 === n ? 0 : this.highTail + 1;
    if (this.highSeqs[this.highHead]! <= seq - this.size) this.highHead = this.highHead + 1 === n ? 0 : this.highHead + 1;
    return sample - this.values[this.head]!;
  }
}
