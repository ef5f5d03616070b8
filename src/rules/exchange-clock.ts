import { InvalidInputError } from '../errors.js';
import { INSTANT_RANGE, parseCount, parseInstant, parsePositiveInteger } from '../internal/parse.js';

/**
 * One request timed at both ends (see docs/rules.md#r15): the local instants it left and came back,
 * and the gateway's `X-In-Time` and `X-Out-Time` (Unix microseconds).
 *
 * @example
 * ```ts
 * import { type ClockSample, ExchangeClock } from 'traderatio'
 *
 * const sent = Date.parse('2026-11-21T07:00:00Z')
 * const sample: ClockSample = { sentAt: sent, receivedAt: sent + 40, inTime: (sent + 19) * 1000, outTime: (sent + 21) * 1000 }
 * new ExchangeClock().add(sample).accepted // true
 * ```
 */
export interface ClockSample {
  /** The local wall clock when the request was sent: epoch milliseconds (`Date.now()`). */
  readonly sentAt: number;
  /** The local wall clock when the response arrived: epoch milliseconds. */
  readonly receivedAt: number;
  /** `X-In-Time`: when the gateway received the request, Unix microseconds. */
  readonly inTime: number;
  /** `X-Out-Time`: when the gateway sent the response, Unix microseconds. */
  readonly outTime: number;
  /**
   * The monotonic clock when the request was sent, milliseconds (`performance.now()`,
   * `Clock.now()`). With it the round trip is measured on a clock that never steps, and a step of
   * the wall clock moves the estimate at once. Give it with `receivedMono`, on every sample or on
   * none.
   */
  readonly sentMono?: number;
  /** The monotonic clock when the response arrived, milliseconds. */
  readonly receivedMono?: number;
}

/**
 * A local instant to read the estimate at: the wall clock (epoch milliseconds), or the wall and
 * monotonic clocks read together. The pair lets a clock whose samples carry monotonic instants
 * follow a step of the wall clock made since its latest sample.
 *
 * @example
 * ```ts
 * import { ExchangeClock, type LocalInstant } from 'traderatio'
 *
 * const sent = Date.parse('2026-11-21T07:00:00Z')
 * const inTime = (sent + 19 - 3000) * 1000
 * const { clock } = new ExchangeClock().add({ sentAt: sent, receivedAt: sent + 40, sentMono: 0, receivedMono: 40, inTime, outTime: inTime + 2000 })
 * // The wall clock stepped 1 s forward; the monotonic one did not move.
 * const at: LocalInstant = { wall: sent + 1040, mono: 40 }
 * clock.estimate(at)!.offsetMs // -4000
 * ```
 */
export type LocalInstant = number | { readonly wall: number; readonly mono: number };

/**
 * A lowering (00:00 snapshot, throttle start) or a raise (08:00, throttle lift) (see
 * docs/rules.md#r15).
 *
 * @example
 * ```ts
 * import { type BoundaryDirection, ExchangeClock } from 'traderatio'
 *
 * const sent = Date.parse('2026-11-21T07:00:00Z')
 * const inTime = (sent + 19 - 3000) * 1000 // the gateway reads 3 s behind
 * const { clock } = new ExchangeClock().add({ sentAt: sent, receivedAt: sent + 40, inTime, outTime: inTime + 2000 })
 * const direction: BoundaryDirection = 'lower'
 * new Date(clock.boundaryLocal(Date.parse('2026-11-21T08:00:00Z'), direction, sent + 40)).toISOString() // '2026-11-21T08:00:02.925Z'
 * ```
 */
export type BoundaryDirection = 'lower' | 'raise';

/**
 * Options of {@link ExchangeClock}.
 *
 * @example
 * ```ts
 * import { ExchangeClock, type ExchangeClockOptions } from 'traderatio'
 *
 * const options: ExchangeClockOptions = { driftPpm: 0 }
 * const sent = Date.parse('2026-11-21T07:00:00Z')
 * const { clock } = new ExchangeClock(options).add({ sentAt: sent, receivedAt: sent + 40, inTime: (sent + 19) * 1000, outTime: (sent + 21) * 1000 })
 * clock.estimate(sent + 3_600_000)!.errorMs // 20.001
 * ```
 */
export interface ExchangeClockOptions {
  /** Samples kept: the sliding set the best sample is chosen from. @default 8 */
  readonly window?: number;
  /**
   * Consecutive samples that agree with each other and not with the set, needed to replace it
   * (the exchange's clock or the local one stepped). Fewer leave the set as it is. @default 3
   */
  readonly confirm?: number;
  /** How fast the two clocks may drift apart, parts per million: the error grows with a sample's age. @default 15 */
  readonly driftPpm?: number;
  /** The local clock's resolution, milliseconds: `Date.now()` counts whole milliseconds. @default 1 */
  readonly resolutionMs?: number;
}

/** {@link ExchangeClockOptions} resolved once. */
export interface ExchangeClockConfig {
  readonly window: number;
  readonly confirm: number;
  readonly driftPpm: number;
  readonly resolutionMs: number;
}

/**
 * The exchange's clock as estimated at a local instant (see docs/rules.md#r15).
 *
 * @example
 * ```ts
 * import { type ClockEstimate, ExchangeClock } from 'traderatio'
 *
 * const sent = Date.parse('2026-11-21T07:00:00Z')
 * const inTime = (sent + 19 - 3000) * 1000 // the gateway reads 3 s behind
 * const { clock } = new ExchangeClock().add({ sentAt: sent, receivedAt: sent + 40, inTime, outTime: inTime + 2000 })
 * const estimate: ClockEstimate | null = clock.estimate(sent + 40)
 * estimate // { offsetMs: -3000, errorMs: 20.0013, rttMs: 38, ageMs: 20, samples: 1 }
 * ```
 */
export interface ClockEstimate {
  /** The exchange's time minus the local wall clock, milliseconds: exchange = local + offsetMs. */
  readonly offsetMs: number;
  /** The true offset lies within `offsetMs ± errorMs`. */
  readonly errorMs: number;
  /**
   * Round trip of the sample the estimate comes from, gateway time taken out, milliseconds (just
   * below 0 for a request faster than the local clock's resolution).
   */
  readonly rttMs: number;
  /** How long before the instant asked about that sample was taken, milliseconds. */
  readonly ageMs: number;
  /** Samples in the set. */
  readonly samples: number;
}

/**
 * Why a sample was not taken: its round trip is negative by more than the clocks' resolution (the
 * gateway's times, or the local clock, are wrong), the gateway sent before it received, or it
 * disagrees with the set (its interval and the estimate's do not meet).
 *
 * @example
 * ```ts
 * import { ExchangeClock, type SampleRejection } from 'traderatio'
 *
 * const sent = Date.parse('2026-11-21T07:00:00Z')
 * const outcome = new ExchangeClock().add({ sentAt: sent, receivedAt: sent + 40, inTime: (sent + 21) * 1000, outTime: (sent + 19) * 1000 })
 * const reason: SampleRejection | undefined = outcome.accepted ? undefined : outcome.reason
 * reason // 'reversed-gateway-times'
 * ```
 */
export type SampleRejection = 'negative-round-trip' | 'reversed-gateway-times' | 'inconsistent';

/**
 * What {@link ExchangeClock.add} did with a sample.
 *
 * @example
 * ```ts
 * import { ExchangeClock, type SampleOutcome } from 'traderatio'
 *
 * const sent = Date.parse('2026-11-21T07:00:00Z')
 * const outcome: SampleOutcome = new ExchangeClock().add({ sentAt: sent, receivedAt: sent + 40, inTime: (sent + 19) * 1000, outTime: (sent + 21) * 1000 })
 * outcome.accepted && outcome.replaced // false
 * outcome.clock.estimate(sent + 40)!.offsetMs // 0
 * ```
 */
export type SampleOutcome =
  | {
      readonly accepted: true;
      readonly clock: ExchangeClock;
      /** The sample completed a run of `confirm` agreeing samples that replaced the set. */
      readonly replaced: boolean;
      /**
       * How far the local wall clock stepped against the monotonic one since the previous sample,
       * milliseconds (0 without monotonic instants; a wall clock counting whole milliseconds moves
       * it by up to `resolutionMs` from one reading to the next). The estimate has already followed
       * it.
       */
      readonly wallStepMs: number;
    }
  | { readonly accepted: false; readonly clock: ExchangeClock; readonly reason: SampleRejection };

// A sample reduced to what the estimate needs, on the reference clock (the monotonic one when the
// samples carry it, else the wall clock): the exchange's time minus the reference clock at `mid`,
// and the half-width of the interval that certainly holds it.
interface Measured {
  readonly offset: number;
  readonly half: number;
  readonly rtt: number;
  readonly mid: number;
}

interface State {
  // Whether samples carry monotonic instants; undefined until the first one.
  readonly mono: boolean | undefined;
  // Wall minus monotonic at the latest reading (0 on the wall clock).
  readonly base: number;
  readonly samples: readonly Measured[];
  readonly suspects: readonly Measured[];
}

const EMPTY: State = Object.freeze({ mono: undefined, base: 0, samples: [], suspects: [] });

// X-In-Time and X-Out-Time count whole microseconds.
const GATEWAY_RESOLUTION_MS = 0.001;

/** Validates {@link ExchangeClockOptions} into their complete form. */
export function resolveClockOptions(options: ExchangeClockOptions = {}): ExchangeClockConfig {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('exchange clock options', options, 'an object');
  return {
    window: parsePositiveInteger(options.window ?? 8, '`window`'),
    confirm: parsePositiveInteger(options.confirm ?? 3, '`confirm`'),
    driftPpm: nonNegative(options.driftPpm ?? 15, '`driftPpm`', 'a non-negative number of parts per million'),
    resolutionMs: nonNegative(options.resolutionMs ?? 1, '`resolutionMs`', 'a non-negative number of milliseconds'),
  };
}

/**
 * The exchange's clock estimated from timed requests, NTP style (see docs/rules.md#r15): each
 * sample gives `offset = in - send - rtt/2` with `rtt = (receive - send) - (out - in)`, and the
 * true offset lies within `rtt/2` of it (plus the clocks' resolution). The estimate is the sample
 * with the smallest bound over a sliding set (the smallest round trip, its bound widened by the
 * drift since it was taken).
 *
 * Robust to a bad sample: a negative round trip or reversed gateway times are refused, and a sample
 * whose interval does not meet the estimate's is held aside; only `confirm` such samples in a row
 * that agree with each other replace the set (the exchange's clock or the local one stepped).
 * Robust to the local clock stepping: with monotonic instants (`sentMono`, `receivedMono`) the
 * samples are kept on the monotonic clock, so a step of the wall clock moves the estimate at once
 * and no sample taken before it misleads it; without them a step is seen as `confirm` samples
 * that disagree with the set.
 *
 * Immutable and pure: every instant is passed in, `add` returns a new clock.
 *
 * @example
 * ```ts
 * import { ExchangeClock } from 'traderatio'
 *
 * const sent = Date.parse('2026-11-21T07:00:00Z')
 * // The gateway's clock reads 3 s behind ours; the request took 40 ms, 2 ms of them at the gateway.
 * const inTime = (sent + 19 - 3000) * 1000
 * const { clock } = new ExchangeClock().add({ sentAt: sent, receivedAt: sent + 40, inTime, outTime: inTime + 2000 })
 * clock.estimate(sent + 40) // { offsetMs: -3000, errorMs: 20.0013, rttMs: 38, ageMs: 20, samples: 1 }
 * // The exchange's 08:00 is 08:00:03 here; a raise waits out the error, with an hour's drift in it.
 * new Date(clock.boundaryLocal(Date.parse('2026-11-21T08:00:00Z'), 'raise', sent + 40)).toISOString() // '2026-11-21T08:00:03.075Z'
 * ```
 */
export class ExchangeClock {
  /** @internal The resolved options. */
  readonly config: ExchangeClockConfig;
  #state: State = EMPTY;

  constructor(options: ExchangeClockOptions = {}) {
    this.config = resolveClockOptions(options);
  }

  /**
   * Takes a sample. Bad input (a missing or non-numeric field, monotonic instants on some samples
   * and not others) throws an `InvalidInputError` and changes nothing. A sample that cannot be
   * right, or that disagrees with the set, is refused with its reason: the estimate stays as it
   * was.
   *
   * @example
   * ```ts
   * import { ExchangeClock, readGatewayTimes } from 'traderatio'
   *
   * const sentAt = Date.parse('2026-11-21T07:00:00Z')
   * const times = readGatewayTimes({ x_in_time: (sentAt + 19) * 1000, x_out_time: (sentAt + 21) * 1000 })!
   * const outcome = new ExchangeClock().add({ sentAt, receivedAt: sentAt + 40, ...times })
   * outcome.accepted // true
   * ```
   */
  add(sample: ClockSample): SampleOutcome {
    const read = readSample(sample, this.#state.mono, this.config);
    if (!read.ok) return { accepted: false, clock: this, reason: read.reason };
    const { measured: m, mono, base } = read;
    const { samples, suspects } = this.#state;
    const wallStepMs = mono && samples.length + suspects.length > 0 ? base - this.#state.base : 0;
    if (samples.length === 0 || this.#agrees(samples, m)) {
      return {
        accepted: true,
        clock: this.#with({ mono, base, samples: keep(samples, m, this.config.window), suspects: [] }),
        replaced: false,
        wallStepMs,
      };
    }
    const run = suspects.length > 0 && this.#agrees(suspects, m) ? [...suspects, m] : [m];
    if (run.length >= this.config.confirm) {
      return {
        accepted: true,
        clock: this.#with({ mono, base, samples: run.slice(-this.config.window), suspects: [] }),
        replaced: true,
        wallStepMs,
      };
    }
    return { accepted: false, clock: this.#with({ mono, base, samples, suspects: run }), reason: 'inconsistent' };
  }

  /**
   * The estimate at a local instant, or `null` before the first sample.
   *
   * @example
   * ```ts
   * import { ExchangeClock } from 'traderatio'
   *
   * const sent = Date.parse('2026-11-21T07:00:00Z')
   * const inTime = (sent + 19 - 3000) * 1000 // the gateway reads 3 s behind
   * const { clock } = new ExchangeClock().add({ sentAt: sent, receivedAt: sent + 40, inTime, outTime: inTime + 2000 })
   * clock.estimate(sent + 40)!.offsetMs // -3000
   * new ExchangeClock().estimate(sent) // null
   * ```
   */
  estimate(at: LocalInstant): ClockEstimate | null {
    const { ref, base, extra } = this.#reading(at);
    const best = bestAt(this.#state.samples, ref, this.config);
    if (best === undefined) return null;
    return {
      offsetMs: best.offset - base,
      errorMs: errorAt(best, ref, this.config) + extra,
      rttMs: best.rtt,
      ageMs: ref - best.mid,
      samples: this.#state.samples.length,
    };
  }

  /**
   * The local wall-clock instant at which to apply a boundary the exchange sets at
   * `exchangeInstant` (see docs/rules.md#r15): a lowering `error` early, a raise `error` late, so
   * that a raise never comes before the exchange's instant and a lowering never after it. The error
   * is taken at the boundary or at `at`, whichever is farther from the sample, so it includes the
   * drift until then. Before the first sample the local clock is taken as is.
   *
   * @example
   * ```ts
   * import { ExchangeClock } from 'traderatio'
   *
   * const sent = Date.parse('2026-11-21T07:00:00Z')
   * const inTime = (sent + 19 - 3000) * 1000 // the gateway reads 3 s behind
   * const { clock } = new ExchangeClock().add({ sentAt: sent, receivedAt: sent + 40, inTime, outTime: inTime + 2000 })
   * const eight = Date.parse('2026-11-21T08:00:00Z')
   * clock.boundaryLocal(eight, 'raise', sent + 40) - eight // 3075
   * clock.boundaryLocal(eight, 'lower', sent + 40) - eight // 2925
   * ```
   */
  boundaryLocal(exchangeInstant: number, direction: BoundaryDirection, at: LocalInstant): number {
    const x = parseInstant(exchangeInstant, '`exchangeInstant`');
    readDirection(direction);
    const { ref, base, extra } = this.#reading(at);
    const best = bestAt(this.#state.samples, ref, this.config);
    if (best === undefined) return x;
    const onRef = x - best.offset;
    const error = errorAt(best, farther(best.mid, ref, onRef), this.config) + extra;
    const local = onRef + base;
    return direction === 'raise' ? Math.ceil(local + error) : Math.floor(local - error);
  }

  /**
   * The exchange's instant at a local instant, on the side a boundary must be compared on (see
   * docs/rules.md#r15): for a raise the earliest the exchange's clock can read (a raise waits until
   * even that has passed), for a lowering the latest. Before the first sample, the local clock as
   * is.
   *
   * @example
   * ```ts
   * import { ExchangeClock } from 'traderatio'
   *
   * const sent = Date.parse('2026-11-21T07:00:00Z')
   * const inTime = (sent + 19 - 3000) * 1000 // the gateway reads 3 s behind
   * const { clock } = new ExchangeClock().add({ sentAt: sent, receivedAt: sent + 40, inTime, outTime: inTime + 2000 })
   * new Date(clock.toExchange(sent + 40, 'raise')).toISOString() // '2026-11-21T06:59:57.019Z'
   * new Date(clock.toExchange(sent + 40, 'lower')).toISOString() // '2026-11-21T06:59:57.061Z'
   * ```
   */
  toExchange(at: LocalInstant, direction: BoundaryDirection): number {
    readDirection(direction);
    const { wall, ref, base, extra } = this.#reading(at);
    const best = bestAt(this.#state.samples, ref, this.config);
    if (best === undefined) return wall;
    const exchange = wall + best.offset - base;
    const error = errorAt(best, ref, this.config) + extra;
    return direction === 'raise' ? Math.floor(exchange - error) : Math.ceil(exchange + error);
  }

  #with(state: State): ExchangeClock {
    const next = new ExchangeClock(this.config);
    next.#state = state;
    return next;
  }

  // Whether a sample's interval meets the interval of the best of `set` at the sample's instant.
  #agrees(set: readonly Measured[], m: Measured): boolean {
    const best = bestAt(set, m.mid, this.config)!;
    return Math.abs(m.offset - best.offset) <= m.half + errorAt(best, m.mid, this.config);
  }

  // The instant on the reference clock, and wall minus reference. Samples kept on the monotonic
  // clock reach the wall clock through one wall reading, which costs its resolution (`extra`).
  #reading(at: LocalInstant): { wall: number; ref: number; base: number; extra: number } {
    const mono = this.#state.mono === true;
    const extra = mono ? this.config.resolutionMs : 0;
    if (typeof at === 'object' && at !== null) {
      const wall = parseInstant(at.wall, '`at.wall`');
      const m = finite(at.mono, '`at.mono`', 'a monotonic instant in milliseconds');
      return mono ? { wall, ref: m, base: wall - m, extra } : { wall, ref: wall, base: 0, extra };
    }
    const wall = parseInstant(at, '`at`');
    return mono
      ? { wall, ref: wall - this.#state.base, base: this.#state.base, extra }
      : { wall, ref: wall, base: 0, extra };
  }
}

type ReadSample =
  | { readonly ok: true; readonly measured: Measured; readonly mono: boolean; readonly base: number }
  | { readonly ok: false; readonly reason: SampleRejection };

/** An instant of a sample: as {@link parseInstant} reads it, or epoch milliseconds with a fraction (a clock finer than 1 ms). */
function readWallInstant(value: unknown, field: string): number {
  if (typeof value === 'number' && value >= INSTANT_RANGE.from && value < INSTANT_RANGE.to) return value;
  return parseInstant(value as number, field);
}

function readSample(sample: ClockSample, mono: boolean | undefined, config: ExchangeClockConfig): ReadSample {
  if (typeof sample !== 'object' || sample === null) {
    throw new InvalidInputError('a clock sample', sample, 'an object { sentAt, receivedAt, inTime, outTime }');
  }
  const sentAt = readWallInstant(sample.sentAt, '`sentAt`');
  const receivedAt = readWallInstant(sample.receivedAt, '`receivedAt`');
  const inTime = parseCount(sample.inTime, '`inTime` (X-In-Time, Unix microseconds)');
  const outTime = parseCount(sample.outTime, '`outTime` (X-Out-Time, Unix microseconds)');
  const hasMono = sample.sentMono !== undefined || sample.receivedMono !== undefined;
  if (mono !== undefined && hasMono !== mono) {
    throw new InvalidInputError(
      '`sentMono`',
      sample.sentMono,
      mono
        ? 'a monotonic instant, as on every earlier sample of this clock'
        : 'absent, as on every earlier sample of this clock',
    );
  }
  const send = hasMono
    ? finite(sample.sentMono, '`sentMono`', 'a monotonic instant in milliseconds (with `receivedMono`)')
    : sentAt;
  const receive = hasMono
    ? finite(sample.receivedMono, '`receivedMono`', 'a monotonic instant in milliseconds (with `sentMono`)')
    : receivedAt;
  if (outTime < inTime) return { ok: false, reason: 'reversed-gateway-times' };
  const rtt = receive - send - (outTime - inTime) / 1000;
  // Readings of whole milliseconds can shorten a fast round trip below 0 by up to their
  // resolution; the bound below still holds then. Beyond that no true request could give it.
  const slack = config.resolutionMs + GATEWAY_RESOLUTION_MS;
  if (rtt < -slack) return { ok: false, reason: 'negative-round-trip' };
  // In microseconds first: whole-millisecond readings times 1000 stay exact integers.
  const offset = (inTime - send * 1000 + (outTime - receive * 1000)) / 2000;
  return {
    ok: true,
    mono: hasMono,
    base: hasMono ? receivedAt - receive : 0,
    measured: { offset, half: rtt / 2 + slack, rtt, mid: (send + receive) / 2 },
  };
}

function keep(samples: readonly Measured[], m: Measured, window: number): readonly Measured[] {
  return [...samples, m].slice(-window);
}

// The sample of the narrowest bound at `ref`; the later one on a tie.
function bestAt(samples: readonly Measured[], ref: number, config: ExchangeClockConfig): Measured | undefined {
  let best: Measured | undefined;
  let bound = Infinity;
  for (const s of samples) {
    const e = errorAt(s, ref, config);
    if (e <= bound) {
      best = s;
      bound = e;
    }
  }
  return best;
}

function errorAt(s: Measured, ref: number, config: ExchangeClockConfig): number {
  return s.half + (Math.abs(ref - s.mid) * config.driftPpm) / 1e6;
}

function farther(from: number, a: number, b: number): number {
  return Math.abs(a - from) >= Math.abs(b - from) ? a : b;
}

function readDirection(direction: unknown): BoundaryDirection {
  if (direction !== 'lower' && direction !== 'raise')
    throw new InvalidInputError('`direction`', direction, '"lower" or "raise"');
  return direction;
}

function finite(value: unknown, field: string, expected: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new InvalidInputError(field, value, expected);
  return value;
}

function nonNegative(value: unknown, field: string, expected: string): number {
  const v = finite(value, field, expected);
  if (v < 0) throw new InvalidInputError(field, value, expected);
  return v;
}
