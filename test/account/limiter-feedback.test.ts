import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { InvalidInputError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { feedbackFrom } from '../../src/schedule/gate-feedback.js';

const T0 = Date.parse('2026-11-21T10:00:00Z');
const ORDERS = '/api/v4/futures/usdt/orders';
const body = { contract: 'BTC_USDT', size: 1, price: '60000' };

function setup() {
  const clock = new VirtualClock({ start: 0, wallStart: T0 });
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }, { id: 'sub' }], clock });
  const pauses: string[] = [];
  limiter.scheduler.on((e) => {
    if (e.type === 'pause') pauses.push(`${e.limit} until ${e.until}`);
  });
  // When each request started, on the limiter's clock.
  const started: number[] = [];
  const send = (method: string, path: string, options: { body?: unknown; contract?: string } = {}, account = 'main') =>
    limiter.request(account, method, path, () => started.push(clock.now()), options);
  return { clock, limiter, pauses, started, send };
}

describe('AccountLimiter.feedback', () => {
  it('pauses the tier limit of a placement answered 429 until the reset, and cancels go on at once', async () => {
    const { clock, limiter, pauses, started, send } = setup();
    await send('POST', ORDERS, { body });
    const response = {
      status: 429,
      headers: {
        'X-Gate-RateLimit-Limit': '100',
        'X-Gate-RateLimit-Requests-Remain': '0',
        'X-Gate-RateLimit-Reset-Timestamp': String((T0 + 3_000) / 1000),
      },
    };
    limiter.feedback(
      'main',
      { method: 'POST', path: ORDERS, body },
      feedbackFrom(response, { label: 'TOO_MANY_REQUESTS' }),
    );
    expect(pauses).toEqual(['main:futures.place until 3000']);
    const placed = send('POST', ORDERS, { body });
    await send('DELETE', `${ORDERS}/1`, { contract: 'BTC_USDT' });
    // Another account's limits are its own.
    await send('POST', ORDERS, { body }, 'sub');
    expect(started).toEqual([0, 0, 0]);
    await clock.advance(2_999);
    expect(started).toEqual([0, 0, 0]);
    await clock.advance(1);
    await placed;
    expect(started).toEqual([0, 0, 0, 3_000]);
    limiter.close();
  });

  it('takes the classification the catalogue made as well as the request', () => {
    const { limiter, pauses } = setup();
    const c = limiter.catalog.classify('PUT', `${ORDERS}/7`, body);
    limiter.feedback('sub', c, { limited: true, retryAfterMs: 500 });
    expect(pauses).toEqual(['sub:futures.place until 500']);
    limiter.close();
  });

  it('gives a TOO_FAST withdrawal to the withdrawal limit, not to the wallet limit it also draws on', () => {
    const { limiter, pauses } = setup();
    const feedback = feedbackFrom({ status: 400, headers: {} }, { label: 'TOO_FAST' });
    limiter.feedback('main', { method: 'POST', path: '/withdrawals', body: { currency: 'USDT' } }, feedback);
    expect(pauses).toEqual(['main:withdrawals until 3000']);
    limiter.close();
  });

  it('gives a 429 naming N to every limit of the request with that N: both pairs of a spot batch, not the throttle', () => {
    const { limiter, pauses } = setup();
    const batch = [{ currency_pair: 'ETH_USDT' }, { currency_pair: 'BTC_USDT' }];
    limiter.feedback(
      'main',
      { method: 'POST', path: '/spot/batch_orders', body: batch },
      { limited: true, limit: 10, retryAfterMs: 1_000 },
    );
    expect(pauses).toEqual(['main:spot.place:BTC_USDT until 1000', 'main:spot.place:ETH_USDT until 1000']);
    limiter.close();
  });

  it('holds what the exchange says is used beyond what was counted here, until the reset', async () => {
    const { clock, limiter, started, send } = setup();
    // 100 per second at tier 1; the exchange says 2 remain for the next 500 ms.
    const headers = {
      'x-gate-ratelimit-requests-remain': '2',
      'x-gate-ratelimit-limit': '100',
      'x-gate-ratelimit-reset-timestamp': String((T0 + 500) / 1000),
    };
    limiter.feedback('main', { method: 'POST', path: ORDERS, body }, feedbackFrom({ status: 200, headers }));
    const sent = Array.from({ length: 3 }, () => send('POST', ORDERS, { body }));
    await clock.advance(500);
    await Promise.all(sent);
    expect(started).toEqual([0, 0, 500]);
    limiter.close();
  });

  it('lowers the limit to the N the exchange names when it is below the one counted here', () => {
    const { limiter } = setup();
    limiter.feedback('main', { method: 'POST', path: ORDERS, body }, { limited: false, limit: 50 });
    expect(limiter.scheduler.stats().limits.find((l) => l.name === 'main:futures.place')?.limit).toBe(50);
    limiter.close();
  });

  it.each([
    ['an unknown account', 'nobody', { method: 'POST', path: ORDERS, body }, { limited: true }, 'Expected `account`'],
    ['a request that is not one', 'main', 'POST /orders', { limited: true }, 'Expected the request to be a request'],
    ['a path outside the API', 'main', { method: 'POST', path: '/nowhere' }, { limited: true }, 'Expected `path`'],
    [
      'a classification without limits',
      'main',
      { market: 'futures', action: 'place', endpoint: '/x', method: 'POST', orders: 1, weight: 1, limits: [] },
      { limited: true },
      'Expected the request to be a classification',
    ],
    [
      'a classification with a bad limit',
      'main',
      {
        market: 'spot',
        action: 'other',
        endpoint: '/x',
        method: 'GET',
        orders: 1,
        weight: 1,
        limits: [{ key: 'k', scope: 'account', limit: 0, windowMs: 1 }],
      },
      { limited: true },
      'Expected `limits[0]` of the request.limit',
    ],
    [
      'feedback without `limited`',
      'main',
      { method: 'POST', path: ORDERS, body },
      { remaining: 3 },
      'Expected `feedback.limited` to be true or false',
    ],
    [
      'a negative reset',
      'main',
      { method: 'POST', path: ORDERS, body },
      { limited: true, resetAtMs: -1 },
      'Expected `feedback.resetAtMs`',
    ],
    [
      'a fractional limit',
      'main',
      { method: 'POST', path: ORDERS, body },
      { limited: false, limit: 2.5 },
      'Expected `feedback.limit`',
    ],
  ])('refuses %s and changes nothing', (_, account, request, feedback, message) => {
    const { limiter, pauses } = setup();
    const before = limiter.scheduler.stats();
    expect(() => limiter.feedback(account, request as never, feedback as never)).toThrow(InvalidInputError);
    expect(() => limiter.feedback(account, request as never, feedback as never)).toThrow(message);
    expect(pauses).toEqual([]);
    expect(limiter.scheduler.stats()).toEqual(before);
    limiter.close();
  });
});
