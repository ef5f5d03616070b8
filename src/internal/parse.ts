import { InvalidInputError, UnknownFieldError } from '../errors.js';
import { closestName } from './names.js';
import { Dec, type DecimalInput } from './decimal.js';

/**
 * Decimal amounts as text: digits, and a fraction of at least one digit after a point, as the
 * exchange's API writes them (`"1234.56"`). No `+`, no exponent (`1e5`), no bare point (`.5`,
 * `5.`), no spaces, no thousands separators. A `-` is read so that a negative amount is refused
 * as negative (and `-0` read as 0).
 */
const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/**
 * Reads a non-negative exact decimal (USDT amounts, weights, coefficients). Strings must be plain
 * decimal text (digits, optionally a point and more digits: `"1234.56"`, never `1e5`, `+5` or
 * `.5`); numbers must be finite; Decimals must be finite. Anything else names `field`.
 * Zero is zero whatever its sign: `-0`, `"-0"` and `"-0.00"` are read as 0.
 */
export function parseNonNegativeDecimal(value: unknown, field: string): Dec {
  const d = toDecimal(value);
  if (d === undefined || d.isNaN() || !d.isFinite() || (d.isNegative() && !d.isZero())) {
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

/** Reads an exact decimal of either sign (a futures size: negative sells). */
export function parseDecimal(value: unknown, field: string): Dec {
  const d = toDecimal(value);
  if (d === undefined || d.isNaN() || !d.isFinite()) throw new InvalidInputError(field, value, 'a decimal string');
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
  if (!isPositiveInteger(value)) throw new InvalidInputError(field, value, 'a positive integer');
  return value;
}

/**
 * Whether `value` is a positive safe integer: what a weight, an N per window, a batch size or a
 * number of processes must be. Cheap enough for the admission path (no allocation).
 */
export function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/**
 * The instants traderatio takes, in epoch milliseconds: from 2000-01-01T00:00:00Z (included) to
 * 2200-01-01T00:00:00Z (excluded). Anything outside is a mistake (seconds or microseconds for
 * milliseconds, a negative or an unset value), refused where it comes in rather than stored.
 */
export const INSTANT_RANGE: { readonly from: number; readonly to: number } = Object.freeze({
  from: 946_684_800_000,
  to: 7_258_118_400_000,
});
const FROM = INSTANT_RANGE.from;
const TO = INSTANT_RANGE.to;

const INSTANT_TEXT =
  'an instant from 2000-01-01 to 2200-01-01: epoch milliseconds (an integer), a Date, or ISO 8601 text with a zone (2026-11-05T10:00:00Z) or a day (2026-11-05)';

/**
 * An instant as traderatio takes it: epoch milliseconds, a `Date`, or ISO 8601 text, either a
 * UTC day (`2026-11-05`, its 00:00) or a date and time with a zone (`2026-11-05T10:00:00Z`,
 * `2026-11-05T12:00:00+02:00`). Text without a zone is refused: the machine's zone never decides.
 * Every instant is read into epoch milliseconds, and results give epoch milliseconds.
 *
 * @example
 * ```ts
 * import { type InstantInput, Tracker } from 'traderatio'
 *
 * const at: InstantInput = '2026-11-05T12:00:00+02:00'
 * const tracker = new Tracker()
 * tracker.recordRequest('main', 'BTC_USDT', 'place', at)
 * tracker.snapshot().hours[0]?.hour // '2026-11-05T10:00:00.000Z'
 * ```
 */
export type InstantInput = number | Date | string;

/** Whether `value` is an instant of {@link INSTANT_RANGE}: an integer number of epoch milliseconds. No allocation. */
export function isInstant(value: unknown): value is number {
  return typeof value === 'number' && value >= FROM && value < TO && Math.floor(value) === value;
}

/**
 * Reads an instant ({@link InstantInput}) into epoch milliseconds, an integer in
 * {@link INSTANT_RANGE}. Fractions of a millisecond in text are cut, as `Date.parse` does.
 */
export function parseInstant(value: unknown, field: string): number {
  if (isInstant(value)) return value;
  const at =
    typeof value === 'string'
      ? isoInstant(value)
      : Object.prototype.toString.call(value) === '[object Date]'
        ? Date.prototype.getTime.call(value)
        : Number.NaN;
  if (!isInstant(at)) throw new InvalidInputError(field, value, INSTANT_TEXT);
  return at;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/i;

/** ISO 8601 text as epoch milliseconds, or NaN: a day, or a date and time with a zone; every field in range. */
function isoInstant(text: string): number {
  const m = ISO.exec(text);
  if (m === null) return Number.NaN;
  const [, y, mo, d, h = '0', mi = '0', sec = '0'] = m;
  const day = Date.UTC(Number(y), Number(mo) - 1, Number(d));
  // Date.parse reads February 30 as March 2: a day is checked to be one of its month.
  if (
    new Date(day).getUTCDate() !== Number(d) ||
    Number(mo) < 1 ||
    Number(mo) > 12 ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(sec) > 59
  )
    return Number.NaN;
  return Date.parse(m[7] === undefined ? `${text}T00:00:00Z` : text);
}

/** Reads Unix seconds (the API's `Timestamp` header, see docs/rules.md#r11): a finite number in {@link INSTANT_RANGE}. */
export function parseUnixSeconds(value: unknown, field: string): number {
  if (typeof value !== 'number' || !(value * 1000 >= FROM && value * 1000 < TO)) {
    throw new InvalidInputError(field, value, 'Unix seconds from 2000-01-01 to 2200-01-01');
  }
  return value;
}

/**
 * Reads an options argument: an object, or undefined for the defaults. `null` and other values
 * are refused: leave the argument out to take every default. With `known`, a field not in it is
 * refused too ({@link checkFields}).
 */
export function readOptions<T extends object>(
  value: T | undefined,
  field = 'the options',
  known?: readonly string[],
): T {
  if (value === undefined) return {} as T;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidInputError(field, value, 'an options object, or nothing for the defaults');
  }
  if (known !== undefined) checkFields(value, known, field);
  return value;
}

/**
 * Reads options that may come resolved already (the rules' options are resolved once into a config
 * tagged with its `kind`): a config of `kind` passes through as it is; anything else is read by
 * {@link readOptions}, a field not in `known` is refused naming `owner`, and `resolve` turns the
 * options into their config.
 */
export function resolveOptions<O extends object, C extends { readonly kind: string }>(
  options: O | C | undefined,
  kind: C['kind'],
  known: readonly string[],
  owner: string,
  resolve: (given: O) => C,
): C {
  const given = readOptions<O | C>(options, owner);
  if ('kind' in given && given.kind === kind) return given as C;
  checkFields(given, known, owner);
  return resolve(given as O);
}

/**
 * Refuses an own enumerable field of `value` that is not in `known` with an
 * {@link UnknownFieldError} naming it, the object (`owner`, built only when one is refused) and the
 * closest known field. Every input object goes through here: an unknown field would otherwise read
 * as its default, silently.
 */
export function checkFields(value: object, known: readonly string[], owner: string | (() => string)): void {
  for (const key in value) {
    if (!known.includes(key) && Object.hasOwn(value, key)) {
      throw new UnknownFieldError(
        key,
        typeof owner === 'string' ? owner : owner(),
        (value as Record<string, unknown>)[key],
        known,
        closestName(key, known),
      );
    }
  }
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
