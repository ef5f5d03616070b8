import { randomBytes } from 'node:crypto';
import { type AddressInfo, isIP } from 'node:net';
import { InvalidInputError } from '../errors.js';
import { type Clock, systemClock } from '../schedule/clock.js';
import { handleAdmin } from './admin.js';
import { type AdminHandler, createHttpServer } from './http.js';
import { ModelExchange, type ModelOptions } from './model.js';
import type { ModelExchangeStats } from './stats.js';
import { attachWebSocket } from './websocket.js';

/**
 * Options of {@link startModelExchange}: those of the model (accounts, markets, fills, how windows
 * count) and of its server.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0, host: '127.0.0.1', window: 'fixed', bodyLimitBytes: 1024 })
 * const res = await fetch(`${exchange.url}/api/v4/futures/usdt/orders`, {
 *   method: 'POST',
 *   headers: { KEY: 'main-key', 'Content-Type': 'application/json' },
 *   body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000', text: 'x'.repeat(2000) }),
 * })
 * res.status // 413
 * await exchange.close()
 * ```
 */
export interface ModelExchangeOptions extends ModelOptions {
  /** The port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** The address to listen on. @default "127.0.0.1" */
  readonly host?: string;
  /**
   * Where the model reads time: `wall()` is its clock (plus `clockOffsetMs`; or, with `startAt`
   * or `speed`, what moves its clock from `startAt`, and what Timestamps are checked against). A
   * `VirtualClock` moves only when told. @default the machine's clock, to the microsecond
   */
  readonly clock?: Clock;
  /** The largest request body, in bytes: a larger one gets 413. @default 1048576 */
  readonly bodyLimitBytes?: number;
  /** Time a client has to send a whole request, in milliseconds: past it, 408. @default 10000 */
  readonly slowClientMs?: number;
  /**
   * The token the administration (`/_model/`) requires, as `Authorization: Bearer <token>`. On a
   * `host` other than loopback one is always required: without this option, one is made at random
   * (`RunningModelExchange.adminToken`). @default none on loopback
   */
  readonly adminToken?: string;
}

/**
 * A running model exchange: where it listens, what it has counted, and how to stop it.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0 })
 * exchange.url === `http://127.0.0.1:${exchange.port}` // true
 * exchange.wsUrl === `ws://127.0.0.1:${exchange.port}` // true
 * exchange.stats().accounts.map((a) => a.account) // ['main']
 * await exchange.close()
 * ```
 */
export interface RunningModelExchange {
  /** `http://127.0.0.1:PORT`; the API is under `/api/v4`. */
  readonly url: string;
  /** `ws://127.0.0.1:PORT`; the WebSocket API on the same port. */
  readonly wsUrl: string;
  readonly port: number;
  /** The instant the model's clock started at, with `startAt` or `speed`; else null. */
  readonly clockStart: number | null;
  /** The token the administration requires (`Authorization: Bearer <token>`), or null when it requires none (loopback only). */
  readonly adminToken: string | null;
  /** Counts per account and limit, tiers and throttles in force. */
  stats(): ModelExchangeStats;
  /** Stops listening, closes every connection. */
  close(): Promise<void>;
}

/** The machine's clock with microseconds: X-In-Time and X-Out-Time are written in them (see docs/rules.md#r15). */
const microClock: Clock = {
  ...systemClock,
  wall: () => performance.timeOrigin + performance.now(),
};

/**
 * Starts the model exchange in this process: the API v4 under `/api/v4` over HTTP (keep-alive,
 * JSON) and the WebSocket API on the same port, limiting as the exchange does (see docs/rules.md#r1 to #r16),
 * administration under `/_model/`.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * // One main account (KEY main-key) at tier 1: 100 futures placements a second.
 * const exchange = await startModelExchange({ port: 0 })
 * const res = await fetch(`${exchange.url}/api/v4/futures/usdt/orders`, {
 *   method: 'POST',
 *   headers: { KEY: 'main-key', 'Content-Type': 'application/json' },
 *   body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' }),
 * })
 * res.status // 200
 * res.headers.get('X-Gate-RateLimit-Limit') // '100'
 * res.headers.get('X-Gate-RateLimit-Requests-Remain') // '99'
 * await exchange.close()
 * ```
 */
export async function startModelExchange(options: ModelExchangeOptions = {}): Promise<RunningModelExchange> {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('exchange options', options, 'an object');
  const port = options.port ?? 0;
  if (typeof port !== 'number' || !Number.isSafeInteger(port) || port < 0 || port > 65_535)
    throw new InvalidInputError('`port`', port, 'a port from 0 to 65535');
  const bodyLimitBytes = options.bodyLimitBytes ?? 1 << 20;
  if (typeof bodyLimitBytes !== 'number' || !Number.isSafeInteger(bodyLimitBytes) || bodyLimitBytes < 1)
    throw new InvalidInputError('`bodyLimitBytes`', bodyLimitBytes, 'a positive number of bytes');
  const slowClientMs = options.slowClientMs ?? 10_000;
  if (typeof slowClientMs !== 'number' || !Number.isSafeInteger(slowClientMs) || slowClientMs < 1)
    throw new InvalidInputError('`slowClientMs`', slowClientMs, 'a positive number of milliseconds');
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host === '') throw new InvalidInputError('`host`', host, 'an address to listen on');
  const given = options.adminToken;
  if (given !== undefined && (typeof given !== 'string' || given.length < 8))
    throw new InvalidInputError('`adminToken`', given, 'a token of at least 8 characters');
  const adminToken = given ?? (isLoopback(host) ? undefined : randomBytes(18).toString('base64url'));
  const model = new ModelExchange(options, options.clock ?? microClock);
  const admin: AdminHandler = (req) => handleAdmin(model, req, adminToken);
  const server = createHttpServer(model, { bodyLimitBytes, slowClientMs }, admin);
  const wss = attachWebSocket(server, model);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${actual}`,
    wsUrl: `ws://${shown}:${actual}`,
    port: actual,
    adminToken: adminToken ?? null,
    clockStart: model.clockMode().startAt,
    stats: () => model.stats(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether `host` is a loopback address: only this machine can reach it. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1' || host === '[::1]') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}
