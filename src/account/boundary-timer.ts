import { HOUR_MS, utcHourStart } from '../rules/calendar.js';
import type { BoundaryDirection } from '../rules/exchange-clock.js';
import type { Clock } from '../schedule/clock.js';
import type { StoreLimit } from '../schedule/limit.js';
import type { Scheduler } from '../schedule/scheduler.js';
import type { RulesClock } from './rules-clock.js';
import type { InstantBounds } from './in-force.js';
import { unrefTimer } from '../schedule/clock.js';

/**
 * The timer of the account limiter's boundaries: every whole hour of the exchange's clock (00:00
 * snapshot, 08:00 raise, hourly throttle checks all fall on one), reached on its lowering side
 * (one window early, `error` earlier, and earlier by the transit) and again on its raising side
 * (`error` late) (see docs/rules.md#r15).
 * The scheduler holds each boundary too, so that nothing is let through past it should the timer
 * be late. It tells the edges the rules are to be read at, and whether a new clock sample moved
 * them across a whole hour.
 */
export class BoundaryTimer {
  private timer: unknown = null;
  /** The boundary the timer was set for, on the exchange's clock, and its side. */
  private armed: { at: number; direction: BoundaryDirection } | null = null;
  /** The whole hours of the exchange's clock the rules were last read in, at both edges (see docs/rules.md#r15). */
  private readHours: { early: number; late: number } | null = null;

  /** `onBoundary` runs when a boundary is reached, by the timer or by the scheduler. */
  constructor(
    private readonly clock: Clock,
    private readonly time: RulesClock,
    private readonly scheduler: Scheduler<StoreLimit>,
    private readonly onBoundary: () => void,
  ) {}

  /**
   * The instants the rules are to be read at now (see docs/rules.md#r15): the latest the exchange's clock may read,
   * where a lowering is already due (and `leadMs` later: a lowering is in force one window before
   * its instant), and the earliest, where a raise is certain. A boundary the timer was set for is
   * due on its side when it fires, whatever the rounding. Remembered for {@link crossed}.
   *
   * `ahead` is the whole hour the lead reaches before the exchange's clock does, with the time
   * still to run until it: the requests of that time are not made yet, and the rules read at it
   * are to count as many as the limits let through (see docs/rules.md#r15). Null otherwise.
   */
  edges(): InstantBounds & { readonly ahead: { readonly at: number; readonly ms: number } | null } {
    const armed = this.armed;
    const time = this.time;
    let early = time.edge('raise');
    const reached = time.edge('lower');
    let late = reached;
    if (
      time.estimating &&
      armed !== null &&
      armed.direction === 'lower' &&
      late < armed.at &&
      time.local().wall >= time.boundaryLocal(armed.at, 'lower', time.local())
    )
      late = armed.at;
    if (
      time.estimating &&
      armed !== null &&
      armed.direction === 'raise' &&
      early < armed.at &&
      time.local().wall >= time.boundaryLocal(armed.at, 'raise', time.local())
    )
      early = armed.at;
    this.readHours = { early: utcHourStart(early), late: utcHourStart(late) };
    const hour = utcHourStart(late);
    const before = reached - time.leadMs;
    return { early, late, ahead: before < hour ? { at: hour, ms: hour - before } : null };
  }

  /**
   * Whether an edge of the estimate is now in another whole hour than when the rules were last
   * read (every boundary is a whole hour: one was crossed).
   */
  crossed(): boolean {
    const h = this.readHours;
    return (
      h === null ||
      utcHourStart(this.time.edge('raise')) !== h.early ||
      utcHourStart(this.time.edge('lower')) !== h.late
    );
  }

  /** Sets the timer for the next boundary after `now` (an instant of the rules' clock). */
  arm(now: number): void {
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    const local = this.time.local();
    let next: { at: number; direction: BoundaryDirection; wall: number } | null = null;
    // Read once for the boundaries: arm runs after every clock sample. `now` was read before
    // `local`: the hour after next is looked at too, should the clock have moved past an hour since.
    const transit = this.time.transit();
    const hour = utcHourStart(now);
    for (const at of [hour, hour + HOUR_MS, hour + 2 * HOUR_MS]) {
      for (const direction of ['lower', 'raise'] as const) {
        const wall = this.time.boundaryLocal(at, direction, local, direction === 'lower' ? transit : 0);
        // Due now and not yet fired: boundaries fire in order, each side once.
        const pending =
          wall > local.wall ||
          (wall === local.wall && (this.armed === null || order(this.armed) < order({ at, direction })));
        if (pending && (next === null || wall < next.wall)) next = { at, direction, wall };
      }
    }
    const target = next ?? { at: hour + 2 * HOUR_MS, direction: 'raise', wall: local.wall + 2 * HOUR_MS };
    const delay = Math.max(0, target.wall - local.wall);
    const fire = (): void => {
      if (this.timer !== null) this.clock.clearTimer(this.timer);
      this.timer = null;
      this.scheduler.setBoundary(Infinity, null);
      this.armed = target;
      this.onBoundary();
    };
    this.timer = unrefTimer(this.clock.setTimer(fire, delay));
    // The scheduler applies it before letting anything through past it, should the timer be late
    // (one due now is left to the timer: a refresh is not to start inside this one).
    this.scheduler.setBoundary(local.mono + delay, delay > 0 ? fire : null);
  }

  /** Clears the timer. */
  stop(): void {
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
  }
}

/** The order boundaries fire in: by instant, the lowering side first. */
function order(b: { readonly at: number; readonly direction: BoundaryDirection }): number {
  return b.at * 2 + (b.direction === 'raise' ? 1 : 0);
}
