import { ArrivalDelay } from '../schedule/arrival-delay.js';
import type { Clock } from '../schedule/clock.js';
import { type GatewayTimes, readGatewayTimes } from '../schedule/gateway-time.js';
import type { StoreLimit } from '../schedule/limit.js';
import type { LimiterClockSample } from './limiter-options.js';

/** One answered request, as `arrived` counts it at the exchange (see docs/rules.md#r13). */
interface Arrival extends AnsweredRequest {
  /** Until when, plus the window, its limits count it: -Infinity until counted. */
  arrived: number;
}

/** How long answers are kept to be counted again when a quicker way there shows: twice the longest window of the catalogue. */
const ARRIVALS_KEPT_MS = 20_000;

/** One answered request: the limits it drew on, its weight, and its way to the exchange. */
export interface AnsweredRequest {
  readonly limits: readonly StoreLimit[];
  readonly weight: number;
  /** Sent and answered, on the local monotonic clock. */
  readonly sentMono: number;
  readonly receivedMono: number;
  /** The gateway's receive instant minus the local send instant, in milliseconds. */
  readonly delay: number;
}

/**
 * The latest instant a request sent at `sentMono` and answered at `receivedMono` can have reached
 * the exchange (see docs/rules.md#r13): the answer's receive instant, less the gateway's own time (`X-Out-Time` less
 * `X-In-Time`, see docs/rules.md#r15, less the one microsecond its stamps may round) when the answer carries it and
 * it fits in the round trip; never before the send. Sent at 0 and answered at 40, 5 ms of it in
 * the gateway: 35.001.
 */
export function latestArrival(sentMono: number, receivedMono: number, times: GatewayTimes | undefined): number {
  // The gateway's stamps are whole microseconds: its own time may be up to one less than theirs.
  const inside = times === undefined ? 0 : (times.outTime - times.inTime - 1) / 1000;
  const latest = inside > 0 && inside <= receivedMono - sentMono ? receivedMono - inside : receivedMono;
  return latest > sentMono ? latest : sentMono;
}

/**
 * The answered requests of the last seconds. By default (arrivals bounded by answers, see docs/rules.md#r13) only
 * the way there is kept, for the slowest (what the exchange's clock reads); a request's limits
 * count it until one window after its answer, as {@link AccountLimiter.roundTrip} tells them.
 * With the arrival estimate (`arrivals: 'estimate'`) each is counted on its limits until one
 * window after it reached the exchange as estimated: the way there is measured against the
 * quickest recent answer, so the offset of the exchange's clock drops out; when a quicker way
 * shows, the answers kept are counted again, longer.
 */
export class Arrivals {
  /** @param estimate the arrival estimate is the option in use (`arrivals: 'estimate'`) */
  constructor(private readonly estimate: boolean) {}

  /** How much later than the quickest each request reached the exchange (see docs/rules.md#r13). */
  private readonly arrivalDelay = new ArrivalDelay();
  /** The quickest way there (plus the clocks' offset) among the recent answers. */
  private quickest = Infinity;
  /** The answers of the last ARRIVALS_KEPT_MS, oldest first from `head`. */
  private arrivals: { list: Arrival[]; head: number } = { list: [], head: 0 };

  /** The longest way there among the recent answers (plus the clocks' offset), or -Infinity before any. */
  get slowest(): number {
    return this.arrivalDelay.max;
  }

  /**
   * Counts the answer to a request that drew on `limits`: its send and receive instants from
   * `sample` (wall clock, or monotonic when given), its way there from the gateway's receive time.
   * `bounded`: its round trip has told its limits of its answer already; otherwise, arrivals
   * bounded by answers, they count it until one window after the latest it can have arrived.
   */
  answered(
    limits: readonly StoreLimit[],
    weight: number,
    sample: LimiterClockSample,
    clock: Clock,
    bounded: boolean,
  ): void {
    const times = 'headers' in sample ? readGatewayTimes(sample.headers)! : sample;
    const now = clock.now();
    const wall = clock.wall();
    const request: AnsweredRequest = {
      limits,
      weight,
      sentMono: sample.sentMono ?? now - (wall - sample.sentAt),
      receivedMono: sample.receivedMono ?? now - (wall - sample.receivedAt),
      delay: times.inTime / 1000 - sample.sentAt,
    };
    if (this.estimate) {
      this.add(request, now);
      return;
    }
    this.arrivalDelay.add(request.delay, now);
    if (bounded) return;
    const latest = latestArrival(request.sentMono, request.receivedMono, times);
    for (const limit of limits) limit.extend(weight, request.sentMono, latest);
  }

  /** Counts an answered request as the arrival estimate does, at `now` on the monotonic clock. */
  add(request: AnsweredRequest, now: number): void {
    const arrival: Arrival = { ...request, arrived: -Infinity };
    const min = arrival.delay - this.arrivalDelay.add(arrival.delay, now);
    // A quicker way there than any seen: the requests answered before were counted at the
    // exchange later than thought, and count longer here too.
    if (min < this.quickest)
      for (let i = this.arrivals.head; i < this.arrivals.list.length; i++) countArrival(this.arrivals.list[i]!, min);
    this.quickest = min;
    countArrival(arrival, min);
    const kept = this.arrivals;
    kept.list.push(arrival);
    while (kept.head < kept.list.length - 1 && kept.list[kept.head]!.sentMono < now - ARRIVALS_KEPT_MS) kept.head++;
    if (kept.head > 1024 && kept.head * 2 > kept.list.length) {
      kept.list = kept.list.slice(kept.head);
      kept.head = 0;
    }
  }
}

/**
 * Counts `a` on its limits until one window after it reached the exchange, as far as `quickest`
 * tells, and tells limits that follow arrivals (a shared store's) of it, the first time and each
 * time it is counted later.
 */
function countArrival(a: Arrival, quickest: number): void {
  const estimate = Math.min(a.sentMono + (a.delay - quickest), a.receivedMono);
  const arrived = estimate > a.sentMono ? estimate : a.sentMono;
  if (arrived <= a.arrived) return;
  const again = a.arrived > -Infinity;
  for (const limit of a.limits) {
    if (arrived > a.sentMono) limit.extend(a.weight, a.arrived > a.sentMono ? a.arrived : a.sentMono, arrived);
    limit.arrival?.(a.weight, a.sentMono, arrived, again);
  }
  a.arrived = arrived;
}
