import { readFeedback } from '../../src/schedule/feedback.js';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import {
  WEBSOCKET_RATE_LIMIT_CODES,
  feedbackFromWebSocket,
  readWebSocketRateLimit,
} from '../../src/schedule/gate-feedback.js';

// A spot.order_amend answer as the exchange documents it.
const AMENDED = {
  request_id: 'request-4',
  header: {
    response_time: '1681986206145',
    status: '200',
    channel: 'spot.order_amend',
    event: 'api',
    x_in_time: 1681985856667508,
    x_out_time: 1681985856667598,
    x_gate_ratelimit_requests_remain: 9,
    x_gate_ratelimit_limit: 10,
    x_gat_ratelimit_reset_timestamp: 1736408263764,
  },
  data: { result: { id: '1700664330' } },
};

describe('readWebSocketRateLimit (see docs/rules.md#r16)', () => {
  it('reads the remaining requests, the limit and the reset instant in milliseconds, under both spellings', () => {
    expect(readWebSocketRateLimit(AMENDED.header)).toEqual({ remaining: 9, limit: 10, resetAtMs: 1_736_408_263_764 });
    expect(
      readWebSocketRateLimit({
        x_gate_ratelimit_requests_remain: '3',
        x_gate_ratelimit_reset_timestamp: '1736408263764',
      }),
    ).toEqual({ remaining: 3, resetAtMs: 1_736_408_263_764 });
  });

  it('reads a hidden remaining count as 0 when the other fields are there, and nothing from a header without them', () => {
    expect(
      readWebSocketRateLimit({ x_gate_ratelimit_limit: 10, x_gat_ratelimit_reset_timestamp: 1736408263764 }),
    ).toEqual({ remaining: 0, limit: 10, resetAtMs: 1_736_408_263_764 });
    expect(readWebSocketRateLimit({ status: '200', channel: 'futures.order_cancel' })).toEqual({});
  });
});

describe('readWebSocketRateLimit: values feedback would refuse', () => {
  it('leaves out a negative or fractional count and a limit of 0, so the feedback it gives is never refused', () => {
    expect(
      readWebSocketRateLimit({
        x_gate_ratelimit_requests_remain: '-5',
        x_gate_ratelimit_limit: '0',
        x_gate_ratelimit_reset_timestamp: '-1',
      }),
    ).toEqual({});
    expect(readWebSocketRateLimit({ x_gate_ratelimit_requests_remain: '2.5', x_gate_ratelimit_limit: '10' })).toEqual({
      remaining: 0,
      limit: 10,
    });
    expect(
      readFeedback(
        feedbackFromWebSocket({
          header: { status: '311', x_gate_ratelimit_requests_remain: '-5', x_gate_ratelimit_limit: '-10' },
        }),
      ),
    ).toEqual({ limited: true });
  });
});

describe('feedbackFromWebSocket (see docs/rules.md#r16)', () => {
  it('gives the same form as REST feedback for an answer within its limit', () => {
    expect(feedbackFromWebSocket(AMENDED)).toEqual({
      limited: false,
      remaining: 9,
      limit: 10,
      resetAtMs: 1_736_408_263_764,
    });
  });

  it.each([...WEBSOCKET_RATE_LIMIT_CODES.spot, ...WEBSOCKET_RATE_LIMIT_CODES.futures, 429])(
    'treats code %i as a 429',
    (code) => {
      expect(feedbackFromWebSocket({ header: { status: String(code) } }).limited).toBe(true);
      expect(
        feedbackFromWebSocket({
          header: { status: '400' },
          data: { errs: { code, label: 'X', message: 'slow down' } },
        }),
      ).toEqual({ limited: true, label: 'X' });
      expect(feedbackFromWebSocket({ error: { code, message: 'slow down' } }).limited).toBe(true);
    },
  );

  it('treats the labels TOO_MANY_REQUESTS and TOO_FAST as a 429, and other errors as not limited', () => {
    const limited = {
      header: { status: '400', x_gate_ratelimit_limit: 100, x_gate_ratelimit_reset_timestamp: 1736408264000 },
      data: { errs: { label: 'TOO_MANY_REQUESTS', message: '' } },
    };
    expect(feedbackFromWebSocket(limited)).toEqual({
      limited: true,
      label: 'TOO_MANY_REQUESTS',
      remaining: 0,
      limit: 100,
      resetAtMs: 1_736_408_264_000,
    });
    expect(
      feedbackFromWebSocket({ header: { status: '400' }, data: { errs: { label: 'BALANCE_NOT_ENOUGH' } } }),
    ).toEqual({ limited: false, label: 'BALANCE_NOT_ENOUGH' });
    expect(feedbackFromWebSocket({ header: { status: '200' } })).toEqual({ limited: false });
  });

  it('refuses what is not a parsed response', () => {
    expect(() => feedbackFromWebSocket('{"header":{}}')).toThrow(InvalidInputError);
    expect(() => feedbackFromWebSocket(null)).toThrow(/the WebSocket response/);
  });
});
