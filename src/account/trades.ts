import { InvalidInputError } from '../errors.js';
import { normalizeContract } from '../rules/contracts.js';
import type { Dec, DecimalInput } from '../rules/decimal.js';
import { futuresFillVolume } from '../rules/fill-volume.js';
import { parseDecimal, parseNonNegativeDecimal, parsePositiveDecimal } from '../rules/parse.js';
import type { AccountLimiter } from './limiter.js';
import type { FillRole } from './tracker.js';

/** A row of GET /futures/{settle}/my_trades. */
export interface FuturesTradeRow {
  readonly id: string | number;
  readonly contract: string;
  readonly size: string | number;
  readonly price: string | number;
  readonly role: FillRole;
}

/** A row of GET /spot/my_trades. */
export interface SpotTradeRow {
  readonly id: string | number;
  readonly currency_pair: string;
  readonly amount: string | number;
  readonly price: string | number;
  readonly role: FillRole;
}

/** `quanto_multiplier` by futures contract traded (USDT-margined). */
export interface RecordTradesOptions {
  readonly multipliers?: Readonly<Record<string, DecimalInput>>;
}

// Trade ids remembered per limiter and account.
const REMEMBERED_TRADES = 100_000;

const seen = new WeakMap<AccountLimiter, Map<string, Set<string>>>();

/**
 * Records `my_trades` rows with `limiter.recordFill`, now, each trade id once (the last 100,000 per
 * account: a REST catch-up and a stream may overlap): futures at |size| x multiplier x price USDT,
 * spot rows at amount x price (R1, R9, R14). Exact; a bad row refuses all.
 *
 * @example
 * ```ts
 * recordTrades(limiter, 'main', rows, { multipliers: { BTC_USDT: '0.0001' } }) // { recorded: 2, duplicates: 0 }
 * ```
 */
export function recordTrades(limiter: AccountLimiter, account: string, rows: readonly (FuturesTradeRow | SpotTradeRow)[], options: RecordTradesOptions = {}): { readonly recorded: number; readonly duplicates: number } {
  limiter.limitNow(account);
  if (!Array.isArray(rows)) throw new InvalidInputError('the trades', rows, 'an array');
  if (typeof options !== 'object' || options === null) throw new InvalidInputError('the options', options, 'an object');
  const multipliers = new Map<string, Dec>();
  for (const [name, m] of Object.entries(options.multipliers ?? {})) {
    multipliers.set(normalizeContract(name, 'a contract of `multipliers`'), parsePositiveDecimal(m, `\`multipliers.${name}\``));
  }
  const fills = rows.map((row, i) => {
    const at = `\`trades[${i}]`;
    if (typeof row !== 'object' || row === null) throw new InvalidInputError(`${at}\``, row, 'an object');
    const { id, role } = row;
    if (!(typeof id === 'string' ? id !== '' : Number.isSafeInteger(id))) throw new InvalidInputError(`${at}.id\``, id, 'a trade id');
    if (role !== 'maker' && role !== 'taker') throw new InvalidInputError(`${at}.role\``, role, '"maker" or "taker"');
    const price = parseNonNegativeDecimal(row.price, `${at}.price\``);
    if ('currency_pair' in row) {
      const pair = normalizeContract(row.currency_pair, `${at}.currency_pair\``);
      return { key: `spot:${id}`, contract: pair, role, market: 'spot' as const, volume: parseNonNegativeDecimal(row.amount, `${at}.amount\``).times(price) };
    }
    const contract = normalizeContract(row.contract, `${at}.contract\``);
    const multiplier = multipliers.get(contract);
    if (multiplier === undefined) throw new InvalidInputError(`\`multipliers.${contract}\``, undefined, 'its quanto_multiplier');
    const volume = futuresFillVolume(parseDecimal(row.size, `${at}.size\``), multiplier, price);
    return { key: `futures:${id}`, contract, role, market: 'futures' as const, volume };
  });
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
