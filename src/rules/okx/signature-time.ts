/**
 * How far a signed request's `OK-ACCESS-TIMESTAMP` may be from OKX's time either way before it is
 * refused with 50102 (see docs/okx.md#o10), in milliseconds.
 */
export const OKX_SIGNATURE_WINDOW_MS = 30_000;

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/;

/**
 * The instant (epoch ms) an `OK-ACCESS-TIMESTAMP` names: ISO 8601 in UTC, milliseconds allowed
 * (`2026-11-21T08:00:00.000Z`); undefined for any other text (50112 at OKX).
 */
export function readOkxTimestamp(text: string): number | undefined {
  return ISO_MS.test(text) ? Date.parse(text) : undefined;
}
