// One request from its admission to its answer: what every adapter and the proxy did by hand,
// now in one place (counted when it starts; the answer's gateway times, rate-limit headers or
// WebSocket fields, 429 or codes, and fills taken before its `run` settles).
import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import type { ExchangeAnswer, RoundTrip } from '../../src/account/round-trip.js';
import { InvalidInputError, RefusedError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const T0 = Date.parse('2026-11-21T10:00:00Z');
const ORDERS = '/api/v4/futures/usdt/orders';
const body = { contract: 'BTC_USDT', size: 1, price: '60000' };
const place = { method: 'POST', path: ORDERS, body };

function setup() {
  const clock = new VirtualClock({ start: 0, wallStart: T0 });
  const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock });
  const pauses: string[] = [];
  limiter.scheduler.on((e) => {
    if (e.type === 'pause') pauses.push(`${e.limit} until ${e.until}`);
  });
  /** When each placement started, on the limiter's clock. */
  const started: number[] = [];
  const placement = () => limiter.request('main', 'POST', ORDERS, () => started.push(clock.now()), { body });
  return { clock, limiter, pauses, started, placement };
}

/** Gateway times of a request sent at wall instant `sentAt`: received after `inMs`, answered `gatewayMs` later. */
function gateway(sentAt: number, inMs: number, gatewayMs = 1) {
  const inTime = (sentAt + inMs) * 1000;
  return { 'X-In-Time': String(inTime), 'X-Out-Time': String(inTime + gatewayMs * 1000) };
}

describe('RoundTrip', () => {
  it('counts an order request when it is sent, not before, and resolves with what the send gave', async () => {
    const { limiter } = setup();
    const trip = limiter.roundTrip('main', place);
    expect(trip.report()).toMatchObject({ account: 'main', waitedMs: null, outcome: { kind: 'waiting' } });
    expect(limiter.abuseHeadroom('main').requests).toBe(0);
    expect(await trip.run(() => 'placed')).toBe('placed');
    expect(limiter.abuseHeadroom('main').requests).toBe(1);
    expect(trip.report()).toMatchObject({ waitedMs: 0, waitedOn: null, outcome: { kind: 'done' } });
    expect(trip.classification).toMatchObject({ market: 'futures', action: 'place' });
    limiter.close();
  });

  it('says how long it waited and on which limit, and sends when that limit lets it go', async () => {
    const { clock, limiter } = setup();
    const withdraw = { method: 'POST', path: '/withdrawals', body: { currency: 'USDT', amount: '1' } };
    await limiter.roundTrip('main', withdraw).run(() => undefined);
    const second = limiter.roundTrip('main', withdraw);
    const sentAt: number[] = [];
    const sent = second.run((t) => sentAt.push(t.sentMono));
    await clock.advance(2_999);
    expect(second.report()).toMatchObject({ waitedMs: null, outcome: { kind: 'waiting' } });
    await clock.advance(1);
    await sent;
    expect(sentAt).toEqual([3_000]);
    expect(second.report()).toMatchObject({ waitedMs: 3_000, waitedOn: 'main:withdrawals' });
    limiter.close();
  });

  it('pauses the limit a 429 speaks of until its reset, read from the headers, with the label from the body', async () => {
    const { clock, limiter, pauses, started, placement } = setup();
    const answer: ExchangeAnswer = {
      status: 429,
      headers: {
        'X-Gate-RateLimit-Limit': '100',
        'X-Gate-RateLimit-Requests-Remain': '0',
        'X-Gate-RateLimit-Reset-Timestamp': String((T0 + 2_000) / 1000),
      },
      readBody: () => Promise.resolve({ label: 'TOO_MANY_REQUESTS' }),
    };
    const trip = limiter.roundTrip('main', place);
    await trip.run((t) => t.answered(answer));
    expect(trip.report().outcome).toEqual({ kind: 'answered', status: 429 });
    expect(pauses).toEqual(['main:futures.place until 2000']);
    const next = placement();
    await clock.advance(1_999);
    expect(started).toEqual([]);
    await clock.advance(1);
    await next;
    expect(started).toEqual([2_000]);
    limiter.close();
  });

  it('takes a refusal for its rate from the label of a body that is not a 429 (TOO_FAST), read only then', async () => {
    const { clock, limiter, pauses } = setup();
    let reads = 0;
    const readBody = () => {
      reads++;
      return { label: 'TOO_FAST' };
    };
    const withdraw = { method: 'POST', path: '/withdrawals', body: { currency: 'USDT', amount: '1' } };
    await limiter.roundTrip('main', withdraw).run((t) => t.answered({ status: 200, headers: {}, readBody }));
    expect(reads).toBe(0);
    expect(pauses).toEqual([]);
    // Withdrawals: 1 per 3 s.
    const next = limiter.roundTrip('main', withdraw).run((t) => t.answered({ status: 400, headers: {}, readBody }));
    await clock.advance(3_000);
    await next;
    expect(reads).toBe(1);
    expect(pauses).toEqual(['main:withdrawals until 6000']);
    limiter.close();
  });

  it("sets the tier limit the answer's headers state (see docs/rules.md#r16), and shrinks it to what they say remains", async () => {
    const { limiter } = setup();
    const headers = {
      'X-Gate-RateLimit-Limit': '250',
      'X-Gate-RateLimit-Requests-Remain': '10',
      'X-Gate-RateLimit-Reset-Timestamp': String((T0 + 1_000) / 1000),
    };
    await limiter.roundTrip('main', place).run((t) => t.answered({ status: 201, headers }));
    expect(limiter.limitNow('main')).toMatchObject({ limit: 250, source: 'exchange' });
    // 10 remain of 250: 240 counted until the reset, one of them the placement itself.
    const place250 = limiter.scheduler.stats().limits.find((l) => l.name === 'main:futures.place')!;
    expect(place250.used).toBe(240);
    limiter.close();
  });

  it('feeds the gateway times of the answer to the estimate of the exchange clock', async () => {
    const { limiter } = setup();
    expect(limiter.clockEstimate()).toBeNull();
    await limiter.roundTrip('main', place).run((t) => t.answered({ status: 201, headers: gateway(t.sentAt, 0) }));
    expect(limiter.clockEstimate()?.samples).toBe(1);
    limiter.close();
  });

  it('reads WebSocket replies with their codes: a 312 pauses the tier limit, a 311 the WebSocket limit', async () => {
    const { limiter, pauses } = setup();
    const reply = (status: string) => ({
      status: Number(status),
      headers: { status },
      body: { header: { status }, data: { errs: { label: 'TOO_MANY_REQUESTS' } } },
    });
    await limiter
      .roundTrip('main', { channel: 'futures.order_place', params: body })
      .run((t) => t.answered(reply('312')));
    expect(pauses).toEqual(['main:futures.place until 1000']);
    // A cancel draws on the WebSocket limit and the cancel limit, not on the tier.
    const cancel = { channel: 'futures.order_cancel', params: { order_id: '1' } };
    await limiter.roundTrip('main', cancel).run((t) => t.answered(reply('311')));
    expect(pauses).toEqual(['main:futures.place until 1000', 'main:ws.futures.orders until 1000']);
    limiter.close();
  });

  it('records the fills of a my_trades answer once each before its run settles, asking a contract once', async () => {
    const { limiter } = setup();
    const asked: string[] = [];
    const contracts = {
      ask: async (settle: string, contract: string) => {
        asked.push(`${settle} ${contract}`);
        return { name: contract, quanto_multiplier: '0.0001' };
      },
    };
    const rows = [{ id: 1, contract: 'BTC_USDT', size: -20, price: '60000', role: 'taker' }];
    const trades = { method: 'GET', path: '/api/v4/futures/usdt/my_trades', contracts };
    let settled = false;
    const run = limiter
      .roundTrip('main', trades)
      .run((t) => t.answered({ status: 200, headers: {}, readBody: () => Promise.resolve(rows) }))
      .then(() => (settled = true));
    await run;
    expect(settled).toBe(true);
    expect(limiter.abuseHeadroom('main').traded).toBe('120');
    await limiter.roundTrip('main', trades).run((t) => t.answered({ status: 200, headers: {}, body: rows }));
    expect(limiter.abuseHeadroom('main').traded).toBe('120');
    expect(asked).toEqual(['usdt BTC_USDT']);
    // An answer that is not a success records nothing.
    const more = [{ id: 2, contract: 'BTC_USDT', size: 1, price: '60000', role: 'maker' }];
    await limiter.roundTrip('main', trades).run((t) => t.answered({ status: 500, headers: {}, body: more }));
    expect(limiter.abuseHeadroom('main').traded).toBe('120');
    limiter.close();
  });

  it('tells how a send failed, and rejects as the send did', async () => {
    const { limiter } = setup();
    const trip = limiter.roundTrip('main', place);
    const error = new Error('socket hang up');
    await expect(
      trip.run((t) => {
        t.failed('unreachable');
        return Promise.reject(error);
      }),
    ).rejects.toBe(error);
    expect(trip.report().outcome).toEqual({ kind: 'failed', failure: 'unreachable' });
    expect(() => trip.failed('lost' as never)).toThrow(InvalidInputError);
    limiter.close();
  });

  it('counts a request not answered past its window until its answer comes (see docs/rules.md#r13)', async () => {
    const { clock, limiter, started, placement } = setup();
    const n = limiter.limitNow('main').limit;
    const answers: (() => void)[] = [];
    for (let i = 0; i < n; i++) {
      void limiter.roundTrip('main', place).run(
        (t) =>
          new Promise<void>((resolve) =>
            answers.push(() => {
              t.answered({ status: 201, headers: {} });
              resolve();
            }),
          ),
      );
    }
    const next = placement();
    await clock.advance(1_500);
    // None answered yet: they may not have reached the exchange.
    expect(started).toEqual([]);
    for (const answer of answers) answer();
    // Answered at 1,500: each reached the exchange by then, and counts there until 2,500.
    await clock.advance(999);
    expect(started).toEqual([]);
    await clock.advance(1);
    await next;
    expect(started).toEqual([2_500]);
    limiter.close();
  });

  /** The whole placement limit sent at 0 through round trips, each answered by `answer(trip)` at `answerAt`. */
  async function fullWindow(arrivals: 'answers' | 'estimate', answerAt: number, answer: (t: RoundTrip) => void) {
    const clock = new VirtualClock({ start: 0, wallStart: T0 });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, arrivals });
    const n = limiter.limitNow('main').limit;
    for (let i = 0; i < n; i++) {
      void limiter
        .roundTrip('main', place)
        .run((t) => new Promise<void>((resolve) => clock.setTimer(() => (answer(t), resolve()), answerAt)))
        .catch(() => undefined);
    }
    const started: number[] = [];
    const next = limiter.request('main', 'POST', ORDERS, () => started.push(clock.now()), { body });
    await clock.advance(0);
    return { clock, limiter, started, next };
  }

  it('counts each request until one window after its answer, less the gateway time (see docs/rules.md#r13)', async () => {
    // Answered at 40, 3 ms of it in the gateway (by stamps of whole microseconds, so 2.999 ms at
    // least): each may have reached the exchange as late as 37.001.
    const { clock, limiter, started, next } = await fullWindow('answers', 40, (t) =>
      t.answered({ status: 201, headers: gateway(T0, 20, 3) }),
    );
    await clock.advance(1_037);
    expect(started).toEqual([]);
    await clock.advance(0.001);
    await next;
    expect(started).toEqual([1_037.001]);
    limiter.close();
  });

  it('counts the answer whole when its gateway time does not fit in the round trip', async () => {
    const { clock, limiter, started, next } = await fullWindow('answers', 40, (t) =>
      t.answered({ status: 201, headers: gateway(T0, 20, 41) }),
    );
    await clock.advance(1_039);
    expect(started).toEqual([]);
    await clock.advance(1);
    await next;
    expect(started).toEqual([1_040]);
    limiter.close();
  });

  it('counts a request that timed out as not answered, one that found no connection as over', async () => {
    const timedOut = await fullWindow('answers', 40, (t) => t.failed('timeout'));
    await timedOut.clock.advance(30_000);
    // It may still reach the exchange: it counts until answered, a minute past its window at most.
    expect(timedOut.started).toEqual([]);
    timedOut.limiter.close();
    await timedOut.next.catch(() => undefined);
    const unreachable = await fullWindow('answers', 40, (t) => t.failed('unreachable'));
    await unreachable.clock.advance(1_040);
    await unreachable.next;
    expect(unreachable.started).toEqual([1_040]);
    unreachable.limiter.close();
  });

  it('with the arrival estimate, counts one answered within its window only until the window ends', async () => {
    const { clock, limiter, started, next } = await fullWindow('estimate', 40, (t) =>
      t.answered({ status: 201, headers: {} }),
    );
    await clock.advance(1_000);
    await next;
    expect(started).toEqual([1_000]);
    limiter.close();
  });

  it('rejects with a RefusedError, never sending, what its limits refuse; the report says it never left', async () => {
    const { clock, limiter } = setup();
    const withdraw = { method: 'POST', path: '/withdrawals', body: { currency: 'USDT', amount: '1' } };
    await limiter.roundTrip('main', withdraw).run(() => undefined);
    const late = limiter.roundTrip('main', { ...withdraw, deadline: 1_000 });
    let sent = false;
    const outcome = late.run(() => (sent = true)).catch((e: unknown) => e);
    await clock.advance(1_000);
    expect(await outcome).toBeInstanceOf(RefusedError);
    expect(sent).toBe(false);
    expect(late.report()).toMatchObject({ waitedMs: null, outcome: { kind: 'waiting' } });
    limiter.close();
  });

  it('gives the error of an answer it cannot take to the caller', async () => {
    const { limiter } = setup();
    const trip = limiter.roundTrip('main', place);
    await expect(trip.run((t) => t.answered({ status: 201, headers: null as never }))).rejects.toThrow(
      InvalidInputError,
    );
    limiter.close();
  });

  it('refuses bad input naming it, queuing and counting nothing', async () => {
    const { limiter } = setup();
    expect(() => limiter.roundTrip('nobody', place)).toThrow('`account`');
    expect(() => limiter.roundTrip('main', null as never)).toThrow('the request');
    expect(() => limiter.roundTrip('main', { ...place, weight: 2 } as never)).toThrow(InvalidInputError);
    expect(() => limiter.roundTrip('main', { method: 'GET', path: '/nope' })).toThrow(InvalidInputError);
    expect(() => limiter.roundTrip('main', { channel: 'futures.login' })).toThrow('`channel`');
    const trip = limiter.roundTrip('main', place);
    expect(() => trip.run('send' as never)).toThrow('the send');
    // Answers and failures are told once the send has started.
    expect(() => trip.answered({ status: 200, headers: {} })).toThrow('the round trip');
    await trip.run(() => 1);
    expect(() => trip.run(() => 2)).toThrow('the round trip');
    expect(limiter.abuseHeadroom('main').requests).toBe(1);
    limiter.close();
  });
});
