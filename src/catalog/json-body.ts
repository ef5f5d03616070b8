/**
 * A request body as an HTTP client sends it, read as JSON for the catalogue (a batch's orders, the
 * contract): a JSON string parsed; anything else, or text that is not JSON, `undefined`.
 */
export function jsonBody(body: unknown): unknown {
  try {
    return typeof body === 'string' ? (JSON.parse(body) as unknown) : undefined;
  } catch {
    return undefined;
  }
}
