/** How long the quickest way to the exchange is remembered by default, in milliseconds. */
export const QUICKEST_KEPT_MS = 60_000;

/**
 * How much later than the quickest a request reached the exchange (see docs/rules.md#r13: the exchange counts
 * arrivals). Each sample is the gateway's receive instant minus the local send instant: the
 * one-way delay plus the offset between the two clocks. The offset cancels out of the difference
 * to the smallest recent sample, which leaves the delay beyond the quickest: how much later than
 * its send instant (plus the quickest way there) the exchange starts counting a request. A
 * request counted from its send instant plus that excess never reaches the exchange within one
 * window of another counted so, whatever the way there takes, so long as no request is quicker
 * than the quickest seen (the limit's margin covers what is).
 *
 * The quickest is the smallest sample of the last `horizonMs` (60 s by default), however many
 * came meanwhile: far longer than any window a request is counted in, so that a way there that is
 * slower for a while, then quick again, is measured against the quick one all along. Measured
 * against the quickest of a number of samples instead, a few seconds of a slower way (2 s at 250
 * answers a second for 512 samples) made the slow way the quickest, its requests counted from
 * their send instants, and the first quick ones then reached the exchange within one window of
 * them. The largest sample (the slowest way there) is kept over the last `size` samples.
 *
 * Both kept in monotone queues: O(1) a sample, amortized.
 */
export class ArrivalDelay {
  // The candidates for the minimum, increasing in value and in instant, from `head`.
  private lows: number[] = [];
  private lowTimes: number[] = [];
  private head = 0;
  private seq = 0;
  // The same for the maximum over the last `size` samples, decreasing in value: a ring.
  private readonly highs: Float64Array;
  private readonly highSeqs: Float64Array;
  private highHead = 0;
  private highTail = 0;

  /**
   * @param size how many samples the slowest way there is the largest of
   * @param horizonMs how long a sample stays a candidate for the quickest, in milliseconds
   */
  constructor(
    private readonly size = 512,
    private readonly horizonMs = QUICKEST_KEPT_MS,
  ) {
    this.highs = new Float64Array(size + 1);
    this.highSeqs = new Float64Array(size + 1);
  }

  /** The largest of the recent samples: minus the clocks' offset, the slowest way there (-Infinity before any). */
  get max(): number {
    return this.highHead === this.highTail ? -Infinity : this.highs[this.highHead]!;
  }

  /**
   * Takes one sample (milliseconds) received at `at` (the local monotonic clock, never going
   * back); returns its excess over the smallest of those of the last `horizonMs`.
   */
  add(sample: number, at: number): number {
    const lows = this.lows;
    const times = this.lowTimes;
    // Candidates no smaller than the new sample will never be the minimum again.
    while (lows.length > this.head && lows[lows.length - 1]! >= sample) {
      lows.pop();
      times.pop();
    }
    lows.push(sample);
    times.push(at);
    // The oldest candidates leave once older than the horizon.
    while (times[this.head]! <= at - this.horizonMs) this.head++;
    if (this.head > 1024 && this.head * 2 > lows.length) {
      this.lows = lows.slice(this.head);
      this.lowTimes = times.slice(this.head);
      this.head = 0;
    }
    const n = this.highs.length;
    const seq = this.seq++;
    while (this.highTail !== this.highHead) {
      const last = this.highTail === 0 ? n - 1 : this.highTail - 1;
      if (this.highs[last]! > sample) break;
      this.highTail = last;
    }
    this.highs[this.highTail] = sample;
    this.highSeqs[this.highTail] = seq;
    this.highTail = this.highTail + 1 === n ? 0 : this.highTail + 1;
    if (this.highSeqs[this.highHead]! <= seq - this.size)
      this.highHead = this.highHead + 1 === n ? 0 : this.highHead + 1;
    return sample - this.lows[this.head]!;
  }
}
