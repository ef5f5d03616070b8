// The arrival window (see docs/rules.md#r13): the exchange counts a request from when it arrives, and a request not answered yet may not
// have arrived. Once its window here is over it counts on until its answer comes (then one window
// after the answer at most), so a stalled process or a slow exchange never lets the next requests
// meet it inside one window at the exchange.
import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { InvalidInputError } from '../../src/errors.js';
import { UNANSWERED_MAX_MS } from '../../src/schedule/unanswered.js';
import { WindowLimit } from '../../src/schedule/window.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { waitOf } from './wait.js';

describe('WindowLimit: requests waiting for their answer', () => {
  it('counts one unanswered past its window until the answer, then until one window after it', () => {
    const l = new WindowLimit({ limit: 1, windowMs: 1000 });
    expect(waitOf(l.tryTake(1, 0))).toBe(0);
    const request = l.awaitAnswer(1, 0);
    expect(l.usedAt(999.9)).toBe(1);
    // Its window is over and no answer has come: it may not have reached the exchange yet.
    expect(l.usedAt(1000)).toBe(1);
    // Unless answered, it counts until a minute after its window.
    expect(l.waitFor(1, 1500)).toBe(1000 + UNANSWERED_MAX_MS - 1500);
    expect(waitOf(l.tryTake(1, 1500))).toBe(1000 + UNANSWERED_MAX_MS - 1500);
    l.answered(request, 1600);
    // Answered at 1600: it reached the exchange at 1600 at the latest, and counts there until 2600.
    expect(l.usedAt(2599.9)).toBe(1);
    expect(l.waitFor(1, 1600)).toBe(1000);
    expect(l.usedAt(2600)).toBe(0);
    expect(waitOf(l.tryTake(1, 2600))).toBe(0);
  });

  it('counts one answered after its window until one window after the answer, looked at or not', () => {
    const l = new WindowLimit({ limit: 1, windowMs: 1000 });
    waitOf(l.tryTake(1, 0));
    const request = l.awaitAnswer(1, 0);
    l.answered(request, 1200);
    expect(l.usedAt(2199)).toBe(1);
    expect(l.usedAt(2200)).toBe(0);
  });

  it('refuses a bad weight, instant or request, naming it, and changes nothing', () => {
    const l = new WindowLimit({ name: 'orders', limit: 1, windowMs: 1000 });
    const other = new WindowLimit({ name: 'other', limit: 1, windowMs: 1000 });
    waitOf(l.tryTake(1, 0));
    const request = l.awaitAnswer(1, 0);
    for (const weight of [Number.NaN, -1, 0, 1.5, '1' as unknown as number])
      expect(() => l.awaitAnswer(weight, 0)).toThrow(InvalidInputError);
    expect(() => l.awaitAnswer(1, Number.NaN)).toThrow('`at` of orders');
    expect(() => l.answered(other.awaitAnswer(1, 0), 10)).toThrow('`request` of orders');
    expect(() => l.answered({ __proto__: request } as unknown as typeof request, 10)).toThrow('`request` of orders');
    expect(() => l.answered(request, Number.POSITIVE_INFINITY)).toThrow('`at` of orders');
    // Nothing changed: the one request awaited still counts past its window.
    expect(l.usedAt(1500)).toBe(1);
    l.answered(request, 1500);
    expect(l.usedAt(2499)).toBe(1);
    expect(l.usedAt(2500)).toBe(0);
  });

  it('counts one answered within its window until one window after its answer', () => {
    const l = new WindowLimit({ limit: 1, windowMs: 1000 });
    waitOf(l.tryTake(1, 0));
    const request = l.awaitAnswer(1, 0);
    l.answered(request, 40);
    // It may have reached the exchange as late as 40: the exchange may count it until 1040.
    expect(l.usedAt(1039.9)).toBe(1);
    expect(l.waitFor(1, 1000)).toBe(40);
    expect(l.usedAt(1040)).toBe(0);
    expect(waitOf(l.tryTake(1, 1040))).toBe(0);
  });

  it('counts one answered at its send instant (an answer that says it arrived then) no longer than its window', () => {
    const l = new WindowLimit({ limit: 1, windowMs: 1000 });
    waitOf(l.tryTake(1, 0));
    l.answered(l.awaitAnswer(1, 0), 0);
    expect(l.usedAt(999.9)).toBe(1);
    expect(waitOf(l.tryTake(1, 1000))).toBe(0);
    expect(l.snapshot().holds).toEqual([]);
  });

  it('with the arrival estimate, counts nothing more for one answered within its window', () => {
    const l = new WindowLimit({ limit: 1, windowMs: 1000 });
    waitOf(l.tryTake(1, 0));
    const request = l.awaitAnswer(1, 0);
    l.answered(request, 999.9, false);
    expect(l.usedAt(1000)).toBe(0);
    expect(waitOf(l.tryTake(1, 1000))).toBe(0);
    expect(l.snapshot().holds).toEqual([]);
  });

  it('counts the window from its margin too, and each request on its own', () => {
    const l = new WindowLimit({ limit: 3, windowMs: 1000, marginMs: 50 });
    const requests = [0, 10, 20].map((at) => {
      waitOf(l.tryTake(1, at));
      return l.awaitAnswer(1, at);
    });
    l.answered(requests[1]!, 500);
    // The first and the last outlive their windows (1050, 1070) unanswered; the second was
    // answered at 500 and counts until one window and the margin after that, 1550.
    expect(l.usedAt(1049)).toBe(3);
    expect(l.usedAt(1080)).toBe(3);
    expect(l.waitFor(1, 1080)).toBe(1550 - 1080);
    expect(l.usedAt(1550)).toBe(2);
    expect(l.waitFor(2, 1550)).toBe(1050 + UNANSWERED_MAX_MS - 1550);
  });

  it('with the arrival estimate, counts one answered within its window only until it ends', () => {
    const l = new WindowLimit({ limit: 3, windowMs: 1000, marginMs: 50 });
    const requests = [0, 10, 20].map((at) => {
      waitOf(l.tryTake(1, at));
      return l.awaitAnswer(1, at);
    });
    l.answered(requests[1]!, 500, false);
    expect(l.usedAt(1049)).toBe(3);
    expect(l.usedAt(1060)).toBe(2);
    expect(l.usedAt(1080)).toBe(2);
    expect(l.waitFor(2, 1080)).toBe(1050 + UNANSWERED_MAX_MS - 1080);
    expect(l.waitFor(1, 1080)).toBe(0);
  });

  it(`lets one go unanswered ${UNANSWERED_MAX_MS} ms after its window, and counts an answer after that`, () => {
    const l = new WindowLimit({ limit: 1, windowMs: 1000 });
    waitOf(l.tryTake(1, 0));
    const request = l.awaitAnswer(1, 0);
    expect(l.usedAt(1000 + UNANSWERED_MAX_MS - 0.1)).toBe(1);
    expect(l.waitFor(1, 1000)).toBe(UNANSWERED_MAX_MS);
    expect(l.usedAt(1000 + UNANSWERED_MAX_MS)).toBe(0);
    // Answered later still: it reached the exchange by then, which counts it until one window after.
    l.answered(request, 1000 + UNANSWERED_MAX_MS + 500);
    expect(l.usedAt(2000 + UNANSWERED_MAX_MS + 499)).toBe(1);
    expect(l.usedAt(2000 + UNANSWERED_MAX_MS + 500)).toBe(0);
  });

  it('counts one unanswered from its new window end when W is made shorter, in the order sent', () => {
    const l = new WindowLimit({ limit: 2, windowMs: 1000 });
    waitOf(l.tryTake(1, 0));
    l.awaitAnswer(1, 0);
    l.update({ windowMs: 100 });
    // Its entry left the window at 100: not answered, it counts on.
    expect(l.usedAt(500)).toBe(1);
    waitOf(l.tryTake(1, 510));
    l.awaitAnswer(1, 510);
    expect(l.waitFor(1, 700)).toBe(100 + UNANSWERED_MAX_MS - 700);
    expect(l.usedAt(700)).toBe(2);
  });

  it('does not admit without a clock read while one unanswered is due to count', () => {
    const l = new WindowLimit({ limit: 2, windowMs: 1000 });
    l.take(1, 0);
    l.awaitAnswer(1, 0);
    l.usedAt(500);
    l.take(1, 1500);
    l.update({ limit: 2 });
    // The unanswered one and the one at 1500 count: the limit is full.
    expect(l.fitsAnytime(1)).toBe(false);
    expect(l.waitFor(1, 1500)).toBeGreaterThan(0);
  });

  it('does not count one whose window is not over, however long it waits', () => {
    const l = new WindowLimit({ limit: 2, windowMs: 1000 });
    waitOf(l.tryTake(1, 0));
    l.awaitAnswer(1, 0);
    expect(l.fitsAnytime(1)).toBe(true);
    expect(l.usedAt(500)).toBe(1);
    expect(l.fitsAnytime(2)).toBe(false);
  });
});

describe('AccountLimiter: a request not answered when its window ends', () => {
  /** Two withdrawals (one per 3 s) on a virtual clock: the first answers when the test says, or throws. */
  function twoWithdrawals(first: 'answer' | 'throw', arrivals: 'answers' | 'estimate' = 'answers') {
    const clock = new VirtualClock({ start: 0, wallStart: Date.parse('2026-11-01T10:00:00Z') });
    const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], clock, arrivals });
    const sent: number[] = [];
    let answer: (v: string) => void = () => {};
    const one = limiter.request('main', 'POST', '/withdrawals', () => {
      sent.push(clock.now());
      if (first === 'throw') throw new Error('no connection');
      return new Promise<string>((r) => (answer = r));
    });
    const two = limiter.request('main', 'POST', '/withdrawals', () => sent.push(clock.now()));
    return { clock, limiter, sent, one, two, answer: () => answer('done') };
  }

  it('keeps the next one back until the answer, then one window after it', async () => {
    const { clock, limiter, sent, one, two, answer } = twoWithdrawals('answer');
    await clock.advance(5000);
    // One withdrawal per 3 s: the first has not been answered, so the second has not gone.
    expect(sent).toEqual([0]);
    answer();
    await one;
    await clock.advance(2999);
    expect(sent).toEqual([0]);
    await clock.advance(1);
    await two;
    expect(sent).toEqual([0, 8000]);
    limiter.close();
  });

  it('sends the next one one window after an answer that came within the window', async () => {
    const { clock, limiter, sent, one, two, answer } = twoWithdrawals('answer');
    await clock.advance(2000);
    answer();
    await one;
    await clock.advance(2999);
    expect(sent).toEqual([0]);
    await clock.advance(1);
    await two;
    expect(sent).toEqual([0, 5000]);
    limiter.close();
  });

  it('with the arrival estimate, sends the next one when its window ends if the answer came within it', async () => {
    const { clock, limiter, sent, one, two, answer } = twoWithdrawals('answer', 'estimate');
    await clock.advance(2000);
    answer();
    await one;
    await clock.advance(1000);
    await two;
    expect(sent).toEqual([0, 3000]);
    limiter.close();
  });

  it('reads a thenable the task returns once', async () => {
    const { clock, limiter, two } = twoWithdrawals('answer');
    const closed = expect(two).rejects.toMatchObject({ reason: 'closed' });
    let reads = 0;
    const lazy = {
      // A request builder that sends each time it is read.
      // biome-ignore lint/suspicious/noThenProperty: the thenable under test
      then(ok: (v: string) => void) {
        reads++;
        ok('sent');
      },
    };
    const sent = limiter.request('main', 'GET', '/spot/accounts', () => lazy as unknown as PromiseLike<string>);
    await clock.advance(0);
    expect(await sent).toBe('sent');
    expect(reads).toBe(1);
    limiter.close();
    await closed;
  });

  it('counts a request whose task threw as answered at once', async () => {
    const { clock, limiter, sent, one, two } = twoWithdrawals('throw');
    await expect(one).rejects.toThrow('no connection');
    await clock.advance(3000);
    await two;
    expect(sent).toEqual([0, 3000]);
    limiter.close();
  });
});
