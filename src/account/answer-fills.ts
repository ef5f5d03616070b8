import { InvalidInputError } from '../errors.js';
import type { Classification } from '../catalog/catalog.js';
import { normalizeContract } from '../rules/contracts.js';
import type { AccountLimiter } from './limiter.js';
import { type FuturesTradeRow, type SpotTradeRow, recordTrades } from './trades.js';

// The answers whose rows are the account's fills (see docs/rules.md#r1, #r9, #r14).
const TRADES = new Set([
  'GET /futures/{settle}/my_trades',
  'GET /futures/{settle}/my_trades_timerange',
  'GET /spot/my_trades',
]);
// The answers that give contracts' quanto_multiplier.
const CONTRACTS = new Set(['GET /futures/{settle}/contracts', 'GET /futures/{settle}/contracts/{contract}']);

/**
 * What an adapter's client can tell of futures contracts: a multiplier it loaded, or one it asks
 * for; the fills of a round trip's `my_trades` answer are counted at it.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type ContractSource } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }] })
 * const contracts: ContractSource = { known: (contract) => (contract === 'BTC_USDT' ? '0.0001' : undefined) }
 * const trip = limiter.roundTrip('main', { method: 'GET', path: '/futures/usdt/my_trades', contracts })
 * const rows = [{ id: 1, contract: 'BTC_USDT', size: -20, price: '60000', role: 'taker' }]
 * await trip.run((t) => t.answered({ status: 200, headers: {}, body: rows }))
 * limiter.abuseHeadroom('main').traded // '120'
 * limiter.close()
 * ```
 */
export interface ContractSource {
  /** The `quanto_multiplier` of `contract` the client has loaded already (ccxt's markets), if any. */
  readonly known?: (contract: string) => string | undefined;
  /** Asks GET /futures/{settle}/contracts/{contract} through the client: its parsed answer. */
  readonly ask?: (settle: string, contract: string) => Promise<unknown>;
}

/**
 * The fills in the answers to an account limiter's requests, recorded with it as they come
 * (`recordTrades`: each trade id once): the rows of futures and spot `my_trades` and
 * `my_trades_timerange`. A futures fill is counted at its contract's multiplier, taken from the
 * contracts answers seen, from what the adapter's client loaded (`known`), or else asked for once
 * through it (`ask`). A fill that cannot be recorded is reported as an `error` event (source
 * `fills`): the client's answer is given back as it is.
 */
export class AnswerFills {
  private readonly multipliers = new Map<string, string>();

  constructor(private readonly limiter: AccountLimiter) {}

  /** Whether an answer to `c` is one {@link take} reads. */
  reads(c: Classification): boolean {
    const route = `${c.method} ${c.endpoint}`;
    return TRADES.has(route) || CONTRACTS.has(route);
  }

  /**
   * Reads a successful answer to `c` for `account` (its parsed body): contracts' multipliers, or
   * fills to record, a contract's multiplier learnt through `contracts` when no answer gave it.
   */
  async take(account: string, c: Classification, body: unknown, contracts: ContractSource = {}): Promise<void> {
    const route = `${c.method} ${c.endpoint}`;
    try {
      if (CONTRACTS.has(route)) this.learn(body);
      else if (TRADES.has(route) && Array.isArray(body) && body.length > 0)
        await this.record(account, c, body as readonly (FuturesTradeRow | SpotTradeRow)[], contracts);
    } catch (error) {
      this.limiter.reportError('fills', error);
    }
  }

  /** Remembers the `quanto_multiplier` of every contract of a contracts answer. */
  private learn(body: unknown): void {
    for (const c of Array.isArray(body) ? body : [body]) {
      if (typeof c !== 'object' || c === null) continue;
      const { name, quanto_multiplier: m } = c as { name?: unknown; quanto_multiplier?: unknown };
      if (typeof name === 'string' && (typeof m === 'string' || typeof m === 'number'))
        this.multipliers.set(normalizeContract(name), String(m));
    }
  }

  private async record(
    account: string,
    c: Classification,
    rows: readonly (FuturesTradeRow | SpotTradeRow)[],
    contracts: ContractSource,
  ): Promise<void> {
    const multipliers: Record<string, string> = {};
    if (c.market === 'futures') {
      for (const row of rows) {
        const name =
          typeof row === 'object' && row !== null && typeof (row as FuturesTradeRow).contract === 'string'
            ? normalizeContract((row as FuturesTradeRow).contract)
            : undefined;
        if (name === undefined || name in multipliers) continue;
        const m = await this.multiplierOf(c.settle ?? 'usdt', name, contracts);
        if (m !== undefined) multipliers[name] = m;
      }
    }
    recordTrades(this.limiter, account, rows, { multipliers });
  }

  private async multiplierOf(settle: string, contract: string, contracts: ContractSource): Promise<string | undefined> {
    const m = this.multipliers.get(contract) ?? contracts.known?.(contract);
    if (m !== undefined || contracts.ask === undefined) return m;
    this.learn(await contracts.ask(settle, contract));
    return this.multipliers.get(contract);
  }
}

/** An adapter's `fills` option, `{ everyMs }`: the poll's period in milliseconds, or undefined for none. */
export function readFillsPoll(fills: unknown): number | undefined {
  if (fills === undefined) return undefined;
  const everyMs = (fills as { everyMs?: unknown } | null)?.everyMs;
  if (typeof everyMs !== 'number' || !(everyMs > 0) || !Number.isFinite(everyMs)) {
    throw new InvalidInputError('`fills`', fills, 'an object { everyMs: a positive number of milliseconds }');
  }
  return everyMs;
}
