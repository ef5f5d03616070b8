import { type Catalog, type CatalogOptions, type Classification, createCatalog } from '../catalog/catalog.js';
import { checkTimestamp } from '../catalog/validators.js';
import { InvalidInputError } from '../errors.js';
import { isInstant } from '../internal/parse.js';
import { contractName } from '../rules/contracts.js';
import { utcDayStart } from '../rules/calendar.js';
import type { AbuseOptions } from '../rules/abuse.js';
import type { SpotFillOptions } from '../rules/spot-fill.js';
import type { FamilyOptions } from '../rules/family.js';
import type { Clock } from '../schedule/clock.js';
import { readInstant } from '../family-files/instant.js';
import type { KeyOf } from '../family-files/accounts-file.js';
import { type AccountsFile, DEFAULT_ACCOUNTS, readAccounts } from './accounts.js';
import { GATE_API, OKX_API } from '../catalog/exchange-api.js';
import { orderInstId } from './okx/instruments.js';
import { OkxVenue } from './okx/venue.js';
import { ApiError, badRequest } from './api-error.js';
import type { WindowMode } from './arrival-count.js';
import { signRequest, sameSignature } from './auth.js';
import { type Account, type CountedLimit, ModelExchangeCore, type Party } from './core.js';
import { FillModel, type FillModelOptions } from './fill-model.js';
import { readHistory } from '../family-files/history.js';
import { type Markets, type MarketsOptions, DEFAULT_MARKETS, resolveMarkets } from './markets.js';
import { MarketData, type PricesOptions } from './market-data.js';
import { type ModelExchangeStats, statsOf } from './stats.js';
import { type Admitted, PUBLIC_ROUTES, ROUTES, type Route, notAnswered } from './routes.js';
import { Trading } from './trading.js';

/** Options of the model exchange. */
export interface ModelOptions {
  /**
   * The exchange modelled: `gate` answers Gate's API v4 under `/api/v4` (see docs/rules.md#r1 to #r16), `okx` OKX's API
   * v5 under `/api/v5` (see docs/okx.md#o1 to #o11: the sub-account tier per 2 s, each instrument's limits, 50061 and
   * 50011, OK-ACCESS-* signing). The markets, accounts and fills are the same files for both.
   * @default "gate"
   */
  readonly exchange?: 'gate' | 'okx';
  /** The accounts file's content: families, accounts, keys. @default one main account, key `main-key` */
  readonly accounts?: AccountsFile;
  /** The history file's content (see `readHistory`), seeded at start and at every reset. */
  readonly history?: unknown;
  /** How "N per W" is counted (see docs/rules.md#r13). @default "sliding" */
  readonly window?: WindowMode;
  /**
   * The model's clock is `clock.wall()` plus this. Signed requests' Timestamps are checked
   * against the model's clock: an engine signing with the machine's clock is refused beyond 60 s.
   * @default 0
   */
  readonly clockOffsetMs?: number;
  /**
   * The instant the model's clock starts at (epoch ms, or ISO text with a zone): it then runs
   * from there (`speed` times as fast as `clock.wall()`). Signed requests' Timestamps are
   * checked against `clock.wall()`, the clock engines sign with, so that an unmodified engine
   * runs against a model started at any instant. Not with `clockOffsetMs`. @default the clock's
   * instant, when `speed` is given
   */
  readonly startAt?: number | string;
  /**
   * How many times faster than `clock.wall()` the model's clock runs from `startAt`: every
   * window, hour and day of the rules passes that much sooner. @default 1
   */
  readonly speed?: number;
  /** Check the SIGN header of every private request (section 5). @default false */
  readonly verifySignatures?: boolean;
  /** Abuse throttle thresholds (see docs/rules.md#r9). */
  readonly abuse?: AbuseOptions;
  /** Spot low-fill throttle thresholds and scope (see docs/rules.md#r14). */
  readonly spotFill?: SpotFillOptions;
  /** Per-endpoint limits (see docs/rules.md#r10). */
  readonly catalog?: CatalogOptions;
  /** Rating options of every family (tiers, weights, coefficients); the accounts file's `kind` and `ownVolumeThreshold` win. */
  readonly family?: FamilyOptions;
  /** What the model trades. @default DEFAULT_MARKETS */
  readonly markets?: MarketsOptions;
  /** The fill model. */
  readonly fills?: FillModelOptions;
  /** The price walks market data is read from. */
  readonly prices?: PricesOptions;
  /**
   * `shared` (the default, see docs/rules.md#r16): a WebSocket order draws on its WebSocket limit and on the REST limit
   * of the same action. `separate`: on WebSocket limits only, the tier (see docs/rules.md#r3) replacing 100 per second.
   * @default "shared"
   */
  readonly websocketBudget?: 'shared' | 'separate';
}

/** A request as the HTTP layer hands it over. */
export interface RestRequest {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  /** The query as sent, without `?`. */
  readonly query: string;
  readonly key: string | undefined;
  readonly timestamp: string | undefined;
  readonly sign: string | undefined;
  readonly body: string;
  readonly ip: string;
  /** When the request arrived (X-In-Time), on the model's clock: it counts from then (see docs/rules.md#r13). @default now */
  readonly at?: number;
  /** OKX's OK-ACCESS-PASSPHRASE (OKX's KEY, SIGN and TIMESTAMP come as `key`, `sign` and `timestamp`). */
  readonly passphrase?: string | undefined;
}

/**
 * What the rate-limit headers say (see docs/rules.md#r12) of the endpoint's binding limit: requests left, its N, and the second
 * (epoch seconds) at which a request fits again (the current second while some are left).
 */
export interface RateInForce {
  readonly remain: number;
  readonly limit: number;
  readonly reset: number;
}

/** An answer: status, JSON body and the rate-limit figures (see docs/rules.md#r12) where a limit applies. */
export interface RestResponse {
  readonly status: number;
  readonly body: unknown;
  readonly rate: RateInForce | null;
}

/** The query of a request without one: read only (`get`), never written. */
const NO_QUERY = new URLSearchParams();

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const SUB_FORBIDDEN = new Set(['POST /withdrawals', 'POST /withdrawals/push', 'POST /wallet/sub_account_transfers']);

/**
 * The model exchange behind the HTTP and WebSocket layers: identifies the caller (KEY header,
 * Timestamp (see docs/rules.md#r11), SIGN when asked), admits or refuses through the core (see docs/rules.md#r1 to #r16), runs the order
 * endpoints on the fill model and answers as API v4 does. Time is read only through `now()`.
 */
export class ModelExchange {
  readonly catalog: Catalog;
  readonly markets: Markets;
  /** Tickers, order books, trades and candles, from the price walks. */
  readonly data: MarketData;
  core!: ModelExchangeCore;
  trading!: Trading;
  /** OKX's API, when the model is OKX's (`exchange: 'okx'`); null for Gate's. */
  okx: OkxVenue | null = null;
  /** The exchange modelled. */
  readonly exchange: 'gate' | 'okx';
  private keys!: Map<string, KeyOf>;
  private readonly unidentified = new Map<string, number>();
  private readonly classified = new Map<string, Classification>();
  /** Each classification's route name and handler, found once. */
  private readonly routes = new WeakMap<Classification, Route>();

  /** With `startAt` or `speed`: the model's instant at the clock's `wallAtStart`, and the speed. */
  private readonly started: { readonly at: number; readonly wallAtStart: number; readonly speed: number } | null;

  constructor(
    readonly options: ModelOptions,
    private readonly clock: Clock,
  ) {
    if (options.window !== undefined && options.window !== 'sliding' && options.window !== 'fixed')
      throw new InvalidInputError('`window`', options.window, '"sliding" or "fixed"');
    if (options.exchange !== undefined && options.exchange !== 'gate' && options.exchange !== 'okx')
      throw new InvalidInputError('`exchange`', options.exchange, '"gate" or "okx"');
    this.exchange = options.exchange ?? 'gate';
    const offset = options.clockOffsetMs ?? 0;
    if (typeof offset !== 'number' || !Number.isFinite(offset))
      throw new InvalidInputError('`clockOffsetMs`', offset, 'a finite number of milliseconds');
    this.started = readStart(options, clock.wall());
    if (
      options.websocketBudget !== undefined &&
      options.websocketBudget !== 'shared' &&
      options.websocketBudget !== 'separate'
    ) {
      throw new InvalidInputError('`websocketBudget`', options.websocketBudget, '"shared" or "separate"');
    }
    this.catalog = createCatalog(options.catalog);
    this.markets = resolveMarkets(options.markets ?? DEFAULT_MARKETS);
    this.data = new MarketData(this.markets, options.prices ?? {}, this.now());
    this.reset();
  }

  /** The model's clock: epoch milliseconds (with a fraction). */
  now(): number {
    const s = this.started;
    return s === null
      ? this.clock.wall() + (this.options.clockOffsetMs ?? 0)
      : s.at + (this.clock.wall() - s.wallAtStart) * s.speed;
  }

  /** How the clock runs: from where, how fast, and what signed requests' Timestamps are checked against. */
  clockMode(): { readonly startAt: number | null; readonly speed: number; readonly timestamps: 'model' | 'machine' } {
    return this.started === null
      ? { startAt: null, speed: 1, timestamps: 'model' }
      : { startAt: this.started.at, speed: this.started.speed, timestamps: 'machine' };
  }

  /** Back to the start: the accounts file's families and keys, the history seeded, nothing counted. */
  reset(): void {
    const read = readAccounts(this.options.accounts ?? DEFAULT_ACCOUNTS);
    const families = read.families.map((f) => ({ ...f, options: { ...this.options.family, ...f.options } }));
    const okx = this.exchange === 'okx';
    const core = new ModelExchangeCore(families, {
      api: okx ? OKX_API : GATE_API,
      window: this.options.window ?? 'sliding',
      ...(this.options.abuse === undefined ? {} : { abuse: this.options.abuse }),
      ...(this.options.spotFill === undefined ? {} : { spotFill: this.options.spotFill }),
    });
    if (this.options.history !== undefined) core.seed(readHistory(this.options.history, this.now()));
    this.core = core;
    this.keys = new Map(read.keys);
    this.trading = new Trading(
      core,
      this.markets,
      new FillModel(this.options.fills),
      this.data,
      read.balances,
      ...(okx ? [orderInstId] : []),
    );
    this.okx = okx ? new OkxVenue(this) : null;
    this.unidentified.clear();
    this.classified.clear();
  }

  /** Adds an API key for an account (a new sub-account's). */
  addKey(key: string, secret: string, account: string, passphrase?: string): void {
    if (typeof key !== 'string' || key === '' || this.keys.has(key))
      throw new InvalidInputError('`key`', key, 'a non-empty key not yet used');
    if (typeof secret !== 'string') throw new InvalidInputError('`secret`', secret, 'a string');
    if (passphrase !== undefined && typeof passphrase !== 'string')
      throw new InvalidInputError('`passphrase`', passphrase, 'a string');
    this.keys.set(key, { account, secret, ...(passphrase === undefined ? {} : { passphrase }) });
  }

  /** The account, secret and passphrase (OKX's, when it has one) of an API key. */
  keyOf(key: string | undefined): { account: Account; secret: string; passphrase?: string } | undefined {
    const k = key === undefined ? undefined : this.keys.get(key);
    if (k === undefined) return undefined;
    const account = this.core.account(k.account);
    return k.passphrase === undefined
      ? { account, secret: k.secret }
      : { account, secret: k.secret, passphrase: k.passphrase };
  }

  stats(): ModelExchangeStats {
    return statsOf(this.core, this.now(), this.unidentified);
  }

  /** Answers one REST request. */
  handle(r: RestRequest): RestResponse {
    if (this.okx !== null) return this.okx.handle({ ...r, passphrase: r.passphrase });
    let party: Party | null = null;
    let rate: RateInForce | null = null;
    try {
      if (!r.path.startsWith('/api/v4/'))
        throw new ApiError(404, 'NOT_FOUND', `${r.path} is not a path of the API (they begin with /api/v4/)`);
      if (!METHODS.has(r.method)) throw new ApiError(405, 'METHOD_NOT_ALLOWED', `method ${r.method} is not allowed`);
      let body: unknown;
      if (r.body.length > 0) {
        try {
          body = JSON.parse(r.body);
        } catch (e) {
          throw badRequest('INVALID_REQUEST_BODY', `the body is not JSON: ${(e as Error).message}`);
        }
      }
      const query = r.query === '' ? NO_QUERY : new URLSearchParams(r.query);
      const c = this.classify(r.method, r.path, body, query);
      const route = this.routeOf(c);
      if (route.handler === undefined) throw notAnswered(c);
      const id = pathId(r.path);
      let account: Account | null = null;
      if (c.market === 'public') party = this.core.ip(r.ip);
      else {
        account = this.identify(r.key, r.timestamp, r.sign, (secret, ts) =>
          signRequest(secret, r.method, r.path, r.query, r.body, ts),
        );
        party = account;
        if (
          SUB_FORBIDDEN.has(route.name) &&
          account.family.accounts.find((a) => a.id === account!.id)?.role !== 'main'
        ) {
          throw new ApiError(403, 'FORBIDDEN', `${route.name} is not allowed for sub-account keys`);
        }
      }
      const instrument = account === null ? '' : this.instrumentOf(account, c, body, query, id);
      const at = r.at ?? this.now();
      const refused = this.core.admit(party, c, at, instrument);
      rate = this.rateOf(party, c, at, refused);
      if (refused !== null) {
        const message =
          refused.label === 'TOO_FAST'
            ? `${route.name}: at most ${refused.n} per ${refused.w / 1000} s`
            : `too many requests on ${refused.key}: at most ${refused.n} per ${refused.w / 1000} s`;
        return { status: 429, body: { label: refused.label, message }, rate };
      }
      const result = route.handler(this, account, { c, body, query, id, at });
      return { status: 200, body: result, rate };
    } catch (e) {
      if (e instanceof ApiError) {
        this.noteRefusal(party ?? e.account, e.label!);
        return { status: e.status, body: e.body(), rate };
      }
      throw e;
    }
  }

  /** Counts a refusal once: on the account (or IP) it was made for, else as unidentified. */
  noteRefusal(party: Party | null, label: string): void {
    if (party === null) this.unidentified.set(label, (this.unidentified.get(label) ?? 0) + 1);
    else this.core.noteRefusal(party, label);
  }

  /**
   * Runs an admitted order request of `account` (over WebSocket) on its endpoint; `id` is the
   * order id as given (not percent-encoded).
   */
  execute(account: Account, c: Classification, body: unknown, query: URLSearchParams, id: string, at: number): unknown {
    const { handler } = this.routeOf(c);
    if (handler === undefined) throw notAnswered(c);
    return handler(this, account, { c, body, query, id, at });
  }

  private routeOf(c: Classification): Route {
    let route = this.routes.get(c);
    if (route === undefined) {
      const name = `${c.method} ${c.endpoint}`;
      const pub = c.market === 'public' ? PUBLIC_ROUTES.get(name) : undefined;
      const own = c.market === 'public' ? undefined : ROUTES.get(name);
      const handler =
        pub !== undefined
          ? (m: ModelExchange, _a: Account | null, r: Admitted) => pub(m, r)
          : own !== undefined
            ? (m: ModelExchange, a: Account | null, r: Admitted) => own(m, a!, r)
            : undefined;
      this.routes.set(c, (route = { name, handler }));
    }
    return route;
  }

  /** The rate-limit figures (see docs/rules.md#r12) for the endpoint's binding limit: the refusing one, else the one with fewest left; null where no limit applies. */
  rateOf(party: Party, c: Classification, at: number, refused: CountedLimit | null): RateInForce | null {
    let pick = refused;
    let left = Infinity;
    if (pick === null) {
      for (const l of this.core.limitsOf(party, c)) {
        if (!Number.isFinite(l.n)) continue;
        const rest = l.n - l.count.used(at, l.w);
        if (rest < left) {
          left = rest;
          pick = l;
        }
      }
    } else left = Math.max(0, pick.n - pick.count.used(at, pick.w));
    if (pick === null) return null;
    const reset =
      left > 0 && refused === null
        ? Math.floor(at / 1000)
        : Math.ceil(pick.count.freeAt(at, refused === null ? 1 : c.weight, pick.n, pick.w) / 1000);
    return { remain: Math.max(0, left), limit: pick.n, reset: Number.isFinite(reset) ? reset : Math.floor(at / 1000) };
  }

  /** GET /account/rate_limit (see docs/rules.md#r16): the tier in force, the account's own and the family's ratio at the latest snapshot. */
  rateLimitReport(account: Account, at: number): unknown[] {
    const family = this.core.familyInForce(account.family, at);
    const f = this.core.inForce(account, at);
    const two = (r: { ratio: { toFixed(n: number): string } | null } | null | undefined) => r?.ratio?.toFixed(2) ?? '0';
    return [
      {
        type: 'futures',
        tier: String(f.tier.tier),
        ratio: two(f.rating?.own),
        main_ratio: two(family.aggregated),
        updated_at: String(Math.floor((family.snapshotAt ?? utcDayStart(Math.floor(at))) / 1000)),
      },
    ];
  }

  /**
   * The account of a signed request: its KEY, then (with `verifySignatures`) its SIGN against
   * `signed(secret)`, then its Timestamp within 60 s of the model's clock (see docs/rules.md#r11). Refused with
   * INVALID_CREDENTIALS (no KEY, Timestamp nor SIGN), MISSING_REQUIRED_HEADER, INVALID_KEY,
   * INVALID_SIGNATURE, INVALID_PARAM_VALUE (a Timestamp that is not a number) or REQUEST_EXPIRED;
   * a refusal made once the key is known names its account (`ApiError.account`).
   */
  identify(
    key: string | undefined,
    timestamp: string | undefined,
    sign: string | undefined,
    signed: (secret: string, timestamp: string) => string,
  ): Account {
    if (key === undefined || key === '') {
      if (timestamp === undefined && sign === undefined)
        throw new ApiError(
          401,
          'INVALID_CREDENTIALS',
          'no credentials: a private endpoint takes the KEY, Timestamp and SIGN headers',
        );
      throw new ApiError(
        401,
        'MISSING_REQUIRED_HEADER',
        `the KEY header is ${key === undefined ? 'missing' : 'empty'}`,
      );
    }
    const k = this.keys.get(key);
    if (k === undefined) throw new ApiError(401, 'INVALID_KEY', `API key ${JSON.stringify(key)} is not known`);
    const account = this.core.account(k.account);
    const refuse = (status: number, label: string, message: string): ApiError =>
      Object.assign(new ApiError(status, label, message), { account });
    if (this.options.verifySignatures === true) {
      if (timestamp === undefined || sign === undefined)
        throw refuse(
          401,
          'MISSING_REQUIRED_HEADER',
          `missing ${timestamp === undefined ? 'Timestamp' : 'SIGN'} header`,
        );
      if (!sameSignature(signed(k.secret, timestamp), sign))
        throw refuse(401, 'INVALID_SIGNATURE', 'the signature does not match the request');
    }
    if (timestamp !== undefined) {
      const ts = TIMESTAMP_TEXT.test(timestamp) ? Number(timestamp) : Number.NaN;
      if (!Number.isFinite(ts))
        throw refuse(
          400,
          'INVALID_PARAM_VALUE',
          `Timestamp ${JSON.stringify(timestamp)}: Unix seconds, such as 1795338001 or 1795338001.123`,
        );
      const server = this.signedNow() / 1000;
      const check = isInstant(Math.floor(ts * 1000)) ? checkTimestamp(ts, server) : null;
      if (check === null || !check.ok) {
        throw refuse(
          401,
          'REQUEST_EXPIRED',
          check === null
            ? `Timestamp ${timestamp} is not within 60 s of server time (${Math.floor(server)})`
            : check.message,
        );
      }
    }
    return account;
  }

  /**
   * The instant signed requests' Timestamps are checked against (see docs/rules.md#r11): the model's clock, or,
   * when it was started elsewhere (`startAt`, `speed`), the clock engines sign with.
   */
  signedNow(): number {
    return this.started === null ? this.now() : this.clock.wall();
  }

  /** Classifies a request (see docs/rules.md#r10); classifications are kept by route and the body fields they read. */
  classify(method: string, path: string, body: unknown, query: URLSearchParams): Classification {
    const pair = query.get('currency_pair');
    const read =
      body === undefined && pair !== null && path.startsWith('/api/v4/spot/') ? { currency_pair: pair } : body;
    // Order ids at the end of a path share one classification; most paths end in a letter.
    const last = path.charCodeAt(path.length - 1);
    const key = `${method} ${last >= 48 && last <= 57 ? path.replace(/\/\d+$/, '/0') : path}\n${sketch(read)}`;
    let c = this.classified.get(key);
    if (c === undefined) {
      try {
        c = this.catalog.classify(method, path, read);
      } catch (e) {
        if (!(e instanceof InvalidInputError)) throw e;
        if (e.field === 'path') throw new ApiError(404, 'NOT_FOUND', `${path} is not a path of the API v4`);
        throw badRequest('INVALID_REQUEST_BODY', e.message);
      }
      if (this.classified.size >= 10_000) this.classified.clear();
      this.classified.set(key, c);
    }
    return c;
  }

  /** The contract or pair an order request counts under (see docs/rules.md#r1): named in the body or query, or the order's own. */
  instrumentOf(account: Account, c: Classification, body: unknown, query: URLSearchParams, id: string): string {
    if (c.action === 'other') return '';
    // A name that is no contract's or pair's (`NOPE`) is counted as unnamed: the endpoint refuses it after.
    if (c.instrument !== undefined) return contractName(c.instrument) ?? '';
    const named = query.get('contract') ?? query.get('currency_pair');
    if (named !== null) return contractName(named) ?? '';
    const first = Array.isArray(body) ? body[0] : undefined;
    const orderId = c.endpoint.endsWith('{order_id}')
      ? id
      : typeof first === 'object' && first !== null
        ? ((first as { order_id?: unknown; id?: unknown }).order_id ?? (first as { id?: unknown }).id)
        : first;
    return this.trading.contractOfOrder(account.id, orderId) ?? '';
  }
}

/** Reads `startAt` and `speed`: null when neither is given. */
function readStart(options: ModelOptions, wall: number): { at: number; wallAtStart: number; speed: number } | null {
  if (options.startAt === undefined && options.speed === undefined) return null;
  if (options.clockOffsetMs !== undefined && options.clockOffsetMs !== 0) {
    throw new InvalidInputError(
      '`clockOffsetMs`',
      options.clockOffsetMs,
      'none with `startAt` or `speed` (the clock starts at `startAt`)',
    );
  }
  const speed = options.speed ?? 1;
  if (typeof speed !== 'number' || !(speed > 0 && speed <= 10_000))
    throw new InvalidInputError('`speed`', speed, 'a number above 0, at most 10000');
  const at = options.startAt === undefined ? wall : readInstant(options.startAt, '`startAt`');
  return { at, wallAtStart: wall, speed };
}

/** A Timestamp header's text: a number of seconds as a client writes one (`1795338001`, `1795338001.123`, `1.795e9`). */
const TIMESTAMP_TEXT = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/** The last segment of a path, percent-decoded: an order id. Refused before anything is counted when it cannot be decoded. */
function pathId(path: string): string {
  const raw = path.slice(path.lastIndexOf('/') + 1);
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badRequest('INVALID_PARAM_VALUE', `${JSON.stringify(raw)} is not percent-encoded text`);
  }
}

/** The body fields a classification reads: pairs, contracts, account types and a batch's size. */
function sketch(body: unknown): string {
  if (Array.isArray(body)) return `${body.length}:${body.map((o) => sketch1(o)).join(',')}`;
  return sketch1(body);
}

function sketch1(o: unknown): string {
  if (typeof o !== 'object' || o === null) return '';
  const x = o as { currency_pair?: unknown; contract?: unknown; account?: unknown };
  return `${typeof x.currency_pair === 'string' ? x.currency_pair : ''}|${typeof x.contract === 'string' ? x.contract : ''}|${x.account === 'margin' ? 'm' : ''}`;
}
