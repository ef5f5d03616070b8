import { InvalidInputError } from '../errors.js';
import { normalizeContract } from '../rules/contracts.js';
import type { Dec, DecimalInput } from '../internal/decimal.js';
import { futuresFillVolume } from '../rules/fill-volume.js';
import { parseDecimal, parseNonNegativeDecimal, parsePositiveDecimal } from '../internal/parse.js';
import type { AccountLimiter } from './limiter.js';
import type { FillRole } from './tracker.js';

/**
 * A row of GET /futures/{settle}/my_trades (its id `id`) or of GET
 * /futures/{settle}/my_trades_timerange (its id `trade_id`).
 *
 * @example
 * ```ts
 * import { AccountLimiter, type FuturesTradeRow, recordTrades } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * const row: FuturesTradeRow = { id: 1, contract: 'BTC_USDT', size: -20, price: '60000', role: 'taker' }
 * recordTrades(limiter, 'main', [row], { multipliers: { BTC_USDT: '0.0001' } }) // { recorded: 1, duplicates: 0 }
 * limiter.abuseHeadroom('main').traded // '120'
 * // The same fill from my_trades_timerange, whose rows name it `trade_id`: counted once.
 * const timerange: FuturesTradeRow = { trade_id: '1', contract: 'BTC_USDT', size: '-20', price: '60000', role: 'taker' }
 * recordTrades(limiter, 'main', [timerange], { multipliers: { BTC_USDT: '0.0001' } }) // { recorded: 0, duplicates: 1 }
 * limiter.close()
 * ```
 */
export type FuturesTradeRow = {
  readonly contract: string;
  readonly size: string | number;
  readonly price: string | number;
  readonly role: FillRole;
} & TradeId;

// A trade's id as the exchange writes it: `id` in the rows of `my_trades` and the user-trades
// channels, `trade_id` in the rows of GET /futures/{settle}/my_trades_timerange.
type TradeId =
  | { readonly id: string | number; readonly trade_id?: string | number | undefined }
  | { readonly id?: undefined; readonly trade_id: string | number };

/**
 * A row of GET /spot/my_trades.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type SpotTradeRow, recordTrades } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * const row: SpotTradeRow = { id: 7, currency_pair: 'BTC_USDT', amount: '0.01', price: '60000', role: 'maker' }
 * recordTrades(limiter, 'main', [row, row]) // { recorded: 1, duplicates: 1 }
 * limiter.spotFillHeadroom('main').traded // '600'
 * limiter.close()
 * ```
 */
export type SpotTradeRow = {
  readonly currency_pair: string;
  readonly amount: string | number;
  readonly price: string | number;
  readonly role: FillRole;
} & TradeId;

/**
 * `quanto_multiplier` by futures contract traded (USDT-margined).
 *
 * @example
 * ```ts
 * import { AccountLimiter, type RecordTradesOptions, recordTrades } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * const options: RecordTradesOptions = { multipliers: { BTC_USDT: '0.0001', ETH_USDT: '0.01' } }
 * const rows = [{ id: 1, contract: 'ETH_USDT', size: 3, price: '3000', role: 'maker' as const }]
 * recordTrades(limiter, 'main', rows, options) // { recorded: 1, duplicates: 0 }
 * limiter.abuseHeadroom('main').traded // '90'
 * limiter.close()
 * ```
 */
export interface RecordTradesOptions {
  readonly multipliers?: Readonly<Record<string, DecimalInput>>;
}

// Trade ids remembered per limiter and account.
const REMEMBERED_TRADES = 100_000;

const seen = new WeakMap<AccountLimiter, Map<string, Set<string>>>();
// Multipliers given before, per limiter: a source of fills that has none (a WebSocket stream) uses
// those a REST answer came with.
const knownMultipliers = new WeakMap<AccountLimiter, Map<string, Dec>>();

/**
 * A message of the WebSocket user-trades channels (`futures.usertrades`, `spot.usertrades`): an
 * `update` carries the account's new fills in `result`, each with the fields of a `my_trades` row
 * (`id`, `contract` and `size` or `currency_pair` and `amount`, `price`, `role`).
 *
 * @example
 * ```ts
 * import { AccountLimiter, type UserTradesMessage, recordTrades } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * const fill = { id: 9, currency_pair: 'ETH_USDT', amount: '2', price: '3000', role: 'taker' }
 * const message: UserTradesMessage = { channel: 'spot.usertrades', event: 'update', result: [fill] }
 * recordTrades(limiter, 'main', message) // { recorded: 1, duplicates: 0 }
 * recordTrades(limiter, 'main', { ...message, event: 'subscribe' }) // { recorded: 0, duplicates: 0 }
 * limiter.close()
 * ```
 */
export interface UserTradesMessage {
  readonly channel: string;
  readonly event?: string;
  readonly result?: unknown;
}

const USER_TRADES: Readonly<Record<string, 'futures' | 'spot'>> = {
  'futures.usertrades': 'futures',
  'spot.usertrades': 'spot',
};

/**
 * Records fills with `limiter.recordFill`, now, each trade id once (the last 100,000 per account,
 * one memory for both sources: a REST catch-up and the live stream may overlap): `my_trades` rows,
 * or a WebSocket user-trades message (an `update`; its other events record nothing). Futures at
 * |size| x multiplier x price USDT, spot at amount x price (see docs/rules.md#r1, #r9, #r14); a multiplier given once
 * is remembered for the limiter, for fills given later without it. Exact; a bad row refuses all.
 *
 * @example
 * ```ts
 * import { AccountLimiter, recordTrades } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * const rows = [
 *   { id: 1, contract: 'BTC_USDT', size: 10, price: '60000', role: 'maker' as const },
 *   { id: 2, contract: 'BTC_USDT', size: -5, price: '60100', role: 'taker' as const },
 * ]
 * recordTrades(limiter, 'main', rows, { multipliers: { BTC_USDT: '0.0001' } }) // { recorded: 2, duplicates: 0 }
 * // The live stream repeats a fill the REST catch-up had: counted once.
 * const update = { channel: 'futures.usertrades', event: 'update', result: [rows[1]] }
 * recordTrades(limiter, 'main', update, { multipliers: { BTC_USDT: '0.0001' } }) // { recorded: 0, duplicates: 1 }
 * limiter.close()
 * ```
 */
export function recordTrades(
  limiter: AccountLimiter,
  account: string,
  trades: readonly (FuturesTradeRow | SpotTradeRow)[] | UserTradesMessage,
  options: RecordTradesOptions = {},
): { readonly recorded: number; readonly duplicates: number } {
  limiter.limitNow(account);
  const rows = tradeRows(trades);
  if (typeof options !== 'object' || options === null) throw new InvalidInputError('the options', options, 'an object');
  const multipliers = new Map<string, Dec>();
  for (const [name, m] of Object.entries(options.multipliers ?? {})) {
    multipliers.set(
      normalizeContract(name, 'a contract of `multipliers`'),
      parsePositiveDecimal(m, `\`multipliers.${name}\``),
    );
  }
  let known = knownMultipliers.get(limiter);
  if (known === undefined) knownMultipliers.set(limiter, (known = new Map()));
  const fills = rows.map((row, i) => {
    const at = `\`trades[${i}]`;
    if (typeof row !== 'object' || row === null) throw new InvalidInputError(`${at}\``, row, 'an object');
    const { role } = row;
    // my_trades_timerange writes the id as `trade_id`; the other answers as `id`.
    const named = row.id === undefined && row.trade_id !== undefined ? 'trade_id' : 'id';
    const id = row[named];
    if (!(typeof id === 'string' ? id !== '' : Number.isSafeInteger(id)))
      throw new InvalidInputError(`${at}.${named}\``, id, 'a trade id');
    if (role !== 'maker' && role !== 'taker') throw new InvalidInputError(`${at}.role\``, role, '"maker" or "taker"');
    const price = parseNonNegativeDecimal(row.price, `${at}.price\``);
    if ('currency_pair' in row) {
      const pair = normalizeContract(row.currency_pair, `${at}.currency_pair\``);
      return {
        key: `spot:${id}`,
        contract: pair,
        role,
        market: 'spot' as const,
        volume: parseNonNegativeDecimal(row.amount, `${at}.amount\``).times(price),
      };
    }
    const contract = normalizeContract(row.contract, `${at}.contract\``);
    const multiplier = multipliers.get(contract) ?? known.get(contract);
    if (multiplier === undefined)
      throw new InvalidInputError(`\`multipliers.${contract}\``, undefined, 'its quanto_multiplier');
    const volume = futuresFillVolume(parseDecimal(row.size, `${at}.size\``), multiplier, price);
    return { key: `futures:${id}`, contract, role, market: 'futures' as const, volume };
  });
  for (const [contract, m] of multipliers) known.set(contract, m);
  let byAccount = seen.get(limiter);
  if (byAccount === undefined) seen.set(limiter, (byAccount = new Map()));
  let ids = byAccount.get(account);
  if (ids === undefined) byAccount.set(account, (ids = new Set()));
  let recorded = 0;
  for (const f of fills) {
    if (ids.has(f.key)) continue;
    limiter.recordFill(account, { contract: f.contract, role: f.role, volume: f.volume.toFixed(), market: f.market });
    ids.add(f.key);
    // A Set iterates in insertion order: the first is the oldest.
    if (ids.size > REMEMBERED_TRADES) ids.delete(ids.values().next().value!);
    recorded++;
  }
  return { recorded, duplicates: fills.length - recorded };
}

/** The rows of `my_trades`, or of a user-trades message (each row checked for the channel's market). */
function tradeRows(trades: unknown): readonly (FuturesTradeRow | SpotTradeRow)[] {
  if (Array.isArray(trades)) return trades;
  const m = trades as Partial<UserTradesMessage> | null;
  const market =
    typeof m === 'object' && m !== null && typeof m.channel === 'string' && Object.hasOwn(USER_TRADES, m.channel)
      ? USER_TRADES[m.channel]
      : undefined;
  if (market === undefined)
    throw new InvalidInputError(
      'the trades',
      trades,
      'an array of my_trades rows or a futures.usertrades or spot.usertrades message',
    );
  if (m!.event !== 'update') return [];
  if (!Array.isArray(m!.result))
    throw new InvalidInputError('the `result` of the user-trades update', m!.result, 'an array of trades');
  m!.result.forEach((row: unknown, i) => {
    const named = typeof row === 'object' && row !== null && (market === 'spot' ? 'currency_pair' : 'contract') in row;
    if (!named) throw new InvalidInputError(`\`result[${i}]\` of ${m!.channel}`, row, `a ${market} trade`);
  });
  return m!.result as (FuturesTradeRow | SpotTradeRow)[];
}
