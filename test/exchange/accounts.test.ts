import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { readAccounts } from '../../src/exchange/accounts.js';

const keys = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, secret: 's' }));
const file = (accountKeys: unknown) => ({ families: [{ id: 'desk', accounts: [{ id: 'A', role: 'main' }, { id: 'B', role: 'sub', ...(accountKeys === undefined ? {} : { keys: accountKeys }) }] }] });

describe('readAccounts: API keys (R11)', () => {
  it('takes an account without keys, as `keys` is optional, and one with an empty list', () => {
    expect(readAccounts(file(undefined)).families[0]!.accounts.map((a) => a.id)).toEqual(['A', 'B']);
    expect(readAccounts(file([])).keys.size).toBe(0);
  });
  it('takes 20 keys on an account and refuses 21, naming the field', () => {
    expect(readAccounts(file(keys(20))).keys.size).toBe(20);
    expect(() => readAccounts(file(keys(21)))).toThrow(InvalidInputError);
    expect(() => readAccounts(file(keys(21)))).toThrow("`families[0].accounts[1]`.keys");
  });
});
