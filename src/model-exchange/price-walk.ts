import { InvalidInputError } from '../errors.js';

/** Seconds covered by the walk: 2^34 s from 1970, past the year 2500. */
const SPAN_BITS = 34;
const SPAN = 2 ** SPAN_BITS;

/**
 * A seeded random walk per instrument: Brownian motion on whole seconds, built by Lévy's midpoint
 * construction, so that the walk at any second is found in 34 steps without walking to it, and
 * the same seed gives the same walk on every run. The value at the midpoint of each dyadic
 * interval of seconds is the mean of its ends plus a normal draw scaled to the interval; the
 * draw is a hash of (seed, instrument, midpoint), never a state carried from one query to the next.
 */
export class PriceWalk {
  private readonly seed: number;
  /** Standard deviation of the log price over one second. */
  readonly perSecond: number;

  /**
   * @param seed any whole number
   * @param dailyVolatility standard deviation of the log price over a day (0.03: about 3%)
   */
  constructor(seed: number, dailyVolatility: number) {
    if (typeof seed !== 'number' || !Number.isSafeInteger(seed))
      throw new InvalidInputError('`prices.seed`', seed, 'a whole number');
    if (typeof dailyVolatility !== 'number' || !(dailyVolatility >= 0 && dailyVolatility <= 1)) {
      throw new InvalidInputError('`prices.dailyVolatility`', dailyVolatility, 'a number from 0 to 1');
    }
    this.seed = seed | 0;
    this.perSecond = dailyVolatility / Math.sqrt(86_400);
  }

  /** The walk of `instrument` at whole second `s` (epoch seconds), in units of one second's standard deviation. */
  at(instrument: string, s: number): number {
    if (!(s >= 0 && s <= SPAN))
      throw new InvalidInputError('a second of the price walk', s, `epoch seconds from 0 to ${SPAN}`);
    const key = hashText(instrument) ^ this.seed;
    let l = 0;
    let r = SPAN;
    let wl = 0;
    let wr = Math.sqrt(SPAN) * normal(key, 0, 0);
    while (true) {
      if (s === l) return wl;
      if (s === r) return wr;
      const m = l + (r - l) / 2;
      const wm = (wl + wr) / 2 + Math.sqrt((r - l) / 4) * normal(key, Math.floor(m / 2 ** 32), m >>> 0);
      if (s < m) {
        r = m;
        wr = wm;
      } else {
        l = m;
        wl = wm;
      }
    }
  }

  /** The factor by which `instrument`'s price moved from second `from` to second `to`: exp(σ (W(to) − W(from))). */
  factor(instrument: string, from: number, to: number): number {
    return Math.exp(this.perSecond * (this.at(instrument, to) - this.at(instrument, from)));
  }
}

/** A standard normal draw from three 32-bit words (Box-Muller on two hashed uniforms). */
function normal(key: number, hi: number, lo: number): number {
  const a = mix(mix(mix(key ^ 0x9e3779b9) ^ hi) ^ lo);
  const b = mix(a ^ 0x85ebca6b);
  const u1 = ((a >>> 0) + 1) / 4_294_967_297;
  const u2 = (b >>> 0) / 4_294_967_296;
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** A 32-bit mixing function (murmur3's finaliser). */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/** FNV-1a of a text, 32 bits. */
export function hashText(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h | 0;
}

/** A uniform draw in [0, 1) from a key and two words: sizes of the synthetic book and trades. */
export function uniform(key: number, hi: number, lo: number): number {
  return (mix(mix(mix(key ^ 0x27d4eb2f) ^ hi) ^ lo) >>> 0) / 4_294_967_296;
}
