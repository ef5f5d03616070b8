import { InvalidInputError } from '../errors.js';
import { normalizeContract } from '../rules/contracts.js';

/**
 * Shares of orders that fill at once as maker and as taker; the rest stay open.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * // Every BTC_USDT order stays open; every ETH_USDT order fills at once as taker.
 * const exchange = await startModelExchange({ port: 0, fills: { instruments: { BTC_USDT: { maker: 0, taker: 0 }, ETH_USDT: { maker: 0, taker: 1 } } } })
 * const place = async (contract: string) => (await fetch(`${exchange.url}/api/v4/futures/usdt/orders`, {
 *   method: 'POST', headers: { KEY: 'main-key' }, body: JSON.stringify({ contract, size: 1, price: '100' }),
 * })).json()
 * ;(await place('BTC_USDT')).status // 'open'
 * ;(await place('ETH_USDT')).finish_as // 'filled'
 * await exchange.close()
 * ```
 */
export interface FillShares {
  /** @default 0.2 */
  readonly maker?: number;
  /** @default 0.05 */
  readonly taker?: number;
}

/**
 * Options of the model's fills: the same seed and the same requests give the same fills.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * // Every order fills at once as taker: each placement is a trade of `my_trades`.
 * const exchange = await startModelExchange({ port: 0, fills: { seed: 7, maker: 0, taker: 1 } })
 * const headers = { KEY: 'main-key' }
 * await fetch(`${exchange.url}/api/v4/futures/usdt/orders`, { method: 'POST', headers, body: JSON.stringify({ contract: 'BTC_USDT', size: 2, price: '60000' }) })
 * const trades = await (await fetch(`${exchange.url}/api/v4/futures/usdt/my_trades?contract=BTC_USDT`, { headers })).json()
 * trades.map((t: { size: number; role: string }) => [t.size, t.role]) // [[2, 'taker']]
 * await exchange.close()
 * ```
 */
export interface FillModelOptions extends FillShares {
  /** Seed of the draws: the same seed and the same requests give the same fills. @default 1 */
  readonly seed?: number;
  /** Shares per futures contract or spot pair, replacing the defaults for it. */
  readonly instruments?: Readonly<Record<string, FillShares>>;
}

/** What becomes of an order when it is placed. */
export type FillOutcome = 'maker' | 'taker' | 'open';

/**
 * The model's fills, seeded: each order placed draws one number in [0, 1); below the taker share
 * it fills at once in full as taker, below taker + maker shares it fills at once in full as maker
 * (a resting order met by the model's counterparty), otherwise it stays open until amended or
 * cancelled. Fills are at the order's price (a market order's at the contract's reference
 * price). Draws come from a 32-bit generator (mulberry32) in the order orders arrive.
 */
export class FillModel {
  private state: number;
  private readonly maker: number;
  private readonly taker: number;
  private readonly instruments = new Map<string, { maker: number; taker: number }>();

  constructor(options: FillModelOptions = {}) {
    const seed = options.seed ?? 1;
    if (typeof seed !== 'number' || !Number.isSafeInteger(seed))
      throw new InvalidInputError('`fills.seed`', seed, 'a whole number');
    this.state = seed >>> 0;
    ({ maker: this.maker, taker: this.taker } = readShares(options, 'fills', { maker: 0.2, taker: 0.05 }));
    for (const [name, shares] of Object.entries(options.instruments ?? {})) {
      this.instruments.set(
        normalizeContract(name, 'a key of `fills.instruments`'),
        readShares(shares, `fills.instruments.${name}`, { maker: this.maker, taker: this.taker }),
      );
    }
  }

  /** The outcome of the next order placed on `instrument`. */
  draw(instrument: string): FillOutcome {
    const shares = this.instruments.get(instrument);
    const u = this.next();
    const taker = shares?.taker ?? this.taker;
    if (u < taker) return 'taker';
    return u < taker + (shares?.maker ?? this.maker) ? 'maker' : 'open';
  }

  private next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
}

function readShares(
  o: FillShares,
  field: string,
  defaults: { maker: number; taker: number },
): { maker: number; taker: number } {
  if (typeof o !== 'object' || o === null)
    throw new InvalidInputError(`\`${field}\``, o, 'an object { maker?, taker? }');
  const maker = o.maker ?? defaults.maker;
  const taker = o.taker ?? defaults.taker;
  for (const [k, v] of [
    ['maker', maker],
    ['taker', taker],
  ] as const) {
    if (typeof v !== 'number' || !(v >= 0 && v <= 1))
      throw new InvalidInputError(`\`${field}.${k}\``, v, 'a share from 0 to 1');
  }
  if (maker + taker > 1)
    throw new InvalidInputError(`\`${field}\``, o, 'maker and taker shares that add up to at most 1');
  return { maker, taker };
}
