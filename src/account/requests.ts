import { type Catalog, type Classification, readClassification } from '../catalog/catalog.js';
import type { WebSocketBudget } from '../catalog/channels.js';
import { OKX_API } from '../catalog/exchange-api.js';
import { InvalidInputError } from '../errors.js';
import { checkFields } from '../internal/parse.js';
import { normalizeContract } from '../rules/contracts.js';
import { UNNAMED_PAIR } from '../rules/spot-fill.js';
import { type RateLimitFeedback, readFeedback } from '../schedule/feedback.js';
import type { StoreLimit } from '../schedule/limit.js';
import type { LimiterContext } from './limiter-context.js';
import type { LimiterClockSample, LimiterConfig, SentRequest, SentWebSocketRequest } from './limiter-options.js';
import type { AccountLimits } from './request-limits.js';
import type { CountedMarket } from './shared-counts.js';
import type { CountedAction } from './tracker.js';

/** What an order request counts under when it starts (see docs/rules.md#r1, #r9, #r14): its market and contract or pair. */
export interface CountedAs {
  readonly market: CountedMarket;
  readonly contract: string;
}

/**
 * Checks a request's options: an object holding `fields` only. Refused options throw an
 * {@link InvalidInputError} before anything is queued.
 */
export function checkRequestOptions(options: unknown, fields: readonly string[]): void {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('the request options', options, `an object { ${fields.join(', ')} }`);
  checkFields(options, fields, 'the request options');
}

/**
 * What a classified request counts under (see docs/rules.md#r1, #r9, #r14), or null when it counts for no rule: futures
 * order requests under their contract, spot order requests under their pair. Read before the
 * request is queued: a contract refused when it starts would take a permit for a request that
 * never runs.
 */
export function countedAs(
  c: Classification,
  contract: string | undefined,
  { exchange, unknownContract }: Pick<LimiterConfig, 'exchange' | 'unknownContract'>,
): CountedAs | null {
  if (exchange === 'okx') {
    if (contract !== undefined)
      throw new InvalidInputError(
        '`contract`',
        contract,
        "left out on OKX: a request names its instrument in its body (`instId`), and a cancel's too",
      );
    return okxCountedAs(c);
  }
  const named = contract === undefined ? undefined : normalizeContract(contract, '`contract`');
  if (c.action === 'other') return null;
  if (c.market === 'spot') {
    const pair = named ?? c.instrument;
    return {
      market: 'spot',
      contract: pair === undefined ? UNNAMED_PAIR : normalizeContract(pair, 'the `currency_pair` of the request'),
    };
  }
  if (c.market !== 'futures') return null;
  const instrument = c.instrument;
  return {
    market: 'futures',
    contract:
      named ??
      (instrument === undefined ? unknownContract : normalizeContract(instrument, 'the `contract` of the body')),
  };
}

/**
 * What an OKX order request counts under (see docs/okx.md#o2): every order request of every kind,
 * for the ratio, under its instrument as the tracker keeps it (spot orders are exempt from the
 * sub-account limit, not from the ratio). Counted when sent: OKX counts successful ones only, so
 * the ratio read from these counts is never above the exchange's.
 */
function okxCountedAs(c: Classification): CountedAs | null {
  const tracked = OKX_API.requestTracked(c, c.instrument ?? '');
  return tracked === null ? null : { market: 'futures', contract: tracked.name };
}

/** A request as sent (REST or WebSocket), classified; or a classification, checked. */
export function classifySent(
  catalog: Catalog,
  budget: WebSocketBudget,
  request: SentRequest | SentWebSocketRequest | Classification,
): Classification {
  if (typeof request !== 'object' || request === null) {
    throw new InvalidInputError(
      'the request',
      request,
      'a request { method, path, body? }, { channel, params?, settle? } or a classification',
    );
  }
  if ('limits' in request) return readClassification(request, 'the request');
  if ('channel' in request) {
    return catalog.classifyChannel(request.channel, request.params, {
      budget,
      ...(request.settle === undefined ? {} : { settle: request.settle }),
    });
  }
  return catalog.classify(request.method, request.path, request.body);
}

/**
 * What an account limiter's round trips share: the scheduler their requests wait in, the counts of
 * order requests they start (see docs/rules.md#r1, #r9, #r14), and where the exchange's answers go (see docs/rules.md#r12, #r13, #r15,
 * #r16). See {@link RoundTrip}.
 */
export class RequestSender {
  constructor(readonly ctx: LimiterContext) {}

  /**
   * Applies the exchange's answer to the limit the request `c` drew on whose N the answer names
   * (each, if several), else the endpoint's own; a tier the answer states is read first (see docs/rules.md#r16).
   * `sentAt`: when the request was sent, on the scheduler's clock, where known.
   */
  feedback(account: string, l: AccountLimits, c: Classification, feedback: RateLimitFeedback, sentAt?: number): void {
    const f = this.ctx.reports.answer(account, l, c, readFeedback(feedback));
    const limits = this.ctx.requestLimits.for(account, l, c);
    const named = f.limit === undefined ? [] : limits.filter((x) => x.limit === f.limit);
    for (const limit of named.length > 0 ? named : limits.slice(0, 1)) this.ctx.scheduler.feedback(limit, f, sentAt);
  }

  /**
   * An answer's gateway times came back for a request of `weight` on `limits`: they feed the
   * exchange's clock (see docs/rules.md#r15), and tell when the exchange counted the request (see docs/rules.md#r13).
   */
  arrived(limits: readonly StoreLimit[], weight: number, sample: LimiterClockSample): void {
    // OKX's answers carry no gateway times: its clock is read from `GET /api/v5/public/time` (see docs/okx.md#o7).
    if (this.ctx.config.exchange === 'okx') return;
    if (this.ctx.host.clockSample(sample).accepted)
      this.ctx.arrivals.answered(limits, weight, sample, this.ctx.clock, true);
  }

  /** Counts an order request when it starts (see docs/rules.md#r1, #r9, #r14), and warns before the next check would throttle. */
  count({ market, contract }: CountedAs, account: string, l: AccountLimits, c: Classification): void {
    const { counts } = this.ctx;
    const now = this.ctx.now();
    counts.request(market, account, contract, c.action as CountedAction, c.orders, now);
    if (!this.ctx.config.throttled) return;
    if (market === 'spot') {
      l.warnings.countSpot(c.orders, counts.spotTracker, now);
      return;
    }
    l.warnings.countFutures(c.orders, counts.tracker, now);
    if (this.ctx.config.live && l.live.count(c.orders)) this.ctx.refresher.evaluateLive(account);
  }
}
