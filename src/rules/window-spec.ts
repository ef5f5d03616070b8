import { InvalidInputError } from '../errors.js';
import { checkFields, parsePositiveInteger } from '../internal/parse.js';

/**
 * "N requests per W milliseconds".
 *
 * @example
 * ```ts
 * import { Dec } from 'traderatio'
 * import { type WindowSpec, checkAbuse } from 'traderatio/rules'
 *
 * const noFillLimit: WindowSpec = { limit: 5, windowMs: 10_000 }
 * checkAbuse({ requests: 86_401, traded: new Dec(0) }, { noFillLimit }) // { limit: 5, windowMs: 10000, reason: 'no-fills' }
 * ```
 */
export interface WindowSpec {
  readonly limit: number;
  readonly windowMs: number;
}

/** Reads an "N per W ms" limit. */
export function readRateLimit(value: unknown, field: string): WindowSpec {
  if (typeof value !== 'object' || value === null)
    throw new InvalidInputError(field, value, 'an object { limit, windowMs }');
  const v = value as WindowSpec;
  checkFields(v, ['limit', 'windowMs'], field);
  return {
    limit: parsePositiveInteger(v.limit, `${field}.limit`),
    windowMs: parsePositiveInteger(v.windowMs, `${field}.windowMs`),
  };
}
