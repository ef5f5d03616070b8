/**
 * Whether `value` is a positive safe integer: what a weight, an N per window, a batch size or a
 * number of processes must be. Cheap enough for the admission path (no allocation).
 */
export function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
