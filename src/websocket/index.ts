/**
 * `traderatio/websocket`: a connection to the exchange's WebSocket API that goes through an
 * account limiter (R16).
 *
 * @packageDocumentation
 */
export { limitedWebSocket } from './limited-websocket.js';
export type {
  LimitedWebSocket,
  LimitedWebSocketOptions,
  WebSocketCallOptions,
  WebSocketLike,
  WebSocketReply,
} from './limited-websocket.js';
