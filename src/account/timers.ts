import { type Clock, unrefTimer } from '../schedule/clock.js';

/** A repeating timer, as {@link every} sets it. */
export interface Repeating {
  /** Stops it: no run starts after this. */
  stop(): void;
}

/**
 * Runs `run` every `everyMs` milliseconds on `clock`, the first time `everyMs` from now, until
 * stopped. The next run is set before this one starts, so a run that throws stops nothing.
 */
export function every(clock: Clock, everyMs: number, run: () => void): Repeating {
  let stopped = false;
  let handle: unknown = null;
  const tick = (): void => {
    if (stopped) return;
    handle = unrefTimer(clock.setTimer(tick, everyMs));
    run();
  };
  handle = unrefTimer(clock.setTimer(tick, everyMs));
  return {
    stop: () => {
      stopped = true;
      if (handle !== null) clock.clearTimer(handle);
      handle = null;
    },
  };
}
