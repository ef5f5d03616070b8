import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature of a signed request (section 5 of the description): hex HMAC-SHA512 with the
 * secret over five lines, method, path with `/api/v4`, the query as sent, hex SHA-512 of the body,
 * and the Timestamp header.
 */
export function signRequest(
  secret: string,
  method: string,
  path: string,
  query: string,
  body: string | Buffer,
  timestamp: string,
): string {
  const hashed = createHash('sha512').update(body).digest('hex');
  return createHmac('sha512', secret)
    .update(`${method.toUpperCase()}\n${path}\n${query}\n${hashed}\n${timestamp}`)
    .digest('hex');
}

/** The signature of a WebSocket API request: `api\n{channel}\n{request parameters as sent}\n{timestamp}`. */
export function signWebSocket(secret: string, channel: string, params: string, timestamp: string): string {
  return createHmac('sha512', secret).update(`api\n${channel}\n${params}\n${timestamp}`).digest('hex');
}

/** Whether two hex signatures are the same, compared in constant time. */
export function sameSignature(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b.toLowerCase(), 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * OKX's signature of a REST request (O10): Base64 HMAC-SHA256 with the secret over the
 * timestamp (ISO text), the method in capitals, the request path with its query, and the body.
 */
export function signOkx(secret: string, timestamp: string, method: string, requestPath: string, body: string): string {
  return createHmac('sha256', secret)
    .update(`${timestamp}${method.toUpperCase()}${requestPath}${body}`)
    .digest('base64');
}

/** Whether two Base64 signatures are the same, compared in constant time. */
export function sameBase64(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
