import { describe, expect, it } from 'vitest';
import {
  checkApiKeyCount,
  checkClockOffset,
  checkCustomIdUsable,
  checkFuturesBatch,
  checkIpWhitelist,
  checkListLimit,
  checkOpenCrossExchangeOrders,
  checkOrderText,
  checkSpotBatch,
  checkTimestamp,
  checkWebSocketConnections,
} from '../../src/catalog/validators.js';
import { InvalidInputError } from '../../src/errors.js';

const T = Date.parse('2026-11-01T00:00:00Z');
const S = T / 1000;
const orders = (n: number, pair = 'BTC_USDT') =>
  Array.from({ length: n }, () => ({ currency_pair: pair, account: 'spot' }));

describe('the validators of the stated limits (see docs/rules.md#r11)', () => {
  it('allows 10 orders per currency pair in a spot batch, refuses 11 with TOO_MANY_ORDERS', () => {
    expect(checkSpotBatch([...orders(10), ...orders(10, 'ETH_USDT')])).toEqual({ ok: true });
    expect(checkSpotBatch(orders(11))).toMatchObject({ ok: false, label: 'TOO_MANY_ORDERS' });
  });

  it('refuses a spot batch mixing account types with MIXED_ACCOUNT_TYPE', () => {
    expect(
      checkSpotBatch([
        { currency_pair: 'BTC_USDT', account: 'spot' },
        { currency_pair: 'BTC_USDT', account: 'margin' },
      ]),
    ).toMatchObject({ ok: false, label: 'MIXED_ACCOUNT_TYPE' });
  });

  it('allows 10 orders in a futures batch, not 11', () => {
    expect(checkFuturesBatch(new Array(10).fill({}))).toEqual({ ok: true });
    expect(checkFuturesBatch(new Array(11).fill({}))).toMatchObject({ ok: false, label: 'TOO_MANY_ORDERS' });
  });

  it('checks open cross-exchange orders, keys, whitelists, timestamps, texts, custom ids and list limits', () => {
    expect(checkOpenCrossExchangeOrders(999)).toEqual({ ok: true });
    expect(checkOpenCrossExchangeOrders(1000)).toMatchObject({ ok: false });
    expect(checkApiKeyCount(19)).toEqual({ ok: true });
    expect(checkApiKeyCount(20)).toMatchObject({ ok: false });
    expect(checkIpWhitelist(Array.from({ length: 20 }, (_, i) => `10.0.0.${i}`))).toEqual({ ok: true });
    expect(checkIpWhitelist(Array.from({ length: 21 }, (_, i) => `10.0.0.${i}`))).toMatchObject({ ok: false });
    expect(checkIpWhitelist(['10.0.0.0/24'])).toMatchObject({
      ok: false,
      message: expect.stringContaining('no ranges'),
    });
    expect(checkTimestamp(S, S + 60)).toEqual({ ok: true });
    expect(checkTimestamp(S, S + 61)).toMatchObject({ ok: false, label: 'REQUEST_EXPIRED' });
    expect(checkOrderText(`t-${'x'.repeat(28)}`)).toEqual({ ok: true });
    expect(checkOrderText(`t-${'x'.repeat(29)}`)).toMatchObject({ ok: false });
    expect(checkOrderText('abc')).toMatchObject({ ok: false });
    expect(checkCustomIdUsable(T, T + 30 * 60_000)).toEqual({ ok: true });
    expect(checkCustomIdUsable(T, T + 30 * 60_000 + 1)).toMatchObject({ ok: false });
    expect(checkListLimit('GET /wallet/sub_account_balances', 100)).toEqual({ ok: true });
    expect(checkListLimit('GET /wallet/sub_account_balances', 101)).toMatchObject({
      ok: false,
      label: 'INVALID_PARAM_VALUE',
    });
    expect(checkListLimit('GET /wallet/small_balance_history', 0)).toMatchObject({ ok: false });
  });

  it.each([
    ['checkTimestamp', () => checkTimestamp(Number.NaN, S), '`timestampSeconds`'],
    ['checkTimestamp', () => checkTimestamp(undefined as never, S), '`timestampSeconds`'],
    ['checkTimestamp', () => checkTimestamp('abc' as never, S), '`timestampSeconds`'],
    ['checkTimestamp', () => checkTimestamp(S, T), '`serverSeconds`'],
    ['checkOpenCrossExchangeOrders', () => checkOpenCrossExchangeOrders(Number.NaN), '`open`'],
    ['checkOpenCrossExchangeOrders', () => checkOpenCrossExchangeOrders(-1), '`open`'],
    ['checkApiKeyCount', () => checkApiKeyCount(Number.NaN), '`existing`'],
    ['checkApiKeyCount', () => checkApiKeyCount('3' as never), '`existing`'],
    ['checkCustomIdUsable', () => checkCustomIdUsable(Number.NaN, T), '`createdAt`'],
    ['checkCustomIdUsable', () => checkCustomIdUsable(T, Number.NaN), '`at`'],
    ['checkCustomIdUsable', () => checkCustomIdUsable(S, T), '`createdAt`'],
    ['checkListLimit', () => checkListLimit('constructor', Number.NaN), '`limit`'],
    ['checkListLimit', () => checkListLimit(5 as never, 5), '`route`'],
    ['checkIpWhitelist', () => checkIpWhitelist('10.0.0.1' as never), '`addresses`'],
    ['checkIpWhitelist', () => checkIpWhitelist(null as never), '`addresses`'],
    ['checkIpWhitelist', () => checkIpWhitelist(['10.0.0.1', 7] as never), '`addresses[1]`'],
    ['checkOrderText', () => checkOrderText(42 as never), '`text`'],
    ['checkOrderText', () => checkOrderText(undefined as never), '`text`'],
  ])('%s refuses a bad argument with an InvalidInputError naming it, never an answer (%#)', (_, call, field) => {
    expect(call).toThrow(InvalidInputError);
    expect(call).toThrow(`Expected ${field} to be`);
  });

  it('finds no list limit for a route named like a property of every object', () => {
    expect(checkListLimit('constructor', 5)).toEqual({ ok: true });
    expect(checkListLimit('__proto__', 5)).toEqual({ ok: true });
    expect(checkListLimit('toString', 5000)).toEqual({ ok: true });
  });

  it('reports a local clock that may be more than 60 s off the exchange (see docs/rules.md#r15) with REQUEST_EXPIRED', () => {
    expect(checkClockOffset({ offsetMs: 59_000, errorMs: 1000 })).toEqual({ ok: true });
    expect(checkClockOffset({ offsetMs: -59_990, errorMs: 20 })).toEqual({
      ok: false,
      label: 'REQUEST_EXPIRED',
      message: 'the timestamp is 60.01 s from server time; at most 60',
    });
    expect(checkClockOffset({ offsetMs: 60_001, errorMs: 0 })).toMatchObject({ ok: false, label: 'REQUEST_EXPIRED' });
    expect(() => checkClockOffset({ offsetMs: Number.NaN, errorMs: 0 })).toThrow(InvalidInputError);
    expect(() => checkClockOffset({ offsetMs: 0, errorMs: -1 })).toThrow(/`errorMs`/);
  });

  it('allows 300 WebSocket connections per IP, not 301 (see docs/rules.md#r16)', () => {
    expect(checkWebSocketConnections(299)).toEqual({ ok: true });
    expect(checkWebSocketConnections(300)).toEqual({
      ok: false,
      label: 'TOO_MANY_CONNECTIONS',
      message: '300 WebSocket connections open from this IP; at most 300',
    });
    expect(() => checkWebSocketConnections(-1)).toThrow(InvalidInputError);
    expect(() => checkWebSocketConnections(Number.NaN)).toThrow(/`open`/);
  });
});
