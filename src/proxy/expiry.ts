/** How far a signed request's `Timestamp` may lag the exchange's clock (section 5, R11), in milliseconds. */
export const SIGNATURE_VALIDITY_MS = 60_000;

/**
 * How long a signed request may still wait before it reaches the exchange, in milliseconds: its
 * `Timestamp` header (Unix seconds, fractions allowed) plus the exchange's 60 s (R11), less
 * `marginMs` for the way there, against `exchangeNow` (the exchange's clock as estimated, R15, at
 * its latest: the estimate plus its error). At or below 0 the exchange would refuse it as
 * REQUEST_EXPIRED. `undefined` when the request carries no Timestamp that is a number: the
 * exchange answers for that itself.
 */
export function signatureRemainingMs(
  timestamp: string | readonly string[] | undefined,
  exchangeNow: number,
  marginMs: number,
): number | undefined {
  const text = Array.isArray(timestamp) ? timestamp[0] : timestamp;
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const seconds = Number(text);
  if (!Number.isFinite(seconds)) return undefined;
  return seconds * 1000 + SIGNATURE_VALIDITY_MS - marginMs - exchangeNow;
}
