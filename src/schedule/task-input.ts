import { InvalidInputError } from '../errors.js';
import { isPositiveInteger } from '../internal/parse.js';
import { checkSameBuild } from './build.js';
import type { Limit, StoreLimit } from './limit.js';
import { WindowLimit } from './window.js';

/** The limits of a scheduler, each with what the scheduler keeps about it. */
type Owned = ReadonlyMap<StoreLimit, unknown>;

/**
 * `value` as a list of limits of the scheduler whose limits are `owned`, each once; else an
 * {@link InvalidInputError} naming it.
 */
export function readLimits(owned: Owned, value: Limit | readonly Limit[] | undefined): readonly StoreLimit[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? (value as readonly StoreLimit[]) : [value as StoreLimit];
  for (const l of list) checkOwned(owned, l, 'each of `limits`');
  // Each limit once, checked without allocating (a task draws on a handful of limits).
  for (let i = 1; i < list.length; i++) {
    for (let j = 0; j < i; j++)
      if (list[j] === list[i])
        throw new InvalidInputError(
          '`limits`',
          list.map((l) => l.name),
          'each limit once',
        );
  }
  return list;
}

/** Whether `limits` is an array of limits in `owned`, each once (without allocating). */
export function ownsAll(owned: Owned, limits: unknown): boolean {
  if (!Array.isArray(limits)) return false;
  for (let i = 0; i < limits.length; i++) {
    const l: unknown = limits[i];
    if (!owned.has(l as StoreLimit)) return false;
    for (let j = 0; j < i; j++) if (limits[j] === l) return false;
  }
  return true;
}

/** Throws the error `readLimits` gives for limits `ownsAll` refused. */
export function refuseLimits(owned: Owned, limits: unknown): never {
  if (limits !== undefined) readLimits(owned, limits as StoreLimit | readonly StoreLimit[]);
  throw new InvalidInputError('`limits`', limits, 'a limit made by this scheduler, or an array of them');
}

/** Throws unless `l` is one of `owned`, naming it `field`. */
export function checkOwned(owned: Owned, l: unknown, field: string): void {
  if (owned.has(l as StoreLimit)) return;
  checkSameBuild(field, l, 'the scheduler', WindowLimit.prototype);
  throw new InvalidInputError(field, l, 'a limit made by this scheduler (scheduler.limit(...))');
}

/** A task's `weight`: a positive integer, 1 when not given. */
export function readWeight(value: unknown): number {
  if (value === undefined) return 1;
  if (!isPositiveInteger(value)) throw new InvalidInputError('`weight`', value, 'a positive integer');
  return value;
}

/** A task's `priority`: a finite number, 0 when not given. */
export function readPriority(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new InvalidInputError('`priority`', value, 'a finite number');
  return value;
}

/** A task's `signal`: an AbortSignal, or undefined. */
export function readSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  const s = value as { aborted?: unknown; addEventListener?: unknown; removeEventListener?: unknown };
  if (
    typeof s !== 'object' ||
    s === null ||
    typeof s.aborted !== 'boolean' ||
    typeof s.addEventListener !== 'function' ||
    typeof s.removeEventListener !== 'function'
  ) {
    throw new InvalidInputError('`signal`', value, 'an AbortSignal');
  }
  return value as AbortSignal;
}

/** Why a task of `weight` is refused as too heavy for `l` at `priority`. */
export function tooHeavy(weight: number, l: StoreLimit, priority: number): string {
  return `weight ${weight} can never fit ${l.name} (${l.capacity(priority)} per ${l.windowMs} ms at priority ${priority})`;
}
