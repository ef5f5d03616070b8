import {
  DEFAULT_ACCOUNTS as DEFAULT_ACCOUNTS_FILE,
  type FamiliesRead,
  readAccountsFile,
} from '../family-files/accounts-file.js';
import type { DecimalInput } from '../internal/decimal.js';
import type { FamilyKind } from '../rules/family.js';
import { type StartingBalances, readBalances } from './funds.js';

/**
 * An API key of an account: what the `KEY` header carries, and the secret that signs (section 5).
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * const accounts = { families: [{ id: 'desk', accounts: [{ id: 'A', role: 'main' as const, keys: [{ key: 'a-key', secret: 'a-secret' }] }] }] }
 * const exchange = await startModelExchange({ port: 0, accounts })
 * const orders = `${exchange.url}/api/v4/futures/usdt/orders`
 * const body = JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' })
 * const known = await fetch(orders, { method: 'POST', headers: { KEY: 'a-key' }, body })
 * known.status // 200
 * const unknown = await fetch(orders, { method: 'POST', headers: { KEY: 'main-key' }, body })
 * unknown.status // 401
 * await unknown.json() // { label: 'INVALID_KEY', message: 'API key "main-key" is not known' }
 * await exchange.close()
 * ```
 */
export interface ApiKey {
  readonly key: string;
  readonly secret: string;
  /** OKX's passphrase (`OK-ACCESS-PASSPHRASE`), checked when given; Gate's keys have none. */
  readonly passphrase?: string;
}

/**
 * An account of the accounts file.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * // A sub-account created yesterday at 10:00 UTC: tier 1 until 08:00 today (see docs/rules.md#r8), then rated.
 * const createdAt = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10) + 'T10:00:00Z'
 * const exchange = await startModelExchange({ port: 0, accounts: { families: [{ id: 'desk', accounts: [
 *   { id: 'A', role: 'main', keys: [{ key: 'a-key', secret: 'a-secret' }] },
 *   { id: 'B', role: 'sub', createdAt, keys: [{ key: 'b-key', secret: 'b-secret' }] },
 * ] }] } })
 * exchange.stats().accounts.map((a) => [a.account, a.family]) // [['A', 'desk'], ['B', 'desk']]
 * await exchange.close()
 * ```
 */
export interface AccountEntry {
  readonly id: string;
  /** `main` for the family's main account (at most one). @default "sub" */
  readonly role?: 'main' | 'sub';
  /** When a sub-account was created (ISO text or epoch ms): tier 1 until 08:00 UTC the next day (see docs/rules.md#r8). */
  readonly createdAt?: string | number;
  /** Its API keys, at most 20 (see docs/rules.md#r11). */
  readonly keys?: readonly ApiKey[];
  /** Its starting balances: spot by currency, futures by settlement currency. @default DEFAULT_BALANCES */
  readonly balances?: StartingBalances;
}

/**
 * A family of the accounts file.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * // Below VIP 14, every account of the family is at tier 1 (see docs/rules.md#r4).
 * const exchange = await startModelExchange({ port: 0, accounts: { families: [
 *   { id: 'desk', vipLevel: 5, kind: 'standard', ownVolumeThreshold: '500000', accounts: [{ id: 'A', role: 'main', keys: [{ key: 'a-key', secret: 'a-secret' }] }] },
 * ] } })
 * const a = exchange.stats().accounts[0]!
 * a.vipLevel // 5
 * a.tier // 1
 * a.limit // 100
 * await exchange.close()
 * ```
 */
export interface FamilyEntry {
  readonly id: string;
  /** The family's VIP level (see docs/rules.md#r4). @default the level the exchange tiers from: Gate 14, OKX 5 */
  readonly vipLevel?: number;
  /** `broker`: every account rated by its own ratio (see docs/rules.md#r7). @default "standard" */
  readonly kind?: FamilyKind;
  /** Own 7-day volume from which an account takes max(own, aggregated) (see docs/rules.md#r7). @default "1000000" */
  readonly ownVolumeThreshold?: DecimalInput;
  readonly accounts: readonly AccountEntry[];
}

/**
 * The accounts file: `{ "families": [...] }`, the `accounts` option of {@link startModelExchange}
 * (or the file given to `traderatio exchange --accounts`).
 *
 * @example
 * ```ts
 * import { type AccountsFile, startModelExchange } from 'traderatio/model-exchange'
 *
 * const accounts: AccountsFile = { families: [
 *   { id: 'desk', accounts: [
 *     { id: 'A', role: 'main', keys: [{ key: 'a-key', secret: 'a-secret' }] },
 *     { id: 'A1', keys: [{ key: 'a1-key', secret: 'a1-secret' }] },
 *   ] },
 *   { id: 'fund', accounts: [{ id: 'F', role: 'main', keys: [{ key: 'f-key', secret: 'f-secret' }] }] },
 * ] }
 * const exchange = await startModelExchange({ port: 0, accounts })
 * exchange.stats().accounts.map((a) => a.account) // ['A', 'A1', 'F']
 * await exchange.close()
 * ```
 */
export interface AccountsFile {
  readonly families: readonly FamilyEntry[];
}

/** The accounts file read: families for the core, and keys to accounts. */
export interface AccountsRead extends FamiliesRead {
  /** Starting balances of the accounts that give them. */
  readonly balances: ReadonlyMap<string, StartingBalances>;
}

/** The accounts used when none are given: one main account, key `main-key`, secret `main-secret`. */
export const DEFAULT_ACCOUNTS: AccountsFile = DEFAULT_ACCOUNTS_FILE;

/**
 * Reads an accounts file (already parsed from JSON) as the model exchange uses it: every key with
 * its secret, and the starting balances of the accounts that give them. Every error names the field.
 */
export function readAccounts(file: unknown): AccountsRead {
  const balances = new Map<string, StartingBalances>();
  const read = readAccountsFile(file, {
    secrets: 'required',
    balances: (id, value, field) => balances.set(id, readBalances(value, field)),
  });
  return { ...read, balances };
}
