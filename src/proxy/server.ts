import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccountLimiter } from '../account/limiter.js';
import type { SharedCounts } from '../account/shared-counts.js';
import type { ContractSource } from '../account/answer-fills.js';
import type { RoundTrip } from '../account/round-trip.js';
import { jsonBody } from '../catalog/json-body.js';
import { InvalidInputError, isRefusedError } from '../errors.js';
import { readHistory } from '../family-files/history.js';
import type { FamilyOptions } from '../rules/family.js';
import { isPositiveInteger } from '../internal/parse.js';
import { type Clock, systemClock } from '../schedule/clock.js';
import type { LimitStore } from '../schedule/store.js';
import { LimiterMetrics } from '../metrics/limiter-metrics.js';
import { readProxyAccounts } from './accounts.js';
import { ExchangeAnswers, exchangeLabel } from './exchange-answers.js';
import { signatureTiming } from './expiry.js';
import { LABELS, errorBody, refusal } from './labels.js';
import { OwnAnswers } from './own-answers.js';
import { type LogFormat, type RequestRecord, logLine, readLogFormat } from './request-log.js';
import { ActivityCounts } from './activity.js';
import { type ProxyStatus, proxyStatus } from './status.js';
import { statusPage } from './status-page.js';
import { renderStatus } from './status-view.js';
import { serveOwn } from './own-pages.js';
import { header, headerObject, readBody } from './request-parts.js';
import { KeptWindows } from './kept-windows.js';
import { StateFile } from './state-file.js';
import { Upstream, type UpstreamResult, endToEnd } from './upstream.js';
import { attachWebSocketProxy } from './websocket.js';

/** Options of {@link startProxy}. */
export interface ProxyOptions {
  /** The exchange's base URL, e.g. `https://api.gateio.ws` (the API is under `/api/v4` there). */
  readonly upstream: string;
  /**
   * Where futures WebSocket connections (`/v4/ws/{settle}`) go, e.g. `wss://fx-ws.gateio.ws`.
   * Spot ones (`/ws/v4/`) go to the upstream's host. @default the upstream's host, ws: or wss:
   */
  readonly futuresWebSocket?: string;
  /** The port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** The address to listen on. @default "127.0.0.1" */
  readonly host?: string;
  /** The accounts file, parsed (the model exchange's format). @default one account, KEY main-key */
  readonly accounts?: unknown;
  /** A history file, parsed (the model exchange's format): the activity to start the limiters from. */
  readonly history?: unknown;
  /** Where time is read. @default systemClock */
  readonly clock?: Clock;
  /** The store of each family's limits (a Redis store shares them between proxies). @default each in this process */
  readonly store?: (family: string) => LimitStore & { counts?(): SharedCounts };
  /** The limiters' safety margin (R13), in milliseconds. @default 0 */
  readonly marginMs?: number;
  /** Time kept for a request's way to the exchange when its signature is about to expire, in milliseconds. @default 1000 */
  readonly expiryMarginMs?: number;
  /** The longest a forwarded request may take to be answered, in milliseconds. @default 30000 */
  readonly timeoutMs?: number;
  /** Connections to the upstream open at once, at most. @default 64 */
  readonly maxSockets?: number;
  /** The largest request body, in bytes. @default 1048576 */
  readonly bodyLimitBytes?: number;
  /**
   * Where one line per request goes (method, path without query, status, who answered, label,
   * account, the limit waited on, the wait), never a header, a body or a query.
   */
  readonly log?: (line: string) => void;
  /** Where a problem of the proxy's own goes, whatever `log` says (a state file not written). @default none */
  readonly warn?: (message: string) => void;
  /** The log's lines: `text`, or `json` (one JSON object a line). @default "text" */
  readonly logFormat?: LogFormat;
  /** How often the status page's events are sent, in milliseconds. @default 1000 */
  readonly statusEveryMs?: number;
  /**
   * A file to keep each family's counts in across restarts (`--state`): read at start when it
   * exists (refused, starting nothing, when it is of another version or other families or
   * accounts), written atomically every `stateEveryMs` and when the proxy stops. It replaces the
   * counts `history` gave. @default none: a restart forgets every count (but Redis's, with `store`)
   */
  readonly stateFile?: string;
  /** How often the state file is written, in milliseconds. @default 5000 */
  readonly stateEveryMs?: number;
}

/** A running proxy. */
export interface RunningProxy {
  /** `http://127.0.0.1:PORT`: the base URL to give the engine in place of the exchange's. */
  readonly url: string;
  /** `ws://127.0.0.1:PORT`: the WebSocket API's, `/ws/v4/` (spot) and `/v4/ws/{settle}` (futures). */
  readonly wsUrl: string;
  readonly port: number;
  /** Each family's limiter, by family id (and `public` for requests without a key). */
  readonly limiters: ReadonlyMap<string, AccountLimiter>;
  /** The metrics served at `/metrics`. */
  readonly metrics: LimiterMetrics;
  /** When the state file it started from was written (epoch ms), or null when it started from none. */
  readonly restoredFrom: number | null;
  /** What each family sent and what the proxy answered itself, by label, so far. */
  summary(): ProxySummary;
  /**
   * Stops cleanly: forwards nothing more; answers every request still waiting on its limits
   * `503 TRADERATIO_CLOSED`, with its body, on its own connection; awaits the requests already
   * forwarded (up to `timeoutMs`) and relays their answers; then closes every connection and the
   * limiters. A request arriving meanwhile, on a new connection or a kept-alive one, is answered
   * `503 TRADERATIO_CLOSED` too. Every answer while stopping closes its connection after it.
   */
  close(): Promise<void>;
}

/** What the proxy did, per family: requests sent, and its own answers by label. */
export interface ProxySummary {
  readonly families: readonly {
    readonly family: string;
    readonly sent: number;
    readonly ownAnswers: Readonly<Record<string, number>>;
  }[];
  /** Answers of the proxy's own to requests of no family (a KEY the accounts file does not name, a path not of the API), by label. */
  readonly unrouted: Readonly<Record<string, number>>;
}

/** The limiter of requests that carry no key: public endpoints, limited per IP (R10), the proxy's. */
const PUBLIC = 'public';
const API_PREFIX = '/api/v4/';
/** The proxy's own pages (own-pages.ts). */
const OWN_PAGES = new Set(['/', '/events', '/status.json', '/metrics']);
/** How long the status page's chart goes back, in milliseconds. */
const HISTORY_MS = 5 * 60_000;
/** How the metrics, the log and the summary name requests without a KEY: on the limits per IP alone. */
const PER_IP = 'ip';

/** Where a request goes: the limiter and account it waits on, and how the metrics and log name them. */
interface Route {
  readonly limiter: AccountLimiter;
  readonly account: string;
  /** The family of its KEY; `ip` for a request without one. */
  readonly family: string;
  /** Its account; `ip` for a request without a KEY (it waits on the limits per IP alone). */
  readonly shown: string;
}

/** The options read and checked once. */
interface Config {
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
 * Starts the proxy: an HTTP server that takes API v4 requests as the exchange would, finds the
 * account by the `KEY` header, waits on that account's limits (every rule of the limiter, cancels
 * first), forwards the request unchanged to the upstream and relays its answer, after giving the
 * limiter its rate-limit headers, 429s and gateway times (R12, R13, R15) and recording the fills
 * of `my_trades` answers (R1, R9, R14).
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('the proxy options', options, 'an object { upstream, ... }');
  let base: URL;
  try {
    base = new URL(options.upstream);
  } catch {
    throw new InvalidInputError('`upstream`', options.upstream, 'an http or https URL, e.g. https://api.gateio.ws');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new InvalidInputError('`upstream`', options.upstream, 'an http or https URL, e.g. https://api.gateio.ws');
  // Only the origin and a path prefix are forwarded to: credentials, a query or a fragment would be dropped unsaid.
  if (
    base.username !== '' ||
    base.password !== '' ||
    base.search !== '' ||
    base.hash !== '' ||
    /[?#]/.test(options.upstream)
  ) {
    throw new InvalidInputError(
      '`upstream`',
      options.upstream,
      'an http or https URL without credentials, query or fragment, e.g. https://api.gateio.ws',
    );
  }
  const spotWs = new URL(base.origin.replace(/^http/, 'ws'));
  let futuresWs = spotWs;
  if (options.futuresWebSocket !== undefined) {
    try {
      futuresWs = new URL(options.futuresWebSocket);
    } catch {
      futuresWs = new URL('about:blank');
    }
    if (futuresWs.protocol !== 'ws:' && futuresWs.protocol !== 'wss:')
      throw new InvalidInputError(
        '`futuresWebSocket`',
        options.futuresWebSocket,
        'a ws or wss URL, e.g. wss://fx-ws.gateio.ws',
      );
  }
  const port = options.port ?? 0;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65_535)
    throw new InvalidInputError('`port`', port, 'a port from 0 to 65535');
  const expiryMarginMs = nonNegative(options.expiryMarginMs ?? 1000, '`expiryMarginMs`');
  const marginMs = nonNegative(options.marginMs ?? 0, '`marginMs`');
  const timeoutMs = positive(options.timeoutMs ?? 30_000, '`timeoutMs`');
  const maxSockets = positive(options.maxSockets ?? 64, '`maxSockets`');
  const bodyLimitBytes = positive(options.bodyLimitBytes ?? 1 << 20, '`bodyLimitBytes`');
  const statusEveryMs = positive(options.statusEveryMs ?? 1000, '`statusEveryMs`');
  const stateEveryMs = positive(options.stateEveryMs ?? 5000, '`stateEveryMs`');
  if (options.log !== undefined && typeof options.log !== 'function')
    throw new InvalidInputError('`log`', options.log, 'a function taking a line');
  if (options.warn !== undefined && typeof options.warn !== 'function')
    throw new InvalidInputError('`warn`', options.warn, 'a function taking a message');
  const logFormat = readLogFormat(options.logFormat ?? 'text');
  const clock = options.clock ?? systemClock;
  const accounts = readProxyAccounts(options.accounts);
  const history = options.history === undefined ? undefined : readHistory(options.history, clock.wall());
  if (history !== undefined) {
    // Activity of an account in no family would otherwise be left out unsaid.
    const ids = new Set(accounts.families.flatMap((f) => f.accounts.map((a) => a.id)));
    const lists = [
      ['activity', history.days],
      ['hours', history.hours],
      ['spotHours', history.spotHours ?? []],
    ] as const;
    for (const [name, list] of lists) {
      list.forEach((x: { readonly account: string }, i) => {
        if (!ids.has(x.account))
          throw new InvalidInputError(`\`${name}[${i}].account\``, x.account, 'an account of the accounts file');
      });
    }
  }

  if (options.stateFile !== undefined && (typeof options.stateFile !== 'string' || options.stateFile === ''))
    throw new InvalidInputError('`stateFile`', options.stateFile, 'a file path');
  // Read before the limiters are made: their limits start from the windows it kept.
  const saved = options.stateFile === undefined ? null : StateFile.read(options.stateFile);
  const windows = new Map<string, KeptWindows>();
  const limiters = new Map<string, AccountLimiter>();
  const made: AccountLimiter[] = [];
  let stateFile: StateFile | null = null;
  let restoredFrom: number | null = null;
  try {
    for (const f of accounts.families) {
      // Without a shared store, each family's limits in memory, their windows kept in the state file.
      let store: (LimitStore & { counts?(): SharedCounts }) | undefined = options.store?.(f.id);
      if (store === undefined && options.stateFile !== undefined) {
        const kept = new KeptWindows(clock, saved?.windows?.[f.id]);
        windows.set(f.id, kept);
        store = kept;
      }
      const limiter = new AccountLimiter({
        accounts: f.accounts,
        clock,
        marginMs,
        ...(f.vipLevel === undefined ? {} : { vipLevel: f.vipLevel }),
        ...((f.options as FamilyOptions | undefined) ?? {}),
        ...(store === undefined ? {} : { store }),
      });
      made.push(limiter);
      limiters.set(f.id, limiter);
      if (history !== undefined) {
        const ids = new Set(f.accounts.map((a) => a.id));
        const mine = <T extends { account: string }>(list: readonly T[] | undefined) =>
          (list ?? []).filter((x) => ids.has(x.account));
        const hours = (
          list: readonly { account: string; hour: number; requests: number; traded?: unknown }[] | undefined,
        ) =>
          mine(list).map((h) => ({
            account: h.account,
            hour: h.hour,
            requests: h.requests,
            ...(h.traded === undefined ? {} : { traded: String(h.traded) }),
          }));
        limiter.seed({ days: mine(history.days), hours: hours(history.hours), spotHours: hours(history.spotHours) });
      }
    }
    const publicLimiter = new AccountLimiter({ accounts: [{ id: PUBLIC }], clock, marginMs });
    made.push(publicLimiter);
    limiters.set(PUBLIC, publicLimiter);
    if (options.stateFile !== undefined) {
      stateFile = new StateFile(
        options.stateFile,
        new Map([...limiters].filter(([family]) => family !== PUBLIC)),
        clock,
        windows,
      );
      if (saved !== null) restoredFrom = stateFile.restore(saved);
    }
  } catch (e) {
    for (const l of made) l.close();
    throw e;
  }

  const upstream = new Upstream(base, { maxSockets, timeoutMs });
  const metrics = new LimiterMetrics();
  // Requests without a KEY wait on the limits per IP alone: shown as such, never as an account.
  for (const [family, limiter] of limiters)
    if (family === PUBLIC) metrics.watch(limiter, PER_IP, { perIpOnly: true });
    else metrics.watch(limiter, family);
  const own = new OwnAnswers(metrics.registry);
  const activity = new ActivityCounts();
  for (const [family, limiter] of limiters) if (family !== PUBLIC) activity.watch(limiter, family);
  const families = new Map([...limiters].map(([family, l]) => [l, family === PUBLIC ? PER_IP : family]));
  const writeLog = options.log;
  let stopping = false;
  const config: Config = {
    clock,
    expiryMarginMs,
    bodyLimitBytes,
    log: writeLog === undefined ? undefined : (record) => writeLog(logLine(record, logFormat)),
    metrics,
    own,
    activity,
    exchangeAnswers: new ExchangeAnswers(metrics.registry),
    familyOf: (l) => families.get(l)!,
    stopping: () => stopping,
  };
  const note = (message: string): void =>
    writeLog?.(
      logFormat === 'json' ? JSON.stringify({ time: new Date(clock.wall()).toISOString(), note: message }) : message,
    );
  const publicLimiter = limiters.get(PUBLIC)!;
  // A state file not written is said whatever the log: counts a restart would lose.
  const unsaved = (e: unknown): void => {
    const message = `the state file was not written: ${(e as Error).message}`;
    note(message);
    options.warn?.(message);
  };
  stateFile?.start(stateEveryMs, unsaved);
  // A futures contract's multiplier, for the fills of my_trades answers: asked of the upstream (a
  // public request) when no contracts answer relayed gave it.
  const contracts: ContractSource = {
    ask: async (settle, contract) => {
      const path = `${API_PREFIX}futures/${settle}/contracts/${contract}`;
      const trip = publicLimiter.roundTrip(PUBLIC, { method: 'GET', path });
      const result = await forward(trip, upstream, 'GET', path, ['Accept', 'application/json'], Buffer.alloc(0), note);
      return result.ok && result.answer.status === 200
        ? (JSON.parse(result.answer.body.toString('utf8')) as unknown)
        : undefined;
    },
  };

  const route = (key: string | undefined): Route | null => {
    if (key === undefined) return { limiter: publicLimiter, account: PUBLIC, family: PER_IP, shown: PER_IP };
    const a = accounts.keys.get(key);
    return a === undefined
      ? null
      : { limiter: limiters.get(a.family)!, account: a.account, family: a.family, shown: a.account };
  };

  const events = new Set<ServerResponse>();
  const now = (): ProxyStatus => proxyStatus(limiters, PUBLIC, clock.wall(), activity);
  const status = (): string => JSON.stringify(now());
  // The statuses of the last minutes, one a tick: the status page's chart, drawn by the server
  // for its first state and carried on by the page from the events.
  const recent: ProxyStatus[] = [];
  const ticker = setInterval(() => {
    const s = now();
    recent.push(s);
    while (recent.length > 1 && s.at - recent[0]!.at > HISTORY_MS) recent.shift();
    if (events.size === 0) return;
    const text = `data: ${JSON.stringify(s)}\n\n`;
    for (const res of events) res.write(text);
  }, statusEveryMs);
  const page = (): string => {
    const s = now();
    const shown = [...recent, s];
    return statusPage(renderStatus(s, shown), shown, HISTORY_MS);
  };
  ticker.unref();
  // Requests being handled, until their answer has gone out: awaited when the proxy stops.
  const handling = new Set<Promise<void>>();
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    // The proxy's own pages; any other path outside the API is answered 404 by the handler, logged.
    if (req.method === 'GET' && OWN_PAGES.has(path) && !stopping) {
      serveOwn(path, res, metrics, status, events, page);
      return;
    }
    const handled = handle(req, res, config, upstream, contracts, route, note).catch((error: unknown) => {
      // Nothing of the request is in the message: only what went wrong here.
      note(`error: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) answer(res, config, 500, LABELS.proxyError, 'the proxy failed to handle the request');
      else res.destroy();
    });
    // Done when its answer has gone out whole (or its connection ended): only then may the
    // connection be closed without cutting the answer off.
    const done = Promise.all([handled, new Promise<void>((resolve) => res.once('close', () => resolve()))]).then(
      () => {},
    );
    handling.add(done);
    void done.finally(() => handling.delete(done));
  });
  // A client has 10 s to send a whole request (as the model gives), not node's default 300 s:
  // the wait on the limits comes after, and is bounded by the signature's 60 s.
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;
  const sockets = attachWebSocketProxy(server, {
    spot: spotWs,
    futures: futuresWs,
    route: (key) => {
      const a = accounts.keys.get(key);
      return a === undefined ? null : { limiter: limiters.get(a.family)!, account: a.account };
    },
    refused: (limiter, account, label, channel, status) => {
      const to = { family: limiter === null ? '' : families.get(limiter)!, account };
      own.count(to, 'ws', label);
      // Logged as a request: its channel in place of a path, the status its reply carries.
      config.log?.({
        time: new Date(clock.wall()).toISOString(),
        method: 'WS',
        path: channel,
        status,
        by: 'proxy',
        label,
        ...to,
        limit: null,
        waitedMs: 0,
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  let closed: Promise<void> | null = null;
  const host = options.host ?? '127.0.0.1';
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${actual}`,
    wsUrl: `ws://${shown}:${actual}`,
    port: actual,
    limiters,
    metrics,
    restoredFrom,
    summary: () => ({
      families: [...limiters.values()].map((l) => {
        const family = families.get(l)!;
        return { family, sent: l.scheduler.stats().dispatched, ownAnswers: own.of(family) };
      }),
      unrouted: own.of(''),
    }),
    close: async () => {
      if (closed !== null) return closed;
      stopping = true;
      closed = (async () => {
        clearInterval(ticker);
        sockets.close();
        for (const res of events) res.end();
        // Every request still waiting on its limits is refused (`closed`): its handler answers it
        // 503 TRADERATIO_CLOSED on its own connection. Those already sent are awaited, bounded by
        // the upstream's timeout, and relayed.
        for (const l of limiters.values()) l.scheduler.close();
        while (handling.size > 0) await Promise.allSettled([...handling]);
        // The counts of every answer relayed, kept for the next start.
        stateFile?.stop();
        try {
          stateFile?.save();
        } catch (e) {
          unsaved(e);
        }
        for (const l of limiters.values()) l.close();
        upstream.close();
        // Listening until now: a connection made meanwhile is answered 503 TRADERATIO_CLOSED like
        // the rest, where a listening socket closed at once would reset those not yet accepted.
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  config: Config,
  upstream: Upstream,
  contracts: ContractSource,
  route: (key: string | undefined) => Route | null,
  note: (message: string) => void,
): Promise<void> {
  const url = req.url ?? '/';
  const method = (req.method ?? 'GET').toUpperCase();
  const path = url.split('?')[0]!;
  const clock = config.clock;
  const arrived = clock.now();
  // What the log and the proxy's own answers say of the request, filled in as it is known.
  let to = { family: '', account: '' };
  let trip: RoundTrip | undefined;
  const own = (status: number, label: string, message: string): void => {
    answer(res, config, status, label, message);
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
  if (!path.startsWith(API_PREFIX)) {
    own(404, 'NOT_FOUND', `${method} ${path}: the proxy serves ${API_PREFIX}..., and GET ${[...OWN_PAGES].join(', ')}`);
    return;
  }
  const body = await readBody(req, config.bodyLimitBytes);
  if (body === null) {
    own(413, LABELS.bodyTooLarge, `the body is over ${config.bodyLimitBytes} bytes`);
    req.socket.destroySoon();
    return;
  }
  const key = header(req, 'key');
  const target = route(key);
  if (target === null) {
    own(401, LABELS.unknownKey, "the KEY header names no account of the proxy's accounts file");
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
        `${method} ${path} is a private endpoint and the request has no KEY header: the exchange would refuse it; never forwarded`,
      );
      return;
    }
  }
  if (config.stopping()) {
    own(503, LABELS.closed, 'the proxy is stopping; never forwarded');
    return;
  }
  const timing =
    key === undefined ? undefined : signatureTiming(header(req, 'timestamp'), limiter.clockEstimate(), clock.wall());
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
      contracts,
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
    const [status, label, message] = refusal(e.reason);
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
  const label = exchangeLabel(a);
  if (a.status === 429) config.activity.answered429(to.family, to.account);
  config.exchangeAnswers.count(to, a.status, label);
  record(a.status, 'exchange', label);
}

/**
 * Sends a request to the upstream on its round trip: when its limits let it go, and its answer (or
 * how it failed) told to the round trip. An answer the limiter cannot take (a header out of range)
 * is still the client's: it is logged, and the answer relayed.
 */
function forward(
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
 * An answer of the proxy's own, in the exchange's error shape (R12). While the proxy stops,
 * it closes its connection after it: the client reads the whole answer, then the end.
 */
function answer(
  res: ServerResponse,
  config: Pick<Config, 'stopping'> | null,
  status: number,
  label: string,
  message: string,
): void {
  const text = JSON.stringify(errorBody(label, message));
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...(config?.stopping() === true ? { Connection: 'close' } : {}),
  });
  res.end(text);
}

function nonNegative(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new InvalidInputError(field, value, 'a non-negative number of milliseconds');
  return value;
}

function positive(value: unknown, field: string): number {
  if (!isPositiveInteger(value)) throw new InvalidInputError(field, value, 'a positive whole number');
  return value as number;
}
