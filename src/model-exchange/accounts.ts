import { checkApiKeyCount } from '../catalog/validators.js';
import { InvalidInputError } from '../errors.js';
import type { FamilyKind } from '../rules/family.js';
import { checkFields, parseId } from '../internal/parse.js';
import type { DecimalInput } from '../internal/decimal.js';
import type { FamilySpec } from './core.js';
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
}

/**
 * An account of the accounts file.
 *
 * @example
 * ```ts
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * // A sub-account created yesterday at 10:00 UTC: tier 1 until 08:00 today (R8), then rated.
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
  /** When a sub-account was created (ISO text or epoch ms): tier 1 until 08:00 UTC the next day (R8). */
  readonly createdAt?: string | number;
  /** Its API keys, at most 20 (R11). */
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
 * // Below VIP 14, every account of the family is at tier 1 (R4).
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
  /** The family's VIP level (R4). @default 14 */
  readonly vipLevel?: number;
  /** `broker`: every account rated by its own ratio (R7). @default "standard" */
  readonly kind?: FamilyKind;
  /** Own 7-day volume from which an account takes max(own, aggregated) (R7). @default "1000000" */
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
export interface AccountsRead {
  readonly families: readonly FamilySpec[];
  readonly keys: ReadonlyMap<string, { readonly account: string; readonly secret: string }>;
  /** Starting balances of the accounts that give them. */
  readonly balances: ReadonlyMap<string, StartingBalances>;
}

/** The accounts used when none are given: one main account, key `main-key`, secret `main-secret`. */
export const DEFAULT_ACCOUNTS: AccountsFile = Object.freeze<AccountsFile>({
  families: [
    { id: 'default', accounts: [{ id: 'main', role: 'main', keys: [{ key: 'main-key', secret: 'main-secret' }] }] },
  ],
});

/**
 * Reads an accounts file (already parsed from JSON): families of a main account and sub-accounts
 * (or a broker's accounts), their VIP level, rating options and creation instants, and each
 * account's API keys. Keys are unique across the file. Every error names the field.
 */
export function readAccounts(file: unknown): AccountsRead {
  const f = file as Partial<AccountsFile>;
  if (typeof f !== 'object' || f === null || !Array.isArray(f.families) || f.families.length === 0) {
    throw new InvalidInputError(
      'the accounts file',
      file,
      'an object { "families": [ { "id", "accounts": [...] }, ... ] }',
    );
  }
  const keys = new Map<string, { account: string; secret: string }>();
  const balances = new Map<string, StartingBalances>();
  const familyIds = new Set<string>();
  const families = f.families.map((fam, i): FamilySpec => {
    const where = `\`families[${i}]\``;
    if (typeof fam !== 'object' || fam === null || !Array.isArray(fam.accounts))
      throw new InvalidInputError(where, fam, 'an object { "id", "accounts": [...] }');
    const known = new Set(['id', 'vipLevel', 'kind', 'ownVolumeThreshold', 'accounts']);
    for (const k of Object.keys(fam))
      if (!known.has(k)) throw new InvalidInputError(`a key of ${where}`, k, `one of ${[...known].join(', ')}`);
    const accounts = (fam.accounts as readonly AccountEntry[]).map((a, j) => {
      const at = `\`families[${i}].accounts[${j}]\``;
      if (typeof a !== 'object' || a === null)
        throw new InvalidInputError(at, a, 'an object { "id", "role"?, "createdAt"?, "keys"? }');
      checkFields(a, ['id', 'role', 'createdAt', 'keys', 'balances'], at);
      const id = parseId(a.id, `${at}.id`);
      const list = a.keys ?? [];
      if (!Array.isArray(list)) throw new InvalidInputError(`${at}.keys`, list, 'an array of { "key", "secret" }');
      // R11 checks a key about to be made against those that exist: the last of the list against
      // the others. An account without keys (`keys` is optional) has none to check.
      if (list.length > 0 && !checkApiKeyCount(list.length - 1).ok)
        throw new InvalidInputError(`${at}.keys`, `${list.length} keys`, 'at most 20 keys per account (R11)');
      list.forEach((k, n) => {
        if (typeof k?.key !== 'string' || k.key === '' || typeof k.secret !== 'string') {
          throw new InvalidInputError(
            `${at}.keys[${n}]`,
            k,
            'an object { "key": a non-empty string, "secret": a string }',
          );
        }
        checkFields(k, ['key', 'secret'], `${at}.keys[${n}]`);
        if (keys.has(k.key)) throw new InvalidInputError(`${at}.keys[${n}].key`, k.key, 'a key given once in the file');
        keys.set(k.key, { account: id, secret: k.secret });
      });
      if (a.balances !== undefined) balances.set(id, readBalances(a.balances, `${at}.balances`));
      return {
        id,
        ...(a.role === undefined ? {} : { role: a.role }),
        ...(a.createdAt === undefined ? {} : { createdAt: readInstant(a.createdAt, `${at}.createdAt`) }),
      };
    });
    const id = parseId(fam.id, `${where}.id`);
    if (familyIds.has(id)) throw new InvalidInputError(`${where}.id`, id, 'a family id given once');
    familyIds.add(id);
    return {
      id,
      accounts,
      ...(fam.vipLevel === undefined ? {} : { vipLevel: fam.vipLevel }),
      options: {
        ...(fam.kind === undefined ? {} : { kind: fam.kind }),
        ...(fam.ownVolumeThreshold === undefined ? {} : { ownVolumeThreshold: fam.ownVolumeThreshold }),
      },
    };
  });
  return { families, keys, balances };
}

/** An instant as ISO text with a zone, or epoch milliseconds. */
export function readInstant(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /(Z|[+-]\d\d:\d\d)$/.test(value) && Number.isFinite(Date.parse(value)))
    return Date.parse(value);
  throw new InvalidInputError(field, value, 'an ISO instant with a zone (2026-11-21T08:00:00Z) or epoch milliseconds');
}
