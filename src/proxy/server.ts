import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ContractSource } from '../account/answer-fills.js';
import type { AccountLimiter } from '../account/limiter.js';
import { LimiterMetrics } from '../metrics/limiter-metrics.js';
import type { ProxyAccounts } from './accounts.js';
import { ActivityCounts } from './activity.js';
import { ExchangeAnswers } from './exchange-answers.js';
import { PUBLIC, startLimiters } from './family-limiters.js';
import { type Config, OWN_PAGES, type Route, answer, forward, handle } from './handle.js';
import { LABELS } from './labels.js';
import { type ProxyOptions, type ProxySettings, readProxyOptions } from './options.js';
import { OwnAnswers } from './own-answers.js';
import { serveOwn } from './own-pages.js';
import { logLine } from './request-log.js';
import { StatusFeed } from './status-feed.js';
import { Upstream } from './upstream.js';
import { attachWebSocketProxy } from './websocket.js';

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

/** How the metrics, the log and the summary name requests without a KEY: on the limits per IP alone. */
const PER_IP = 'ip';

/**
 * Starts the proxy: an HTTP server that takes API v4 requests as the exchange would, finds the
 * account by the `KEY` header, waits on that account's limits (every rule of the limiter, cancels
 * first), forwards the request unchanged to the upstream and relays its answer, after giving the
 * limiter its rate-limit headers, 429s and gateway times (see docs/rules.md#r12, #r13, #r15) and recording the fills
 * of `my_trades` answers (see docs/rules.md#r1, #r9, #r14).
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const s = readProxyOptions(options);
  const { limiters, stateFile, restoredFrom } = startLimiters(s, options.stateFile, options.store);
  const upstream = new Upstream(s.upstream, { maxSockets: s.maxSockets, timeoutMs: s.timeoutMs });
  const { metrics, activity, families } = watchLimiters(limiters);
  const own = new OwnAnswers(metrics.registry);
  const writeLog = options.log;
  let stopping = false;
  const config: Config = {
    dialect: s.dialect,
    clock: s.clock,
    expiryMarginMs: s.expiryMarginMs,
    bodyLimitBytes: s.bodyLimitBytes,
    log: writeLog === undefined ? undefined : (record) => writeLog(logLine(record, s.logFormat)),
    metrics,
    own,
    activity,
    exchangeAnswers: new ExchangeAnswers(metrics.registry),
    familyOf: (l) => families.get(l)!,
    stopping: () => stopping,
  };
  const note = (message: string): void =>
    writeLog?.(
      s.logFormat === 'json'
        ? JSON.stringify({ time: new Date(s.clock.wall()).toISOString(), note: message })
        : message,
    );
  // A state file not written is said whatever the log: counts a restart would lose.
  const unsaved = (e: unknown): void => {
    const message = `the state file was not written: ${(e as Error).message}`;
    note(message);
    options.warn?.(message);
  };
  stateFile?.start(s.stateEveryMs, unsaved);
  // The multipliers asked are Gate's futures contracts': a limiter of OKX takes none.
  const contracts =
    s.dialect.exchange === 'gate' ? contractSource(limiters.get(PUBLIC)!, upstream, s.dialect.prefix, note) : undefined;
  const feed = new StatusFeed(limiters, s.clock, activity, s.statusEveryMs);
  const route = routeByKey(s.accounts, limiters);
  const { server, handling } = serveHttp(
    config,
    feed,
    (req, res) => handle(req, res, config, upstream, contracts, route, note),
    note,
  );
  // OKX's WebSocket API is not proxied: its order messages would go round the limits.
  const sockets =
    s.dialect.exchange === 'gate' ? proxyWebSockets(server, s, limiters, families, own, config) : { close() {} };
  const port = await listen(server, s);
  const shown = s.host.includes(':') ? `[${s.host}]` : s.host;
  let closed: Promise<void> | null = null;
  return {
    url: `http://${shown}:${port}`,
    wsUrl: `ws://${shown}:${port}`,
    port,
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
        feed.close();
        sockets.close();
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

/** The metrics and activity counts of every limiter, and the name each is shown by. */
function watchLimiters(limiters: ReadonlyMap<string, AccountLimiter>): {
  metrics: LimiterMetrics;
  activity: ActivityCounts;
  families: ReadonlyMap<AccountLimiter, string>;
} {
  const metrics = new LimiterMetrics();
  // Requests without a KEY wait on the limits per IP alone: shown as such, never as an account.
  for (const [family, limiter] of limiters)
    if (family === PUBLIC) metrics.watch(limiter, PER_IP, { perIpOnly: true });
    else metrics.watch(limiter, family);
  const activity = new ActivityCounts();
  for (const [family, limiter] of limiters) if (family !== PUBLIC) activity.watch(limiter, family);
  const families = new Map([...limiters].map(([family, l]) => [l, family === PUBLIC ? PER_IP : family]));
  return { metrics, activity, families };
}

/**
 * A futures contract's multiplier, for the fills of my_trades answers: asked of the upstream (a
 * public request, on the public limiter) when no contracts answer relayed gave it.
 */
function contractSource(
  publicLimiter: AccountLimiter,
  upstream: Upstream,
  prefix: string,
  note: (m: string) => void,
): ContractSource {
  return {
    ask: async (settle, contract) => {
      const path = `${prefix}futures/${settle}/contracts/${contract}`;
      const trip = publicLimiter.roundTrip(PUBLIC, { method: 'GET', path });
      const result = await forward(trip, upstream, 'GET', path, ['Accept', 'application/json'], Buffer.alloc(0), note);
      return result.ok && result.answer.status === 200
        ? (JSON.parse(result.answer.body.toString('utf8')) as unknown)
        : undefined;
    },
  };
}

/** Where a request goes by its KEY: its family's limiter and account; the public limiter without one; null for a KEY of no account. */
function routeByKey(
  accounts: ProxyAccounts,
  limiters: ReadonlyMap<string, AccountLimiter>,
): (key: string | undefined) => Route | null {
  const publicLimiter = limiters.get(PUBLIC)!;
  return (key) => {
    if (key === undefined) return { limiter: publicLimiter, account: PUBLIC, family: PER_IP, shown: PER_IP };
    const a = accounts.keys.get(key);
    return a === undefined
      ? null
      : { limiter: limiters.get(a.family)!, account: a.account, family: a.family, shown: a.account };
  };
}

/**
 * The HTTP server: the proxy's own pages, and every other request to `handleApi`, a failure of
 * which is answered 500 and noted; each request kept in `handling` until its answer has gone out.
 */
function serveHttp(
  config: Config,
  feed: StatusFeed,
  handleApi: (req: http.IncomingMessage, res: ServerResponse) => Promise<void>,
  note: (message: string) => void,
): { server: http.Server; handling: Set<Promise<void>> } {
  // Requests being handled, until their answer has gone out: awaited when the proxy stops.
  const handling = new Set<Promise<void>>();
  const status = () => feed.status();
  const page = () => feed.page();
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    // The proxy's own pages; any other path outside the API is answered 404 by the handler, logged.
    if (req.method === 'GET' && OWN_PAGES.has(path) && !config.stopping()) {
      serveOwn(path, res, config.metrics, status, feed.events, page);
      return;
    }
    const handled = handleApi(req, res).catch((error: unknown) => {
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
  return { server, handling };
}

/**
 * The WebSocket API through the proxy: each connection to its upstream, each order request on
 * the limiter of its KEY's family; one the proxy answers itself counted and logged as a request.
 */
function proxyWebSockets(
  server: http.Server,
  s: ProxySettings,
  limiters: ReadonlyMap<string, AccountLimiter>,
  families: ReadonlyMap<AccountLimiter, string>,
  own: OwnAnswers,
  config: Config,
): ReturnType<typeof attachWebSocketProxy> {
  return attachWebSocketProxy(server, {
    spot: s.spotWs,
    futures: s.futuresWs,
    route: (key) => {
      const a = s.accounts.keys.get(key);
      return a === undefined ? null : { limiter: limiters.get(a.family)!, account: a.account };
    },
    refused: (limiter, account, label, channel, status) => {
      const to = { family: limiter === null ? '' : families.get(limiter)!, account };
      own.count(to, 'ws', label);
      // Logged as a request: its channel in place of a path, the status its reply carries.
      config.log?.({
        time: new Date(s.clock.wall()).toISOString(),
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
}

/** Listens on the settings' port and host; resolves with the port it listens on. */
async function listen(server: http.Server, s: ProxySettings): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(s.port, s.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
