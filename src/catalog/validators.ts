/**
 * The other stated limits (see docs/rules.md#r11), as checks an engine runs before sending: each failure carries the
 * label the exchange would answer with, so that a request certain to be refused is never sent.
 * An argument that is not what a check reads (NaN for a count, a number for a text, an instant
 * out of range) is a mistake in the caller, not an answer of the exchange: it is refused with an
 * {@link InvalidInputError} naming it, never answered ok.
 */
import { InvalidInputError } from '../errors.js';
import { parseCount, parseInstant, parseUnixSeconds } from '../internal/parse.js';

/**
 * A check's outcome: ok, or the exchange's label and why.
 *
 * @example
 * ```ts
 * import { type Check, checkFuturesBatch } from 'traderatio/catalog'
 *
 * const check: Check = checkFuturesBatch(Array.from({ length: 11 }, () => ({ contract: 'BTC_USDT', size: 1 })))
 * check.ok // false
 * if (!check.ok) check.label // 'TOO_MANY_ORDERS'
 * if (!check.ok) check.message // '11 orders in one batch; at most 10'
 * ```
 */
export type Check = { readonly ok: true } | { readonly ok: false; readonly label: string; readonly message: string };

const OK: Check = Object.freeze({ ok: true });
const fail = (label: string, message: string): Check => ({ ok: false, label, message });

/**
 * POST /spot/batch_orders: at most 10 orders per currency pair (TOO_MANY_ORDERS), one account type
 * for all (MIXED_ACCOUNT_TYPE).
 *
 * @example
 * ```ts
 * import { checkSpotBatch } from 'traderatio/catalog'
 *
 * checkSpotBatch([{ currency_pair: 'BTC_USDT', account: 'spot' }, { currency_pair: 'ETH_USDT', account: 'margin' }]) // { ok: false, label: 'MIXED_ACCOUNT_TYPE', message: 'one batch mixes account types: margin, spot' }
 * checkSpotBatch(Array.from({ length: 10 }, () => ({ currency_pair: 'BTC_USDT' }))) // { ok: true }
 * checkSpotBatch(Array.from({ length: 11 }, () => ({ currency_pair: 'BTC_USDT' }))).ok // false
 * ```
 */
export function checkSpotBatch(
  orders: readonly { readonly currency_pair?: string; readonly account?: string }[],
): Check {
  if (!Array.isArray(orders) || orders.length === 0)
    return fail('INVALID_REQUEST_BODY', 'a batch is a non-empty array of orders');
  const perPair = new Map<string, number>();
  const accounts = new Set<string>();
  for (const o of orders) {
    const pair = o?.currency_pair ?? '';
    perPair.set(pair, (perPair.get(pair) ?? 0) + 1);
    accounts.add(o?.account ?? 'spot');
  }
  for (const [pair, n] of perPair)
    if (n > 10)
      return fail('TOO_MANY_ORDERS', `${n} orders for ${pair || 'one currency pair'}; at most 10 per currency pair`);
  if (accounts.size > 1)
    return fail('MIXED_ACCOUNT_TYPE', `one batch mixes account types: ${[...accounts].sort().join(', ')}`);
  return OK;
}

/**
 * Futures batch orders: at most 10 orders per request (TOO_MANY_ORDERS).
 *
 * @example
 * ```ts
 * import { checkFuturesBatch } from 'traderatio/catalog'
 *
 * const order = { contract: 'BTC_USDT', size: 1, price: '60000' }
 * checkFuturesBatch(Array.from({ length: 10 }, () => order)) // { ok: true }
 * checkFuturesBatch(Array.from({ length: 11 }, () => order)) // { ok: false, label: 'TOO_MANY_ORDERS', message: '11 orders in one batch; at most 10' }
 * checkFuturesBatch([]).ok // false
 * ```
 */
export function checkFuturesBatch(orders: readonly unknown[]): Check {
  if (!Array.isArray(orders) || orders.length === 0)
    return fail('INVALID_REQUEST_BODY', 'a batch is a non-empty array of orders');
  return orders.length > 10 ? fail('TOO_MANY_ORDERS', `${orders.length} orders in one batch; at most 10`) : OK;
}

/**
 * Cross-exchange orders: at most 1,000 open (TOO_MANY_ORDERS) counting the one to place.
 *
 * @example
 * ```ts
 * import { checkOpenCrossExchangeOrders } from 'traderatio/catalog'
 *
 * checkOpenCrossExchangeOrders(999) // { ok: true }
 * checkOpenCrossExchangeOrders(1000) // { ok: false, label: 'TOO_MANY_ORDERS', message: '1000 cross-exchange orders open; at most 1000' }
 * ```
 */
export function checkOpenCrossExchangeOrders(open: number): Check {
  return parseCount(open, '`open`') + 1 > 1000
    ? fail('TOO_MANY_ORDERS', `${open} cross-exchange orders open; at most 1000`)
    : OK;
}

/**
 * API keys: at most 20 per account, counting the one to create.
 *
 * @example
 * ```ts
 * import { checkApiKeyCount } from 'traderatio/catalog'
 *
 * checkApiKeyCount(19) // { ok: true }
 * checkApiKeyCount(20) // { ok: false, label: 'INVALID_PARAM_VALUE', message: '20 API keys exist; at most 20 per account' }
 * ```
 */
export function checkApiKeyCount(existing: number): Check {
  return parseCount(existing, '`existing`') + 1 > 20
    ? fail('INVALID_PARAM_VALUE', `${existing} API keys exist; at most 20 per account`)
    : OK;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * A key's IP whitelist: at most 20 IPv4 addresses, no ranges.
 *
 * @example
 * ```ts
 * import { checkIpWhitelist } from 'traderatio/catalog'
 *
 * checkIpWhitelist(['203.0.113.7', '198.51.100.1']) // { ok: true }
 * checkIpWhitelist(['203.0.113.0/24']) // { ok: false, label: 'INVALID_PARAM_VALUE', message: '"203.0.113.0/24" is not a single IPv4 address (no ranges, no IPv6)' }
 * checkIpWhitelist(Array.from({ length: 21 }, (_, i) => `10.0.0.${i}`)).ok // false
 * ```
 */
export function checkIpWhitelist(addresses: readonly string[]): Check {
  if (!Array.isArray(addresses)) throw new InvalidInputError('`addresses`', addresses, 'an array of IPv4 addresses');
  addresses.forEach((a, i) => {
    if (typeof a !== 'string') throw new InvalidInputError(`\`addresses[${i}]\``, a, 'an IPv4 address as text');
  });
  if (addresses.length > 20) return fail('INVALID_PARAM_VALUE', `${addresses.length} addresses; at most 20 per key`);
  const bad = addresses.find((a) => !IPV4.test(a));
  return bad === undefined
    ? OK
    : fail('INVALID_PARAM_VALUE', `"${bad}" is not a single IPv4 address (no ranges, no IPv6)`);
}

/**
 * The Timestamp header: within 60 s of server time (REQUEST_EXPIRED), both in Unix seconds.
 *
 * @example
 * ```ts
 * import { checkTimestamp } from 'traderatio/catalog'
 *
 * checkTimestamp(1_795_000_060, 1_795_000_000) // { ok: true }
 * checkTimestamp(1_795_000_000, 1_795_000_061) // { ok: false, label: 'REQUEST_EXPIRED', message: 'the timestamp is 61 s from server time; at most 60' }
 * ```
 */
export function checkTimestamp(timestampSeconds: number, serverSeconds: number): Check {
  parseUnixSeconds(timestampSeconds, '`timestampSeconds`');
  parseUnixSeconds(serverSeconds, '`serverSeconds`');
  return withinSixtySeconds(Math.abs(timestampSeconds - serverSeconds));
}

/** The one rule for a signed request's time (see docs/rules.md#r11): at most 60 s from the exchange's. */
function withinSixtySeconds(offSeconds: number): Check {
  return offSeconds > 60
    ? fail('REQUEST_EXPIRED', `the timestamp is ${offSeconds} s from server time; at most 60`)
    : OK;
}

/**
 * The local clock against the exchange's (see docs/rules.md#r15, #r11): REQUEST_EXPIRED when it may be more than 60 s
 * off, that is when `|offsetMs| + errorMs` is, so that it is reported before signed requests fail.
 * Takes a `ClockEstimate` (`ExchangeClock.estimate`).
 *
 * @example
 * ```ts
 * import { checkClockOffset } from 'traderatio/catalog'
 *
 * checkClockOffset({ offsetMs: -59_990, errorMs: 10 }) // { ok: true }
 * checkClockOffset({ offsetMs: -59_990, errorMs: 20 }) // { ok: false, label: 'REQUEST_EXPIRED', message: 'the timestamp is 60.01 s from server time; at most 60' }
 * ```
 */
export function checkClockOffset(estimate: { readonly offsetMs: number; readonly errorMs: number }): Check {
  const { offsetMs, errorMs } = estimate ?? {};
  if (typeof offsetMs !== 'number' || !Number.isFinite(offsetMs))
    throw new InvalidInputError('`offsetMs`', offsetMs, 'a finite number of milliseconds');
  if (typeof errorMs !== 'number' || !Number.isFinite(errorMs) || errorMs < 0)
    throw new InvalidInputError('`errorMs`', errorMs, 'a non-negative number of milliseconds');
  return withinSixtySeconds(Math.ceil(Math.abs(offsetMs) + errorMs) / 1000);
}

/**
 * WebSocket connections: at most 300 per IP (see docs/rules.md#r16), counting the one to open. The exchange names no
 * label for it; the check uses TOO_MANY_CONNECTIONS.
 *
 * @example
 * ```ts
 * import { checkWebSocketConnections } from 'traderatio/catalog'
 *
 * checkWebSocketConnections(299) // { ok: true }
 * checkWebSocketConnections(300) // { ok: false, label: 'TOO_MANY_CONNECTIONS', message: '300 WebSocket connections open from this IP; at most 300' }
 * ```
 */
export function checkWebSocketConnections(open: number): Check {
  const n = parseCount(open, '`open` (WebSocket connections open from this IP)');
  return n + 1 > 300 ? fail('TOO_MANY_CONNECTIONS', `${n} WebSocket connections open from this IP; at most 300`) : OK;
}

/**
 * Order custom text: `t-` followed by at most 28 characters.
 *
 * @example
 * ```ts
 * import { checkOrderText } from 'traderatio/catalog'
 *
 * checkOrderText('t-grid-42') // { ok: true }
 * checkOrderText('grid-42') // { ok: false, label: 'INVALID_PARAM_VALUE', message: 'custom text must start with "t-"' }
 * checkOrderText(`t-${'x'.repeat(29)}`).ok // false
 * ```
 */
export function checkOrderText(text: string): Check {
  if (typeof text !== 'string') throw new InvalidInputError('`text`', text, 'the custom text of an order');
  if (!text.startsWith('t-')) return fail('INVALID_PARAM_VALUE', 'custom text must start with "t-"');
  const rest = text.length - 2;
  return rest > 28 ? fail('INVALID_PARAM_VALUE', `custom text has ${rest} characters after "t-"; at most 28`) : OK;
}

/**
 * A custom id addresses an order for 30 minutes after it was created (instants in ms).
 *
 * @example
 * ```ts
 * import { checkCustomIdUsable } from 'traderatio/catalog'
 *
 * const createdAt = Date.parse('2026-11-21T09:00:00Z')
 * checkCustomIdUsable(createdAt, createdAt + 30 * 60_000) // { ok: true }
 * checkCustomIdUsable(createdAt, createdAt + 30 * 60_000 + 1) // { ok: false, label: 'ORDER_NOT_FOUND', message: 'a custom id addresses an order only for 30 minutes after creation' }
 * ```
 */
export function checkCustomIdUsable(createdAt: number, at: number): Check {
  return parseInstant(at, '`at`') - parseInstant(createdAt, '`createdAt`') > 30 * 60_000
    ? fail('ORDER_NOT_FOUND', 'a custom id addresses an order only for 30 minutes after creation')
    : OK;
}

// A map, not an object: a route such as "constructor" or "__proto__" finds nothing.
const LIST_LIMITS: ReadonlyMap<string, { readonly min: number; readonly max: number }> = new Map([
  ['GET /wallet/sub_account_balances', { min: 1, max: 100 }],
  ['GET /wallet/small_balance_history', { min: 1, max: 100 }],
  ['GET /wallet/saved_address', { min: 1, max: 100 }],
]);

/**
 * The `limit` query parameter of the list endpoints with a stated maximum (`route` as
 * `"GET /wallet/sub_account_balances"`); any other route has none and is ok.
 * @example
 * ```ts
 * import { checkListLimit } from 'traderatio/catalog'
 *
 * checkListLimit('GET /wallet/sub_account_balances', 100) // { ok: true }
 * checkListLimit('GET /wallet/sub_account_balances', 101) // { ok: false, label: 'INVALID_PARAM_VALUE', message: 'limit 101 for GET /wallet/sub_account_balances; from 1 to 100' }
 * checkListLimit('GET /spot/orders', 1000) // { ok: true }
 * ```
 */
export function checkListLimit(route: string, limit: number): Check {
  if (typeof route !== 'string')
    throw new InvalidInputError('`route`', route, 'a route such as "GET /wallet/sub_account_balances"');
  if (typeof limit !== 'number' || !Number.isFinite(limit)) throw new InvalidInputError('`limit`', limit, 'a number');
  const range = LIST_LIMITS.get(route);
  if (range === undefined) return OK;
  return Number.isInteger(limit) && limit >= range.min && limit <= range.max
    ? OK
    : fail('INVALID_PARAM_VALUE', `limit ${limit} for ${route}; from ${range.min} to ${range.max}`);
}
