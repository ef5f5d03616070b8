import { describe, expect, it } from 'vitest';
import {
  checkApiKeyCount, checkCustomIdUsable, checkFuturesBatch, checkIpWhitelist, checkListLimit, checkOpenCrossExchangeOrders,
  checkOrderText, checkSpotBatch, checkTimestamp,
} from '../../src/catalog/validators.js';

const orders = (n: number, pair = 'BTC_USDT') => Array.from({ length: n }, () => ({ currency_pair: pair, account: 'spot' }));

describe('R11 validators', () => {
  it('allows 10 orders per currency pair in a spot batch, refuses 11 with TOO_MANY_ORDERS', () => {
    expect(checkSpotBatch([...orders(10), ...orders(10, 'ETH_USDT')])).toEqual({ ok: true });
    expect(checkSpotBatch(orders(11))).toMatchObject({ ok: false, label: 'TOO_MANY_ORDERS' });
  });

  it('refuses a spot batch mixing account types with MIXED_ACCOUNT_TYPE', () => {
    expect(checkSpotBatch([{ currency_pair: 'BTC_USDT', account: 'spot' }, { currency_pair: 'BTC_USDT', account: 'margin' }]))
      .toMatchObject({ ok: false, label: 'MIXED_ACCOUNT_TYPE' });
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
    expect(checkIpWhitelist(['10.0.0.0/24'])).toMatchObject({ ok: false, message: expect.stringContaining('no ranges') });
    expect(checkTimestamp(1000, 1060)).toEqual({ ok: true });
    expect(checkTimestamp(1000, 1061)).toMatchObject({ ok: false, label: 'REQUEST_EXPIRED' });
    expect(checkOrderText(`t-${'x'.repeat(28)}`)).toEqual({ ok: true });
    expect(checkOrderText(`t-${'x'.repeat(29)}`)).toMatchObject({ ok: false });
    expect(checkOrderText('abc')).toMatchObject({ ok: false });
    expect(checkCustomIdUsable(0, 30 * 60_000)).toEqual({ ok: true });
    expect(checkCustomIdUsable(0, 30 * 60_000 + 1)).toMatchObject({ ok: false });
    expect(checkListLimit('GET /wallet/sub_account_balances', 100)).toEqual({ ok: true });
    expect(checkListLimit('GET /wallet/sub_account_balances', 101)).toMatchObject({ ok: false, label: 'INVALID_PARAM_VALUE' });
    expect(checkListLimit('GET /wallet/small_balance_history', 0)).toMatchObject({ ok: false });
  });
});
