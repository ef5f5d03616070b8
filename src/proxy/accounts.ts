import { InvalidInputError } from '../errors.js';
import { DEFAULT_ACCOUNTS, type FamilySpec, readAccountsFile } from '../family-files/accounts-file.js';

/** The proxy's families and which account each API key belongs to. */
export interface ProxyAccounts {
  readonly families: readonly FamilySpec[];
  /** The account and family of each key (the `KEY` header). */
  readonly keys: ReadonlyMap<string, { readonly family: string; readonly account: string }>;
}

/**
 * Reads the proxy's accounts file: the model exchange's format (`{ "families": [...] }`, see
 * docs/model-exchange.md), so that one file serves both. A key's `secret` may be left out: the proxy
 * never signs, the engine does; an account's `balances`, which only the model uses, are left unread.
 * Without a file, the model's default account (KEY `main-key`).
 */
export function readProxyAccounts(file: unknown = DEFAULT_ACCOUNTS): ProxyAccounts {
  const read = readAccountsFile(file, { secrets: 'optional' });
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
