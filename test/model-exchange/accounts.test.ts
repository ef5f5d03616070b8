import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { readAccounts } from '../../src/model-exchange/accounts.js';

const keys = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, secret: 's' }));
const file = (accountKeys: unknown) => ({
  families: [
    {
      id: 'desk',
      accounts: [
        { id: 'A', role: 'main' },
        { id: 'B', role: 'sub', ...(accountKeys === undefined ? {} : { keys: accountKeys }) },
      ],
    },
  ],
});

describe('readAccounts: API keys (see docs/rules.md#r11)', () => {
  it('takes an account without keys, as `keys` is optional, and one with an empty list', () => {
    expect(readAccounts(file(undefined)).families[0]!.accounts.map((a) => a.id)).toEqual(['A', 'B']);
    expect(readAccounts(file([])).keys.size).toBe(0);
  });
  it('takes 20 keys on an account and refuses 21, naming the field', () => {
    expect(readAccounts(file(keys(20))).keys.size).toBe(20);
    expect(() => readAccounts(file(keys(21)))).toThrow(InvalidInputError);
    expect(() => readAccounts(file(keys(21)))).toThrow('`families[0].accounts[1]`.keys');
  });
});

describe('readAccounts: the file as a whole', () => {
  const account = (extra: object = {}, key: object = {}) => ({
    id: 'A',
    role: 'main',
    keys: [{ key: 'k', secret: 's', ...key }],
    ...extra,
  });
  it('refuses a family id given twice, which would give two families one budget', () => {
    const twice = {
      families: [
        { id: 'f', accounts: [account()] },
        { id: 'f', accounts: [{ id: 'B', role: 'main' }] },
      ],
    };
    expect(() => readAccounts(twice)).toThrow('Expected `families[1]`.id to be a family id given once, got "f"');
  });
  it('refuses an unknown field of an account or a key, a __proto__ key included, rather than ignore it', () => {
    expect(() => readAccounts({ families: [{ id: 'f', accounts: [account({ rol: 'sub' })] }] })).toThrow(
      'Unknown field `rol` in `families[0].accounts[0]`: did you mean `role`?',
    );
    expect(() =>
      readAccounts(
        JSON.parse(
          '{ "families": [{ "id": "f", "accounts": [{ "id": "A", "keys": [{ "key": "k", "secret": "s", "__proto__": {} }] }] }] }',
        ),
      ),
    ).toThrow('Unknown field `__proto__` in `families[0].accounts[0]`.keys[0]');
    expect(() => readAccounts({ families: [{ id: 'f', accounts: [account({}, { secrets: 'x' })] }] })).toThrow(
      'Unknown field `secrets` in `families[0].accounts[0]`.keys[0]: did you mean `secret`?',
    );
  });
});
