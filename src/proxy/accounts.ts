import { InvalidInputError } from '../errors.js';
import { DEFAULT_ACCOUNTS, readAccounts } from '../model-exchange/accounts.js';
import type { FamilySpec } from '../model-exchange/core.js';

/** The proxy's families and which account each API key belongs to. */
export interface ProxyAccounts {
  readonly families: readonly FamilySpec[];
  /** The account and family of each key (the `KEY` header). */
  readonly keys: ReadonlyMap<string, { readonly family: string; readonly account: string }>;
}

/**
 * Reads the proxy's accounts file: the model exchange's format (`{ "families": [...] }`, see
 * docs/model-exchange.md), so that one file serves both. A key's `secret` may be left out: the proxy
 * never signs, the engine does. Without a file, the model's default account (KEY `main-key`).
 */
export function readProxyAccounts(file: unknown = DEFAULT_ACCOUNTS): ProxyAccounts {
  const read = readAccounts(withoutSecrets(file));
  const familyOf = new Map<string, string>();
  for (const f of read.families) {
    for (const a of f.accounts) {
      // One limiter per family counts an account: an id in two families would be two budgets.
      if (familyOf.has(a.id))
        throw new InvalidInputError('an account id of the accounts file', a.id, 'an id given once in the file');
      familyOf.set(a.id, f.id);
    }
  }
  const keys = new Map<string, { family: string; account: string }>();
  for (const [key, { account }] of read.keys) keys.set(key, { family: familyOf.get(account)!, account });
  return { families: read.families, keys };
}

/** The file with an empty secret for every key that has none, as the model's reader wants one. */
function withoutSecrets(file: unknown): unknown {
  const f = file as { families?: unknown };
  if (typeof f !== 'object' || f === null || !Array.isArray(f.families)) return file;
  return {
    ...f,
    families: f.families.map((fam: { accounts?: unknown }) =>
      typeof fam !== 'object' || fam === null || !Array.isArray(fam.accounts)
        ? fam
        : {
            ...fam,
            accounts: fam.accounts.map((a: { keys?: unknown }) =>
              typeof a !== 'object' || a === null || !Array.isArray(a.keys)
                ? a
                : {
                    ...a,
                    keys: a.keys.map((k: { secret?: unknown }) =>
                      typeof k === 'object' &&
                      k !== null &&
                      typeof (k as { key?: unknown }).key === 'string' &&
                      (k as { key: string }).key !== '' &&
                      k.secret === undefined
                        ? { ...k, secret: '' }
                        : k,
                    ),
                  },
            ),
          },
    ),
  };
}
