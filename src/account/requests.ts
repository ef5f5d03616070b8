import { type Catalog, type Classification, readClassification } from '../catalog/catalog.js';
import type { WebSocketBudget } from '../catalog/channels.js';
import { InvalidInputError } from '../errors.js';
import { checkFields } from '../internal/parse.js';
import { normalizeContract } from '../rules/contracts.js';
import { UNNAMED_PAIR } from '../rules/spot-fill.js';
import type { SentRequest, SentWebSocketRequest } from './limiter-options.js';
import type { CountedMarket } from './shared-counts.js';

/** What an order request counts under when it starts (R1, R9, R14): its market and contract or pair. */
export interface CountedAs {
  readonly market: CountedMarket;
  readonly contract: string;
}

/**
 * Checks a request's options: an object holding `fields` only. Refused options throw an {@link InvalidInputError} before anything is queued.
 */
export function checkRequestOptions(options: unknown, fields: readonly string[]): void {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('the request options', options, `an object { ${fields.join(', ')} }`);
  checkFields(options, fields, 'the request options');
}

/**
 * What a classified request counts under (R1, R9, R14), or null when it counts for no rule: futures
 * order requests under their contract, spot order requests under their pair. Read before the
 * request is queued: a contract refused when it starts would take a permit for a request that
 * never runs.
 */
export function countedAs(c: Classification, contract: string | undefined, unknownContract: string): CountedAs | null {
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
