/**
 * `traderatio/websocket`: a connection to the exchange's WebSocket API that goes through an
 * account limiter (see docs/rules.md#r16).
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
