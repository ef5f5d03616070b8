import { createCatalog } from './catalog.js';
import type { Classification, Market } from './catalog.js';
import {
  BASE_SUB_ACCOUNT_LIMIT,
  OKX_REFUSAL_CODES,
  OKX_SUB_ACCOUNT_LIMIT,
  classifyOkx,
  classifyOkxOrders,
} from './okx.js';
import { contractName } from '../rules/contracts.js';
import { GATE } from '../rules/gate/rulebook.js';
import { OKX } from '../rules/okx/rulebook.js';
import { readInstrument } from '../rules/okx/instruments.js';
import type { Rulebook } from '../rules/rulebook.js';
import { UNNAMED_PAIR } from '../rules/spot-fill.js';

/** Where the exchange counts an order request or a fill: its tracker and the instrument's name there. */
export interface Tracked {
  /** `futures`: the activity the ratio (and Gate's abuse throttle) reads; `spot`: Gate's spot low-fill throttle's. */
  readonly tracker: 'futures' | 'spot';
  readonly name: string;
}

/**
 * An exchange's API as the model exchange's core, `simulate` and `advise` read it, beside its rulebook:
 * how a request is classified, which limit's N is the tier in force, how a refusal is labelled,
 * and where order requests and fills are counted. Gate's ({@link GATE_API}) and OKX's
 * ({@link OKX_API}) are two values of it; the core and the replay never ask which exchange.
 */
export interface ExchangeApi {
  readonly rulebook: Rulebook;
  /** Classifies a request of a log: method, path and a body naming the instrument (`contract`, `currency_pair`, `instId`). */
  classify(method: string, path: string, body?: unknown): Classification;
  /**
   * Classifies a request order by order: the orders of a batch grouped by the limits they draw
   * on (OKX: by instrument), each group with its classification. One group where the request
   * draws on its limits whole (Gate, and every read).
   */
  classifyGroups(method: string, path: string, body?: unknown): readonly OrderGroup[];
  /** The key of the limit whose N is the tier in force, as a request log draws on it. */
  readonly tierKey: string;
  /** Every key whose N is the tier in force (REST and WebSocket budgets). */
  readonly tierKeys: ReadonlySet<string>;
  /** The exchange's label of a refusal by the limit `key`. */
  refusalLabel(key: string): string;
  /**
   * How refusals are told: Gate answers every one with HTTP 429 (null); OKX with a code in the
   * body, one per limit (`50061` for the sub-account limit, `50011` for the others).
   */
  readonly codes: string | null;
  /**
   * Whether each order of a batch is answered apart (OKX's `sCode`): the orders that fit are
   * admitted and each refused order is a refusal of its own. Gate: false, a batch is admitted or
   * refused whole.
   */
  readonly ordersApart: boolean;
  /** Where an order request is counted (null: not counted), its instrument as the log names it. */
  requestTracked(c: Classification, instrument: string): Tracked | null;
  /** Where a fill is counted: the market its path says, its instrument as the log names it. */
  fillTracked(market: Market, instrument: string): Tracked;
  /**
   * An instrument as the rulebook reads it, from the name a tracker keeps it under (its contract
   * names are Gate's shape); null where the tracker keeps the exchange's own names (Gate).
   */
  readonly activityName: ((name: string) => string) | null;
  /** An instrument of seeded history (as the rulebook reads it), as the tracker keeps it. */
  seedName(instrument: string): string;
}

/** Orders of a request that draw on the same limits: their places in the body, and their classification. */
export interface OrderGroup {
  readonly orders: readonly number[];
  readonly c: Classification;
}

const GATE_TOO_FAST_KEYS = new Set(['withdrawals', 'withdrawals.push']);
const gateCatalog = createCatalog();

/** Gate's API v4 (see docs/rules.md#r10): its catalogue, the futures placement limit, 429 for every refusal. */
export const GATE_API: ExchangeApi = Object.freeze({
  rulebook: GATE,
  classify: (method: string, path: string, body?: unknown) => gateCatalog.classify(method, path, body),
  classifyGroups(method: string, path: string, body?: unknown): readonly OrderGroup[] {
    const c = gateCatalog.classify(method, path, body);
    return [{ orders: Array.from({ length: c.orders }, (_, i) => i), c }];
  },
  tierKey: 'futures.place',
  tierKeys: new Set(['futures.place', 'ws.futures.place']),
  refusalLabel: (key: string) => (GATE_TOO_FAST_KEYS.has(key) ? 'TOO_FAST' : 'TOO_MANY_REQUESTS'),
  codes: null,
  ordersApart: false,
  requestTracked(c: Classification, instrument: string): Tracked | null {
    if (c.action === 'other') return null;
    if (c.market === 'futures') return { tracker: 'futures', name: instrument === '' ? 'BTC_USDT' : instrument };
    if (c.market === 'spot') return { tracker: 'spot', name: contractName(instrument) ?? UNNAMED_PAIR };
    return null;
  },
  fillTracked: (market: Market, instrument: string): Tracked => ({
    tracker: market === 'spot' ? 'spot' : 'futures',
    name: instrument,
  }),
  activityName: null,
  seedName: (instrument: string) => instrument,
});

/**
 * An OKX instrument id as a tracker keeps names (a contract name of capitals, digits and
 * underscores): `BTC-USDT-SWAP` as `BTC_USDT_SWAP`, an option's strike `0.5` as `0D5`.
 */
function trackerName(id: string): string {
  return id.replaceAll('-', '_').replaceAll('.', 'D');
}

/** The OKX instrument id of a name {@link trackerName} gave. */
function instrumentId(name: string): string {
  const parts = name.split('_');
  // Only an option's strike (the fourth of five parts) can hold a decimal point.
  if (parts.length === 5) parts[3] = parts[3]!.replace(/^(\d+)D(\d+)$/, '$1.$2');
  return parts.join('-');
}

/**
 * OKX's API v5 (see docs/okx.md#o4, #o5, #o8): its endpoint table, the sub-account limit of new
 * and amend orders, 50061 and 50011; every order request and fill of every kind counted for the
 * ratio (spot orders are exempt from the limit, not from the ratio).
 */
export const OKX_API: ExchangeApi = Object.freeze({
  rulebook: OKX,
  classify: (method: string, path: string, body?: unknown) => classifyOkx(method, path, body, BASE_SUB_ACCOUNT_LIMIT),
  classifyGroups: (method: string, path: string, body?: unknown) =>
    classifyOkxOrders(method, path, body, BASE_SUB_ACCOUNT_LIMIT),
  tierKey: OKX_SUB_ACCOUNT_LIMIT.key,
  tierKeys: new Set([OKX_SUB_ACCOUNT_LIMIT.key]),
  refusalLabel: (key: string) =>
    key === OKX_SUB_ACCOUNT_LIMIT.key ? OKX_REFUSAL_CODES.subAccount : OKX_REFUSAL_CODES.other,
  codes: `${OKX_REFUSAL_CODES.subAccount} (sub-account limit) or ${OKX_REFUSAL_CODES.other} (rate limit)`,
  ordersApart: true,
  requestTracked: (c: Classification, instrument: string): Tracked | null =>
    c.action === 'other' ? null : { tracker: 'futures', name: trackerName(c.instrument ?? instrument) },
  fillTracked: (_market: Market, instrument: string): Tracked => ({
    tracker: 'futures',
    name: trackerName(readInstrument(instrument).id),
  }),
  activityName: instrumentId,
  seedName: (instrument: string) => trackerName(readInstrument(instrument).id),
});

/**
 * An OKX instrument id as an account limiter's tracker keeps it, refused naming `field` when no
 * kind's shape fits it (see docs/okx.md#o3).
 */
export function okxTrackerName(id: unknown, field: string): string {
  return trackerName(readInstrument(id, undefined, field).id);
}

/**
 * Activity of a tracker (days or a ratio window, each contract by name) with the instrument names
 * the rulebook reads: itself where the tracker keeps the exchange's own names (Gate).
 */
export function namedFor<T extends { readonly contract: string }>(
  rulebook: Rulebook,
  contracts: readonly T[],
): readonly T[] {
  const name = apiOf(rulebook).activityName;
  return name === null ? contracts : contracts.map((c) => ({ ...c, contract: name(c.contract) }));
}

/** The APIs by their rulebook's name. */
const APIS: readonly ExchangeApi[] = [GATE_API, OKX_API];

/** The API of a rulebook (by its name: a variant of OKX's rulebook is read with OKX's API). */
export function apiOf(rulebook: Rulebook): ExchangeApi {
  const api = APIS.find((a) => a.rulebook.name === rulebook.name);
  if (api === undefined) throw new Error(`no API is known for the rulebook "${rulebook.name}"`);
  return api;
}
