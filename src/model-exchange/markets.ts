import { InvalidInputError } from '../errors.js';
import { Dec } from '../internal/decimal.js';
import { normalizeContract } from '../rules/contracts.js';
import { parsePositiveDecimal } from '../internal/parse.js';

/**
 * A futures contract the model trades: its quanto multiplier and reference price.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0, markets: { futures: { usdt: { XRP_USDT: { multiplier: '10', price: '0.5' } } } } })
 * const contract = await (await fetch(`${exchange.url}/api/v4/futures/usdt/contracts/XRP_USDT`)).json()
 * contract.quanto_multiplier // '10'
 * contract.order_price_round // '0.000001'
 * await exchange.close()
 * ```
 */
export interface ContractSpec {
  /** Contract size: one contract is `multiplier` of the base currency (USD for an inverse one). */
  readonly multiplier: string;
  /** The price the walk starts from at 00:00 UTC of the day the model starts (docs/model-exchange.md, Prices). */
  readonly price: string;
  /** Inverse contracts (settled in BTC or USD) are quoted in USD: a contract is `multiplier` USD. @default false */
  readonly inverse?: boolean;
  /** The price step (`order_price_round`). @default 10^(e − 5) for a price of about 10^e: 0.1 at 60000 */
  readonly tick?: string;
}

/**
 * A spot currency pair the model trades: its reference price and, optionally, its precision.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0, markets: { spot: { XRP_USDT: { price: '0.5', tick: '0.0001', amountPrecision: 1 } } } })
 * const pair = await (await fetch(`${exchange.url}/api/v4/spot/currency_pairs/XRP_USDT`)).json()
 * pair.precision // 4
 * pair.amount_precision // 1
 * pair.min_base_amount // '0.1'
 * await exchange.close()
 * ```
 */
export interface PairSpec {
  /** The price the walk starts from at 00:00 UTC of the day the model starts, and market orders' price then. */
  readonly price: string;
  /** The price step (`precision` is its number of decimals). @default as a contract's tick */
  readonly tick?: string;
  /** Decimals of an amount (`amount_precision`); the smallest amount is one unit of the last. @default e + 2 for a price of about 10^e, at least 0 */
  readonly amountPrecision?: number;
  /** The smallest order value in the quote currency (`min_quote_amount`). @default "1" */
  readonly minQuote?: string;
}

/**
 * What the model trades: futures contracts per settlement currency, and spot currency pairs. Given,
 * it replaces the default markets (BTC, ETH, SOL and DOGE against USDT; BTC_USD inverse).
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const exchange = await startModelExchange({ port: 0, markets: {
 *   futures: { usdt: { BTC_USDT: { multiplier: '0.0001', price: '60000' }, XRP_USDT: { multiplier: '10', price: '0.5' } } },
 *   spot: { XRP_USDT: { price: '0.5' } },
 * } })
 * const contracts = await (await fetch(`${exchange.url}/api/v4/futures/usdt/contracts`)).json()
 * contracts.map((c: { name: string }) => c.name) // ['BTC_USDT', 'XRP_USDT']
 * await exchange.close()
 * ```
 */
export interface MarketsOptions {
  /** Contracts per settlement currency (`usdt`, `btc`, `usd`). */
  readonly futures?: Readonly<Record<string, Readonly<Record<string, ContractSpec>>>>;
  /** Spot currency pairs and their reference prices. */
  readonly spot?: Readonly<Record<string, PairSpec>>;
}

/** The default markets. */
export const DEFAULT_MARKETS: MarketsOptions = Object.freeze({
  futures: {
    usdt: {
      BTC_USDT: { multiplier: '0.0001', price: '60000' },
      ETH_USDT: { multiplier: '0.01', price: '3000' },
      SOL_USDT: { multiplier: '1', price: '150' },
      DOGE_USDT: { multiplier: '10', price: '0.15' },
    },
    btc: { BTC_USD: { multiplier: '1', price: '60000', inverse: true } },
    usd: { BTC_USD: { multiplier: '1', price: '60000', inverse: true } },
  },
  spot: {
    BTC_USDT: { price: '60000' },
    ETH_USDT: { price: '3000' },
    SOL_USDT: { price: '150' },
    DOGE_USDT: { price: '0.15' },
  },
});

/** A resolved contract. */
export interface Contract {
  readonly name: string;
  readonly settle: string;
  readonly multiplier: Dec;
  readonly price: Dec;
  readonly inverse: boolean;
  readonly tick: Dec;
}

/** A resolved currency pair. */
export interface Pair {
  readonly name: string;
  readonly base: string;
  readonly quote: string;
  readonly price: Dec;
  readonly tick: Dec;
  readonly amountPrecision: number;
  readonly minQuote: Dec;
}

/** Markets resolved once. */
export interface Markets {
  contract(settle: string, name: string): Contract | undefined;
  contracts(settle: string): readonly Contract[];
  pair(name: string): Pair | undefined;
  pairPrice(pair: string): Dec | undefined;
  pairs(): readonly string[];
}

/** The default price step for a price of about 10^e: 10^(e − 5). */
function defaultTick(price: Dec): Dec {
  return new Dec(10).pow(Math.floor(Math.log10(price.toNumber())) - 5);
}

/**
 * Validates the markets the model trades into lookups.
 */
export function resolveMarkets(options: MarketsOptions = DEFAULT_MARKETS): Markets {
  const futures = new Map<string, Map<string, Contract>>();
  for (const [settle, table] of Object.entries(options.futures ?? {})) {
    if (!['usdt', 'btc', 'usd'].includes(settle))
      throw new InvalidInputError('a `markets.futures` key', settle, '"usdt", "btc" or "usd"');
    const contracts = new Map<string, Contract>();
    for (const [raw, spec] of Object.entries(table)) {
      const name = normalizeContract(raw, `a contract of \`markets.futures.${settle}\``);
      const where = `\`markets.futures.${settle}.${raw}\``;
      const price = parsePositiveDecimal(spec?.price, `${where}.price`);
      contracts.set(name, {
        name,
        settle,
        multiplier: parsePositiveDecimal(spec?.multiplier, `${where}.multiplier`),
        price,
        inverse: spec.inverse === true,
        tick: spec.tick === undefined ? defaultTick(price) : parsePositiveDecimal(spec.tick, `${where}.tick`),
      });
    }
    futures.set(settle, contracts);
  }
  const spot = new Map<string, Pair>();
  for (const [raw, spec] of Object.entries(options.spot ?? {})) {
    const name = normalizeContract(raw, 'a pair of `markets.spot`');
    const where = `\`markets.spot.${raw}`;
    const price = parsePositiveDecimal(spec?.price, `${where}.price\``);
    const precision = spec.amountPrecision ?? Math.max(0, Math.floor(Math.log10(price.toNumber())) + 2);
    if (typeof precision !== 'number' || !Number.isSafeInteger(precision) || precision < 0 || precision > 18) {
      throw new InvalidInputError(`${where}.amountPrecision\``, precision, 'a whole number of decimals from 0 to 18');
    }
    const [base, quote] = name.split('_') as [string, string];
    spot.set(name, {
      name,
      base,
      quote,
      price,
      tick: spec.tick === undefined ? defaultTick(price) : parsePositiveDecimal(spec.tick, `${where}.tick\``),
      amountPrecision: precision,
      minQuote: spec.minQuote === undefined ? new Dec(1) : parsePositiveDecimal(spec.minQuote, `${where}.minQuote\``),
    });
  }
  return {
    contract: (settle, name) => futures.get(settle)?.get(name),
    contracts: (settle) => [...(futures.get(settle)?.values() ?? [])],
    pair: (name) => spot.get(name),
    pairPrice: (pair) => spot.get(pair)?.price,
    pairs: () => [...spot.keys()],
  };
}
