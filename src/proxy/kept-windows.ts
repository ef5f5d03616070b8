import type { Clock } from '../schedule/clock.js';
import type { LimitStore } from '../schedule/store.js';
import { WindowLimit, type WindowLimitOptions } from '../schedule/window.js';

/** What a limit counted in its window, as the state file keeps it: instants on the wall clock (epoch ms). */
export interface KeptWindow {
  readonly entries: readonly (readonly [number, number])[];
  readonly holds: readonly (readonly [number, number])[];
  readonly pausedUntil: number | 'forever' | null;
}

/**
 * The in-memory store of a family's limits (what `memoryStore` does), that also gives what each
 * limit counted in its window, and starts a limit from what a state file kept of it: the window
 * counts a restart would otherwise lose. A limit's instants are on the monotonic clock of its
 * process; kept, they are on the wall clock, and moved back onto the new process's at start.
 */
export class KeptWindows implements LimitStore<WindowLimit> {
  readonly #clock: Clock;
  readonly #made = new Map<string, WindowLimit>();
  readonly #kept: Map<string, KeptWindow>;

  constructor(clock: Clock, kept: Readonly<Record<string, KeptWindow>> = {}) {
    this.#clock = clock;
    this.#kept = new Map(Object.entries(kept));
  }

  limit(options: WindowLimitOptions): WindowLimit {
    let made = new WindowLimit(options);
    // A limit without a name cannot be found again after a restart: not kept.
    if (options.name === undefined) return made;
    const kept = this.#kept.get(options.name);
    if (kept !== undefined) {
      this.#kept.delete(options.name);
      const toMono = this.#clock.now() - this.#clock.wall();
      try {
        // The limit as the options make it now (its N may have changed), with the counts kept.
        made = WindowLimit.restore({
          ...made.snapshot(),
          entries: kept.entries.map(([at, weight]) => [at + toMono, weight] as const),
          holds: kept.holds.map(([weight, until]) => [weight, until + toMono] as const),
          pausedUntil:
            kept.pausedUntil === null || kept.pausedUntil === 'forever' ? kept.pausedUntil : kept.pausedUntil + toMono,
        });
      } catch {
        // A window the limit cannot take (a file edited by hand) starts empty: the answers' headers tell the rest (see docs/rules.md#r17).
      }
    }
    this.#made.set(options.name, made);
    return made;
  }

  /** Each limit's window now, by limit name, its instants on the wall clock; empty windows left out. */
  kept(): Record<string, KeptWindow> {
    const now = this.#clock.now();
    const toWall = this.#clock.wall() - now;
    const out: Record<string, KeptWindow> = {};
    for (const [name, l] of this.#made) {
      const s = l.snapshot();
      const since = now - s.maxWindowMs - s.marginMs;
      const entries = s.entries.filter(([at]) => at >= since).map(([at, weight]) => [at + toWall, weight] as const);
      const holds = s.holds
        .filter(([, until]) => until > now)
        .map(([weight, until]) => [weight, until + toWall] as const);
      const paused =
        typeof s.pausedUntil === 'number' && s.pausedUntil > now
          ? s.pausedUntil + toWall
          : s.pausedUntil === 'forever'
            ? 'forever'
            : null;
      if (entries.length > 0 || holds.length > 0 || paused !== null)
        out[name] = { entries, holds, pausedUntil: paused };
    }
    return out;
  }
}
