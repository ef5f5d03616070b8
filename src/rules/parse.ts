import { InvalidInputError } from '../errors.js';
import { Dec, type DecimalInput } from './decimal.js';

const DECIMAL_TEXT = /^[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Reads a non-negative exact decimal (USDT amounts, weights, coefficients). Strings must be plain
 * decimal text; numbers must be finite; Decimals must be finite. Anything else names `field`.
 */
export function parseNonNegativeDecimal(value: unknown, field: string): Dec {
  const d = toDecimal(value);
  if (d === undefined || d.isNegative() || d.isNaN() || !d.isFinite()) {
    throw new InvalidInputError(field, value, 'a non-negative decimal string');
  }
  // -0 and 0 are the same amount; keep one representation.
  return d.isZero() ? new Dec(0) : d;
}

/** Reads a strictly positive exact decimal. */
export function parsePositiveDecimal(value: unknown, field: string): Dec {
  const d = toDecimal(value);
  if (d === undefined || d.isNaN() || !d.isFinite() || !d.isPositive() || d.isZero()) {
    throw new InvalidInputError(field, value, 'a positive decimal string');
  }
  return d;
}

function toDecimal(value: unknown): Dec | undefined {
  if (typeof value === 'string') {
    const text = value.trim();
    if (text !== value || !DECIMAL_TEXT.test(text)) return undefined;
    return new Dec(text);
  }
  if (typeof value === 'number') {
    return Number.isFinite(value) ? new Dec(value) : undefined;
  }
  if (Dec.isDecimal(value)) {
    const d = new Dec(value as DecimalInput);
    return d.isFinite() ? d : undefined;
  }
  return undefined;
}

/** Reads a count (requests): a non-negative safe integer. */
export function parseCount(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidInputError(field, value, 'a non-negative integer');
  }
  return value;
}

/** Reads a positive safe integer (limits, window lengths). */
export function parsePositiveInteger(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidInputError(field, value, 'a positive integer');
  }
  return value;
}

/** Reads an instant: epoch milliseconds, a finite integer. */
export function parseInstant(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new InvalidInputError(field, value, 'an instant in epoch milliseconds (an integer)');
  }
  return value;
}

/** Reads a non-empty identifier (account ids). */
export function parseId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.trim() !== value) {
    throw new InvalidInputError(field, value, 'a non-empty string without surrounding spaces');
  }
  return value;
}

/** Adds two request counts, refusing a total that leaves the exact integer range. */
export function addCounts(a: number, b: number, field: string): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) throw new InvalidInputError(field, sum, 'a total below 2^53');
  return sum;
}
