import { InvalidInputError } from '../errors.js';
import { type Check, checkClockOffset } from '../catalog/validators.js';
import {
  type BoundaryDirection,
  type ClockEstimate,
  type ClockSample,
  ExchangeClock,
  type SampleRejection,
} from '../rules/exchange-clock.js';
import type { Clock } from '../schedule/clock.js';
import { readGatewayTimes } from '../schedule/gateway-time.js';
import type { LimiterClockSample } from './limiter-options.js';

/** The local wall and monotonic clocks read together. */
export interface LocalInstant {
  readonly wall: number;
  readonly mono: number;
}

/** What a clock sample did: taken, or why not. */
export type SampleOutcome =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly reason: SampleRejection | 'no-gateway-times' };

/**
 * The clock the limiter's rules are read on (see docs/rules.md#r15): the exchange's, as estimated from the gateway
 * times of answers, or the local wall clock (`exchangeClock: 'local'`, or before the first sample).
 * It tells the instant now, the edges of the estimate a lowering and a raise are compared at, and
 * the local instant a boundary of the exchange's clock is due at. A lowering is due one window
 * early (`leadMs`, the longest window of the limits a boundary lowers), and earlier still by the
 * slowest recent way to the exchange (`transit`): a request sent under the old limits is counted
 * by the exchange under the new ones only while it may still be on its way there (see docs/rules.md#r15).
 */
export class RulesClock {
  private exchangeClock = new ExchangeClock();
  /** Whether the last clock check was ok (see docs/rules.md#r15): a `clock` event is told when it changes. */
  private clockOk = true;

  /**
   * @param estimating whether the rules are read on the estimate (`exchangeClock: 'estimate'`)
   * @param arrivals where the slowest recent way to the exchange is read (see docs/rules.md#r13)
   * @param leadMs how much earlier than its instant a lowering applies: the longest window of the
   *   limits a boundary lowers (see docs/rules.md#r15)
   */
  constructor(
    private readonly clock: Clock,
    readonly estimating: boolean,
    private readonly arrivals: { readonly slowest: number },
    readonly leadMs = 0,
  ) {}

  /**
   * Now, on the clock the rules are read on (see docs/rules.md#r15): the exchange's as estimated (its middle), or
   * with `exchangeClock: 'local'` or before the first sample, the local wall clock.
   */
  now(): number {
    const wall = Math.floor(this.clock.wall());
    if (!this.estimating) return wall;
    const e = this.exchangeClock.estimate(this.local());
    return e === null ? wall : Math.floor(wall + e.offsetMs);
  }

  /** The local wall and monotonic clocks read together (the estimate follows a wall step with them). */
  local(): LocalInstant {
    return { wall: Math.floor(this.clock.wall()), mono: this.clock.now() };
  }

  /** The exchange's clock as estimated now, or null before the first sample. */
  estimate(): ClockEstimate | null {
    return this.exchangeClock.estimate(this.local());
  }

  /**
   * The exchange's instant on the side a boundary of `direction` is compared on (see docs/rules.md#r15): for a
   * raise the earliest the exchange's clock may read now; for a lowering the latest, later by the
   * way there and by the lead (a lowering is in force that long before its instant).
   */
  edge(direction: BoundaryDirection): number {
    const lead = direction === 'lower' ? this.leadMs : 0;
    if (!this.estimating) return Math.floor(this.clock.wall()) + lead;
    const at = this.exchangeClock.toExchange(this.local(), direction);
    return direction === 'lower' ? at + this.transit() + lead : at;
  }

  /**
   * The local instant a boundary is due at (see docs/rules.md#r15); a lowering earlier by the way there (see
   * transit) and by the lead. With the local clock as the rules' clock, the boundary's own instant.
   */
  boundaryLocal(
    at: number,
    direction: BoundaryDirection,
    local: LocalInstant,
    transit = direction === 'lower' ? this.transit() : 0,
  ): number {
    const lead = direction === 'lower' ? this.leadMs : 0;
    if (!this.estimating) return at - lead;
    const wall = this.exchangeClock.boundaryLocal(at, direction, local);
    return direction === 'lower' ? wall - transit - lead : wall;
  }

  /**
   * The longest way to the exchange among the recent answers, in whole milliseconds (0 before
   * any): a request sent now may be counted that much later, so a lowering applies that much
   * earlier, and nothing sent before it reaches the exchange after it (see docs/rules.md#r15, #r13).
   */
  transit(): number {
    if (!this.estimating) return 0;
    const estimate = this.exchangeClock.estimate(this.local());
    const slowest = this.arrivals.slowest;
    return estimate === null || slowest === -Infinity ? 0 : Math.max(0, Math.ceil(slowest - estimate.offsetMs));
  }

  /**
   * Takes a timed request for the estimate (see `AccountLimiter.clockSample`): bad input throws an
   * {@link InvalidInputError} and changes nothing.
   */
  add(sample: LimiterClockSample): SampleOutcome {
    if (typeof sample !== 'object' || sample === null)
      throw new InvalidInputError(
        'the clock sample',
        sample,
        'an object { sentAt, receivedAt, headers } or { sentAt, receivedAt, inTime, outTime }',
      );
    let timed: ClockSample = sample as ClockSample;
    if ('headers' in sample) {
      if (typeof sample.headers !== 'object' || sample.headers === null)
        throw new InvalidInputError(
          '`headers`',
          sample.headers,
          "the response headers, or a WebSocket answer's `header` object",
        );
      const times = readGatewayTimes(sample.headers);
      if (times === undefined) return { accepted: false, reason: 'no-gateway-times' };
      const { headers: _, ...rest } = sample;
      timed = { ...rest, ...times };
    }
    const outcome = this.exchangeClock.add(timed);
    this.exchangeClock = outcome.clock;
    return outcome.accepted ? { accepted: true } : { accepted: false, reason: outcome.reason };
  }

  /**
   * The local clock against the exchange's (see docs/rules.md#r15, #r11), when the check changed since it was last
   * told: `checkClockOffset` on the estimate; null when it did not change or before any sample.
   */
  checkChange(): { readonly offsetMs: number; readonly errorMs: number; readonly check: Check } | null {
    const e = this.exchangeClock.estimate(this.local());
    if (e === null) return null;
    const check = checkClockOffset(e);
    if (check.ok === this.clockOk) return null;
    this.clockOk = check.ok;
    return { offsetMs: e.offsetMs, errorMs: e.errorMs, check };
  }
}
