import { InvalidInputError } from '../errors.js';
import { Dec } from './decimal.js';

/**
 * An exact non-negative decimal as `units x 10^-scale`: the form in which the rules add, subtract,
 * multiply and compare money on their hot paths. Every operation here is exact (BigInt), several
 * times cheaper than decimal.js and far lighter on the garbage collector; values leave the rules
 * as {@link Dec} through {@link toDec}. Nothing here divides.
 */
export interface Fixed {
  readonly units: bigint;
  readonly scale: number;
}

/** Exact zero. */
export const FIXED_ZERO: Fixed = Object.freeze({ units: 0n, scale: 0 });

const POW10: bigint[] = [1n];
function pow10(n: number): bigint {
  while (POW10.length <= n) POW10.push(POW10[POW10.length - 1]! * 10n);
  return POW10[n]!;
}

/** The digits of the text `scanPlain` read last, as a double: exact only with at most 15 of them. */
let scannedValue = 0;

/**
 * Reads plain non-negative decimal text (`"1234.56"`, the API's own form): returns its number of
 * decimals and leaves its digits as a number in `scannedValue`; -1 for anything else (signs,
 * exponents, spaces, empty). No allocation: the hot paths of the rules run through it.
 */
function scanPlain(text: string): number {
  const n = text.length;
  if (n === 0) return -1;
  let dot = -1;
  let value = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) value = value * 10 + (c - 48);
    else if (c === 46 && dot < 0 && i > 0 && i < n - 1) dot = i;
    else return -1;
  }
  scannedValue = value;
  return dot < 0 ? 0 : n - dot - 1;
}

/**
 * Reads plain non-negative decimal text (`"1234.56"`, the API's own form), or returns undefined
 * for anything else (signs, exponents, spaces), which the caller validates the slow way.
 */
export function fixedFromPlainText(text: string): Fixed | undefined {
  const scale = scanPlain(text);
  if (scale < 0) return undefined;
  const dot = text.indexOf('.');
  // Up to 15 digits the scanned double is an exact integer; longer texts go through BigInt's parser.
  if (text.length - (dot < 0 ? 0 : 1) <= 15) return { units: BigInt(scannedValue), scale };
  return { units: BigInt(dot < 0 ? text : text.slice(0, dot) + text.slice(dot + 1)), scale };
}

/** Converts a finite non-negative Decimal exactly. */
export function fixedFromDec(d: Dec): Fixed {
  // toFixed() without an argument writes every digit in plain notation.
  const f = fixedFromPlainText(d.toFixed());
  if (f === undefined) throw new InvalidInputError('`d` of fixedFromDec', d, 'a non-negative finite decimal');
  return f;
}

/** a + b */
export function fixedAdd(a: Fixed, b: Fixed): Fixed {
  if (b.units === 0n) return a;
  if (a.units === 0n) return b;
  if (a.scale === b.scale) return { units: a.units + b.units, scale: a.scale };
  return a.scale > b.scale
    ? { units: a.units + b.units * pow10(a.scale - b.scale), scale: a.scale }
    : { units: a.units * pow10(b.scale - a.scale) + b.units, scale: b.scale };
}

/** a x b */
export function fixedMul(a: Fixed, b: Fixed): Fixed {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/** a x n for an integer n. */
export function fixedMulInt(a: Fixed, n: number): Fixed {
  return { units: a.units * BigInt(n), scale: a.scale };
}

/** Compares a and b: -1, 0 or 1. */
export function fixedCmp(a: Fixed, b: Fixed): -1 | 0 | 1 {
  let x = a.units;
  let y = b.units;
  if (a.scale > b.scale) y *= pow10(a.scale - b.scale);
  else if (b.scale > a.scale) x *= pow10(b.scale - a.scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * A Fixed as a double, within two units in the last place (the BigInt conversion and the division
 * each round once), or NaN where the scale is too large for that. For choosing, never for deciding.
 */
export function approxOf(f: Fixed): number {
  return f.scale <= 22 ? Number(f.units) / 10 ** f.scale : Number.NaN;
}

/** The exact Decimal of a Fixed. */
export function toDec(f: Fixed): Dec {
  if (f.scale === 0) return new Dec(f.units.toString());
  // Placing the point in the digits keeps every one: decimal.js rounds results, not literals.
  const digits = f.units.toString().padStart(f.scale + 1, '0');
  const cut = digits.length - f.scale;
  return new Dec(`${digits.slice(0, cut)}.${digits.slice(cut)}`);
}

const MAX = Number.MAX_SAFE_INTEGER;
const MAX_UNITS = BigInt(MAX);
const POW10_NUMBER = Array.from({ length: 16 }, (_, i) => 10 ** i);

/**
 * An exact running sum of non-negative amounts that stays in a plain integer double (exact below
 * 2^53) for as long as it can, and moves to BigInt when it cannot. Summing a list of API amounts
 * then allocates nothing per amount.
 */
export class FixedSum {
  private units = 0;
  private big: bigint | undefined;
  private scale = 0;

  /** Adds plain decimal text; returns false (adding nothing) when the text is not plain. */
  addText(text: string): boolean {
    const n = text.length;
    if (n > 16) return this.addLong(text);
    const scale = scanPlain(text);
    if (scale < 0) return false;
    // At most 16 characters with a point, or 15 digits: the scanned value is an exact integer.
    if (n === 16 && text.indexOf('.') < 0) return this.addLong(text);
    this.addUnits(scannedValue, scale);
    return true;
  }

  /** Adds a Fixed. */
  add(f: Fixed): void {
    if (f.units <= MAX_UNITS) this.addUnits(Number(f.units), f.scale);
    else this.addBig(f);
  }

  /** Starts again from zero. */
  reset(): this {
    this.units = 0;
    this.big = undefined;
    this.scale = 0;
    return this;
  }

  /** The exact sum. */
  value(): Fixed {
    if (this.big !== undefined) return { units: this.big + BigInt(this.units), scale: this.scale };
    return this.units === 0 ? FIXED_ZERO : { units: BigInt(this.units), scale: this.scale };
  }

  private addLong(text: string): boolean {
    const f = fixedFromPlainText(text);
    if (f === undefined) return false;
    this.addBig(f);
    return true;
  }

  private addUnits(value: number, scale: number): void {
    if (value === 0) return;
    if (scale > this.scale) {
      const p = scale - this.scale;
      // Rescaling would leave the BigInt part behind, or overflow the double: let BigInt do it.
      if (this.big !== undefined || p > 15 || this.units > MAX / POW10_NUMBER[p]!)
        return this.addBig({ units: BigInt(value), scale });
      this.units *= POW10_NUMBER[p]!;
      this.scale = scale;
    } else if (scale < this.scale) {
      const p = this.scale - scale;
      if (p > 15 || value > MAX / POW10_NUMBER[p]!) return this.addBig({ units: BigInt(value), scale });
      value *= POW10_NUMBER[p]!;
    }
    if (this.units > MAX - value) return this.addBig({ units: BigInt(value), scale: this.scale });
    this.units += value;
  }

  private addBig(f: Fixed): void {
    const total = fixedAdd(
      fixedAdd({ units: this.big ?? 0n, scale: this.scale }, { units: BigInt(this.units), scale: this.scale }),
      f,
    );
    this.big = total.units;
    this.units = 0;
    this.scale = total.scale;
  }
}
