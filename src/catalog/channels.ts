import { InvalidInputError } from '../errors.js';
import type { Action } from './catalog.js';

/**
 * Whether a WebSocket order draws on the REST limit of the same action too (see docs/rules.md#r16): `shared` (the
 * safe reading, the default) or `separate` (WebSocket limits only, the tier (see docs/rules.md#r3) replacing the
 * WebSocket futures 100 per second).
 * @example
 * ```ts
 * import { type WebSocketBudget, createCatalog } from 'traderatio/catalog'
 *
 * const budget: WebSocketBudget = 'separate'
 * createCatalog().classifyWebSocket('futures', 'place', budget) // [{ key: 'ws.futures.place', scope: 'account', limit: 100, windowMs: 1000 }]
 * ```
 */
export type WebSocketBudget = 'shared' | 'separate';

/** An order channel of the WebSocket API as the REST request it stands for. */
interface Channel {
  readonly market: 'futures' | 'spot';
  readonly action: Action;
  readonly method: string;
  /** The path after `/futures/{settle}` or `/spot`. */
  readonly path: string;
  /** The path ends with the order id of `req_param`. */
  readonly id?: true;
  /** `req_param` is the body (placement, amendment, batches). */
  readonly body?: true;
  /** The query parameter read from `req_param` (cancel all of a contract or pair). */
  readonly query?: 'contract' | 'currency_pair';
}

const CHANNELS: ReadonlyMap<string, Channel> = new Map<string, Channel>([
  ['futures.order_place', { market: 'futures', action: 'place', method: 'POST', path: '/orders', body: true }],
  [
    'futures.order_batch_place',
    { market: 'futures', action: 'place', method: 'POST', path: '/batch_orders', body: true },
  ],
  ['futures.order_amend', { market: 'futures', action: 'amend', method: 'PUT', path: '/orders', id: true, body: true }],
  ['futures.order_cancel', { market: 'futures', action: 'cancel', method: 'DELETE', path: '/orders', id: true }],
  [
    'futures.order_cancel_ids',
    { market: 'futures', action: 'cancel', method: 'POST', path: '/batch_cancel_orders', body: true },
  ],
  [
    'futures.order_cancel_cp',
    { market: 'futures', action: 'cancel', method: 'DELETE', path: '/orders', query: 'contract' },
  ],
  ['futures.order_status', { market: 'futures', action: 'other', method: 'GET', path: '/orders', id: true }],
  ['futures.order_list', { market: 'futures', action: 'other', method: 'GET', path: '/orders' }],
  ['spot.order_place', { market: 'spot', action: 'place', method: 'POST', path: '/orders', body: true }],
  ['spot.order_amend', { market: 'spot', action: 'amend', method: 'PATCH', path: '/orders', id: true, body: true }],
  ['spot.order_cancel', { market: 'spot', action: 'cancel', method: 'DELETE', path: '/orders', id: true }],
  [
    'spot.order_cancel_ids',
    { market: 'spot', action: 'cancel', method: 'POST', path: '/cancel_batch_orders', body: true },
  ],
  [
    'spot.order_cancel_cp',
    { market: 'spot', action: 'cancel', method: 'DELETE', path: '/orders', query: 'currency_pair' },
  ],
  ['spot.order_status', { market: 'spot', action: 'other', method: 'GET', path: '/orders', id: true }],
  ['spot.order_list', { market: 'spot', action: 'other', method: 'GET', path: '/orders' }],
]);

/**
 * The order channels of the WebSocket API (see docs/rules.md#r16), as their names are written: those
 * `Catalog.classifyChannel` and `AccountLimiter.requestWebSocket` read.
 *
 * @example
 * ```ts
 * import { WEBSOCKET_ORDER_CHANNELS } from 'traderatio/catalog'
 *
 * WEBSOCKET_ORDER_CHANNELS.includes('futures.order_batch_place') // true
 * WEBSOCKET_ORDER_CHANNELS.includes('futures.login') // false
 * WEBSOCKET_ORDER_CHANNELS.length // 15
 * ```
 */
export const WEBSOCKET_ORDER_CHANNELS: readonly string[] = Object.freeze([...CHANNELS.keys()]);

const SETTLES = new Set(['usdt', 'btc', 'usd']);

/** The REST request a WebSocket order channel stands for, and the instrument `req_param` names. */
export interface ChannelRequest {
  readonly market: 'futures' | 'spot';
  readonly action: Action;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  /**
   * The query of the REST request: the contract or pair of a cancel-all, else the pair of a spot
   * request (REST names it in the query), as `key=value`; empty when none.
   */
  readonly query: string;
  /** The order id of `req_param` when the path ends with one, else empty. */
  readonly id: string;
  readonly instrument?: string;
}

/**
 * Reads a WebSocket order channel (`futures.order_place`, `spot.order_cancel`, ...) and its
 * `req_param` as the REST request it stands for (see docs/rules.md#r16), on a futures connection of `settle`.
 */
export function channelRequest(channel: string, params: unknown, settle: string): ChannelRequest {
  const c = typeof channel === 'string' ? CHANNELS.get(channel) : undefined;
  if (c === undefined)
    throw new InvalidInputError(
      '`channel`',
      channel,
      `an order channel of the WebSocket API (${WEBSOCKET_ORDER_CHANNELS.join(', ')})`,
    );
  if (typeof settle !== 'string' || !SETTLES.has(settle))
    throw new InvalidInputError('`settle`', settle, '"usdt", "btc" or "usd"');
  const p =
    typeof params === 'object' && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
  const id = c.id === true ? String(p['order_id'] ?? '') : '';
  // A path needs an id where the channel names one: a missing id is read as order 0.
  const path = `/${c.market === 'futures' ? `futures/${settle}` : 'spot'}${c.path}${c.id === true ? `/${encodeURIComponent(id === '' ? '0' : id)}` : ''}`;
  const named = p['currency_pair'] ?? p['contract'];
  const key = c.query ?? (c.market === 'spot' ? 'currency_pair' : undefined);
  const value = key === undefined ? undefined : p[key];
  return {
    market: c.market,
    action: c.action,
    method: c.method,
    path,
    ...(c.body === true ? { body: params } : {}),
    query: typeof value === 'string' ? `${key}=${encodeURIComponent(value)}` : '',
    id,
    ...(typeof named === 'string' ? { instrument: named } : {}),
  };
}
