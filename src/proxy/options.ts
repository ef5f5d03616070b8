import type { SharedCounts } from '../account/shared-counts.js';
import { InvalidInputError } from '../errors.js';
import { type History, readHistory } from '../family-files/history.js';
import { isPositiveInteger } from '../internal/parse.js';
import { type Clock, systemClock } from '../schedule/clock.js';
import type { LimitStore } from '../schedule/store.js';
import { API_DIALECTS, type ApiDialect } from './api-dialect.js';
import { type ProxyAccounts, readProxyAccounts } from './accounts.js';
import { type LogFormat, readLogFormat } from './request-log.js';

/** Options of `startProxy`. */
export interface ProxyOptions {
  /**
   * The exchange whose API the proxy serves: `gate` (API v4, the `KEY` header) or `okx` (API v5,
   * `OK-ACCESS-KEY`; REST only; see docs/okx.md). Its limiters apply that exchange's rules.
   * @default "gate"
   */
  readonly exchange?: 'gate' | 'okx';
  /**
   * The exchange's base URL, e.g. `https://api.gateio.ws` (the API is under `/api/v4` there), or
   * `https://www.okx.com` (`/api/v5`).
   */
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
  /** The limiters' safety margin (see docs/rules.md#r13), in milliseconds. @default 0 */
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

/** The proxy's options read and checked once, defaults filled in. */
export interface ProxySettings {
  /** The exchange's API as the proxy reads and answers it. */
  readonly dialect: ApiDialect;
  readonly upstream: URL;
  /** Where spot WebSocket connections go, and futures ones. */
  readonly spotWs: URL;
  readonly futuresWs: URL;
  readonly port: number;
  readonly host: string;
  readonly expiryMarginMs: number;
  readonly marginMs: number;
  readonly timeoutMs: number;
  readonly maxSockets: number;
  readonly bodyLimitBytes: number;
  readonly statusEveryMs: number;
  readonly stateEveryMs: number;
  readonly logFormat: LogFormat;
  readonly clock: Clock;
  readonly accounts: ProxyAccounts;
  /** The history file read, each entry's account one of the accounts file's. */
  readonly history: History | undefined;
}

/** Reads and checks the proxy's options, each bad value named; nothing is started. */
export function readProxyOptions(options: ProxyOptions): ProxySettings {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('the proxy options', options, 'an object { upstream, ... }');
  const exchange = options.exchange ?? 'gate';
  if (exchange !== 'gate' && exchange !== 'okx') throw new InvalidInputError('`exchange`', exchange, 'gate or okx');
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
  return {
    dialect: API_DIALECTS[exchange],
    upstream: base,
    spotWs,
    futuresWs,
    port,
    host: options.host ?? '127.0.0.1',
    expiryMarginMs,
    marginMs,
    timeoutMs,
    maxSockets,
    bodyLimitBytes,
    statusEveryMs,
    stateEveryMs,
    logFormat,
    clock,
    accounts,
    history,
  };
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
