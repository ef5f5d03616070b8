import { InvalidInputError } from '../errors.js';
import { Dec } from '../rules/decimal.js';
import { normalizeContract } from '../rules/contracts.js';
import { parsePositiveDecimal } from '../rules/parse.js';

/**
 * A futures contract the model trades: its quanto multiplier and reference price.
 *
 * @example
 * ```ts
 * import { startExchange } from 'traderatio/exchange'
 *
 * const exchange = await startExchange({ port: 0, markets: { futures: { usdt: { XRP_USDT: { multiplier: '10', price: '0.5' } } } } })
 * const contract = await (await fetch(`${exchange.url}/api/v4/futures/usdt/contracts/XRP_USDT`)).json()
 * contract.quanto_multiplier // '10'
 * contract.mark_price // '0.5'
 * await exchange.close()
 * ```
 */
export interface ContractSpec {
  /** Contract size: one contract is `multiplier` of the base currency (USD for an inverse one). */
  readonly multiplier: string;
  /** The price a market order fills at, and that `contracts` shows as mark price. */
  readonly price: string;
  /** Inverse contracts (settled in BTC or USD) are quoted in USD: a contract is `multiplier` USD. @default false */
  readonly inverse?: boolean;
}

/**
 * What the model trades: futures contracts per settlement currency, and spot currency pairs. Given,
 * it replaces the default markets (BTC, ETH, SOL and DOGE against USDT; BTC_USD inverse).
 *
 * @example
 * ```ts
 * import { startExchange } from 'traderatio/exchange'
 *
 * const exchange = await startExchange({ port: 0, markets: {
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
  readonly spot?: Readonly<Record<string, { readonly price: string }>>;
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
}

/** Markets resolved once. */
export interface Markets {
  contract(settle: string, name: string): Contract | undefined;
  contracts(settle: string): readonly Contract[];
  pairPrice(pair: string): Dec | undefined;
  pairs(): readonly string[];
}

/**
 * Validates the markets the model trades into lookups.
 */
export function resolveMarkets(options: MarketsOptions = DEFAULT_MARKETS): Markets {
  const futures = new Map<string, Map<string, Contract>>();
  for (const [settle, table] of Object.entries(options.futures ?? {})) {
    if (!['usdt', 'btc', 'usd'].includes(settle)) throw new InvalidInputError('a `markets.futures` key', settle, '"usdt", "btc" or "usd"');
    const contracts = new Map<string, Contract>();
    for (const [raw, spec] of Object.entries(table)) {
      const name = normalizeContract(raw, `a contract of \`markets.futures.${settle}\``);
      const where = `\`markets.futures.${settle}.${raw}\``;
      contracts.set(name, {
        name,
        settle,
        multiplier: parsePositiveDecimal(spec?.multiplier, `${where}.multiplier`),
        price: parsePositiveDecimal(spec?.price, `${where}.price`),
        inverse: spec.inverse === true,
      });
    }
    futures.set(settle, contracts);
  }
  const spot = new Map<string, Dec>();
  for (const [raw, spec] of Object.entries(options.spot ?? {})) {
    spot.set(normalizeContract(raw, 'a pair of `markets.spot`'), parsePositiveDecimal(spec?.price, `\`markets.spot.${raw}.price\``));
  }
  return {
    contract: (settle, name) => futures.get(settle)?.get(name),
    contracts: (settle) => [...(futures.get(settle)?.values() ?? [])],
    pairPrice: (pair) => spot.get(pair),
    pairs: () => [...spot.keys()],
  };
}
