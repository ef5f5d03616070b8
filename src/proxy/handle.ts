import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ContractSource } from '../account/answer-fills.js';
import type { AccountLimiter } from '../account/limiter.js';
import type { RoundTrip } from '../account/round-trip.js';
import { jsonBody } from '../catalog/json-body.js';
import { isRefusedError } from '../errors.js';
import type { LimiterMetrics } from '../metrics/limiter-metrics.js';
import type { Clock } from '../schedule/clock.js';
import type { ActivityCounts } from './activity.js';
import type { ApiDialect } from './api-dialect.js';
import { type ExchangeAnswers, exchangeLabel } from './exchange-answers.js';
import { signatureTiming } from './expiry.js';
import { LABELS, refusal } from './labels.js';
import type { OwnAnswers } from './own-answers.js';
import type { RequestRecord } from './request-log.js';
import { header, headerObject, readBody } from './request-parts.js';
import { type Upstream, type UpstreamResult, endToEnd } from './upstream.js';

/** The proxy's own pages (own-pages.ts). */
export const OWN_PAGES = new Set(['/', '/events', '/status.json', '/metrics']);

/** Where a request goes: the limiter and account it waits on, and how the metrics and log name them. */
export interface Route {
  readonly limiter: AccountLimiter;
  readonly account: string;
  /** The family of its key (`KEY`, OKX's `OK-ACCESS-KEY`); `ip` for a request without one. */
  readonly family: string;
  /** Its account; `ip` for a request without a KEY (it waits on the limits per IP alone). */
  readonly shown: string;
}

/** The options read and checked once. */
export interface Config {
  /** The exchange's API as the proxy reads and answers it. */
  readonly dialect: ApiDialect;
  readonly clock: Clock;
  readonly metrics: LimiterMetrics;
  /** The proxy's own answers, counted. */
  readonly own: OwnAnswers;
  /** The exchange's answers, counted. */
  readonly exchangeAnswers: ExchangeAnswers;
  /** What each account sent and was answered 429, for the status page. */
  readonly activity: ActivityCounts;
  readonly familyOf: (limiter: AccountLimiter) => string;
  readonly expiryMarginMs: number;
  readonly bodyLimitBytes: number;
  /** Where each request's record goes, when asked. */
  readonly log: ((record: RequestRecord) => void) | undefined;
  /** True once the proxy is stopping: every answer then closes its connection. */
  readonly stopping: () => boolean;
}

/**
 * Handles a request of the API: checks it, finds its account by its key (`KEY`, OKX's `OK-ACCESS-KEY`), waits on its limits,
 * forwards it and relays the answer, or answers it itself (never forwarded); logs it either way.
 */
export async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  config: Config,
  upstream: Upstream,
  contracts: ContractSource | undefined,
  route: (key: string | undefined) => Route | null,
  note: (message: string) => void,
): Promise<void> {
  const url = req.url ?? '/';
  const method = (req.method ?? 'GET').toUpperCase();
  const path = url.split('?')[0]!;
  const { clock, dialect } = config;
  const prefix = dialect.prefix;
  const arrived = clock.now();
  // What the log and the proxy's own answers say of the request, filled in as it is known.
  let to = { family: '', account: '' };
  let trip: RoundTrip | undefined;
  const own = (gateStatus: number, label: string, message: string): void => {
    const status = answer(res, config, gateStatus, label, message);
    config.own.count(to, status, label);
    record(status, 'proxy', label);
  };
  const record = (status: number, by: 'proxy' | 'exchange', label: string | null): void => {
    const report = trip?.report();
    config.log?.({
      time: new Date(clock.wall()).toISOString(),
      method,
      path,
      status,
      by,
      label,
      ...to,
      limit: report?.waitedOn ?? null,
      waitedMs: report?.waitedMs ?? (trip === undefined ? 0 : clock.now() - arrived),
    });
  };
  if (config.stopping()) {
    own(503, LABELS.closed, 'the proxy is stopping; never forwarded');
    return;
  }
  if (!path.startsWith(prefix)) {
    own(404, 'NOT_FOUND', `${method} ${path}: the proxy serves ${prefix}..., and GET ${[...OWN_PAGES].join(', ')}`);
    return;
  }
  const body = await readBody(req, config.bodyLimitBytes);
  if (body === null) {
    own(413, LABELS.bodyTooLarge, `the body is over ${config.bodyLimitBytes} bytes`);
    req.socket.destroySoon();
    return;
  }
  const key = header(req, dialect.keyHeader);
  const target = route(key);
  if (target === null) {
    own(401, LABELS.unknownKey, `the ${dialect.keyName} header names no account of the proxy's accounts file`);
    return;
  }
  const { limiter, account } = target;
  to = { family: target.family, account: target.shown };
  if (key === undefined) {
    let perAccount: boolean;
    try {
      perAccount = limiter.catalog
        .classify(method, path, jsonBody(body.toString('utf8')))
        .limits.some((l) => l.scope === 'account');
    } catch (e) {
      own(400, LABELS.invalidRequest, e instanceof Error ? e.message : String(e));
      return;
    }
    if (perAccount) {
      own(
        401,
        LABELS.missingKey,
        `${method} ${path} is a private endpoint and the request has no ${dialect.keyName} header: the exchange would refuse it; never forwarded`,
      );
      return;
    }
  }
  if (config.stopping()) {
    own(503, LABELS.closed, 'the proxy is stopping; never forwarded');
    return;
  }
  const timing =
    key === undefined
      ? undefined
      : signatureTiming(header(req, dialect.timestampHeader), limiter.clockEstimate(), clock.wall(), dialect.signature);
  if (timing !== undefined && !timing.ok) {
    own(401, LABELS.expired, `${timing.message}; sign it again; never forwarded`);
    return;
  }
  // A client gone while its request waits: the request is given up, never sent.
  const gone = new AbortController();
  try {
    trip = limiter.roundTrip(account, {
      method,
      path,
      body: jsonBody(body.toString('utf8')),
      signal: gone.signal,
      // Held no later than the way there allows; one that can go at once goes, whatever is left.
      deadline:
        timing === undefined ? undefined : clock.now() + Math.max(0, timing.remainingMs - config.expiryMarginMs),
      ...(contracts === undefined ? {} : { contracts }),
    });
  } catch (e) {
    trip = undefined;
    own(400, LABELS.invalidRequest, e instanceof Error ? e.message : String(e));
    return;
  }
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  let result: UpstreamResult;
  try {
    result = await forward(trip, upstream, method, url, req.rawHeaders, body, note);
  } catch (e) {
    if (!isRefusedError(e)) throw e;
    if (e.reason === 'aborted') return;
    const [status, label, message] = refusal(e.reason, dialect.signature);
    own(status, label, message);
    return;
  }
  const waited = trip.report().waitedMs!;
  config.metrics.observeWait(to.family, to.account, trip.classification.action, waited);
  if (!result.ok) {
    const timeout = result.reason === 'timeout';
    own(
      timeout ? 504 : 502,
      timeout ? LABELS.upstreamTimeout : LABELS.upstreamUnreachable,
      `the upstream: ${result.message}`,
    );
    return;
  }
  const a = result.answer;
  const out = endToEnd(a.rawHeaders);
  if (!out.some((h, i) => i % 2 === 0 && h.toLowerCase() === 'content-length'))
    out.push('Content-Length', String(a.body.length));
  if (config.stopping()) out.push('Connection', 'close');
  res.writeHead(a.status, out);
  res.end(a.body);
  const label = exchangeLabel(a, dialect);
  if (dialect.tooMany(a.status, label)) config.activity.answered429(to.family, to.account);
  config.exchangeAnswers.count(to, a.status, label);
  record(a.status, 'exchange', label);
}

/**
 * Sends a request to the upstream on its round trip: when its limits let it go, and its answer (or
 * how it failed) told to the round trip. An answer the limiter cannot take (a header out of range)
 * is still the client's: it is logged, and the answer relayed.
 */
export function forward(
  trip: RoundTrip,
  upstream: Upstream,
  method: string,
  url: string,
  rawHeaders: readonly string[],
  body: Buffer,
  log?: (line: string) => void,
): Promise<UpstreamResult> {
  return trip.run(async (t) => {
    const result = await upstream.send(method, url, rawHeaders, body);
    if (!result.ok) {
      t.failed(result.reason);
      return result;
    }
    const a = result.answer;
    try {
      t.answered({
        status: a.status,
        headers: headerObject(a.rawHeaders),
        readBody: () => jsonBody(a.body.toString('utf8')),
      });
    } catch (e) {
      log?.(`an answer's headers not taken: ${e instanceof Error ? e.message : String(e)}`);
    }
    return result;
  });
}

/**
 * An answer of the proxy's own, in the exchange's error shape (see docs/rules.md#r12; OKX's, docs/okx.md#o8).
 * While the proxy stops, it closes its connection after it: the client reads the whole answer, then the end.
 * `gateStatus` is the answer's HTTP status on Gate; the status sent (OKX's 429 for a refusal for
 * the rate) is returned.
 */
export function answer(
  res: ServerResponse,
  config: Pick<Config, 'stopping' | 'dialect'>,
  gateStatus: number,
  label: string,
  message: string,
): number {
  const { status, body } = config.dialect.own(gateStatus, label, message);
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...(config.stopping() ? { Connection: 'close' } : {}),
  });
  res.end(text);
  return status;
}
