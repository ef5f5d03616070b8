/**
 * `traderatio/websocket`: a connection to the exchange's WebSocket API that goes through an
 * account limiter (R16).
 *
 * @packageDocumentation
 */
export { limitedWebSocket } from './limited-websocket.js';
export type { LimitedWebSocket, LimitedWebSocketOptions, WebSocketCallOptions, WebSocketLike, WebSocketReply } from './limited-websocket.js';
/**
 * A request was sent on the connection and no reply came: the connection closed, the reply took
 * longer than `timeoutMs`, or the wrapper was closed. The request counted, and the exchange may
 * have acted on it.
 *
 * @example
 * ```ts
 * import { AccountLimiter } from 'traderatio'
 * import { NoReplyError, limitedWebSocket } from 'traderatio/websocket'
 *
 * // A connection that never answers.
 * const socket = { send() {}, addEventListener() {}, removeEventListener() {} }
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] })
 * const api = limitedWebSocket(limiter, { account: 'main', socket, timeoutMs: 50 })
 * const error = await api.request('futures.order_place', { contract: 'BTC_USDT', size: 1, price: '60000' }, { reqId: 'p1' }).catch((e) => e)
 * error instanceof NoReplyError // true
 * error.code // 'NO_REPLY'
 * error.message // 'no reply to p1 (futures.order_place) within 50 ms'
 * // It was sent: it counts.
 * limiter.abuseHeadroom('main').requests // 1
 * limiter.close()
 * ```
 */
export { NoReplyError } from '../errors.js';
