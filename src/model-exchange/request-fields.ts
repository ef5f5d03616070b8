import { checkOrderText } from '../catalog/validators.js';
import { Dec } from '../internal/decimal.js';
import { ApiError, badRequest } from './api-error.js';

// Reading the fields of a request's body and query as the API does: each refusal is its 400 with
// the API's label.

type Json = Record<string, unknown>;

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/** The body as a JSON object; anything else is refused with INVALID_REQUEST_BODY. */
export function object(body: unknown): Json {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(
      'INVALID_REQUEST_BODY',
      `the body must be a JSON object, got ${Array.isArray(body) ? 'an array' : body === undefined ? 'none' : JSON.stringify(body)}`,
    );
  }
  return body as Json;
}

/** The body of a batch: a non-empty JSON array; anything else is refused with INVALID_REQUEST_BODY. */
export function array(body: unknown): unknown[] {
  if (!Array.isArray(body) || body.length === 0)
    throw badRequest('INVALID_REQUEST_BODY', 'the body must be a non-empty JSON array');
  return body;
}

/**
 * Decimals read from request fields, by their text: orders repeat their prices and sizes, and a
 * Decimal is immutable, so one read serves them all. Bounded: emptied when full.
 */
const readDecimals = new Map<string, Dec>();
const READ_DECIMALS_KEPT = 4096;

/**
 * A decimal field, a number or its text: missing, MISSING_REQUIRED_PARAM; not a decimal (or negative
 * when `nonNegative`), INVALID_PARAM_VALUE.
 */
export function decimal(value: unknown, field: string, nonNegative: boolean): Dec {
  if (value === undefined || value === null) throw badRequest('MISSING_REQUIRED_PARAM', `${field} is required`);
  const text =
    typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value : '';
  let d = readDecimals.get(text);
  if (d === undefined) {
    if (!DECIMAL.test(text))
      throw badRequest('INVALID_PARAM_VALUE', `${field} ${JSON.stringify(value)}: a decimal number`);
    d = new Dec(text);
    if (readDecimals.size >= READ_DECIMALS_KEPT) readDecimals.clear();
    readDecimals.set(text, d);
  }
  if (nonNegative && d.isNegative())
    throw badRequest('INVALID_PARAM_VALUE', `${field} ${JSON.stringify(value)}: not negative`);
  return d;
}

/** An order's `text`: none (empty), or a string the API takes (`t-` and its rules). */
export function orderText(text: unknown): string {
  if (text === undefined) return '';
  if (typeof text !== 'string')
    throw badRequest('INVALID_PARAM_VALUE', `text ${JSON.stringify(text)}: a string starting with "t-"`);
  const check = checkOrderText(text);
  if (!check.ok) throw badRequest(check.label, check.message);
  return text;
}

/** A list's `limit`: 100 when absent, else a whole number from 1 to 1000. */
export function listLimit(query: URLSearchParams): number {
  const raw = query.get('limit');
  if (raw === null) return 100;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1 || n > 1000)
    throw badRequest('INVALID_PARAM_VALUE', `limit ${JSON.stringify(raw)}: from 1 to 1000`);
  return n;
}

/** One item of a batch: its result, or its error as the batch endpoints report it. */
export function each(fn: () => Json, extra: Json = {}): Json {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ApiError) return { ...extra, succeeded: false, label: e.label, message: e.message };
    throw e;
  }
}

/** A query's Unix seconds as epoch milliseconds, `otherwise` when absent; not a number: 400 INVALID_PARAM_VALUE. */
export function seconds(value: string | null, otherwise: number): number {
  if (value === null || value === '') return otherwise;
  const n = Number(value);
  if (!Number.isFinite(n)) throw badRequest('INVALID_PARAM_VALUE', `${JSON.stringify(value)} is not Unix seconds`);
  return n * 1000;
}
