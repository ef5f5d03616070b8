import { type HeadersLike, headerReader, toNumber } from './feedback.js';

/**
 * The gateway's receive and send instants of one request (see docs/rules.md#r15), Unix microseconds.
 *
 * @example
 * ```ts
 * import { type GatewayTimes, readGatewayTimes } from 'traderatio'
 *
 * const times: GatewayTimes | undefined = readGatewayTimes({ x_in_time: 1736408263764000, x_out_time: 1736408263765210 })
 * times!.outTime - times!.inTime // 1210
 * ```
 */
export interface GatewayTimes {
  /** `X-In-Time`: when the gateway received the request. */
  readonly inTime: number;
  /** `X-Out-Time`: when the gateway sent the response. */
  readonly outTime: number;
}

/**
 * Reads `X-In-Time` and `X-Out-Time` (see docs/rules.md#r15), case-insensitively, from a REST response's headers or
 * from the `header` object of a WebSocket API response (which spells them `x_in_time` and
 * `x_out_time`). Both must be there as whole non-negative microseconds, else `undefined`: a
 * response without them gives no clock sample.
 *
 * @example
 * ```ts
 * import { readGatewayTimes } from 'traderatio'
 *
 * const headers = new Headers({ 'X-In-Time': '1736408263764000', 'X-Out-Time': '1736408263765210' })
 * readGatewayTimes(headers) // { inTime: 1736408263764000, outTime: 1736408263765210 }
 * readGatewayTimes({ 'x-in-time': '1736408263764000' }) === undefined // true
 * ```
 */
export function readGatewayTimes(headers: HeadersLike): GatewayTimes | undefined {
  const get = headerReader(headers);
  const inTime = micros(get('x-in-time') ?? get('x_in_time'));
  const outTime = micros(get('x-out-time') ?? get('x_out_time'));
  return inTime === undefined || outTime === undefined ? undefined : { inTime, outTime };
}

function micros(value: unknown): number | undefined {
  const n = toNumber(value);
  return n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
