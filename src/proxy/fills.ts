import type { AccountLimiter } from '../account/limiter.js';
import { type FuturesTradeRow, type SpotTradeRow, recordTrades } from '../account/trades.js';
import type { Classification } from '../catalog/catalog.js';

/** Asks the upstream for a futures contract (a public request): its JSON, or undefined. */
export type ContractLookup = (settle: string, contract: string) => Promise<unknown>;

const MY_TRADES = new Set(['GET /futures/{settle}/my_trades', 'GET /spot/my_trades']);
const CONTRACTS = new Set(['GET /futures/{settle}/contracts', 'GET /futures/{settle}/contracts/{contract}']);

/**
 * The fills of the `my_trades` answers the proxy relays, recorded with `recordTrades` (R1, R9,
 * R14: each trade id once). A futures fill's USDT needs its contract's `quanto_multiplier`: taken
 * from the contract answers the proxy relays, else asked of the upstream once per contract.
 */
export class FillRecorder {
  private readonly multipliers = new Map<string, string>();
  private readonly lookup: ContractLookup;
  private readonly onError: (error: unknown) => void;

  constructor(lookup: ContractLookup, onError: (error: unknown) => void) {
    this.lookup = lookup;
    this.onError = onError;
  }

  /** An answer relayed: contracts are noted, fills recorded (a futures fill once its multiplier is known). */
  relayed(limiter: AccountLimiter, account: string | null, c: Classification, status: number, body: Buffer): void {
    const key = `${c.method} ${c.endpoint}`;
    if (status < 200 || status > 299 || (!MY_TRADES.has(key) && !CONTRACTS.has(key))) return;
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      return;
    }
    if (CONTRACTS.has(key)) {
      for (const contract of Array.isArray(json) ? json : [json]) this.note(c.settle!, contract);
      return;
    }
    if (account === null || !Array.isArray(json) || json.length === 0) return;
    void this.record(limiter, account, c, json as (FuturesTradeRow | SpotTradeRow)[]).catch(this.onError);
  }

  private async record(
    limiter: AccountLimiter,
    account: string,
    c: Classification,
    rows: readonly (FuturesTradeRow | SpotTradeRow)[],
  ): Promise<void> {
    if (c.market !== 'futures') {
      recordTrades(limiter, account, rows);
      return;
    }
    const settle = c.settle!;
    const names = new Set(rows.map((r) => String((r as Partial<FuturesTradeRow>).contract).toUpperCase()));
    for (const name of names) {
      if (!this.multipliers.has(`${settle}:${name}`)) this.note(settle, await this.lookup(settle, name));
    }
    const multipliers: Record<string, string> = {};
    for (const name of names) {
      const m = this.multipliers.get(`${settle}:${name}`);
      if (m !== undefined) multipliers[name] = m;
    }
    recordTrades(limiter, account, rows, { multipliers });
  }

  private note(settle: string, contract: unknown): void {
    const c = contract as { name?: unknown; quanto_multiplier?: unknown } | null;
    if (typeof c !== 'object' || c === null || typeof c.name !== 'string' || typeof c.quanto_multiplier !== 'string')
      return;
    this.multipliers.set(`${settle}:${c.name.toUpperCase()}`, c.quanto_multiplier);
  }
}
