import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { readFeedback } from '../../src/schedule/feedback.js';
import { feedbackFrom, readRateLimitHeaders } from '../../src/schedule/gate-feedback.js';

describe('readRateLimitHeaders (see docs/rules.md#r12)', () => {
  it('reads the X-Gate-RateLimit headers from fetch Headers, case-insensitively', () => {
    const headers = new Headers({
      'X-Gate-RateLimit-Requests-Remain': '7',
      'X-Gate-RateLimit-Limit': '100',
      'X-Gate-Ratelimit-Reset-Timestamp': '1795219200',
    });
    expect(readRateLimitHeaders(headers)).toEqual({ remaining: 7, limit: 100, resetAtMs: 1_795_219_200_000 });
  });

  it("reads the X-Service-RateLimit prefix from Node's incoming headers and from a Map", () => {
    expect(readRateLimitHeaders({ 'x-service-ratelimit-requests-remain': '0', 'retry-after': '2' })).toEqual({
      remaining: 0,
      retryAfterMs: 2000,
    });
    expect(readRateLimitHeaders(new Map([['X-Service-RateLimit-Limit', '250']]) as never)).toEqual({ limit: 250 });
    expect(readRateLimitHeaders({ 'X-Gate-RateLimit-Limit': ['150', '100'] })).toEqual({ limit: 150 });
  });

  it('leaves out values that are not numbers', () => {
    expect(readRateLimitHeaders({ 'x-gate-ratelimit-limit': 'lots', 'x-gate-ratelimit-requests-remain': '' })).toEqual(
      {},
    );
  });

  it('leaves out negative and fractional counts and negative times, so that the feedback read is never refused', () => {
    const headers = {
      'x-gate-ratelimit-limit': '0',
      'x-gate-ratelimit-requests-remain': '2.5',
      'x-gate-ratelimit-reset-timestamp': '-1',
      'retry-after': '-5',
    };
    expect(readRateLimitHeaders(headers)).toEqual({});
    expect(readFeedback(feedbackFrom({ status: 429, headers }))).toEqual({ limited: true });
  });
});

describe('readFeedback', () => {
  it('names the first bad field, and returns good feedback as given', () => {
    const good = {
      limited: true,
      label: 'TOO_MANY_REQUESTS',
      remaining: 0,
      limit: 10,
      resetAtMs: 1_795_219_200_000,
      retryAfterMs: 0,
    };
    expect(readFeedback(good)).toBe(good);
    expect(() => readFeedback({ limited: true, retryAfterMs: Number.NaN })).toThrow(
      'Expected `feedback.retryAfterMs` to be a non-negative finite number of milliseconds, got NaN',
    );
    expect(() => readFeedback({ limited: true, retryAfterMs: -5 })).toThrow(InvalidInputError);
    expect(() => readFeedback(null)).toThrow('Expected the feedback to be an object');
  });
});

describe('feedbackFrom (see docs/rules.md#r12)', () => {
  it('marks a 429 and the TOO_MANY_REQUESTS and TOO_FAST labels as limited', () => {
    expect(feedbackFrom({ status: 429, headers: {} }).limited).toBe(true);
    expect(
      feedbackFrom({ status: 400, headers: {} }, { label: 'TOO_FAST', message: 'withdrawal too frequent' }),
    ).toEqual({ limited: true, label: 'TOO_FAST' });
    expect(feedbackFrom({ status: 400, headers: {} }, { label: 'BALANCE_NOT_ENOUGH' }).limited).toBe(false);
    expect(feedbackFrom({ status: 200, headers: { 'x-gate-ratelimit-requests-remain': '3' } })).toEqual({
      limited: false,
      remaining: 3,
    });
  });
});
