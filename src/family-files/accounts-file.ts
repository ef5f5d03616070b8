import { checkApiKeyCount } from '../catalog/validators.js';
import { InvalidInputError } from '../errors.js';
import { checkFields, parseId } from '../internal/parse.js';
import type { DecimalInput } from '../internal/decimal.js';
import type { FamilyConfig, FamilyKind, FamilyOptions } from '../rules/family.js';
import type { TimelineAccount } from '../rules/timeline/timeline.js';
import { readInstant } from './instant.js';

/** A family of accounts as the exchange holds it: a main account and sub-accounts, or a broker's. */
export interface FamilySpec {
  /** A name for the family. */
  readonly id: string;
  readonly accounts: readonly TimelineAccount[];
  /** The family's VIP level (see docs/rules.md#r4). @default the level the rulebook tiers from: Gate 14, OKX 5 */
  readonly vipLevel?: number;
  /** How its accounts are rated (see docs/rules.md#r7): threshold, broker, tiers, weights, coefficients. */
  readonly options?: FamilyOptions | FamilyConfig;
}

/** How a reader of the accounts file reads what only it uses. */
export interface AccountsFileReading {
  /** Whether every key must carry its `secret` (the model exchange signs; the proxy never does). */
  readonly secrets: 'required' | 'optional';
  /** Reads an account's `balances` where it gives them, `field` naming it; ignored when left out. */
  readonly balances?: (id: string, value: unknown, field: string) => void;
}

/** The accounts file read: the families, and the account and secret (`''` when left out) of each key. */
export interface FamiliesRead {
  readonly families: readonly FamilySpec[];
  readonly keys: ReadonlyMap<string, KeyOf>;
}

/** What an API key stands for: its account, its secret and (OKX's keys) its passphrase. */
export interface KeyOf {
  readonly account: string;
  readonly secret: string;
  /** OKX's `OK-ACCESS-PASSPHRASE`, checked where given. */
  readonly passphrase?: string;
}

/** The accounts used when none are given: one main account, key `main-key`, secret `main-secret`. */
export const DEFAULT_ACCOUNTS = Object.freeze({
  families: [
    { id: 'default', accounts: [{ id: 'main', role: 'main', keys: [{ key: 'main-key', secret: 'main-secret' }] }] },
  ],
} as const);

interface FamilyEntry {
  readonly id?: unknown;
  readonly vipLevel?: number;
  readonly kind?: FamilyKind;
  readonly ownVolumeThreshold?: DecimalInput;
  readonly accounts?: unknown;
}

interface Entry {
  readonly id?: unknown;
  readonly role?: 'main' | 'sub';
  readonly createdAt?: unknown;
  readonly keys?: unknown;
  readonly balances?: unknown;
}

/**
 * Reads an accounts file (already parsed from JSON), the one format the model exchange and the
 * proxy share (docs/model-exchange.md): families of a main account and sub-accounts (or a broker's
 * accounts), their VIP level, rating options and creation instants, and each account's API keys.
 * Keys are unique across the file, at most 20 an account. Every error names the field.
 */
export function readAccountsFile(file: unknown, reading: AccountsFileReading): FamiliesRead {
  const f = file as { families?: unknown };
  if (typeof f !== 'object' || f === null || !Array.isArray(f.families) || f.families.length === 0) {
    throw new InvalidInputError(
      'the accounts file',
      file,
      'an object { "families": [ { "id", "accounts": [...] }, ... ] }',
    );
  }
  const keys = new Map<string, KeyOf>();
  const familyIds = new Set<string>();
  const families = (f.families as readonly FamilyEntry[]).map((fam, i): FamilySpec => {
    const where = `\`families[${i}]\``;
    if (typeof fam !== 'object' || fam === null || !Array.isArray(fam.accounts))
      throw new InvalidInputError(where, fam, 'an object { "id", "accounts": [...] }');
    const known = new Set(['id', 'vipLevel', 'kind', 'ownVolumeThreshold', 'accounts']);
    for (const k of Object.keys(fam))
      if (!known.has(k)) throw new InvalidInputError(`a key of ${where}`, k, `one of ${[...known].join(', ')}`);
    const accounts = (fam.accounts as readonly Entry[]).map((a, j) => {
      const at = `\`families[${i}].accounts[${j}]\``;
      if (typeof a !== 'object' || a === null)
        throw new InvalidInputError(at, a, 'an object { "id", "role"?, "createdAt"?, "keys"? }');
      checkFields(a, ['id', 'role', 'createdAt', 'keys', 'balances'], at);
      const id = parseId(a.id, `${at}.id`);
      readKeys(a.keys ?? [], id, at, reading, keys);
      if (a.balances !== undefined) reading.balances?.(id, a.balances, `${at}.balances`);
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
  return { families, keys };
}

/** Reads an account's keys into `keys`: each a non-empty `key` given once in the file, with its secret. */
function readKeys(
  list: unknown,
  account: string,
  at: string,
  reading: AccountsFileReading,
  keys: Map<string, KeyOf>,
): void {
  if (!Array.isArray(list)) throw new InvalidInputError(`${at}.keys`, list, 'an array of { "key", "secret" }');
  // The API key count is checked on a key about to be made against those that exist: the last of
  // the list against the others. An account without keys (`keys` is optional) has none to check.
  if (list.length > 0 && !checkApiKeyCount(list.length - 1).ok)
    throw new InvalidInputError(`${at}.keys`, `${list.length} keys`, 'at most 20 keys per account (R11)');
  list.forEach((k: { key?: unknown; secret?: unknown; passphrase?: unknown } | null, n) => {
    const secret = reading.secrets === 'optional' && k?.secret === undefined ? '' : k?.secret;
    const passphrase = k?.passphrase;
    if (
      typeof k?.key !== 'string' ||
      k.key === '' ||
      typeof secret !== 'string' ||
      (passphrase !== undefined && typeof passphrase !== 'string')
    ) {
      throw new InvalidInputError(
        `${at}.keys[${n}]`,
        k,
        'an object { "key": a non-empty string, "secret": a string, "passphrase"?: a string }',
      );
    }
    checkFields(k, ['key', 'secret', 'passphrase'], `${at}.keys[${n}]`);
    if (keys.has(k.key)) throw new InvalidInputError(`${at}.keys[${n}].key`, k.key, 'a key given once in the file');
    keys.set(k.key, { account, secret, ...(passphrase === undefined ? {} : { passphrase }) });
  });
}
