import { InvalidInputError } from '../errors.js';
import { isPositiveInteger } from '../internal/parse.js';

/**
 * A limit's state as plain data: what `snapshot()` gives and `WindowLimit.restore` takes.
 *
 * @example
 * ```ts
 * import { WindowLimit, type WindowLimitState } from 'traderatio'
 *
 * const l = new WindowLimit({ name: 'futures.place', limit: 2, windowMs: 1000 })
 * l.tryTake(1, 100)
 * const state: WindowLimitState = JSON.parse(JSON.stringify(l.snapshot()))
 * state.entries // [[100, 1]]
 * WindowLimit.restore(state).tryTake(2, 500) // { ok: false, retryAfterMs: 600 }
 * ```
 */
export interface WindowLimitState {
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
  readonly maxWindowMs: number;
  readonly marginMs: number;
  readonly reserve: { readonly priority: number; readonly weight: number } | null;
  /** Weight counted, as [instant, weight] pairs, oldest first. */
  readonly entries: readonly (readonly [number, number])[];
  /** Feedback holds: [weight, until]. */
  readonly holds: readonly (readonly [number, number])[];
  /** Paused until this instant; `"forever"` for a pause without end (JSON has no Infinity). */
  readonly pausedUntil: number | 'forever' | null;
}

/** What a limit's state counts, checked: its log's entries, its holds and its pause. */
export interface StateCounts {
  readonly entries: readonly (readonly [number, number])[];
  readonly holds: readonly (readonly [number, number])[];
  /** Paused until this instant (Infinity: without end), or null. */
  readonly pausedUntil: number | null;
}

/**
 * Reads what `state` counts, every field checked before anything is built: a bad one is an
 * {@link InvalidInputError} naming it. The options of the limit are checked by the limit made
 * from them.
 */
export function readStateCounts(state: WindowLimitState): StateCounts {
  if (typeof state !== 'object' || state === null)
    throw new InvalidInputError('the limit state', state, 'an object as `snapshot()` gives');
  const entries = readPairs(state, 'entries');
  let previous = -Infinity;
  for (const [i, [at, weight]] of entries.entries()) {
    if (!Number.isFinite(at) || at < previous) {
      throw new InvalidInputError(
        `\`entries[${i}][0]\` of the limit state`,
        at,
        `a finite instant, not before the entry before it (${previous})`,
      );
    }
    if (!isPositiveInteger(weight))
      throw new InvalidInputError(`\`entries[${i}][1]\` of the limit state`, weight, 'a positive integer weight');
    previous = at;
  }
  const holds = readPairs(state, 'holds');
  for (const [i, [weight, until]] of holds.entries()) {
    if (!Number.isFinite(weight) || weight <= 0)
      throw new InvalidInputError(`\`holds[${i}][0]\` of the limit state`, weight, 'a positive weight');
    if (!Number.isFinite(until))
      throw new InvalidInputError(`\`holds[${i}][1]\` of the limit state`, until, 'a finite instant');
  }
  const paused = state.pausedUntil as unknown;
  if (paused !== null && paused !== 'forever' && (typeof paused !== 'number' || !Number.isFinite(paused))) {
    throw new InvalidInputError('`pausedUntil` of the limit state', paused, 'null, "forever" or a finite instant');
  }
  return { entries, holds, pausedUntil: paused === null ? null : paused === 'forever' ? Infinity : (paused as number) };
}

/** `state[key]` as a list of [number, number] pairs, else an error naming it or its bad element. */
function readPairs(state: WindowLimitState, key: 'entries' | 'holds'): readonly (readonly [number, number])[] {
  const value: unknown = state[key];
  if (!Array.isArray(value))
    throw new InvalidInputError(`\`${key}\` of the limit state`, value, 'an array of [number, number] pairs');
  for (const [i, pair] of (value as unknown[]).entries()) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'number' || typeof pair[1] !== 'number') {
      throw new InvalidInputError(`\`${key}[${i}]\` of the limit state`, pair, 'a pair [number, number]');
    }
  }
  return value as readonly (readonly [number, number])[];
}
