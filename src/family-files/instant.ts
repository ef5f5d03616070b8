import { InvalidInputError } from '../errors.js';

/** An instant of a file as ISO text with a zone, or epoch milliseconds. */
export function readInstant(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /(Z|[+-]\d\d:\d\d)$/.test(value) && Number.isFinite(Date.parse(value)))
    return Date.parse(value);
  throw new InvalidInputError(field, value, 'an ISO instant with a zone (2026-11-21T08:00:00Z) or epoch milliseconds');
}
