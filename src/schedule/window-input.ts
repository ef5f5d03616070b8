// What a window limit takes, checked: its options and the arguments of its calls.
// Each refusal is an InvalidInputError naming the field and the limit.
import { InvalidInputError } from '../errors.js';
import { isPositiveInteger } from '../internal/parse.js';

/**
 * @internal Refuses what `tryTake` of limit `name` may not take: a weight that is not a positive
 * integer, an instant or priority that is not a finite number. Checked without allocating: the
 * refusal is thrown by helpers out of the hot path.
 */
export function checkTake(weight: number, at: number, priority: number, name: string): void {
  if (!isPositiveInteger(weight)) badWeight(weight, name);
  if (typeof at !== 'number' || at - at !== 0) badInstant(at, name);
  if (typeof priority !== 'number' || priority - priority !== 0) badPriority(priority, name);
}

export function badWeight(value: unknown, name: string): never {
  throw new InvalidInputError(`\`weight\` of ${name}`, value, 'a positive integer');
}

export function badInstant(value: unknown, name: string): never {
  throw new InvalidInputError(`\`at\` of ${name}`, value, 'a finite instant in milliseconds');
}

export function badPriority(value: unknown, name: string): never {
  throw new InvalidInputError(`\`priority\` of ${name}`, value, 'a finite number');
}

export function readName(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new InvalidInputError('`name` of a limit', value, 'a non-empty string');
  return value;
}

export function readLimit(value: unknown, name: string): number {
  if (!isPositiveInteger(value)) {
    throw new InvalidInputError(`\`limit\` of ${name}`, value, 'a positive integer');
  }
  return value;
}

export function readWindow(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new InvalidInputError(field, value, 'a positive number of milliseconds');
  return value;
}

export function readMargin(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidInputError(`\`marginMs\` of ${name}`, value, 'a non-negative number of milliseconds');
  }
  return value;
}

export function readReserve(value: unknown, n: number, name: string): { priority: number; weight: number } {
  const r = value as { priority?: unknown; weight?: unknown };
  if (typeof r !== 'object' || r === null || typeof r.priority !== 'number' || !Number.isFinite(r.priority)) {
    throw new InvalidInputError(`\`reserve.priority\` of ${name}`, r?.priority, 'a finite number');
  }
  if (!isPositiveInteger(r.weight) || r.weight >= n) {
    throw new InvalidInputError(`\`reserve.weight\` of ${name}`, r.weight, `a positive integer below \`limit\` (${n})`);
  }
  return { priority: r.priority, weight: r.weight };
}
